#!/bin/bash
# ksnoop hist and bpftrace's hist() over one workload, in one boot: both
# attached at once, the same UDP sends (50 x3, 150 x5, 1000 x2 bytes),
# then both stopped. Prints each tool's non-empty buckets as "LABEL COUNT"
# lines (ksnoop's), and "same=1" when bpftrace's are the same, else
# "same=0" and bpftrace's lines, prefixed "bpftrace: ".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/agg-bt.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

# What a tracer that outlived its deadline is doing, for the case's output.
stuck() {
	local w=? st=?
	read -r w <"/proc/$2/wchan" 2>/dev/null
	read -r st <"/proc/$2/stat" 2>/dev/null
	echo "stuck: $1 (pid $2) $3; wchan $w; state ${st##*) }" | cut -c1-200
	head -c 2000 "/proc/$2/stack" 2>/dev/null | sed "s/^/stuck: $1 kernel stack: /"
	tail -5 "$T/${1:0:1}.err" | sed "s/^/stuck: $1 stderr: /"
}

# A scalar argument: bpftrace 0.17 knows no struct from 5.10's BTF in a
# kprobe ("Unknown struct/union: 'struct sk_buff'").
spawn ksnoop hist "__sys_sendto(len)" --comm workload >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
spawn bpftrace -e 'kprobe:__sys_sendto /comm == "workload"/ {
	@len = hist(arg2); }
	BEGIN { printf("ready\n"); }' >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
now
deadline=$((NOW + 150000000))
until has_line "$T/k.err" Tracing && has_line "$T/b.out" ready; do
	now
	if [ "$NOW" -ge "$deadline" ]; then
		has_line "$T/k.err" Tracing || stuck ksnoop $kpid "not attached after 150 s"
		has_line "$T/b.out" ready || stuck bpftrace $bpid "not attached after 150 s"
		exit 1
	fi
	kill -0 $kpid 2>/dev/null && kill -0 $bpid 2>/dev/null || break
	sleep_s 0.1
done
workload udp-send 50 3 >/dev/null && workload udp-send 150 5 >/dev/null &&
	workload udp-send 1000 2 >/dev/null
kill -INT $kpid $bpid
now
deadline=$((NOW + 30000000))
# ksnoop must stop at the first SIGINT.
wait_until $kpid $deadline || stuck ksnoop $kpid "still running 30 s after SIGINT"
# bpftrace 0.17 now and then sleeps on in epoll_wait after a SIGINT
# (seen on 6.12 under load, 1 run in 5); a user would press Ctrl-C again.
for ((i = 1; i <= 6; i++)); do
	now
	wait_until $bpid $((NOW + 5000000)) && break
	kill -INT $bpid
done
[ $i -le 6 ] || stuck bpftrace $bpid "still running after 6 SIGINTs"
[ $i -gt 1 ] && echo "note: bpftrace exited after SIGINT number $i"
# "[128, 256)   5 |@@@|" -> "[128, 256) 5", empty buckets left out
buckets() {
	sed -n 's/^\(\[[^)]*[])]\) *\([1-9][0-9]*\) |.*/\1 \2/p' "$1"
}
buckets "$T/k.out" >"$T/k.b"
buckets "$T/b.out" >"$T/b.b"
cat "$T/k.b"
if [ -s "$T/k.b" ] && cmp -s "$T/k.b" "$T/b.b"; then
	echo same=1
else
	echo same=0
	sed 's/^/bpftrace: /' "$T/b.b" "$T/b.err" | head -20
fi
