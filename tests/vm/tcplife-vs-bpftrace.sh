#!/bin/bash
# bpftrace's tcplife.bt, as it ships, beside one ksnoop command, over N
# loopback TCP connections (each: connect, B bytes each way in turn,
# close; both ends are this boot's sockets) in one boot:
#   ksnoop -j trace
#     --from 'tcp_set_state(sk, state == TCP_SYN_SENT
#                           || (state == TCP_ESTABLISHED && was TCP_SYN_RECV))'
#     --to 'tcp_set_state(sk, state == TCP_CLOSE, lport, bytes_acked, bytes_received)'
# tcplife.bt's birth is a socket's first state below TCP_FIN_WAIT1: the
# client's SYN_SENT, the server's ESTABLISHED (its SYN_RECV is set without
# tcp_set_state); ksnoop's starts are those two. Prints, sorted, one line
# per socket each tool saw close, "k|b LPORT TX_KB RX_KB", then
# "ksnoop=K bpftrace=B same=yes|no" (sockets; yes when both saw the same
# ports and KB) and each tool's errors.
#
#   tests/vm/tcplife-vs-bpftrace.sh N BYTES
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1 bytes=$2
T=$(mktemp -d /tmp/tcplife.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

spawn bpftrace /usr/sbin/tcplife.bt >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
spawn ksnoop -j trace \
	--from 'tcp_set_state(sk, state == 2 || (state == 1 && sk->__sk_common.skc_state == 3))' \
	--to 'tcp_set_state(sk, state == 7, sk->__sk_common.skc_num, (struct tcp_sock *)sk->bytes_acked, (struct tcp_sock *)sk->bytes_received)' \
	>"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
for ((i = 0; i < 1500; i++)); do
	has_line "$T/b.out" PID && in_epoll $kpid && break
	kill -0 $kpid 2>/dev/null && kill -0 $bpid 2>/dev/null || break
	sleep_s 0.1
done
for ((i = 0; i < n; i++)); do
	workload tcp-send "$bytes" >/dev/null
done
sleep_s 1
stop_beside_bpftrace $kpid $bpid
# ksnoop: the end's values, in the order of its spec
sed -n 's/.*"event":"span",.*"values":\[{"name":"sk",[^]]*"name":"sk->__sk_common.skc_num","type":"[^"]*","value":\([0-9]*\)},{"name":"(struct tcp_sock \*)sk->bytes_acked","type":"[^"]*","value":\([0-9]*\)},{"name":"(struct tcp_sock \*)sk->bytes_received","type":"[^"]*","value":\([0-9]*\)}\].*/\1 \2 \3/p' \
	"$T/k.out" | awk '{ printf "k %d %d %d\n", $1, $2 / 1024, $3 / 1024 }' >"$T/k.lines"
awk '$1 ~ /^[0-9]+$/ && NF >= 9 { printf "b %d %d %d\n", $4, $7, $8 }' "$T/b.out" >"$T/b.lines"
sort "$T/k.lines" "$T/b.lines"
same=no
cmp -s <(cut -d' ' -f2- "$T/k.lines" | sort) <(cut -d' ' -f2- "$T/b.lines" | sort) && same=yes
echo "ksnoop=$(grep -c . "$T/k.lines") bpftrace=$(grep -c . "$T/b.lines") same=$same"
grep -h -e Error -e Warning "$T/k.err" | head -3
grep -h -i error "$T/b.err" | head -3
exit 0
