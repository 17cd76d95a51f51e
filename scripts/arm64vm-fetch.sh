#!/usr/bin/env bash
# arm64vm-fetch.sh - get what the arm64 kernel test stage (tests/arm64vm) boots.
#
#   scripts/arm64vm-fetch.sh DIR
#
# Installs (Debian packages, --no-install-recommends, only when missing):
#   qemu-system-arm   qemu-system-aarch64, ~16 MB download
#   cpio              packs the guest's initramfs
# Downloads, WITHOUT installing, two arm64 packages and extracts the files it needs into DIR:
#   linux-image-<current>-cloud-arm64-unsigned:arm64   ~21 MB -> DIR/Image, DIR/config
#       <current> is what Debian's linux-image-cloud-arm64 metapackage depends on today
#   busybox-static:arm64                               ~0.8 MB -> DIR/busybox
# Installing them would be wrong on the amd64 build machine: the kernel package's hooks
# would write /boot and pull in initramfs-tools, and busybox-static:arm64 would replace the
# host's /bin/busybox. Only their files are needed.
#
# Never fails the build: when something cannot be had (no root, no network, no such
# package, a kernel without what framerec needs) it writes DIR/skip.txt saying why, and
# the arm64vm tests report SKIPPED with that reason. Idempotent: with DIR/Image and
# DIR/busybox present it downloads nothing. Owner: arm64vm.
# shellcheck disable=SC2015 # "a && b || skip": skip when either fails
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: arm64vm-fetch.sh DIR}
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)

# The kernel options the stage relies on: BPF + JIT, uprobes, BTF, the PL011 console, and
# the initramfs it boots from.
KERNEL_OPTIONS=(BPF_SYSCALL BPF_JIT UPROBES UPROBE_EVENTS BPF_EVENTS DEBUG_INFO_BTF
	SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE BLK_DEV_INITRD DEVTMPFS)

# install_packages (dpkg check, apt-get install of the missing ones, as root).
# shellcheck source=scripts/setup.sh
. "$top/scripts/setup.sh"

skip() {
	echo "arm64vm-fetch: $*; the arm64vm tests will be SKIPPED" >&2
	printf '%s\n' "$*" >"$dir/skip.txt"
	exit 0
}

# The current cloud kernel's package name, from the metapackage's Depends: never pinned.
kernel_package() {
	local dep
	dep=$(apt-cache show --no-all-versions linux-image-cloud-arm64:arm64 2>/dev/null |
		sed -n 's/^Depends: *\(linux-image-[^ ,]*\).*/\1/p' | head -n1)
	[ -n "$dep" ] && printf '%s-unsigned\n' "${dep%-unsigned}"
}

# download PACKAGE: the .deb into $dir/debs (apt-get download, no installation).
download() {
	mkdir -p "$dir/debs" && rm -f "$dir/debs/"*.deb &&
		(cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root "$1" >&2)
}

fetch_kernel() {
	local pkg
	pkg=$(kernel_package)
	if [ -z "$pkg" ]; then
		apt-get update -qq >&2 || true # the arm64 lists may be older than the architecture
		pkg=$(kernel_package)
	fi
	[ -n "$pkg" ] || skip "no linux-image-cloud-arm64:arm64 in apt (is the arm64 architecture enabled?)"
	echo "arm64vm-fetch: downloading $pkg:arm64 (not installed; its vmlinuz boots with -kernel)" >&2
	download "$pkg:arm64" || skip "apt-get download $pkg:arm64 failed"
	rm -rf "$dir/x" && mkdir "$dir/x" &&
		dpkg-deb --fsys-tarfile "$dir/debs/"*.deb | tar -x -C "$dir/x" ./boot ||
		skip "cannot extract /boot from $pkg"
	mv "$dir/x/boot/"config-* "$dir/config" && mv "$dir/x/boot/"vmlinuz-* "$dir/Image" ||
		skip "$pkg has no /boot/vmlinuz-* and config-*"
	echo "$pkg" >"$dir/kernel-package"
	rm -rf "$dir/x" "$dir/debs"
}

fetch_busybox() {
	echo "arm64vm-fetch: downloading busybox-static:arm64 (not installed: the guest's shell)" >&2
	download busybox-static:arm64 || skip "apt-get download busybox-static:arm64 failed"
	rm -rf "$dir/x" && mkdir "$dir/x" && dpkg-deb -x "$dir/debs/"*.deb "$dir/x" &&
		mv "$dir/x/bin/busybox" "$dir/busybox" || skip "cannot extract busybox-static:arm64"
	rm -rf "$dir/x" "$dir/debs"
}

rm -f "$dir/skip.txt"
(install_packages qemu-system-arm cpio) || skip "cannot install qemu-system-arm and cpio"
[ -s "$dir/Image" ] && [ -s "$dir/config" ] || fetch_kernel
[ -x "$dir/busybox" ] || fetch_busybox
for opt in "${KERNEL_OPTIONS[@]}"; do
	grep -qx "CONFIG_$opt=y" "$dir/config" ||
		skip "the kernel $(cat "$dir/kernel-package" 2>/dev/null) lacks CONFIG_$opt=y"
done
echo "arm64vm-fetch: $(cat "$dir/kernel-package" 2>/dev/null), busybox, qemu-system-aarch64 ready in $dir" >&2
