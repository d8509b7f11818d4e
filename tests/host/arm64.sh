#!/bin/bash
# The arm64 cross build, checked on the build host (the arm64 VM suite,
# tests/arm64/run.sh, checks that it works). TAP output. The cross
# toolchain is part of the test dependencies (scripts/deps.sh runs
# scripts/arm64.sh deps): without it this fails, unless KSNOOP_ARM64=0
# leaves arm64 out.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=build/arm64

check() {
	local name=$1
	shift
	if out=$("$@" 2>&1); then
		echo "ok - arm64: $name"
	else
		echo "not ok - arm64: $name"
		printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
	fi
}

if ! command -v aarch64-linux-gnu-gcc >/dev/null ||
	[ ! -r /usr/lib/aarch64-linux-gnu/libbpf.a ]; then
	if [ "${KSNOOP_ARM64:-1}" = 0 ]; then
		echo "ok - arm64: cross build # SKIP KSNOOP_ARM64=0"
		exit 0
	fi
	echo "not ok - arm64: cross build: no cross toolchain; as root run scripts/arm64.sh deps (or KSNOOP_ARM64=0)"
	exit 1
fi

check "make ARCH=arm64 builds ksnoop and the test programs" \
	make -s -j"$(nproc)" ARCH=arm64 all workload ktrace-target
check "ksnoop is a static AArch64 executable" \
	sh -c "[ \"\$(readelf -h $OUT/ksnoop | sed -n 's/^ *Machine: *//p')\" = AArch64 ] &&
		! readelf -l $OUT/ksnoop | grep -q INTERP"
for f in tests/workload ktrace_target; do
	check "$f is a static AArch64 executable" \
		sh -c "[ \"\$(readelf -h $OUT/$f | sed -n 's/^ *Machine: *//p')\" = AArch64 ] &&
			! readelf -l $OUT/$f | grep -q INTERP"
done
# __TARGET_ARCH_arm64 selects the user_pt_regs register copy; the x86
# build reads struct pt_regs' di, si, ...
check "the BPF objects were built for arm64 registers" \
	sh -c "bpftool btf dump file $OUT/trace.bpf.o | grep -q \"STRUCT 'user_pt_regs'\""
check "the arm64 BPF object leaves x86 registers alone" \
	sh -c "! bpftool btf dump file $OUT/trace.bpf.o | grep -q \"'di' type_id\""
check "calibration on arm64 attaches to __arm64_sys_getppid" \
	sh -c "readelf -SW $OUT/calib.bpf.o | grep -q fentry/__arm64_sys_getppid"
check "vmlinux.h for arm64 is the committed one" \
	cmp -s bpf/arm64/vmlinux.h "$OUT/vmlinux.h"
# Numbers from asm-generic/unistd.h, not x86-64's (getppid 110, openat 257).
check "the arm64 syscall table: getppid 173, openat 56, clone 220" \
	sh -c "grep -q '\[173\] = { \"getppid\"' $OUT/ktr_systab.c &&
		grep -q '\[56\] = { \"openat\"' $OUT/ktr_systab.c &&
		grep -q '\[220\] = { \"clone\"' $OUT/ktr_systab.c"
check "clone in CONFIG_CLONE_BACKWARDS order: tls before child_tidptr" \
	grep -q '"clone", 5, .*"parent_tidptr" }, { "unsigned long", "tls" }, { "int \*", "child_tidptr" }' \
	"$OUT/ktr_systab.c"
check "the machine recorded in trace files is EM_AARCH64 (183)" \
	grep -q 'ktr_systab_machine = 183;' "$OUT/ktr_systab.c"
