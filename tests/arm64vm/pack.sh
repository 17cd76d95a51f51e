#!/bin/sh
# pack.sh - build the arm64vm guest's initramfs (a newc cpio, uncompressed: it boots faster).
#
#   pack.sh OUT.cpio VMDIR SYSROOT FRAMEREC GAME LIBGUI LIBGUI_BTI LIBGUI_PAC INIT RUNS DUMPSYS
#
# VMDIR is what scripts/arm64vm-fetch.sh prepared (busybox, or skip.txt saying why not).
# The guest's tree:
#   /init, /etc/runs.txt, /bin/busybox, /bin/framerec (static), /bin/standin-game,
#   /bin/standin-dumpsys (static: the stand-in SurfaceFlinger's dumpsys)
#   /system/lib64/libgui.so (where Android keeps it), /system/lib64-bti/libgui.so and
#   /system/lib64-pac/libgui.so (the PAC/BTI builds, CMakeLists.txt)
#   /lib/ld-linux-aarch64.so.1 and /lib/aarch64-linux-gnu/*: the game's runtime libraries,
#   found by following DT_NEEDED from the game and libgui.so in SYSROOT
# When VMDIR has no busybox, OUT.cpio is not written and OUT.skip says why (the tests then
# report SKIPPED). Owner: arm64vm.
set -eu
out=$1 vm=$2 sysroot=$3 framerec=$4 game=$5 gui=$6 gui_bti=$7 gui_pac=$8 init=$9 runs=${10}
dumpsys=${11}

rm -f "$out" "$out.skip"
if [ ! -x "$vm/busybox" ]; then
	reason=$(cat "$vm/skip.txt" 2>/dev/null || echo "scripts/arm64vm-fetch.sh has not run")
	echo "$reason" >"$out.skip"
	echo "pack.sh: no guest: $reason" >&2
	exit 0
fi

root=$out.root
rm -rf "$root"
mkdir -p "$root/bin" "$root/etc" "$root/lib/aarch64-linux-gnu" "$root/system/lib64" \
	"$root/system/lib64-bti" "$root/system/lib64-pac"
cp "$init" "$root/init"
cp "$runs" "$root/etc/runs.txt"
cp "$vm/busybox" "$framerec" "$game" "$dumpsys" "$root/bin/"
cp "$gui" "$root/system/lib64/libgui.so"
cp "$gui_bti" "$root/system/lib64-bti/libgui.so"
cp "$gui_pac" "$root/system/lib64-pac/libgui.so"
chmod 755 "$root/init"

# needed FILE: its DT_NEEDED names, one a line.
needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
# Follow DT_NEEDED until no new library appears (libgui.so itself is already there).
todo="$game $gui"
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for lib in $(needed "$f"); do
			[ "$lib" = libgui.so ] && continue
			[ -e "$root/lib/aarch64-linux-gnu/$lib" ] && continue
			src=$sysroot/lib/$lib
			[ -e "$src" ] || {
				echo "pack.sh: $f needs $lib, not in $sysroot/lib" >&2
				exit 1
			}
			cp -L "$src" "$root/lib/aarch64-linux-gnu/$lib"
			next="$next $root/lib/aarch64-linux-gnu/$lib"
		done
	done
	todo=$next
done
# The loader, where the game's PT_INTERP names it.
cp -L "$sysroot/lib/ld-linux-aarch64.so.1" "$root/lib/ld-linux-aarch64.so.1"

# Sorted names, owned by root (the build may not run as root).
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
echo "pack.sh: $out: $(wc -c <"$out") bytes"
