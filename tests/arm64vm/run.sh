#!/bin/sh
# run.sh - boot the arm64 guest once under qemu-system-aarch64 and take back what it recorded.
#
#   run.sh boot BOOT WORKDIR INITRAMFS VMDIR      boot; WORKDIR/BOOT/out/ gets the guest's /out
#   run.sh extract CONSOLE.LOG DIR                 only the transfer: console -> DIR
#
# BOOT a57: -cpu cortex-a57; pac: -cpu max,pauth-impdef=on (pointer authentication and BTI,
# as on current phones; the default QARMA pauth of plain `max` is ~3x slower under TCG).
# TCG, no KVM: the machine is x86-64. `-nic none`: without it qemu wants efi-virtio.rom, a
# Recommends the set-up does not install. A hard timeout bounds a hung guest.
#
# The guest prints /out as base64 of a tar.gz between FRC-ARM64VM-BEGIN SIZE SHA256 and
# FRC-ARM64VM-END; anything missing or damaged (no markers, bad base64, wrong size or
# checksum, bad archive) is a FAIL naming what. Exit 77 (SKIPPED) with the reason when
# qemu, the kernel or the guest could not be had. Owner: arm64vm.
# shellcheck disable=SC2015,SC2046 # "a && b || fail": fail when either fails; set -- $(cmd) splits on purpose
set -u
TIMEOUT_S=150

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# extract CONSOLE DIR: the transfer, checked, unpacked into DIR/out.
extract() {
	console=$1 dir=$2
	tr -d '\r' <"$console" >"$dir/console.txt" || fail "cannot read $console"
	set -- $(grep -m1 '^FRC-ARM64VM-BEGIN ' "$dir/console.txt")
	[ $# -eq 3 ] || fail "$console: no FRC-ARM64VM-BEGIN SIZE SHA256 line: the guest never finished"
	size=$2 sum=$3
	grep -qx 'FRC-ARM64VM-END' "$dir/console.txt" ||
		fail "$console: no FRC-ARM64VM-END line: the transfer was cut"
	sed -n '/^FRC-ARM64VM-BEGIN /,/^FRC-ARM64VM-END$/p' "$dir/console.txt" | sed '1d;$d' |
		base64 -d >"$dir/out.tgz" 2>"$dir/base64.err" ||
		fail "$console: the transfer is not valid base64: $(head -c 200 "$dir/base64.err")"
	got=$(wc -c <"$dir/out.tgz")
	[ "$got" -eq "$size" ] || fail "$console: transfer damaged: $got bytes, the guest sent $size"
	set -- $(sha256sum "$dir/out.tgz")
	[ "$1" = "$sum" ] || fail "$console: transfer damaged: SHA-256 $1, the guest sent $sum"
	rm -rf "$dir/out" && mkdir "$dir/out" && tar -xzf "$dir/out.tgz" -C "$dir/out" ||
		fail "$console: the transferred archive does not unpack"
	echo "transfer: $size bytes, SHA-256 $sum verified"
}

# skip REASON: SKIPPED; the checks of this boot find the reason in $dir/skip.txt.
skip() {
	echo "SKIPPED: $*"
	echo "$*" >"$dir/skip.txt"
	exit 77
}

boot() {
	name=$1 work=$2 initramfs=$3 vm=$4
	dir=$work/$name
	rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
	[ ! -f "$initramfs.skip" ] || skip "no arm64 guest: $(cat "$initramfs.skip")"
	command -v qemu-system-aarch64 >/dev/null ||
		skip "no qemu-system-aarch64 (scripts/arm64vm-fetch.sh installs qemu-system-arm)"
	[ -s "$vm/Image" ] || skip "no arm64 kernel in $vm (scripts/arm64vm-fetch.sh)"
	[ -s "$initramfs" ] || fail "no initramfs $initramfs"
	case $name in
	a57) cpu=cortex-a57 ;;
	pac) cpu=max,pauth-impdef=on ;;
	*) fail "unknown boot '$name' (a57|pac)" ;;
	esac
	echo "boot $name: $(cat "$vm/kernel-package" 2>/dev/null), -cpu $cpu"
	t0=$(date +%s%N)
	timeout -k 5 $TIMEOUT_S qemu-system-aarch64 -M virt -cpu "$cpu" -smp 2 -m 512 \
		-nodefaults -nic none -display none -monitor none -no-reboot \
		-serial "file:$dir/console.log" -kernel "$vm/Image" -initrd "$initramfs" \
		-append "console=ttyAMA0 quiet loglevel=1 panic=-1 frc_boot=$name"
	rc=$?
	t1=$(date +%s%N)
	echo "boot $name: qemu exit $rc after $(((t1 - t0) / 1000000)) ms"
	[ $rc -ne 124 ] && [ $rc -ne 137 ] ||
		{ tail -n 20 "$dir/console.log"; fail "the guest did not power off within $TIMEOUT_S s"; }
	[ $rc -eq 0 ] || { tail -n 20 "$dir/console.log"; fail "qemu-system-aarch64 exited $rc"; }
	extract "$dir/console.log" "$dir"
	grep '^arm64vm: ' "$dir/console.txt"
}

case ${1:-} in
boot)
	shift
	boot "$@"
	;;
extract)
	shift
	extract "$@"
	;;
*) fail "usage: run.sh boot BOOT WORKDIR INITRAMFS VMDIR | run.sh extract CONSOLE DIR" ;;
esac
