# FrcBpf.cmake - build a BPF object and its bpftool skeleton header. Owner: bpf.
#
#   frc_bpf_skeleton(NAME SOURCE)
#
# compiles SOURCE with clang -O2 -g -target bpf for the architecture CMake builds for
# (CMAKE_SYSTEM_PROCESSOR: x86_64 -> x86, aarch64/arm64 -> arm64, so a cross build with
# cmake/aarch64-linux-gnu.cmake gets the arm64 object: PT_REGS_PARM2 then reads x1, not
# rsi), generates NAME.skel.h with `bpftool gen skeleton`, and defines the INTERFACE
# target NAME_skel whose include directory holds NAME.skel.h (and the source dir, for
# the shared event header). Link it to embed the object in a program.
include_guard(GLOBAL)

find_program(FRC_BPF_CLANG NAMES clang clang-14 REQUIRED)
find_program(FRC_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)
find_program(FRC_LLVM_STRIP NAMES llvm-strip llvm-strip-14)

# The BPF target arch and the target's UAPI asm/ include dir, computed where they are used
# (a function), so a caller in any directory gets them despite include_guard(GLOBAL).
function(_frc_bpf_arch OUT_ARCH OUT_ASM_INCLUDE)
	if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|amd64|AMD64)$")
		set(_arch x86)
		set(_multiarch x86_64-linux-gnu)
	elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
		set(_arch arm64)
		set(_multiarch aarch64-linux-gnu)
	else()
		message(FATAL_ERROR "frc_bpf_skeleton: no BPF target arch for ${CMAKE_SYSTEM_PROCESSOR}")
	endif()
	# asm/ptrace.h gives pt_regs (x86) / user_pt_regs (arm64).
	set(_inc /usr/include/${_multiarch})
	if(NOT EXISTS ${_inc}/asm/ptrace.h)
		message(FATAL_ERROR "frc_bpf_skeleton: ${_inc}/asm/ptrace.h missing "
			"(Debian: linux-libc-dev for ${_multiarch})")
	endif()
	set(${OUT_ARCH} ${_arch} PARENT_SCOPE)
	set(${OUT_ASM_INCLUDE} ${_inc} PARENT_SCOPE)
endfunction()

function(frc_bpf_skeleton NAME SOURCE)
	_frc_bpf_arch(FRC_BPF_ARCH FRC_BPF_ASM_INCLUDE)
	get_filename_component(_src ${SOURCE} ABSOLUTE)
	get_filename_component(_srcdir ${_src} DIRECTORY)
	set(_outdir ${CMAKE_CURRENT_BINARY_DIR}/${NAME}.skel)
	set(_obj ${_outdir}/${NAME}.bpf.o)
	set(_skel ${_outdir}/${NAME}.skel.h)
	file(MAKE_DIRECTORY ${_outdir})
	# The header next to the source is the only local dependency besides the source.
	file(GLOB _hdrs ${_srcdir}/*.h)
	if(FRC_LLVM_STRIP)
		# DWARF is not needed at run time; BTF (kept) is what libbpf uses.
		set(_strip COMMAND ${FRC_LLVM_STRIP} -g ${_obj})
	else()
		set(_strip "")
	endif()
	add_custom_command(OUTPUT ${_obj}
		COMMAND ${FRC_BPF_CLANG} -O2 -g -target bpf -D__TARGET_ARCH_${FRC_BPF_ARCH}
			-Wall -Werror -I${_srcdir} -I${FRC_BPF_ASM_INCLUDE}
			-c ${_src} -o ${_obj}
		${_strip}
		DEPENDS ${_src} ${_hdrs}
		COMMENT "BPF ${NAME}.bpf.o (${FRC_BPF_ARCH})"
		VERBATIM)
	add_custom_command(OUTPUT ${_skel}
		COMMAND ${FRC_BPFTOOL} gen skeleton ${_obj} name ${NAME} > ${_skel}
		DEPENDS ${_obj}
		COMMENT "bpftool skeleton ${NAME}.skel.h"
		VERBATIM)
	add_custom_target(${NAME}_skel_gen DEPENDS ${_skel})
	add_library(${NAME}_skel INTERFACE)
	add_dependencies(${NAME}_skel ${NAME}_skel_gen)
	target_include_directories(${NAME}_skel INTERFACE ${_outdir} ${_srcdir})
endfunction()
