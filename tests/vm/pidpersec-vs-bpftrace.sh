#!/bin/bash
# bpftrace's pidpersec.bt, as it ships, beside ksnoop count -i 1 -j
# wake_up_new_task, over N forks in one boot: each interval's count,
# summed. bpftrace starts first (its own threads are forks), then ksnoop;
# bpftrace's lines count from 2.5 s after both are attached, when its
# interval no longer spans ksnoop's start, to 2.5 s after the last fork
# (its END clears what its last interval had not printed). Nothing else
# forks meanwhile (builtins only): both count the workload's N forks and
# the one that started it. Prints "ksnoop=K bpftrace=B intervals=I" (I:
# ksnoop's tables with a fork), and each tool's errors.
#
#   tests/vm/pidpersec-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/pidpersec.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

: >"$T/k.err"
: >"$T/b.out"
spawn bpftrace /usr/sbin/pidpersec.bt >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop -j count -i 1 wake_up_new_task >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
sleep_s 2.5
mapfile -t before <"$T/b.out"
workload forks "$n" >/dev/null
# A second's line after the last fork from each: bpftrace's END clears
# what its last interval had not printed.
sleep_s 2.5
stop_beside_bpftrace $kpid $bpid
read -r k intervals < <(sed -n 's/.*"func":"wake_up_new_task".*"count":\([0-9]*\)}$/\1/p' "$T/k.out" |
	awk '{ s += $1; k += $1 > 0 } END { print s + 0, k + 0 }')
b=$(tail -n +$((${#before[@]} + 1)) "$T/b.out" | sed -n 's/.*PIDs\/sec: @: \([0-9]*\)$/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
echo "ksnoop=$k bpftrace=$b intervals=$intervals"
grep -h -e Error -e Warning "$T/k.err" | head -3
grep -h -i error "$T/b.err" | head -3
exit 0
