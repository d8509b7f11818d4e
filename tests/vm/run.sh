#!/bin/bash
# The VM suite: for each kernel, ONE boot runs every case (tests/vm/guest.sh
# inside tests/vm/vm-exec.sh) and prints TAP lines "ok - [6.1] NAME", or
# "ok - [arm64 6.1] NAME" for arm64 (tests/arm64/run.sh).
#
#   [ARCH=x86|arm64] tests/vm/run.sh [-t REGEX] [-v] [CASEFILE...]
#   VM_ARCHES="x86 arm64" tests/vm/run.sh ...   both matrices in one run
#
# -t runs only the cases whose name matches REGEX, -v prints each case's
# time; CASEFILEs must lie outside /tmp, which the guest replaces with its
# own tmpfs (and, for arm64, inside the repo, which the payload copies).
# What differs per ARCH is in tests/vm/arch.sh: the kernels, the default
# case files, the timeouts and the build step (arm64: make ARCH=arm64).
# One run boots the kernels of every arch in VM_ARCHES (default: ARCH)
# from one queue, the longest first (VM_ORDER in arch.sh), VM_JOBS at once.
#   KERNELS="6.1 6.12"   x86 kernels to boot (default all of scripts/kernels.sh
#                        list; "host" runs the cases on this machine
#                        without a VM)
#   ARM64_KERNELS, ARM64_CASES, ARM64_TIMEOUT_SCALE   the same for arm64:
#                        kernels, case files (default tests/vm/cases/*.case
#                        tests/arm64/cases/*.case), the factor on every
#                        case's TIMEOUT (default 3)
#   VM_TIMEOUT=S         seconds one boot may take in all (a backstop:
#                        every case has its own timeout; default 2400)
#   VM_JOBS=N            boots at once (default: one per CPU, as every
#                        guest runs on one TCG thread)
#   VM_HOLD=FILE         one boot at a time until FILE exists, then VM_JOBS
#                        (tests/run.sh runs the host suites beside the first)
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

VM_ARCHES=${VM_ARCHES:-${ARCH:-x86}}
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
CASE_ARGS=("$@")

