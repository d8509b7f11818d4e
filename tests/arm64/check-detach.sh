#!/bin/bash
# Start ksnoop on ip_send_skb, check the kernel lists it as attached, stop
# it with a signal, and check it exits 0 and leaves nothing attached.
# Needs no bpftool: debugfs kprobes/list names every kprobe, and tracefs
# enabled_functions every function an fentry trampoline patched.
# Prints one line per run:
#   "BACKEND SIGNAL rc=N attached-during=yes|no attached-after=yes|no"
set -uo pipefail

attached() {
	if grep -qE ' ip_send_skb\+0x0( |$)' /sys/kernel/debug/kprobes/list 2>/dev/null ||
		grep -q '^ip_send_skb ' /sys/kernel/tracing/enabled_functions 2>/dev/null; then
		echo yes
	else
		echo no
	fi
}

one() {
	local backend=$1 sig=$2 out during rc i pid
	out=$(mktemp /tmp/detach.XXXXXX)
	ksnoop -b "$backend" trace ip_send_skb >"$out" 2>&1 &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^ *TIME' "$out" && break
		sleep 0.1
	done
	during=$(attached)
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	echo "$backend SIG$sig rc=$rc attached-during=$during attached-after=$(attached)"
	rm -f "$out"
}

one auto TERM
one kprobe HUP
echo "kprobe_events after: $(grep -c . /sys/kernel/tracing/kprobe_events)"
