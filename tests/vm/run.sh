#!/bin/bash
# The VM suite: for each kernel, ONE boot runs every case (tests/vm/guest.sh
# inside tests/vm/vm-exec.sh) and prints TAP lines "ok - [6.1] NAME".
#
#   tests/vm/run.sh [-t REGEX] [-v] [CASEFILE...]
#
# -t runs only the cases whose name matches REGEX, -v prints each case's
# time; CASEFILEs (default tests/vm/cases/*.case) must lie outside /tmp,
# which the guest replaces with its own tmpfs.
#   KERNELS="6.1 6.12"   kernels to boot (default both; "host" runs the
#                        cases on this machine without a VM)
#   VM_TIMEOUT=1200      seconds one boot may take in all (a backstop: every
#                        case has its own timeout)
#   VM_JOBS=N            boots in parallel (default: one per 2 CPUs, since
#                        each TCG guest keeps two vCPU threads busy)
#   KSNOOP_SLOW_TESTS=1  also run the cases marked "REQUIRES slow"
#
# A boot that fails, panics or times out is one "not ok - [K] VM ..." line
# with the reason. Timings go to "# [K] boot ..." comment lines.
set -uo pipefail
cd "$(dirname "$0")/../.."

KERNELS=${KERNELS:-6.1 6.12}
VM_TIMEOUT=${VM_TIMEOUT:-1200}
VM_JOBS=${VM_JOBS:-$(($(nproc) / 2))}
GUEST_ARGS=()
while getopts "t:v" o; do
	case $o in
	t) GUEST_ARGS+=(-t "$OPTARG") ;;
	v) GUEST_ARGS+=(-v) ;;
	*) echo "usage: $0 [-t REGEX] [-v] [CASEFILE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
for f in "$@"; do
	[ -r "$f" ] || { echo "Error: cannot read case file '$f'" >&2; exit 2; }
	GUEST_ARGS+=("$(realpath "$f")")
done

for bin in ksnoop build/tests/workload; do
	[ -x "$bin" ] || { echo "not ok - VM suite: $bin missing; run make"; exit 1; }
done

LOGS=$(mktemp -d /tmp/ksnoop-vmsuite.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT

# One kernel's run; the caller sends stdout (TAP) and stderr to files.
run_kernel() {
	local k=$1
	if [ "$k" = host ]; then
		tests/vm/guest.sh -k host "${GUEST_ARGS[@]}"
	else
		tests/vm/vm-exec.sh --kernel "$k" --timeout "$VM_TIMEOUT" --timing \
			--env "KSNOOP_SLOW_TESTS=${KSNOOP_SLOW_TESTS:-}" -- \
			tests/vm/guest.sh -k "$k" "${GUEST_ARGS[@]}"
	fi
}

# The guest's last line proves every case ran; anything short of it is a
# failed boot or a crash mid-run.
# Prints what the TAP lines do not: the timing, and a failure line when the
# run did not complete. Appends that failure to K.out for the final count.
report_tail() {
	local k=$1 why last
	grep '^# guest-done' "$LOGS/$k.out"
	grep '^vm-timing:' "$LOGS/$k.err" | sed 's/^vm-timing: /# /'
	grep -q '^# guest-done' "$LOGS/$k.out" && return
	why=$(grep -E '^Error:' "$LOGS/$k.err" | tail -n 1)
	last=$(grep '^# case: ' "$LOGS/$k.out" | tail -n 1)
	[ -n "$last" ] && why="$why; last case started: '${last#\# case: }'"
	echo "not ok - [$k] VM run did not complete: ${why:-see below}" | tee -a "$LOGS/$k.out"
	grep -v -E '^(vm-timing:|Error:)' "$LOGS/$k.err" | tail -n 20 | sed 's/^/#   /'
}

start=$(date +%s)
if [ "$VM_JOBS" -le 1 ]; then
	for k in $KERNELS; do
		# Sequential runs stream their TAP lines as they come.
		run_kernel "$k" 2>"$LOGS/$k.err" | tee "$LOGS/$k.out" | grep --line-buffered -vE '^# (guest-done|case: )'
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
		grep -vE '^# (guest-done|case: )' "$LOGS/$k.out"
		report_tail "$k"
	done
fi
echo "# VM suite: $((($(date +%s) - start)))s for kernels: $KERNELS"
! cat "$LOGS"/*.out /dev/null | grep -q '^not ok'
