#!/bin/bash
# Values shown as people read them, over two loopback UDP datagrams seen
# by two tracers at once: trace -j of ip_send_skb's socket address, port
# and state, and count by the port. Prints
#   json ipv4=A port=P raw=R swapped=S state=T count=K calls=N
# where S is R byte-swapped by this script (the port the datagrams went
# to) and K the count table's key, which must be P too.
#
#   tests/vm/decode.sh BACKEND
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b=$1
T=$(mktemp -d /tmp/decode.XXXXXX) || exit 125
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
sk='skb->sk->__sk_common'
pids=()

# start NAME ARGS...: ksnoop ARGS in the background, until everything is
# attached (trace -j polls its events; count says "Tracing")
start() {
	local name=$1 p n
	shift
	ksnoop -b "$b" "$@" --comm workload >"$T/$name.out" 2>"$T/$name.err" &
	p=$!
	pids+=($p)
	for ((n = 0; n < 1200; n++)); do
		{ in_epoll $p || has_line "$T/$name.err" Tracing; } && return
		kill -0 $p 2>/dev/null || return
		sleep_s 0.1
	done
}

start json -j trace "ip_send_skb($sk.skc_daddr, $sk.skc_dport, $sk.skc_state)"
start count count "ip_send_skb($sk.skc_dport)"
workload udp-send 150 2 >/dev/null
sleep_s 0.5
kill -INT "${pids[@]}"
wait "${pids[@]}"

read -r key calls < <(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$T/count.out")
line=$(grep -m1 '"function":"ip_send_skb"' "$T/json.out")
ipv4=$(sed -n 's/.*"ipv4":"\([^"]*\)".*/\1/p' <<<"$line")
raw=$(sed -n 's/.*skc_dport","type":"[^"]*","value":\([0-9]*\),"port":.*/\1/p' <<<"$line")
port=$(sed -n 's/.*skc_dport","type":"[^"]*","value":[0-9]*,"port":\([0-9]*\).*/\1/p' <<<"$line")
state=$(sed -n 's/.*"tcp_state":"\([^"]*\)".*/\1/p' <<<"$line")
echo "json ipv4=$ipv4 port=$port raw=$raw swapped=$(((${raw:-0} & 255) << 8 | ${raw:-0} >> 8)) state=$state count=$key calls=$calls"
grep -h -e Error -e Warning "$T/json.err" "$T/count.err" | head -3
exit 0
