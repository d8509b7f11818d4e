#!/bin/bash
# bpftrace's runqlat.bt beside one ksnoop hist --latency of spans between
# tracepoints, in one boot, over a workload that naps N times: how many
# waits for a CPU each measured. Both keep to the workload's own waits,
# runqlat.bt with a comm filter on the probes that start one (its one
# change; otherwise every task's wakeups count and the two tools' own
# wakeups differ). runqlat.bt starts a wait at a wakeup, and at a switch
# away from a task still runnable that was not preempted (its prev_state
# field is 0 only then); ksnoop's three --from say the same. bpftrace
# 0.17 cannot parse Debian 12's <linux/sched.h> ("unknown type name
# '__aligned_u64'"), which runqlat.bt includes for TASK_RUNNING alone: the
# copy defines it (0) instead. Prints
# "samples ksnoop=K bpftrace=B", and each tool's errors.
#
#   tests/vm/runqlat-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/runqlat.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

awk '/^#include <linux\/sched.h>$/ { print "#define TASK_RUNNING 0"; next }
	/^tracepoint:sched:sched_wakeup_new$/ { print; print "/args->comm == \"workload\"/"; next }
	{ sub(/args->prev_state == TASK_RUNNING/,
	      "args->prev_state == TASK_RUNNING \\&\\& args->prev_comm == \"workload\""); print }' \
	/usr/sbin/runqlat.bt >"$T/runqlat.bt"
grep -q 'prev_comm == "workload"' "$T/runqlat.bt" || { echo "runqlat.bt: no filter added"; exit 1; }
: >"$T/k.err"
: >"$T/b.out"
spawn bpftrace "$T/runqlat.bt" >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
w='p->comm == "workload"'
spawn ksnoop hist --latency --from "tp:sched:sched_wakeup(p->pid, $w)" \
	--from "tp:sched:sched_wakeup_new(p->pid, $w)" \
	--from 'tp:sched:sched_switch(prev->pid, preempt == 0, prev_state == 0, prev->comm == "workload")' \
	--to 'tp:sched:sched_switch(next->pid)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
naps=()
for ((i = 0; i < n; i++)); do
	naps+=(20)
done
workload naps "${naps[@]}" >/dev/null
sleep_s 1
stop_beside_bpftrace $kpid $bpid
k=$(awk '/^count / { s += $2 } END { print s + 0 }' "$T/k.out")
b=$(sed -n 's/^\[[^])]*[])] *\([0-9][0-9]*\) .*/\1/p' "$T/b.out" | awk '{ s += $1 } END { print s + 0 }')
echo "samples ksnoop=$k bpftrace=$b"
grep -h -e Error -e Warning "$T/k.err" | grep -v 'still open at exit\|span restarted' | head -3
grep -h -i error "$T/b.err" | head -3
exit 0
