#!/bin/bash
# count and hist -j over a UDP workload, every key field and an interval,
# for check-agg-json.py: NDJSON on stdout, the tracers' errors on stderr.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/agg-json.XXXXXX) || exit 125
trap 'kill $p1 $p2 2>/dev/null; rm -rf "$T"' EXIT

ksnoop -j count "ip_send_skb(skb->len)" --by comm,pid,tid,cpu,kstack --comm workload \
	-i 1 >"$T/c.out" 2>"$T/c.err" &
p1=$!
ksnoop -j hist --latency --unit us --by comm "ip_send_skb" --comm workload \
	>"$T/h.out" 2>"$T/h.err" &
p2=$!
for ((i = 0; i < 1200; i++)); do
	[ "$(cat "$T"/[ch].err | grep -c '^Tracing')" = 2 ] && break
	sleep_s 0.1
done
workload udp-send 150 3 >/dev/null && workload udp-send 1000 2 >/dev/null
sleep_s 1.5
kill -INT $p1 $p2
wait $p1 $p2
cat "$T/c.out" "$T/h.out"
grep -hv '^Tracing' "$T"/[ch].err >&2
exit 0
