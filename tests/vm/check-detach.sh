#!/bin/bash
# Start ksnoop, look at what the kernel has attached, stop it with a
# signal, and check that it exits 0 and leaves nothing attached.
#
#   tests/vm/check-detach.sh links|attached BACKEND:SIGNAL[:SPEC]...
#
# links     counts the BPF links (bpftool link list): a function whose
#           events all come from one side holds one link, not two
# attached  needs no bpftool: debugfs kprobes/list names every kprobe, and
#           tracefs enabled_functions every function an fentry trampoline
#           patched (SPEC must trace ip_send_skb, the default)
# Prints one line per run, the SPEC only when given:
#   "BACKEND SIGNAL [SPEC ]rc=N links-during=N links-after=N"
#   "BACKEND SIGNAL [SPEC ]rc=N attached-during=yes|no attached-after=yes|no"
# and then "kprobe_events after: N".
set -uo pipefail

links() {
	bpftool link list 2>/dev/null | grep -cE '^[0-9]+: '
}

attached() {
	if grep -qE ' ip_send_skb\+0x0( |$)' /sys/kernel/debug/kprobes/list 2>/dev/null ||
		grep -q '^ip_send_skb ' /sys/kernel/tracing/enabled_functions 2>/dev/null; then
		echo yes
	else
		echo no
	fi
}

one() { # BACKEND SIGNAL [SPEC]
	local backend=$1 sig=$2 spec=${3:-ip_send_skb} out during rc i pid
	out=$(mktemp /tmp/detach.XXXXXX)
	ksnoop -b "$backend" trace "$spec" >"$out" 2>&1 &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^ *TIME' "$out" && break
		sleep 0.1
	done
	during=$($MEASURE)
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	echo "$backend SIG$sig ${3:+$spec }rc=$rc $MEASURE-during=$during $MEASURE-after=$($MEASURE)"
	rm -f "$out"
}

MEASURE=${1:-}
case $MEASURE in
links | attached) shift ;;
*) echo "usage: $0 links|attached BACKEND:SIGNAL[:SPEC]..." >&2; exit 2 ;;
esac
for run in "$@"; do
	IFS=: read -r backend sig spec <<<"$run"
	one "$backend" "$sig" ${spec:+"$spec"}
done
echo "kprobe_events after: $(grep -c . /sys/kernel/tracing/kprobe_events)"
