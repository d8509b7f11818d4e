#!/bin/bash
# bpftrace's biostacks.bt, as it ships, beside one ksnoop hist of spans,
# in one boot, over N 4 KiB O_DIRECT writes by dd to a loop device: the
# time from a request's accounting start to its dispatch, by the stack
# that started it,
#   ksnoop hist --latency --unit us --by kstack
#       --from 'blk_account_io_start(rq)' --to 'blk_mq_start_request(rq)'
# (the parameter named as this kernel's BTF names it). Only kernels where
# ftrace patches blk_account_io_start run it: 6.1 inlines it, 6.12 marks
# it notrace, which Debian's kprobes refuse too. Prints "spans ksnoop=K
# bpftrace=B stacks ksnoop=S bpftrace=T" (spans each measured, and under
# how many distinct stacks), then each tool's errors.
#
#   tests/vm/biostacks-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/biostacks.XXXXXX) || exit 125
kpid= bpid= dev=
trap 'kill -KILL $kpid $bpid 2>/dev/null; [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$T"' EXIT

rq=$(ksnoop info blk_account_io_start | sed -n 's/.*(struct request \*\([a-z_]*\)).*/\1/p')
[ -n "$rq" ] || { echo "biostacks: no blk_account_io_start(struct request *)"; exit 125; }
truncate -s 16M "$T/disk.img" || exit 125
dev=$(loop_attach "$T/disk.img") || { echo "biostacks: losetup failed"; exit 125; }
: >"$T/b.out"
: >"$T/k.err"
spawn bpftrace /usr/sbin/biostacks.bt >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop hist --latency --unit us --by kstack --from "blk_account_io_start($rq)" \
	--to 'blk_mq_start_request(rq)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
dd if=/dev/zero of="$dev" bs=4096 count="$n" oflag=direct 2>/dev/null
sync
sleep_s 1
stop_beside_bpftrace $kpid $bpid
k=$(sed -n 's/^count \([0-9]*\),.*/\1/p' "$T/k.out" | awk '{ s += $1 } END { print s + 0 }')
ks=$(grep -c '^count ' "$T/k.out")
b=$(sed -n 's/^\[[^])]*[])] *\([0-9][0-9]*\) |.*/\1/p' "$T/b.out" | awk '{ s += $1 } END { print s + 0 }')
bs=$(grep -c '^@usecs\[' "$T/b.out")
echo "spans ksnoop=$k bpftrace=$b stacks ksnoop=$ks bpftrace=$bs"
grep -h -e Error -e Warning "$T/k.err" | grep -v 'still open at exit' | head -3
grep -h -i error "$T/b.err" | grep -v RLIMIT_MEMLOCK | head -3
exit 0
