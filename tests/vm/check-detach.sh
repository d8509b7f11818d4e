#!/bin/bash
# Start ksnoop, count the BPF links it holds, stop it with a signal, and
# check that it exits 0 and leaves no link and no kprobe event behind.
# Prints one line per run: "BACKEND SIGNAL rc=N links-during=N links-after=N".
# A function whose events all come from one side holds one link, not two.
set -uo pipefail

count_links() {
	bpftool link list 2>/dev/null | grep -cE '^[0-9]+: '
}

one() { # BACKEND SIGNAL [SPEC]
	local backend=$1 sig=$2 spec=${3:-ip_send_skb} out during rc i
	out=$(mktemp /tmp/detach.XXXXXX)
	ksnoop -b "$backend" trace "$spec" >"$out" 2>&1 &
	local pid=$!
	for i in $(seq 300); do
		grep -q '^ *TIME' "$out" && break
		sleep 0.1
	done
	during=$(count_links)
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	echo "$backend SIG$sig ${3:+$spec }rc=$rc links-during=$during links-after=$(count_links)"
	rm -f "$out"
}

one fentry TERM
one kprobe HUP
one fentry INT "write_null(count == 7)"
one kprobe INT "ip_send_skb(return)"
echo "kprobe_events after: $(grep -c . /sys/kernel/tracing/kprobe_events)"