LOGS=$(mktemp -d /tmp/ksnoop-vmsuite.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT

# resolve_cases: CASES from the arguments or the arch's default files.
resolve_cases() {
	local f files=("${CASE_ARGS[@]}")
	CASES=()
	[ ${#files[@]} -gt 0 ] || files=("${VM_CASES[@]}")
	for f in "${files[@]}"; do
		[ -r "$f" ] || { echo "Error: cannot read case file '$f'" >&2; return 2; }
		f=$(realpath "$f")
		# The arm64 guest sees only the repo's copy in its payload.
		case $f in
		"$PWD"/*) f=${f#"$PWD"/} ;;
		*) [ "$GUEST_ROOT" = 9p ] || { echo "Error: case file '$f' is outside the repo" >&2; return 2; } ;;
		esac
		CASES+=("$f")
	done
}

# prepare_arch A: A's build and binaries; prints A's kernels when they can
# boot, a failure line when not.
prepare_arch() {
	local out bin
	ARCH=$1
	vm_arch || return 2
	resolve_cases || return 2
	if [ ${#VM_BUILD[@]} -gt 0 ] && ! out=$("${VM_BUILD[@]}" 2>&1); then
		echo "not ok - [${LABEL_PREFIX% }] build (${VM_BUILD[*]})" >>"$LOGS/prepare.out"
		echo "$out" | tail -n 20 | sed 's/^/#   /' >>"$LOGS/prepare.out"
		return 1
	fi
	for bin in "${VM_BINS[@]}"; do
		[ -x "$bin" ] && continue
		echo "not ok - ${LABEL_PREFIX}VM suite: $bin missing; run make" >>"$LOGS/prepare.out"
		return 1
	done
	echo "$VM_KERNELS"
}

# use_arch A: A's row of the table and its case files, in this shell.
use_arch() {
	ARCH=$1
	vm_arch
	resolve_cases
	VM_TIMEOUT=${VM_TIMEOUT_SET:-$VM_TIMEOUT_DEFAULT}
}

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

# run_kernel A:K: its TAP stream on stdout, its vm-exec stderr in
# LOGS/A:K.err. A lockup in the first boot runs the cases it did not
# finish (every case the -t filter keeps prints exactly one TAP line) in a
# fresh boot, once.
run_kernel() {
	local k=${1#*:} L=$LOGS/$1 label rc done_n total why last
	use_arch "${1%%:*}"
	label="[$LABEL_PREFIX$k]"
	run_guest "$k" 0 2>"$L.err" | tee "$L.1"
	rc=${PIPESTATUS[0]}
	[ "$rc" = $LOCKUP_RC ] && grep -q '^Error: .* guest locked up: ' "$L.err" || return 0
	why=$(grep -m1 '^Error: .* guest locked up: ' "$L.err")
	why=${why#*guest locked up: }
	last=$(grep '^# case: ' "$L.1" | tail -n 1)
	done_n=$(tap_count "$L.1")
	total=$(tests/vm/guest.sh -l "${GUEST_ARGS[@]}" "${CASES[@]}" | wc -l)
	echo "# $label guest locked up in '${last#\# case: }'; running the remaining $((total - done_n)) cases again in a fresh boot"
	echo "#   $why"
	lockup_excerpt "$L.err"
	mv "$L.err" "$L.err1"
	run_guest "$k" "$done_n" 2>"$L.err"
	rc=$?
	[ "$rc" = $LOCKUP_RC ] && grep -q '^Error: .* guest locked up: ' "$L.err" || return 0
	why=$(grep -m1 '^Error: .* guest locked up: ' "$L.err")
	echo "not ok - $label guest locked up twice: ${why#*guest locked up: }"
	lockup_excerpt "$L.err"
}

# The guest's last line proves every case ran; anything short of it is a
# failed boot or a crash mid-run.
# Prints what the TAP lines do not: the timing, and a failure line when the
# run did not complete. Appends that failure to A:K.out for the final count.
report_tail() {
	local k=${1#*:} L=$LOGS/$1 label why last
	use_arch "${1%%:*}"
	label="[$LABEL_PREFIX$k]"
	grep '^# guest-done' "$L.out"
	grep -h '^vm-timing:' "$L.err1" "$L.err" 2>/dev/null | sed 's/^vm-timing: /# /'
	grep -qF "not ok - $label guest locked up twice" "$L.out" && return
	if grep -q '^# guest-done' "$L.out"; then
		# The harness's own complaints, if any: cases keep theirs.
		grep -a -v -E '^(vm-timing:|Error:|console\| )' "$L.err" | tail -n 20 |
			sed "s/^/# $label stderr: /"
		return
	fi
	why=$(grep -E '^Error:' "$L.err" | tail -n 1)
	last=$(grep '^# case: ' "$L.out" | tail -n 1)
	[ -n "$last" ] && why="$why; last case started: '${last#\# case: }'"
	echo "not ok - $label VM run did not complete: ${why:-see below}" | tee -a "$L.out"
	grep -v -E '^(vm-timing:|Error:)' "$L.err" | tail -n 20 | sed 's/^/#   /'
}

# The boots, as ARCH:K, in VM_ORDER's order (the longest first) and then
# any kernel it does not name; VM_JOBS the most any arch would boot at once.
VM_TIMEOUT_SET=${VM_TIMEOUT:-}
declare -A WANT
ENTRIES=() jobs_default=1
for a in $VM_ARCHES; do
	ks=$(prepare_arch "$a")
	case $? in
	0) ;;
	2) exit 2 ;;
	*) continue ;;
	esac
	ARCH=$a && vm_arch
	[ "$VM_JOBS_DEFAULT" -gt "$jobs_default" ] && jobs_default=$VM_JOBS_DEFAULT
	for k in $ks; do
		WANT[$ARCH:$k]=1
	done
done
for e in $VM_ORDER; do
	[ -n "${WANT[$e]:-}" ] && ENTRIES+=("$e") && unset "WANT[$e]"
done
for a in $VM_ARCHES; do
	ARCH=$a && vm_arch
	for k in $VM_KERNELS; do
		[ -n "${WANT[$ARCH:$k]:-}" ] && ENTRIES+=("$ARCH:$k")
	done
done
VM_JOBS=${VM_JOBS:-$jobs_default}
[ -s "$LOGS/prepare.out" ] && cat "$LOGS/prepare.out"

HIDDEN='^# (guest-done|case: )'
start=$(date +%s)
if [ "$VM_JOBS" -le 1 ]; then
	for e in "${ENTRIES[@]}"; do
		# Sequential runs stream their TAP lines as they come.
		run_kernel "$e" | tee "$LOGS/$e.out" | grep --line-buffered -vE "$HIDDEN"
		report_tail "$e"
	done
else
	for e in "${ENTRIES[@]}"; do
		while :; do
			held=0
			[ -n "${VM_HOLD:-}" ] && [ ! -e "$VM_HOLD" ] && held=1
			[ "$(jobs -rp | wc -l)" -lt $((held ? 1 : VM_JOBS)) ] && break
			# A held queue looks for the file; else a boot ending frees a lane.
			if [ $held = 1 ]; then
				sleep 1
			else
				wait -n
			fi
		done
		run_kernel "$e" >"$LOGS/$e.out" &
	done
	wait
	for e in "${ENTRIES[@]}"; do
		grep -vE "$HIDDEN" "$LOGS/$e.out"
		report_tail "$e"
	done
fi
echo "# VM suite: $(($(date +%s) - start))s for kernels: ${ENTRIES[*]}"
! cat "$LOGS"/*.out /dev/null | grep '^not ok' >/dev/null
