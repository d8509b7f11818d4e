#!/bin/bash
# The kernel's own record of a tracepoint beside ksnoop's, in one run: the
# net:net_dev_queue event, enabled in tracefs with a filter on its len
# field, and ksnoop count 'tp:net:net_dev_queue(skb->len, skb->len == LEN)' (arg0
# where BTF does not name it: see ksnoop info), over N
# UDP datagrams of a size no other traffic has on loopback. Prints
# "events ksnoop=K tracefs=T len=L" (L: the len tracefs printed) and
# ksnoop's errors.
#
#   tests/vm/tp-vs-tracefs.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
payload=1221
len=$((payload + 8 + 20 + 14)) # UDP, IPv4 and Ethernet headers: lo's frames have one
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || tfs=/sys/kernel/debug/tracing
ev=$tfs/events/net/net_dev_queue
T=$(mktemp -d /tmp/tp-tracefs.XXXXXX) || exit 125
kpid=
cleanup() {
	kill -KILL $kpid 2>/dev/null
	echo 0 >"$ev/enable"
	echo 0 >"$ev/filter"
	echo >"$tfs/trace"
	rm -rf "$T"
}
trap cleanup EXIT

echo >"$tfs/trace"
echo "len == $len" >"$ev/filter" || exit 1
echo 1 >"$ev/enable" || exit 1
skb=$(ksnoop info tp:net:net_dev_queue | sed -n 's/.*(struct sk_buff \*\([a-z0-9_]*\)).*/\1/p')
spawn ksnoop count "tp:net:net_dev_queue(${skb:-skb}->len, ${skb:-skb}->len == $len)" >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
workload udp-send $payload "$n" >/dev/null
sleep_s 0.5
kill -INT $kpid
now
wait_until $kpid $((NOW + 30000000))
echo 0 >"$ev/enable"
k=$(awk -v l=$len '$1 == l { s += $NF } END { print s + 0 }' "$T/k.out")
t=$(grep -c 'net_dev_queue:' "$tfs/trace")
l=$(sed -n 's/.*net_dev_queue:.* len=\([0-9]*\).*/\1/p' "$tfs/trace" | sort -u | tr '\n' ' ')
echo "events ksnoop=$k tracefs=$t len=${l% }"
grep -h -e Error -e Warning "$T/k.err" | head -3
exit 0
