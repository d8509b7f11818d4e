#!/bin/bash
# bpftrace's vfsstat.bt beside ksnoop count -i 1 -j over the same VFS
# calls, in one boot: each interval's count per function, summed. Both
# count the workload's calls only: ksnoop with --comm workload, vfsstat.bt
# with the same filter added to its probe (its one change: otherwise each
# tool counts the other's output writes, one a second, in windows that do
# not line up). The workload reads a file of N pages (N + 1 reads, one
# open), opens N files and fails to open N more. Prints one line per function either
# tool saw, "FUNC ksnoop=K bpftrace=B", and each tool's errors.
#
#   tests/vm/vfsstat-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/vfsstat.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

awk '{ print } /^kprobe:vfs_create$/ { print "/comm == \"workload\"/" }' \
	/usr/sbin/vfsstat.bt >"$T/vfsstat.bt"
head -c $((n * 4096)) /dev/zero >"$T/file"
: >"$T/k.err"
: >"$T/b.out"
spawn bpftrace "$T/vfsstat.bt" >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop -j count -i 1 --comm workload 'vfs_read*' 'vfs_write*' vfs_fsync vfs_open vfs_create \
	>"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
tracing_ready "$T/k.err" $kpid
workload read-file "$T/file" >/dev/null
workload open-mixed "$T/file" "$n" >/dev/null
# A second's line after the last call from each: bpftrace's END clears
# what its last interval had not printed.
sleep_s 2.5
stop_beside_bpftrace $kpid $bpid
sed -n 's/.*"func":"\([^"]*\)".*"count":\([0-9]*\)}$/\1 k \2/p' "$T/k.out" >"$T/sum"
# bpftrace 0.17's func is the bare name; later ones prefix "kprobe:"
sed -n 's/^@\[\(kprobe:\)\{0,1\}\([^]]*\)\]: \([0-9]*\)$/\2 b \3/p' "$T/b.out" >>"$T/sum"
awk '{ s[$1, $2] += $3; f[$1] = 1 }
	END { for (x in f) printf "%s ksnoop=%d bpftrace=%d\n", x, s[x, "k"], s[x, "b"] }' "$T/sum" | sort
grep -h -e Error -e Warning "$T/k.err" | head -3
grep -h -i error "$T/b.err" | head -3
exit 0
