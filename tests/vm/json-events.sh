#!/bin/bash
# Real JSON events for the schema check: entry, return and combined events
# from a few specs, driven by loopback UDP and a failed open.
set -uo pipefail
out=$(mktemp /tmp/json-events.XXXXXX)
ksnoop -j trace ip_send_skb "do_sys_openat2(filename, return)" \
	"ip_rcv(dev->name, skb->len)" >"$out" 2>/dev/null &
pid=$!
sleep 3
for i in 1 2 3; do
	workload udp-send 150 2 >/dev/null
	workload open-missing /nonexistent/json >/dev/null
	[ -s "$out" ] && break
	sleep 1
done
sleep 1
kill -INT $pid
wait $pid
cat "$out"
rm -f "$out"
