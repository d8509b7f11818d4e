#!/bin/bash
# Real JSON events for the schema check: entry, return and combined events
# from a few specs, driven by loopback UDP and a failed open.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
out=$(mktemp /tmp/json-events.XXXXXX)
ksnoop -j trace --kstack-depth 8 ip_send_skb "do_sys_openat2(filename, return)" \
	"ip_rcv(dev->name, skb->len)" >"$out" 2>/dev/null &
pid=$!
# Attached once it sleeps polling the ring buffer (JSON has no header).
wait_polling $pid
workload udp-send 150 2 >/dev/null
workload open-missing /nonexistent/json >/dev/null
for i in $(seq 100); do
	[ "$(grep -c . "$out")" -ge 5 ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid
cat "$out"
rm -f "$out"
