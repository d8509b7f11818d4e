#!/bin/bash
# Block I/O spans between the block tracepoints, over N 4 KiB O_DIRECT
# writes by dd to a loop device (whose requests go through blk-mq):
#   ksnoop hist --latency --unit us --by comm --from FROM --to TO
# Prints "spans=S dd=D": every span counted, and those of dd's requests.
#
#   tests/vm/bio-tp.sh N FROM TO
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1 from=$2 to=$3
T=$(mktemp -d /tmp/bio-tp.XXXXXX) || exit 125
kpid= dev=
trap 'kill -KILL $kpid 2>/dev/null; [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$T"' EXIT

truncate -s 16M "$T/disk.img" || exit 125
dev=$(loop_attach "$T/disk.img") || { echo "bio: losetup failed"; exit 125; }
spawn ksnoop hist --latency --unit us --by comm --from "$from" --to "$to" >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
dd if=/dev/zero of="$dev" bs=4096 count="$n" oflag=direct 2>/dev/null
sync
kill -INT $kpid
now
wait_until $kpid $((NOW + 30000000))
spans=$(sed -n 's/^count \([0-9]*\),.*/\1/p' "$T/k.out" | awk '{ s += $1 } END { print s + 0 }')
dd=$(awk '/: latency \(us\), comm=dd$/ { f = 1; next } /: latency / { f = 0 }
	f && /^count / { sub(",", "", $2); print $2; exit }' "$T/k.out")
echo "spans=$spans dd=${dd:-0}"
grep -h -e Error -e Warning "$T/k.err" | head -3
exit 0
