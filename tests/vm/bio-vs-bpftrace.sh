#!/bin/bash
# Block I/O latency, ksnoop's span beside bpftrace's biolatency logic, in
# one boot: both attached at once over N 4 KiB O_DIRECT writes by dd to a
# loop device (whose requests go through blk-mq), then both stopped.
#   ksnoop hist --latency --unit us --by comm
#       --from 'blk_mq_start_request(rq)' --to 'blk_mq_end_request(rq)'
#   bpftrace: @start[arg0] = nsecs at the start; at the end, hist of
#       (nsecs - @start[arg0]) / 1000 and delete
# Prints "ksnoop=N bpftrace=M dd=D" (the spans each counted; D is dd's
# spans in ksnoop's by-comm table), then each tool's non-empty buckets as
# "k: LABEL COUNT" and "b: LABEL COUNT".
#
#   tests/vm/bio-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/bio-bt.XXXXXX) || exit 125
kpid= bpid= dev=
trap 'kill -KILL $kpid $bpid 2>/dev/null; [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$T"' EXIT

truncate -s 16M "$T/disk.img" || exit 125
dev=$(losetup -f --show "$T/disk.img") || { echo "bio: losetup failed"; exit 125; }

spawn ksnoop hist --latency --unit us --by comm --from 'blk_mq_start_request(rq)' \
	--to 'blk_mq_end_request(rq)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
spawn bpftrace -e 'kprobe:blk_mq_start_request { @start[arg0] = nsecs; }
	kprobe:blk_mq_end_request /@start[arg0]/ {
		@usecs = hist((nsecs - @start[arg0]) / 1000); delete(@start[arg0]); }
	END { clear(@start); }
	BEGIN { printf("ready\n"); }' >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
for ((i = 0; i < 1500; i++)); do
	grep -q Tracing "$T/k.err" && grep -q ready "$T/b.out" && break
	kill -0 $kpid 2>/dev/null && kill -0 $bpid 2>/dev/null || break
	sleep_s 0.1
done
dd if=/dev/zero of="$dev" bs=4096 count="$n" oflag=direct 2>/dev/null
sync
stop_beside_bpftrace $kpid $bpid
# the count line of each table; bpftrace's hist has none: sum its buckets
kcount=$(sed -n 's/^count \([0-9]*\),.*/\1/p' "$T/k.out" | awk '{ s += $1 } END { print s + 0 }')
buckets() { sed -n 's/^\(\[[^)]*[])]\) *\([1-9][0-9]*\) |.*/\1 \2/p' "$1"; }
bcount=$(buckets "$T/b.out" | awk '{ s += $NF } END { print s + 0 }')
ddcount=$(awk '/: latency \(us\), comm=dd$/ { f = 1; next } /: latency / { f = 0 }
	f && /^count / { sub(",", "", $2); print $2; exit }' "$T/k.out")
echo "ksnoop=$kcount bpftrace=$bcount dd=${ddcount:-0}"
buckets "$T/k.out" | sed 's/^/k: /'
buckets "$T/b.out" | sed 's/^/b: /'
grep -h -e Error -e Warning "$T/k.err" | head -3
exit 0
