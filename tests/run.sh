#!/bin/bash
# Run every test suite and end with "N passed, N failed, N skipped".
#   tests/run.sh            unit + host + VM matrices: x86-64 and arm64,
#                           their boots from one queue
#   tests/run.sh --no-vm    unit + host only
#   KERNELS="6.1" tests/run.sh   a subset of the x86-64 VM matrix
#   ARM64_KERNELS="6.12" tests/run.sh   a subset of the arm64 VM matrix
#   KSNOOP_ARM64=0 tests/run.sh  without the arm64 VM matrix (and without
#                           its deps in make test)
# Each suite prints TAP lines ("ok ...", "not ok ...", "ok ... # SKIP why");
# this script counts them.
set -uo pipefail
cd "$(dirname "$0")/.."

run_vm=1
[ "${1:-}" = "--no-vm" ] && run_vm=0

log=$(mktemp /tmp/ksnoop-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

suite() {
	local name=$1
	shift
	local out rc start=$SECONDS
	out=$(mktemp /tmp/ksnoop-suite.XXXXXX)
	echo "# suite: $name"
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "# suite: $name took $((SECONDS - start)) s"
	# A suite that fails without reporting a failing test still fails.
	if [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$out"; then
		echo "not ok - suite $name exited non-zero" | tee -a "$out"
	fi
	cat "$out" >>"$log"
	rm -f "$out"
}

if ! make -s -j"$(nproc)" ksnoop workload unit-bins; then
	echo "not ok - build" | tee -a "$log"
else
	for t in build/tests/test_*; do
		[ -x "$t" ] || continue
		suite "unit/$(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
	done
	for t in tests/host/*.sh; do
		if [ ! -x "$t" ]; then
			echo "not ok - $t is not executable" | tee -a "$log"
			continue
		fi
		suite "host/$(basename "$t" .sh)" "$t"
	done
	if [ $run_vm = 1 ]; then
		# A guest locked up on purpose must be caught within a minute.
		suite vm-selftest env ARCH=x86 ./tests/vm/selftest.sh
		# The arm64 matrix (ksnoop cross-built, run in emulated arm64
		# VMs) shares one queue with the x86-64 one, the longest first.
		arches=x86
		[ "${KSNOOP_ARM64:-1}" != 0 ] && arches="x86 arm64"
		suite vm env VM_ARCHES="$arches" ./tests/vm/run.sh
	fi
fi

# A skip is never a pass: "ok ... # SKIP reason" is counted apart.
skipped=$(grep -E '^ok( |$)' "$log" | grep -ciE '#[[:space:]]*skip')
passed=$(($(grep -cE '^ok( |$)' "$log") - skipped))
failed=$(grep -cE '^not ok( |$)' "$log")
echo
grep -E '^not ok' "$log" | sed 's/^/FAILED: /'
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
