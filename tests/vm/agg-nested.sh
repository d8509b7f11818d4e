#!/bin/bash
# hist --latency where one function nests in itself on one task: over
# loopback TCP, the sender's __tcp_transmit_skb runs the receive softirq
# on the way out, whose ACK is another __tcp_transmit_skb. A tracer that
# keeps one start time per task (bcc's funclatency, bcc#2548) loses or
# mistimes the outer call. Three tracers at once, filtered by comm:
#   count                    calls=N
#   hist --latency           samples=N (a duration for every call)
#   count --by kstack        nested=K (stacks with the function twice)
#
#   tests/vm/agg-nested.sh BACKEND
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b=$1 f=__tcp_transmit_skb
T=$(mktemp -d /tmp/agg-nested.XXXXXX) || exit 125
trap 'kill $p1 $p2 $p3 2>/dev/null; rm -rf "$T"' EXIT

ksnoop -b "$b" count $f --comm workload >"$T/c.out" 2>"$T/c.err" &
p1=$!
ksnoop -b "$b" -j hist --latency $f --comm workload >"$T/h.out" 2>"$T/h.err" &
p2=$!
ksnoop -b "$b" count --by kstack --folded $f --comm workload >"$T/s.out" 2>"$T/s.err" &
p3=$!
for ((i = 0; i < 1200; i++)); do
	n=$(cat "$T"/[chs].err | grep -c '^Tracing')
	[ "$n" = 3 ] && break
	sleep_s 0.1
done
workload tcp-send 100000 >/dev/null
kill -INT $p1 $p2 $p3
wait $p1 $p2 $p3
calls=$(sed -n "s/^$f  *\([0-9]*\)$/\1/p" "$T/c.out")
samples=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' "$T/h.out")
nested=$(grep -c "$f;.*;$f " "$T/s.out")
echo "calls=${calls:-0} samples=${samples:-0} nested=$nested"
grep -h -e Error -e Warning "$T"/[chs].err | head -5
exit 0
