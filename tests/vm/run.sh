#!/bin/bash
# The VM suite: for each kernel, ONE boot runs every case (tests/vm/guest.sh
# inside tests/vm/vm-exec.sh) and prints TAP lines "ok - [6.1] NAME", or
# "ok - [arm64 6.1] NAME" with ARCH=arm64 (tests/arm64/run.sh).
#
#   [ARCH=x86|arm64] tests/vm/run.sh [-t REGEX] [-v] [CASEFILE...]
#
# -t runs only the cases whose name matches REGEX, -v prints each case's
# time; CASEFILEs must lie outside /tmp, which the guest replaces with its
# own tmpfs (and, for arm64, inside the repo, which the payload copies).
# What differs per ARCH is in tests/vm/arch.sh: the kernels, the default
# case files, the timeouts and the build step (arm64: make ARCH=arm64).
#   KERNELS="6.1 6.12"   x86 kernels to boot (default both; any of
#                        scripts/kernels.sh list, e.g. "5.10 7.3"; "host"
#                        runs the cases on this machine without a VM)
#   ARM64_KERNELS, ARM64_CASES, ARM64_TIMEOUT_SCALE   the same for arm64:
#                        kernels, case files (default tests/vm/cases/*.case
#                        tests/arm64/cases/*.case), the factor on every
#                        case's TIMEOUT (default 3)
#   VM_TIMEOUT=S         seconds one boot may take in all (a backstop:
#                        every case has its own timeout; 1200, arm64 1800)
#   VM_JOBS=N            boots in parallel (default: one per CPU for x86-64,
#                        whose guests run on one TCG thread, one per 2 CPUs
#                        for arm64's multi-threaded guests)
#   VM_SLOTS=DIR         share the CPUs with other runners: each boot holds
#                        the lock of one of the files DIR/slot.* while it
#                        runs (tests/run.sh runs both architectures so)
#   KSNOOP_SLOW_TESTS=1  also run the cases marked "REQUIRES slow"
#   VM_EXEC=PROGRAM      the VM runner (default tests/vm/vm-exec.sh; the
#                        harness's own test stands one in)
#
# A boot that fails, panics or times out is one "not ok - [K] VM ..." line
# with the reason. A guest that locks up (vm-exec.sh's exit status 123) is
# booted once more for the cases it had not finished: a "# [K] guest locked
# up in 'CASE'; ..." comment with the console excerpt says so, and a second
# lockup is "not ok - [K] guest locked up twice: ...". Timings go to
# "# [K] boot ..." comment lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/arch.sh
vm_arch || exit 2

KERNELS=$VM_KERNELS
VM_TIMEOUT=${VM_TIMEOUT:-$VM_TIMEOUT_DEFAULT}
VM_JOBS=${VM_JOBS:-$VM_JOBS_DEFAULT}
VM_EXEC=${VM_EXEC:-tests/vm/vm-exec.sh}
LOCKUP_RC=123
GUEST_ARGS=()
while getopts "t:v" o; do
	case $o in
	t) GUEST_ARGS+=(-t "$OPTARG") ;;
	v) GUEST_ARGS+=(-v) ;;
	*) echo "usage: $0 [-t REGEX] [-v] [CASEFILE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${VM_CASES[@]}"
