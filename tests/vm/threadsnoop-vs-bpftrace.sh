#!/bin/bash
# threadsnoop beside ksnoop trace --symbolize -j 'pthread:pthread_create
# (start_routine)', in one boot: workload-dyn starts N threads at
# workload_thread, then naps 300 ms (bpftrace names the routine in the
# process when it prints the event). bpftrace 0.17's threadsnoop.bt probes
# libpthread:pthread_create, which glibc 2.34 left a stub without it (its
# own probe fails here); its program with the probe on libc.so.6, where the
# function is, is the reference. Prints "threads ksnoop=K bpftrace=B" (the
# workload's calls each printed with workload_thread as the start
# routine) and each tool's errors.
#
#   tests/vm/threadsnoop-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/threadsnoop.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

libc=$(ldd "$(command -v workload-dyn)" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$libc" ] || { echo "threadsnoop: workload-dyn has no libc.so"; exit 125; }
: >"$T/k.out"
: >"$T/b.out"
spawn bpftrace -e "BEGIN { printf(\"Tracing\\n\"); }
uprobe:$libc:pthread_create { printf(\"%-6d %-16s %s\\n\", pid, comm, usym(arg2)); }" \
	>"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop -j trace --symbolize 'pthread:pthread_create(start_routine)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
wait_polling $kpid
workload-dyn threads "$n" 300 >/dev/null
sleep_s 1
stop_beside_bpftrace $kpid $bpid
echo "threads ksnoop=$(grep '"comm":"workload-dyn"' "$T/k.out" | grep -c '"value":"0x[0-9a-f]* <workload_thread>"')" \
	"bpftrace=$(awk '$2 == "workload-dyn" && $3 == "workload_thread"' "$T/b.out" | wc -l)"
grep -h -e Error -e "not found" "$T/k.err" | head -3
# -j says its warnings as JSON objects
sed -n 's/^{"warning": *"\(.*\)"}$/Warning: \1/p' "$T/k.err" | head -1
grep -h -i error "$T/b.err" | grep -v RLIMIT_MEMLOCK | head -3
exit 0
