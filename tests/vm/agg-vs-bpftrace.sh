#!/bin/bash
# ksnoop hist and bpftrace's hist() over one workload, in one boot: both
# attached at once, the same UDP sends (50 x3, 150 x5, 1000 x2 bytes),
# then both stopped. Prints each tool's non-empty buckets as "LABEL COUNT"
# lines (ksnoop's), and "same=1" when bpftrace's are the same, else
# "same=0" and bpftrace's lines, prefixed "bpftrace: ".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/agg-bt.XXXXXX) || exit 125
trap 'kill $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

ksnoop hist "ip_send_skb(skb->len)" --comm workload >"$T/k.out" 2>"$T/k.err" &
kpid=$!
bpftrace -e 'kprobe:ip_send_skb /comm == "workload"/ {
	@len = hist(((struct sk_buff *)arg1)->len); }
	BEGIN { printf("ready\n"); }' >"$T/b.out" 2>"$T/b.err" &
bpid=$!
for ((i = 0; i < 1200; i++)); do
	grep -q '^Tracing' "$T/k.err" && grep -q '^ready' "$T/b.out" && break
	kill -0 $kpid 2>/dev/null && kill -0 $bpid 2>/dev/null || break
	sleep_s 0.1
done
workload udp-send 50 3 >/dev/null && workload udp-send 150 5 >/dev/null &&
	workload udp-send 1000 2 >/dev/null
kill -INT $kpid $bpid
wait $kpid $bpid
# "[128, 256)   5 |@@@|" -> "[128, 256) 5", empty buckets left out
buckets() {
	sed -n 's/^\(\[[^)]*[])]\) *\([1-9][0-9]*\) |.*/\1 \2/p' "$1"
}
buckets "$T/k.out" >"$T/k.b"
buckets "$T/b.out" >"$T/b.b"
cat "$T/k.b"
if [ -s "$T/k.b" ] && cmp -s "$T/k.b" "$T/b.b"; then
	echo same=1
else
	echo same=0
	sed 's/^/bpftrace: /' "$T/b.b" "$T/b.err" | head -20
fi