CASES=()
for f in "$@"; do
	[ -r "$f" ] || { echo "Error: cannot read case file '$f'" >&2; exit 2; }
	f=$(realpath "$f")
	# The arm64 guest sees only the repo's copy in its payload.
	case $f in
	"$PWD"/*) f=${f#"$PWD"/} ;;
	*) [ "$GUEST_ROOT" = 9p ] || { echo "Error: case file '$f' is outside the repo" >&2; exit 2; } ;;
	esac
	CASES+=("$f")
done

if [ ${#VM_BUILD[@]} -gt 0 ] && ! out=$("${VM_BUILD[@]}" 2>&1); then
	echo "not ok - [${LABEL_PREFIX% }] build (${VM_BUILD[*]})"
	echo "$out" | tail -n 20 | sed 's/^/#   /'
	exit 1
fi
for bin in "${VM_BINS[@]}"; do
	[ -x "$bin" ] || { echo "not ok - ${LABEL_PREFIX}VM suite: $bin missing; run make"; exit 1; }
done

LOGS=$(mktemp -d /tmp/ksnoop-vmsuite.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT

# run_guest K SKIP: one boot of kernel K running the cases after the first
# SKIP ones; the caller sends stdout (TAP) and stderr where it wants them.
run_guest() {
	local k=$1 label="$LABEL_PREFIX$1"
	if [ "$k" = host ]; then
		tests/vm/guest.sh -k host -s "$2" "${GUEST_ARGS[@]}" "${CASES[@]}"
	else
		"$VM_EXEC" --arch "$ARCH" --kernel "$k" --timeout "$VM_TIMEOUT" --timing \
			--env "KSNOOP_SLOW_TESTS=${KSNOOP_SLOW_TESTS:-}" \
			--env "KSNOOP_TIMEOUT_SCALE=$VM_TIMEOUT_SCALE" -- \
			tests/vm/guest.sh -k "$label" -s "$2" "${GUEST_ARGS[@]}" "${CASES[@]}"
	fi
}

tap_count() {
	grep -cE '^(not )?ok( |$)' "$1"
}

# The console excerpt vm-exec.sh printed after a lockup, as comments.
lockup_excerpt() {
	grep -a '^console| ' "$1" | head -n 40 | sed 's/^console| /#   /'
}

# with_slot CMD...: CMD while holding one of VM_SLOTS' slots; the lock goes
# with the descriptor when CMD and its children are done.
with_slot() {
	local slot fd rc
	[ -n "${VM_SLOTS:-}" ] || { "$@"; return; }
	while :; do
		for slot in "$VM_SLOTS"/slot.*; do
			exec {fd}>>"$slot"
			if flock -n "$fd"; then
				"$@"
				rc=$?
				exec {fd}>&-
				return $rc
			fi
			exec {fd}>&-
		done
		sleep 1
	done
}

# run_kernel K: K's TAP stream on stdout, its vm-exec stderr in K.err. A
# lockup in the first boot runs the cases it did not finish (every case
# the -t filter keeps prints exactly one TAP line) in a fresh boot, once.
run_kernel() {
	local k=$1 label="[$LABEL_PREFIX$1]" rc done_n total why last
	run_guest "$k" 0 2>"$LOGS/$k.err" | tee "$LOGS/$k.1"
	rc=${PIPESTATUS[0]}
	[ "$rc" = $LOCKUP_RC ] && grep -q '^Error: .* guest locked up: ' "$LOGS/$k.err" || return 0
	why=$(grep -m1 '^Error: .* guest locked up: ' "$LOGS/$k.err")
	why=${why#*guest locked up: }
	last=$(grep '^# case: ' "$LOGS/$k.1" | tail -n 1)
	done_n=$(tap_count "$LOGS/$k.1")
	total=$(tests/vm/guest.sh -l "${GUEST_ARGS[@]}" "${CASES[@]}" | wc -l)
	echo "# $label guest locked up in '${last#\# case: }'; running the remaining $((total - done_n)) cases again in a fresh boot"
	echo "#   $why"
	lockup_excerpt "$LOGS/$k.err"
	mv "$LOGS/$k.err" "$LOGS/$k.err1"
	run_guest "$k" "$done_n" 2>"$LOGS/$k.err"
	rc=$?
	[ "$rc" = $LOCKUP_RC ] && grep -q '^Error: .* guest locked up: ' "$LOGS/$k.err" || return 0
	why=$(grep -m1 '^Error: .* guest locked up: ' "$LOGS/$k.err")
	echo "not ok - $label guest locked up twice: ${why#*guest locked up: }"
	lockup_excerpt "$LOGS/$k.err"
}

# The guest's last line proves every case ran; anything short of it is a
# failed boot or a crash mid-run.
# Prints what the TAP lines do not: the timing, and a failure line when the
# run did not complete. Appends that failure to K.out for the final count.
report_tail() {
	local k=$1 label="[$LABEL_PREFIX$1]" why last
	grep '^# guest-done' "$LOGS/$k.out"
	grep -h '^vm-timing:' "$LOGS/$k.err1" "$LOGS/$k.err" 2>/dev/null | sed 's/^vm-timing: /# /'
	grep -qF "not ok - $label guest locked up twice" "$LOGS/$k.out" && return
	if grep -q '^# guest-done' "$LOGS/$k.out"; then
		# The harness's own complaints, if any: cases keep theirs.
		grep -a -v -E '^(vm-timing:|Error:|console\| )' "$LOGS/$k.err" | tail -n 20 |
			sed "s/^/# $label stderr: /"
		return
	fi
	why=$(grep -E '^Error:' "$LOGS/$k.err" | tail -n 1)
	last=$(grep '^# case: ' "$LOGS/$k.out" | tail -n 1)
	[ -n "$last" ] && why="$why; last case started: '${last#\# case: }'"
	echo "not ok - $label VM run did not complete: ${why:-see below}" | tee -a "$LOGS/$k.out"
	grep -v -E '^(vm-timing:|Error:)' "$LOGS/$k.err" | tail -n 20 | sed 's/^/#   /'
}

HIDDEN='^# (guest-done|case: )'
start=$(date +%s)
if [ "$VM_JOBS" -le 1 ]; then
	for k in $KERNELS; do
		# Sequential runs stream their TAP lines as they come.
		with_slot run_kernel "$k" | tee "$LOGS/$k.out" | grep --line-buffered -vE "$HIDDEN"
		report_tail "$k"
	done
else
	for k in $KERNELS; do
		while [ "$(jobs -rp | wc -l)" -ge "$VM_JOBS" ]; do
			wait -n
		done
		with_slot run_kernel "$k" >"$LOGS/$k.out" &
	done
	wait
	for k in $KERNELS; do
		grep -vE "$HIDDEN" "$LOGS/$k.out"
		report_tail "$k"
	done
fi
echo "# ${LABEL_PREFIX}VM suite: $(($(date +%s) - start))s for kernels: $KERNELS"
! cat "$LOGS"/*.out /dev/null | grep -q '^not ok'
