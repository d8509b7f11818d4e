#!/bin/bash
# Run every test suite and end with "N passed, N failed".
#   tests/run.sh            unit + host + VM matrix
#   tests/run.sh --no-vm    unit + host only
#   KERNELS="6.1" tests/run.sh   a subset of the VM matrix
# Each suite prints TAP lines ("ok ..." / "not ok ..."); this script counts them.
set -uo pipefail
cd "$(dirname "$0")/.."

run_vm=1
[ "${1:-}" = "--no-vm" ] && run_vm=0

log=$(mktemp /tmp/ksnoop-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

suite() {
	local name=$1
	shift
	local out
	out=$(mktemp /tmp/ksnoop-suite.XXXXXX)
	echo "# suite: $name"
	"$@" 2>&1 | tee "$out"
	# A suite that fails without reporting a failing test still fails.
	if [ "${PIPESTATUS[0]}" -ne 0 ] && ! grep -qE '^not ok' "$out"; then
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
		[ -x "$t" ] || continue
		suite "host/$(basename "$t" .sh)" "$t"
	done
	if [ $run_vm = 1 ]; then
		suite vm ./tests/vm/run.sh
	fi
fi

passed=$(grep -cE '^ok( |$)' "$log")
failed=$(grep -cE '^not ok( |$)' "$log")
echo
grep -E '^not ok' "$log" | sed 's/^/FAILED: /'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
