#!/bin/bash
# Block I/O, ksnoop's spans beside bpftrace's biolatency and biosnoop
# logic, in one boot: all attached at once over N 4 KiB O_DIRECT writes by
# dd to a loop device (whose requests go through blk-mq), then stopped.
#   ksnoop hist --latency --unit us --by comm
#       --from 'blk_mq_start_request(rq)' --to 'blk_mq_end_request(rq)'
#   ksnoop -j trace --from 'blk_mq_start_request(rq, rq->__data_len)'
#       --to 'blk_mq_end_request(rq, error)'     (biosnoop: one per request)
#   bpftrace: at the start @start, @comm and @len of arg0; at the end, hist
#       of (nsecs - @start[arg0]) / 1000, one line "io COMM LEN", delete
# Prints "bpftrace_recursion_misses=N" (its programs the kernel skipped),
# "ksnoop=N bpftrace=M dd=D" (the spans each counted; D is dd's
# spans in ksnoop's by-comm table), then each tool's non-empty buckets as
# "k: LABEL COUNT" and "b: LABEL COUNT", then the per-request lines as
# "snoop ksnoop=N len=L dd=D bpftrace=N len=L dd=D": requests, those of
# 4096 bytes, those a task named dd started.
#
#   tests/vm/bio-vs-bpftrace.sh N [alone]
# alone: ksnoop's two tracers without bpftrace (whose figures read 0).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1 alone=${2:-}
T=$(mktemp -d /tmp/bio-bt.XXXXXX) || exit 125
kpid= bpid= spid= dev=
trap 'kill -KILL $kpid $bpid $spid 2>/dev/null; [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$T"' EXIT

truncate -s 16M "$T/disk.img" || exit 125
dev=$(loop_attach "$T/disk.img") || { echo "bio: losetup failed"; exit 125; }

spawn ksnoop hist --latency --unit us --by comm --from 'blk_mq_start_request(rq)' \
	--to 'blk_mq_end_request(rq)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
spawn ksnoop -j trace --from 'blk_mq_start_request(rq, rq->__data_len)' \
	--to 'blk_mq_end_request(rq, error)' >"$T/s.out" 2>"$T/s.err"
spid=$SPAWNED
: >"$T/b.out"
[ -n "$alone" ] || spawn bpftrace -e 'kprobe:blk_mq_start_request { @start[arg0] = nsecs; @comm[arg0] = comm;
		@len[arg0] = ((struct request *)arg0)->__data_len; }
	kprobe:blk_mq_end_request /@start[arg0]/ {
		@usecs = hist((nsecs - @start[arg0]) / 1000);
		printf("io %s %d\n", @comm[arg0], @len[arg0]);
		delete(@start[arg0]); delete(@comm[arg0]); delete(@len[arg0]); }
	END { clear(@start); clear(@comm); clear(@len); }
	BEGIN { printf("ready\n"); }' >"$T/b.out" 2>"$T/b.err"
[ -n "$alone" ] || bpid=$SPAWNED
for ((i = 0; i < 1500; i++)); do
	grep -q Tracing "$T/k.err" && { [ -n "$alone" ] || grep -q ready "$T/b.out"; } &&
		in_epoll $spid && break
	kill -0 $kpid $spid 2>/dev/null && { [ -n "$alone" ] || kill -0 $bpid 2>/dev/null; } ||
		break
	sleep_s 0.1
done
dd if=/dev/zero of="$dev" bs=4096 count="$n" oflag=direct 2>/dev/null
sync
kill -INT $spid
wait $spid
if [ -n "$alone" ]; then
	kill -INT $kpid
	wait $kpid
else
	# bpftrace's kprobe programs are skipped when one of them (or ksnoop's
	# kprobe programs) is already running on the CPU: the kernel counts
	# those in recursion_misses, which bpftool shows only when not 0.
	missed=$(bpftool prog show --json 2>/dev/null | python3 -c '
import json, sys
print(sum(p.get("recursion_misses", 0) for p in json.load(sys.stdin)
	if p.get("type") == "kprobe" and p.get("name", "").startswith("blk_mq_")))' 2>/dev/null)
	echo "bpftrace_recursion_misses=${missed:-unknown}"
	stop_beside_bpftrace $kpid $bpid
fi
# the count line of each table; bpftrace's hist has none: sum its buckets
kcount=$(sed -n 's/^count \([0-9]*\),.*/\1/p' "$T/k.out" | awk '{ s += $1 } END { print s + 0 }')
buckets() { sed -n 's/^\(\[[^)]*[])]\) *\([1-9][0-9]*\) |.*/\1 \2/p' "$1"; }
bcount=$(buckets "$T/b.out" | awk '{ s += $NF } END { print s + 0 }')
ddcount=$(awk '/: latency \(us\), comm=dd$/ { f = 1; next } /: latency / { f = 0 }
	f && /^count / { sub(",", "", $2); print $2; exit }' "$T/k.out")
echo "ksnoop=$kcount bpftrace=$bcount dd=${ddcount:-0}"
buckets "$T/k.out" | sed 's/^/k: /'
buckets "$T/b.out" | sed 's/^/b: /'
snoop() { # FILE: requests, of 4096 bytes, started by dd
	awk '{ n++ } $2 == 4096 { l++ } $1 == "dd" { d++ }
		END { printf "%d len=%d dd=%d", n, l, d }' "$1"
}
# ksnoop's span objects: the start's comm and length, from "from"
sed -n 's/.*"event":"span",.*"from":{.*"comm":"\([^"]*\)",.*"name":"rq->__data_len","type":"[^"]*","value":\([0-9]*\)}.*/\1 \2/p' \
	"$T/s.out" >"$T/s.io"
sed -n 's/^io //p' "$T/b.out" >"$T/b.io"
echo "snoop ksnoop=$(snoop "$T/s.io") bpftrace=$(snoop "$T/b.io")"
grep -h -e Error -e Warning "$T/k.err" "$T/s.err" | head -3
exit 0
