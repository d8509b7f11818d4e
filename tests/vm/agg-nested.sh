#!/bin/bash
# hist --latency where one function nests in itself on one task: an eventfd
# watched by an epoll that another epoll watches. Each write wakes the
# inner epoll's ep_poll_callback, which wakes the outer one's, inside the
# first. A tracer that keeps one start time per task (bcc's funclatency,
# bcc#2548) loses or mistimes the outer call. Filtered by comm, two
# tracers at once over one run,
#   count                    calls=N
#   hist --latency           samples=N (a duration for every call)
# and over another, the same, alone:
#   count --by kstack        nested=K (stacks with the function twice)
# (before 5.14 a stack taken under a kretprobe's hijacked return address
# ends at its trampoline: hist --latency's kretprobe would cut it).
#
#   tests/vm/agg-nested.sh BACKEND
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b=$1 f=ep_poll_callback
T=$(mktemp -d /tmp/agg-nested.XXXXXX) || exit 125
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT

# Runs the workload under the tracers "ksnoop -b BACKEND ARGS" given as
# OUT=ARGS words, once all have attached, and stops them.
under() {
	local pids=() spec i n
	for spec; do
		# shellcheck disable=SC2086 # ARGS are words
		ksnoop -b "$b" ${spec#*=} >"$T/${spec%%=*}.out" 2>"$T/${spec%%=*}.err" &
		pids+=($!)
	done
	for ((i = 0; i < 1200; i++)); do
		n=$(cat "$T"/*.err | grep -c '^Tracing')
		[ "$n" = $# ] && break
		sleep_s 0.1
	done
	workload epoll-nest 20 >/dev/null
	kill -INT "${pids[@]}"
	wait "${pids[@]}"
}

under "c=count $f --comm workload" "h=-j hist --latency $f --comm workload"
mv "$T/c.err" "$T/c.log"
mv "$T/h.err" "$T/h.log"
under "s=count --by kstack --folded $f --comm workload"
mv "$T/s.err" "$T/s.log"
calls=$(sed -n "s/^$f  *\([0-9]*\)$/\1/p" "$T/c.out")
samples=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' "$T/h.out")
nested=$(grep -c "$f;.*;$f " "$T/s.out")
echo "calls=${calls:-0} samples=${samples:-0} nested=$nested"
grep -h -e Error -e Warning "$T"/*.log | head -5
exit 0
