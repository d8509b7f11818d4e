#!/bin/bash
# Run every test suite and end with "N passed, N failed, N skipped".
#   tests/run.sh            unit + host + VM matrices: x86-64 and arm64,
#                           their boots from one queue, the first beside
#                           the unit and host suites
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
vmlog=$(mktemp /tmp/ksnoop-tests-vm.XXXXXX)
gate=$(mktemp -u /tmp/ksnoop-tests-gate.XXXXXX)
vm_pid=
stop_vm() {
	[ -n "$vm_pid" ] && kill -- -"$vm_pid" 2>/dev/null
	rm -f "$log" "$vmlog" "$vmlog.tap" "$gate"
}
trap stop_vm EXIT

# suite NAME CMD...: CMD's TAP lines, live, and into $LOG (default $log).
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
	cat "$out" >>"${LOG:-$log}"
	rm -f "$out"
}

arm64=0
[ $run_vm = 1 ] && [ "${KSNOOP_ARM64:-1}" != 0 ] && arm64=1
# Everything a guest runs is built before the first boots: the host
# suites below rebuild nothing a running guest uses.
build() {
	make -s -j"$(nproc)" ksnoop workload unit-bins ktrace-target ktrace-links &&
		{ [ $arm64 = 0 ] || make -s -j"$(nproc)" ARCH=arm64 all workload ktrace-target; }
}

if ! build; then
	echo "not ok - build" | tee -a "$log"
else
	if [ $run_vm = 1 ]; then
		# The VM matrix (x86-64, and arm64 cross-built and emulated),
		# the longest boot first, beside the unit and host suites; its
		# second lane opens when they are done.
		arches=x86
		[ $arm64 = 1 ] && arches="x86 arm64"
		export -f suite
		LOG=$vmlog.tap setsid -w bash -c \
			'suite vm env VM_HOLD="$1" VM_ARCHES="$2" ./tests/vm/run.sh' _ "$gate" "$arches" \
			</dev/null >"$vmlog" 2>&1 &
		vm_pid=$!
	fi
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
		touch "$gate"
		wait "$vm_pid"
		vm_pid=
		cat "$vmlog"
		cat "$vmlog.tap" >>"$log" 2>/dev/null
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
