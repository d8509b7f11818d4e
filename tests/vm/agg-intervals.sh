#!/bin/bash
# -i's tables hold each interval's own samples, exactly: three tracers over
# one run of N_ROUNDS x 2000 UDP sends, filtered by comm,
#   count SPEC                    total=N     (one table at exit)
#   count -i 200ms SPEC           intervals=N tables=K (the sum of the
#                                 interval tables' rows; K tables with one)
#   -j hist -i 200ms --latency    hist=N htables=K (the same, keyless: the
#                                 by-function arrays, not the hash)
# each sum plus the calls its tracer says the kernel skipped.
# The sends go on while the epochs flip, five times a second: a sample
# lost or counted twice at a boundary makes the sums differ from total.
#
#   tests/vm/agg-intervals.sh BACKEND N_ROUNDS
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b=$1 rounds=$2 f=ip_send_skb
T=$(mktemp -d /tmp/agg-intervals.XXXXXX) || exit 125
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT

pids=()
start() { # OUT ARGS...
	local out=$1
	shift
	ksnoop -b "$b" "$@" >"$T/$out.out" 2>"$T/$out.err" &
	pids+=($!)
}
start t count "$f(skb->len)" --comm workload
start i count -i 200ms "$f(skb->len)" --comm workload
start h -j hist -i 200ms --latency $f --comm workload
for ((n = 0; n < 1200; n++)); do
	[ "$(cat "$T"/*.err | grep -c '^Tracing')" = 3 ] && break
	sleep_s 0.1
done
# A pause longer than an interval between rounds: however fast the sends
# run, at least two tables hold samples.
for ((n = 0; n < rounds; n++)); do
	((n)) && sleep_s 0.3
	workload udp-send 150 2000 >/dev/null
done
kill -INT "${pids[@]}"
wait "${pids[@]}"

sum_rows() { awk '/^ *178 +[0-9]+$/ { s += $2; k++ } END { print s + 0, k + 0 }' "$1"; }
read -r total _ < <(sum_rows "$T/t.out")
read -r intervals tables < <(sum_rows "$T/i.out")
# each histogram's own count, not its buckets'
read -r hist htables < <(grep -o '"count":[0-9]*,"sum"' "$T/h.out" | tr -d '",a-z' |
	awk -F: '$2 > 0 { s += $2; k++ } END { print s + 0, k + 0 }')
# The kernel may skip a call for every tracer at once (7.3: a kprobe hit
# while one already runs on the CPU); each tracer reports those, and a
# sample it reports lost still counts toward the sum.
skipped() { # ERR: the final report's count of calls the kernel skipped
	sed -n 's/^Warning: lost \([0-9]*\) samples (\([0-9]*\) calls the kernel skipped[^)]*)$/\1 \2/p' "$1" |
		awk '$1 == $2 { n = $1 } END { print n + 0 }'
}
lt=$(skipped "$T/t.err") li=$(skipped "$T/i.err") lh=$(skipped "$T/h.err")
echo "skipped by the kernel: $lt $li $lh"
echo "total=$((total + lt)) intervals=$((intervals + li)) tables=$tables hist=$((hist + lh)) htables=$htables"
grep -h -e Error -e Warning "$T"/*.err | grep -Ev '^Warning: lost [0-9]+ samples (so far )?\([0-9]+ calls the kernel skipped[^,]*\)$' | head -5
exit 0
