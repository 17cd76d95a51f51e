# Compiler flags shared by every target.
#
# -ffp-contract=off: the FPS meter's floating point must give the same bits on x86-64 and
# arm64 (captures and golden files are compared byte for byte); GCC would otherwise fuse
# a*b+c into an FMA on arm64 only.
add_compile_options(-Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter
	-ffp-contract=off -fno-strict-aliasing)
if(FRC_WERROR)
	add_compile_options(-Werror)
endif()
if(FRC_SANITIZE)
	add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
		-fno-omit-frame-pointer)
	add_link_options(-fsanitize=address,undefined)
endif()
if(FRC_STATIC)
	add_link_options(-static)
endif()
