#!/bin/bash
# bpftrace's swapin.bt, as it ships, beside ksnoop count -i 1 -j --by pid
# swap_readpage, in one boot: the pages one process swaps in, summed over
# each tool's per-second lines. The guest gets swap on a loop device and
# the process a cgroup of MAX MiB that it fills twice over (it writes
# MAX * 2 MiB, then reads it back). Prints
#   pid=P ksnoop=K pswpin=S bpftrace=B kernel_more=S-K bpftrace_short=K-B
# P the process, S the kernel's own count of pages swapped in meanwhile
# (/proc/vmstat, every process), and each tool's errors. bpftrace's
# print-then-clear loses the swap-ins counted between the two, so B may
# fall a few short; a map it prints again at exit is counted once.
#
#   tests/vm/swapin-vs-bpftrace.sh MAX
set -uo pipefail
. "$(dirname "$0")/lib.sh"
max=$1
T=$(mktemp -d /tmp/swapin.XXXXXX) || exit 125
cg=$T/cg dev= kpid= bpid=
cleanup() {
	kill -KILL $kpid $bpid 2>/dev/null
	[ -n "$dev" ] && { swapoff "$dev"; losetup -d "$dev"; }
	rmdir "$cg/swapin" 2>/dev/null
	umount "$cg" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

mkdir "$cg" && mount -t cgroup2 cgroup2 "$cg" || exit 125
echo +memory >"$cg/cgroup.subtree_control" && mkdir "$cg/swapin" &&
	echo $((max << 20)) >"$cg/swapin/memory.max" || exit 125
head -c $((max * 4 << 20)) /dev/zero >"$T/swap"
dev=$(loop_attach "$T/swap") && mkswap "$dev" >/dev/null && swapon "$dev" || exit 125

: >"$T/k.err"
: >"$T/b.out"
spawn bpftrace /usr/sbin/swapin.bt >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
# swapin.bt says nothing when attached: its first interval's time line
for ((i = 0; i < 1500; i++)); do
	grep -q '^[0-9][0-9]:' "$T/b.out" && break
	kill -0 $bpid 2>/dev/null || break
	sleep_s 0.1
done
spawn ksnoop -j count -i 1 --by pid swap_readpage >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
mapfile -t before <"$T/b.out"
pswpin=$(awk '$1 == "pswpin" { print $2 }' /proc/vmstat)
sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2" && exec python3 -c "
import sys
b = bytearray(int(sys.argv[1]) << 20)
for i in range(0, len(b), 4096): b[i] = 1
print(sum(b[i] for i in range(0, len(b), 4096)))
" $3' sh "$cg/swapin" "$T/pid" $((max * 2)) >/dev/null
pid=$(cat "$T/pid")
pswpin=$(($(awk '$1 == "pswpin" { print $2 }' /proc/vmstat) - pswpin))
# A second's line after the last swap-in from each
sleep_s 2.5
stop_beside_bpftrace $kpid $bpid
k=$(sed -n "s/.*\"func\":\"swap_readpage\",\"key\":{\"pid\":$pid},\"count\":\([0-9]*\)}$/\1/p" "$T/k.out" |
	awk '{ s += $1 } END { print s + 0 }')
# A map bpftrace prints at exit follows the last interval's lines without a
# time line; where the SIGINT fell between print(@) and clear(@), it is the
# same map again (the same count twice in the last block): counted once.
b=$(tail -n +$((${#before[@]} + 1)) "$T/b.out" | awk -v key="@[python3, $pid]:" '
	/^[0-9][0-9]:/ { last = -1; next }
	$1 " " $2 == key { v = $3 + 0; if (v != last) s += v; last = v }
	END { print s + 0 }')
echo "pid=$pid ksnoop=$k pswpin=$pswpin bpftrace=$b kernel_more=$((pswpin - k)) bpftrace_short=$((k - b))"
grep -h -e Error -e Warning "$T/k.err" | head -3
grep -h -i error "$T/b.err" | head -3
exit 0
