#!/bin/bash
# make bench: boot each kernel once, run tests/bench/guest.sh there (every
# competitor side by side in the same boot), print the tables and write
# the same numbers to build/bench.json. See doc/bench.md.
#
#   KERNELS="6.1 6.12"   kernels to run, one VM boot each
#   BENCH_ICOUNT=0       every section in real time (see below)
#   BENCH_SECTIONS, BENCH_CALLS, BENCH_BURST, BENCH_ROUNDS, BENCH_STARTUP_ROUNDS,
#   BENCH_ATTACH, BENCH_FENTRY_MAX, BENCH_BPFTRACE_S, BENCH_BEFORE, BENCH_REF, BENCH_PROFILE_S,
#   BENCH_KTRACE_COUNT:  see guest.sh
#   BENCH_HOST=0         no ktrace row on this host; BENCH_HOST_KTRACE_COUNT is dd's
#                        byte count there (2000000: the issue's 4M syscalls),
#                        BENCH_HOST_STRACE_COUNT under strace (200000)
#   VM_EXEC              the VM runner (default tests/vm/vm-exec.sh)
#   BENCH_OUT            output directory (default build)
#
# The guest uses the TSC clocksource (clocksource=tsc tsc=reliable): under
# TCG the kernel otherwise falls back to the HPET, whose every read is an
# emulated MMIO access, and each tracer timestamp would cost microseconds
# that no real machine pays.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO" || exit 1
KERNELS=${KERNELS:-6.1 6.12}
OUT=${BENCH_OUT:-build}
VM_EXEC=${VM_EXEC:-$REPO/tests/vm/vm-exec.sh}
ENVS=()
for v in BENCH_CALLS BENCH_BURST BENCH_ROUNDS BENCH_STARTUP_ROUNDS BENCH_ATTACH BENCH_FENTRY_MAX \
	BENCH_BPFTRACE_S BENCH_BEFORE BENCH_REF BENCH_PROFILE_S BENCH_KTRACE_COUNT BENCH_KTRACE_STRACE_COUNT; do
	[ -n "${!v:-}" ] && ENVS+=(--env "$v=${!v}")
done

[ -x "$VM_EXEC" ] || { echo "Error: $VM_EXEC not found; set VM_EXEC" >&2; exit 1; }
for f in ksnoop build/bench/bench build/bench/floor; do
	[ -x "$f" ] || { echo "Error: $f missing; run 'make bench'" >&2; exit 1; }
done
mkdir -p "$OUT"

# The per-call sections run in a boot whose guest clock counts
# instructions (tests/vm/vm-exec.sh, KSNOOP_VM_ICOUNT): a traced loop and
# its baseline then differ by exactly the instructions the tracer added,
# whatever else the host runs. The others need real time (start-up,
# consumer CPU) and run in an ordinary boot. BENCH_ICOUNT=0 runs all of
# them in the ordinary one.
# Instruction counts do not vary: one round is enough unless asked.
ROUNDS1=$([ -z "${BENCH_ROUNDS:-}" ] && echo 1)
ALL_SECTIONS=${BENCH_SECTIONS:-percall agg spans user tracepoint profile wherefrom predicate startup_icount startup throughput ktrace serve attach countglob}
ICOUNT_SECTIONS=
PLAIN_SECTIONS=
for s in $ALL_SECTIONS; do
	case "${BENCH_ICOUNT:-1}:$s" in
	1:percall | 1:predicate | 1:agg | 1:spans | 1:user | 1:tracepoint | 1:profile | 1:wherefrom | *:startup_icount) ICOUNT_SECTIONS="$ICOUNT_SECTIONS $s" ;;
	*) PLAIN_SECTIONS="$PLAIN_SECTIONS $s" ;;
	esac
done

boot() { # KERNEL ICOUNT SECTIONS
	KSNOOP_VM_ICOUNT=$2 "$VM_EXEC" --kernel "$1" --timeout 10800 --timing \
		--append "clocksource=tsc tsc=reliable" "${ENVS[@]}" \
		--env "BENCH_SECTIONS=$3" --env "BENCH_ICOUNT=$2" \
		${ROUNDS1:+$([ "$2" = 1 ] && echo --env BENCH_ROUNDS=1)} -- tests/bench/guest.sh
}

rc=0
t_start=$(date +%s)
for k in $KERNELS; do
	echo "bench: kernel $k" >&2
	: >"$OUT/bench-$k.txt"
	for mode in 1 0; do
		secs=$([ $mode = 1 ] && echo $ICOUNT_SECTIONS || echo $PLAIN_SECTIONS)
		[ -n "$secs" ] || continue
		t0=$(date +%s)
		boot "$k" $mode "$secs" >>"$OUT/bench-$k.txt" || {
			echo "Error: the benchmark failed on $k ($secs)" >&2
			rc=1
		}
		echo "R boot_s.$([ $mode = 1 ] && echo icount || echo real) $(($(date +%s) - t0))" >>"$OUT/bench-$k.txt"
	done
done

# ktrace against strace on this host too (BENCH_HOST=0: not): its
# target is the host's figure, where ptrace and the BPF tracepoints run
# at native speed; and serve's scrape, whose bound is the host build's.
# Only those sections: the host cannot trace functions.
HOST_FILE=
HOST_SECTIONS=
for s in ktrace serve; do
	[[ " $ALL_SECTIONS " == *" $s "* ]] && HOST_SECTIONS="$HOST_SECTIONS $s"
done
if [ "${BENCH_HOST:-1}" = 1 ] && [ -n "$HOST_SECTIONS" ]; then
	if [ "$(id -u)" = 0 ] && ./ksnoop ktrace -h >/dev/null 2>&1; then
		echo "bench: host,$HOST_SECTIONS" >&2
		HOST_FILE=$OUT/bench-host.txt
		t0=$(date +%s)
		BENCH_SECTIONS=$HOST_SECTIONS BENCH_KTRACE_COUNT=${BENCH_HOST_KTRACE_COUNT:-2000000} \
			BENCH_KTRACE_STRACE_COUNT=${BENCH_HOST_STRACE_COUNT:-200000} \
			"$HERE/guest.sh" >"$HOST_FILE" || rc=1
		echo "R boot_s.host $(($(date +%s) - t0))" >>"$HOST_FILE"
	else
		echo "bench: host: ktrace needs root and BPF here; its host row is left out" >&2
	fi
fi
total_s=$(($(date +%s) - t_start))

args=()
for k in $KERNELS; do
	[ -s "$OUT/bench-$k.txt" ] && args+=("$k" "$OUT/bench-$k.txt")
done
[ -n "$HOST_FILE" ] && [ -s "$HOST_FILE" ] && args+=(host "$HOST_FILE")
for ((i = 0; i < ${#args[@]}; i += 2)); do
	"$HERE/report.sh" table "${args[i]}" "${args[i + 1]}"
done
if [ ${#args[@]} -gt 0 ]; then
	"$HERE/report.sh" json "${args[@]}" >"$OUT/bench.json.tmp" &&
		mv "$OUT/bench.json.tmp" "$OUT/bench.json" &&
		echo "bench: wrote $OUT/bench.json" >&2
fi
printf '\nmake bench: %d min %d s of host time for kernels %s (target: at most 30 min for both, every section)\n' \
	$((total_s / 60)) $((total_s % 60)) "$KERNELS"
exit $rc
