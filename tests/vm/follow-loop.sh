#!/bin/bash
# trace --follow rq through a module's functions: N 4 KiB O_DIRECT writes
# by dd to a loop device, each request followed from blk_mq_start_request
# through every function of vmlinux and the loaded modules that takes a
# struct request. The loop driver (a module) completes each in
# lo_complete_rq. Prints "starts=S lo_complete_rq=L" (L: lo_complete_rq
# lines whose request a start line named) and ksnoop's errors.
#
#   tests/vm/follow-loop.sh N [KSNOOP-TRACE-ARGS...]
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
shift
T=$(mktemp -d /tmp/follow-loop.XXXXXX) || exit 125
kpid= dev=
trap 'kill -KILL $kpid 2>/dev/null; [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$T"' EXIT

truncate -s 16M "$T/disk.img" || exit 125
dev=$(loop_attach "$T/disk.img") || { echo "follow-loop: losetup failed"; exit 125; }
: >"$T/k.out"
spawn ksnoop trace "$@" --follow rq 'blk_mq_start_request(rq)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
wait_polling $kpid
dd if=/dev/zero of="$dev" bs=4096 count="$n" oflag=direct 2>/dev/null
sync
sleep_s 1
kill -INT $kpid
now
wait_until $kpid $((NOW + 30000000))
awk '/ blk_mq_start_request\(rq=0x/ { match($0, /rq=0x[0-9a-f]+/); rq[substr($0, RSTART + 3, RLENGTH - 3)] = 1; s++ }
	/ lo_complete_rq\(rq=0x/ { match($0, /rq=0x[0-9a-f]+/); l += substr($0, RSTART + 3, RLENGTH - 3) in rq }
	END { print "starts=" s + 0, "lo_complete_rq=" l + 0 }' "$T/k.out"
grep -h -e Error -e Warning "$T/k.err" | head -3
exit 0
