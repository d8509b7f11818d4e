#!/bin/bash
# ktrace overhead benchmark (a measurement, not a test: nothing asserted).
#
#   tests/bench/ktrace-bench.sh
#
# Times `dd if=/dev/zero of=/dev/null bs=1 count=N` (two syscalls per byte)
# plain, under `strace -f -o /dev/null` and under `ktrace -t c`, each the
# best of RUNS, and prints the added overheads, their ratio and the trace
# file's bytes per syscall (CALL + RET). The targets (issue 18): a ratio of
# at most 1/40 and at most 96 bytes per syscall. KTRACE_BENCH_COUNT (200000),
# KTRACE_BENCH_RUNS (3) and KTRACE_BENCH_STRACE_RUNS (1) tune it.
set -euo pipefail
cd "$(dirname "$0")/../.."

count=${KTRACE_BENCH_COUNT:-200000}
runs=${KTRACE_BENCH_RUNS:-3}
strace_runs=${KTRACE_BENCH_STRACE_RUNS:-1}
work=$(mktemp -d /tmp/ktrace-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

DD=(dd if=/dev/zero of=/dev/null bs=1 count="$count")

# Best wall time of N runs of a command, in seconds.
best_of() {
	local n=$1 best="" i start end t
	shift
	for ((i = 0; i < n; i++)); do
		start=$EPOCHREALTIME
		"$@" >/dev/null 2>&1 || { echo "Error: '$*' failed" >&2; return 1; }
		end=$EPOCHREALTIME
		t=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

ktrace_dd() {
	rm -f "$work/bench.out"
	./ksnoop ktrace -t c -f "$work/bench.out" "${DD[@]}"
}

make -s ksnoop >/dev/null
echo "ktrace overhead: ${DD[*]} ($((2 * count)) syscalls), best of $runs"
plain=$(best_of "$runs" "${DD[@]}")
printf '  %-22s %8.3f s\n' "plain" "$plain"

if command -v strace >/dev/null; then
	st=$(best_of "$strace_runs" strace -f -o /dev/null "${DD[@]}")
	printf '  %-22s %8.3f s  (+%.3f s)\n' "strace -f -o /dev/null" "$st" \
		"$(awk -v a="$st" -v b="$plain" 'BEGIN { print a - b }')"
else
	st=""
	echo "  strace                 not installed"
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "  ktrace -t c            needs root"
	exit 0
fi
kt=$(best_of "$runs" ktrace_dd)
printf '  %-22s %8.3f s  (+%.3f s)\n' "ktrace -t c" "$kt" \
	"$(awk -v a="$kt" -v b="$plain" 'BEGIN { print a - b }')"
bytes=$(stat -c %s "$work/bench.out")
printf '  %-22s %8s records, %s bytes, %s bytes per syscall (target <= 96)\n' "trace file" \
	"$(./ksnoop kdump -f "$work/bench.out" | wc -l)" "$bytes" \
	"$(awk -v b="$bytes" -v n="$((2 * count))" 'BEGIN { printf "%.1f", b / n }')"
if [ -n "$st" ]; then
	awk -v p="$plain" -v s="$st" -v k="$kt" 'BEGIN {
		r = (s - p > 0) ? (k - p) / (s - p) : 0
		inv = (r > 0) ? 1 / r : 0
		printf "  added overhead ktrace/strace = %.4f (1/%.0f; target <= 1/40)\n", r, inv
	}'
fi
