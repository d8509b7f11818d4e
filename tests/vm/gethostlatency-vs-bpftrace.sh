#!/bin/bash
# bpftrace's gethostlatency.bt beside ksnoop trace -j 'c:getaddrinfo(const
# char *node, int return)', in one boot: workload-dyn resolves NAME N times
# (from /etc/hosts). Prints "calls ksnoop=K bpftrace=B" (the lookups of
# NAME by workload-dyn each printed), "ms ksnoop=K bpftrace=B" (their
# latencies summed, each call's cut to whole milliseconds as
# gethostlatency prints them; each tool times its own probes, so the two
# differ by their probes' costs) and each tool's errors.
#
#   tests/vm/gethostlatency-vs-bpftrace.sh NAME N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
name=$1 n=$2
T=$(mktemp -d /tmp/gethost.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

: >"$T/k.out"
: >"$T/b.out"
spawn bpftrace /usr/sbin/gethostlatency.bt >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop -j trace 'c:getaddrinfo(const char *node, int return)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
wait_polling $kpid
workload-dyn resolve "$name" "$n" >/dev/null
sleep_s 1
stop_beside_bpftrace $kpid $bpid
grep '"comm":"workload-dyn"' "$T/k.out" | grep -F "\"value\":\"$name\"" |
	sed -n 's/.*"duration_ns":\([0-9]*\).*/\1/p' >"$T/k.ns"
awk -v name="$name" '$3 == "workload-dyn" && $5 == name { print $4 }' "$T/b.out" >"$T/b.ms"
echo "calls ksnoop=$(wc -l <"$T/k.ns") bpftrace=$(wc -l <"$T/b.ms")"
echo "ms ksnoop=$(awk '{ s += int($1 / 1000000) } END { print s + 0 }' "$T/k.ns")" \
	"bpftrace=$(awk '{ s += $1 } END { print s + 0 }' "$T/b.ms")"
grep -h -e Error -e Warning -e "not found" "$T/k.err" | head -3
grep -h -i error "$T/b.err" | grep -v RLIMIT_MEMLOCK | head -3
exit 0
