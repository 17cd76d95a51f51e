#!/bin/sh
# bpf_arm64.sh - the BPF object embedded in the arm64 framerec was compiled for arm64.
#
#   bpf_arm64.sh OBJ SKEL LLVM_OBJDUMP BPFTOOL
#
# PT_REGS_PARM2 is the second argument register: x1 on arm64, at offset 8 of the uprobe's
# context (struct user_pt_regs: regs[0..30]); rsi on x86-64, at offset 104 of struct pt_regs.
# An object built with -D__TARGET_ARCH_arm64 loads the buffer from (r1 + 8) and never from
# (r1 + 104). Then the skeleton header compiled into framerec must embed exactly this object:
# regenerating it from OBJ gives the same file.
# Owner: android.
set -u
obj=$1 skel=$2 objdump=$3 bpftool=$4
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
[ -f "$obj" ] || fail "$obj: no BPF object (did bpf/FrcBpf.cmake change its output path?)"
[ -f "$skel" ] || fail "$skel: no skeleton header"
dis=$("$objdump" -d --no-show-raw-insn "$obj") || fail "$objdump -d $obj failed"
echo "$dis" | grep -E '^[0-9a-f]+ <|\(r1 \+ (8|104)\)'
echo "$dis" | grep -q '= \*(u64 \*)(r1 + 8)$' ||
	fail "no load of the argument register x1 (ctx + 8): not an arm64 uprobe object"
if echo "$dis" | grep -q '= \*(u64 \*)(r1 + 104)$'; then
	fail "loads rsi (ctx + 104): the object was compiled for x86-64"
fi
regen=$(mktemp)
trap 'rm -f "$regen"' EXIT
"$bpftool" gen skeleton "$obj" name framerec >"$regen" 2>/dev/null || fail "bpftool gen skeleton"
cmp "$regen" "$skel" || fail "$skel does not embed $obj"
echo "arm64 BPF object, embedded by $skel"
