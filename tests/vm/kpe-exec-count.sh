#!/bin/bash
# t: sched_process_exec beside t: sched_switch over N execs of the
# workload, two shells at once and a CPU hog beside them, so that exec
# programs get preempted (7.3 runs raw tracepoint programs preemptible)
# and switches run programs on their CPU meanwhile. Every exec must be
# printed or counted lost: the kernel skips, and counts, a program that
# runs again on a CPU where it is preempted.
#
#   tests/vm/kpe-exec-count.sh N
#
# Prints "execs: N accounted for (printed P, lost L)" and exits 0, or
# "execs: MISMATCH ..." and exits 1.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

N=${1:?usage: $0 N}
half=$((N / 2))
T=$(mktemp -d /tmp/kpe-exec.XXXXXX) || exit 1
(while :; do :; done) &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$T"' EXIT

one="for i in \$(seq $half); do workload naps 1 >/dev/null; done"
F='comm == "workload"'
trace_bg --ready '^#' --settle 1 --timeout 300 --out "$T/out" --err "$T/err" \
	--workload "$one & $one; wait" -- ksnoop probe \
	't:kpet/sw sched_switch prev_pid=prev->pid p=$arg2' --filter "$F" \
	't:kpet/ex sched_process_exec $arg* c=$comm' --filter "$F"
rc=$?
if [ $rc != 0 ]; then
	echo "execs: ksnoop probe failed with status $rc"
	cat "$T/err"
	exit 1
fi
printed=$(grep -cE ' ex: .* c="workload"$' "$T/out")
# The last drop line is the total at exit.
lost=$(sed -nE 's/^Warning: lost ([0-9]+) events \(.*$/\1/p' "$T/err" | tail -1)
lost=${lost:-0}
if [ "$printed" -le $((half * 2)) ] && [ $((printed + lost)) -ge $((half * 2)) ]; then
	echo "execs: $((half * 2)) accounted for (printed $printed, lost $lost)"
	exit 0
fi
echo "execs: MISMATCH: $((half * 2)) execs, printed $printed, lost $lost"
cat "$T/err"
exit 1
