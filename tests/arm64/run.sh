#!/bin/bash
# The arm64 VM suite: for each arm64 kernel, ONE emulated boot
# (tests/arm64/vm-exec.sh) runs tests/vm/guest.sh over the shared case
# files and the arm64 ones, printing TAP lines "ok - [arm64 6.1] NAME".
#
#   tests/arm64/run.sh [-t REGEX] [-v]
#   ARM64_KERNELS="6.1 6.12"   kernels to boot (default both)
#   ARM64_CASES="FILE..."      case files, relative to the repo (default
#                              tests/vm/cases/*.case tests/arm64/cases/*.case)
#   VM_TIMEOUT=1800            seconds one boot may take in all
#   VM_JOBS=N                  boots in parallel (default: one per 2 CPUs,
#                              each guest has 2)
#   KSNOOP_SLOW_TESTS=1        also run the cases marked "REQUIRES slow"
#   ARM64_TIMEOUT_SCALE=3      multiplies every case's TIMEOUT
#
# Builds the static arm64 ksnoop and workload first (make ARCH=arm64).
# A boot that fails, panics or times out is one "not ok - [arm64 K] VM ..."
# line with the reason. Timings go to "# [arm64 K] boot ..." comment lines.
set -uo pipefail
cd "$(dirname "$0")/../.."

KERNELS=${ARM64_KERNELS:-6.1 6.12}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
# Emulating arm64 on x86-64 runs ksnoop 2-3 times slower than the x86-64
# guest does: every case's TIMEOUT is multiplied by this.
TIMEOUT_SCALE=${ARM64_TIMEOUT_SCALE:-3}
VM_JOBS=${VM_JOBS:-$(($(nproc) / 2))}
GUEST_ARGS=()
while getopts "t:v" o; do
	case $o in
	t) GUEST_ARGS+=(-t "$OPTARG") ;;
	v) GUEST_ARGS+=(-v) ;;
	*) echo "usage: $0 [-t REGEX] [-v]" >&2; exit 2 ;;
	esac
done
if [ -n "${ARM64_CASES:-}" ]; then
	read -r -a CASES <<<"$ARM64_CASES"
else
	CASES=(tests/vm/cases/*.case tests/arm64/cases/*.case)
fi

if ! out=$(make -s -j"$(nproc)" ARCH=arm64 all workload ktrace-target 2>&1); then
	echo "not ok - [arm64] build (make ARCH=arm64)"
	echo "$out" | tail -n 20 | sed 's/^/#   /'
	exit 1
fi

LOGS=$(mktemp -d /tmp/ksnoop-a64suite.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT

run_kernel() {
	tests/arm64/vm-exec.sh --kernel "$1" --timeout "$VM_TIMEOUT" --timing \
		--env "KSNOOP_SLOW_TESTS=${KSNOOP_SLOW_TESTS:-}" \
		--env "KSNOOP_TIMEOUT_SCALE=$TIMEOUT_SCALE" -- \
		tests/vm/guest.sh -k "arm64 $1" "${GUEST_ARGS[@]}" "${CASES[@]}"
}

# The guest's last line proves every case ran; anything short of it is a
# failed boot or a crash mid-run.
report_tail() {
	local k=$1 why
	grep '^# guest-done' "$LOGS/$k.out"
	grep '^vm-timing:' "$LOGS/$k.err" | sed 's/^vm-timing: /# /'
	if grep -q '^# guest-done' "$LOGS/$k.out"; then
		# The harness's own complaints, if any: cases keep theirs.
		grep -a -v -E '^(vm-timing:|Error:)' "$LOGS/$k.err" | tail -n 20 |
			sed "s/^/# [arm64 $k] stderr: /"
		return
	fi
	why=$(grep -E '^Error:' "$LOGS/$k.err" | tail -n 1)
	echo "not ok - [arm64 $k] VM run did not complete: ${why:-see below}" | tee -a "$LOGS/$k.out"
	grep -v -E '^(vm-timing:|Error:)' "$LOGS/$k.err" | tail -n 20 | sed 's/^/#   /'
}

start=$(date +%s)
if [ "$VM_JOBS" -le 1 ]; then
	for k in $KERNELS; do
		run_kernel "$k" 2>"$LOGS/$k.err" | tee "$LOGS/$k.out" | grep --line-buffered -v '^# guest-done'
		report_tail "$k"
	done
else
	for k in $KERNELS; do
		while [ "$(jobs -rp | wc -l)" -ge "$VM_JOBS" ]; do
			wait -n
		done
		run_kernel "$k" >"$LOGS/$k.out" 2>"$LOGS/$k.err" &
	done
	wait
	for k in $KERNELS; do
		grep -v '^# guest-done' "$LOGS/$k.out"
		report_tail "$k"
	done
fi
echo "# arm64 VM suite: $(($(date +%s) - start))s for kernels: $KERNELS"
! cat "$LOGS"/*.out /dev/null | grep -q '^not ok'
