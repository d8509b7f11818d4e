#!/bin/bash
# bpftrace's bashreadline.bt beside ksnoop trace '/bin/bash:readline(char
# *return)', in one boot: an interactive bash (script(1) gives it a
# terminal) reads N command lines, "echo line-I", and each tool prints the
# lines readline returned. Prints "lines ksnoop=K bpftrace=B same=yes|no"
# (same: both printed the same lines in the same order) and each tool's
# errors.
#
#   tests/vm/bashreadline-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
n=$1
T=$(mktemp -d /tmp/bashrl.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

: >"$T/k.out"
: >"$T/b.out"
spawn bpftrace /usr/sbin/bashreadline.bt >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop trace '/bin/bash:readline(char *return)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
for ((i = 0; i < 600; i++)); do
	grep -q TIME "$T/k.out" && break
	sleep_s 0.1
done
{
	sleep_s 1
	for ((i = 0; i < n; i++)); do echo "echo line-$i"; done
	echo exit
} | script -qc 'bash --norc -i' /dev/null >/dev/null
sleep_s 1
stop_beside_bpftrace $kpid $bpid
grep -o '^ *"echo line-[0-9]*"$' "$T/k.out" | tr -d ' "' >"$T/k.lines"
sed -n 's/^[0-9:]*  *[0-9]*  *echo \(line-[0-9]*\)$/\1/p' "$T/b.out" >"$T/b.lines"
sed -i 's/^echo//' "$T/k.lines"
same=no
cmp -s "$T/k.lines" "$T/b.lines" && same=yes
echo "lines ksnoop=$(wc -l <"$T/k.lines") bpftrace=$(wc -l <"$T/b.lines") same=$same"
grep -h -e Error -e Warning -e "not found" "$T/k.err" | head -3
grep -h -i error "$T/b.err" | head -3
exit 0
