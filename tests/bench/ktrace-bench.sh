#!/bin/bash
# ktrace overhead benchmark (a measurement, not a test: nothing asserted).
#
#   tests/bench/ktrace-bench.sh
#
# Times `dd if=/dev/zero of=/dev/null bs=1 count=N` (two syscalls per byte)
# plain, under `strace -f -o /dev/null` and under `ktrace -t c`, each the
# best of RUNS, and prints the time each adds per syscall, their ratio and
# the trace file's bytes per syscall (CALL + RET). The targets (issue 18):
# a ratio of at most 1/40 and at most 96 bytes per syscall.
# KTRACE_BENCH_COUNT (200000), KTRACE_BENCH_RUNS (3) and
# KTRACE_BENCH_STRACE_RUNS (1) tune it; KTRACE_BENCH_STRACE_COUNT (the same
# count) runs strace over fewer bytes, as ptrace's cost per syscall does
# not depend on how many there are and 4M syscalls under strace take
# minutes. KTRACE_BENCH_KEYS=1 adds "= KEY VALUE" lines for make bench.
set -euo pipefail
cd "$(dirname "$0")/../.."

count=${KTRACE_BENCH_COUNT:-200000}
strace_count=${KTRACE_BENCH_STRACE_COUNT:-$count}
runs=${KTRACE_BENCH_RUNS:-3}
strace_runs=${KTRACE_BENCH_STRACE_RUNS:-1}
work=$(mktemp -d /tmp/ktrace-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

DD=(dd if=/dev/zero of=/dev/null bs=1 count="$count")
SDD=(dd if=/dev/zero of=/dev/null bs=1 count="$strace_count")

key() { [ "${KTRACE_BENCH_KEYS:-0}" != 1 ] || echo "= $1 $2"; }
# ns added per syscall: WALL - PLAIN over 2 * COUNT syscalls.
per_syscall() { awk -v w="$1" -v p="$2" -v n="$3" 'BEGIN { printf "%.0f", (w - p) * 1e9 / (2 * n) }'; }

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
key dd_count "$count"
plain=$(best_of "$runs" "${DD[@]}")
printf '  %-22s %8.3f s\n' "plain" "$plain"
key plain_s "$plain"

if [ "$(id -u)" -ne 0 ]; then
	echo "  ktrace -t c            needs root"
	exit 0
fi
kt=$(best_of "$runs" ktrace_dd)
kns=$(per_syscall "$kt" "$plain" "$count")
printf '  %-22s %8.3f s  (+%.3f s, %s ns a syscall)\n' "ktrace -t c" "$kt" \
	"$(awk -v a="$kt" -v b="$plain" 'BEGIN { print a - b }')" "$kns"
key ktrace_s "$kt"
key ktrace_ns_per_syscall "$kns"
bytes=$(stat -c %s "$work/bench.out")
records=$(./ksnoop kdump -f "$work/bench.out" | wc -l)
printf '  %-22s %8s records, %s bytes, %s bytes per syscall (target <= 96)\n' "trace file" \
	"$records" "$bytes" "$(awk -v b="$bytes" -v n="$((2 * count))" 'BEGIN { printf "%.1f", b / n }')"
key records "$records"
key bytes_per_syscall "$(awk -v b="$bytes" -v n="$((2 * count))" 'BEGIN { printf "%.1f", b / n }')"

if ! command -v strace >/dev/null; then
	echo "  strace                 not installed"
	exit 0
fi
splain=$plain
if [ "$strace_count" != "$count" ]; then
	echo "strace over ${SDD[*]} ($((2 * strace_count)) syscalls)"
	splain=$(best_of "$runs" "${SDD[@]}")
	printf '  %-22s %8.3f s\n' "plain" "$splain"
fi
st=$(best_of "$strace_runs" strace -f -o /dev/null "${SDD[@]}")
sns=$(per_syscall "$st" "$splain" "$strace_count")
printf '  %-22s %8.3f s  (+%.3f s, %s ns a syscall)\n' "strace -f -o /dev/null" "$st" \
	"$(awk -v a="$st" -v b="$splain" 'BEGIN { print a - b }')" "$sns"
key strace_dd_count "$strace_count"
key strace_s "$st"
key strace_ns_per_syscall "$sns"
awk -v s="$sns" -v k="$kns" 'BEGIN {
	r = (s > 0) ? k / s : 0
	printf "  added per syscall, ktrace/strace = %.4f (1/%.0f; target <= 1/40)\n", r, (r > 0 ? 1 / r : 0)
}'
