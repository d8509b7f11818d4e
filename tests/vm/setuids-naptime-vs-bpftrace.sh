#!/bin/bash
# bpftrace's setuids.bt or naptime.bt, as they ship, beside one ksnoop
# command, in one boot, over the workload's setuid calls (root to 65534,
# then a refused 0) or naps (120 ms, 30 ms, 1.1 s):
#   setuids: trace -j --from sys_enter_setuid (the caller's uid, the uid
#            asked for) --to sys_exit_setuid (the result), a span by tid
#   naptime: trace -j sys_enter_nanosleep (the parent's pid and comm, the
#            time asked for)
# Each tool's lines for the workload become "PID COMM UID ARG RET" or
# "PPID PCOMM PID COMM SECONDS" (seconds with milliseconds, as naptime.bt
# prints them). Prints "lines ksnoop=K bpftrace=B same=yes|no", the lines
# that differ, and each tool's errors.
#
#   tests/vm/setuids-naptime-vs-bpftrace.sh setuids|naptime
set -uo pipefail
. "$(dirname "$0")/lib.sh"
tool=$1
T=$(mktemp -d /tmp/$tool.XXXXXX) || exit 125
kpid= bpid=
trap 'kill -KILL $kpid $bpid 2>/dev/null; rm -rf "$T"' EXIT

# The value named $1 of a -j line, or of its span's start with $2 = from.
json_value() {
	local side='"values":\[' v='"value":"\{0,1\}\([^",}]*\)'
	[ "${2:-}" = from ] && side='"from":{.*"values":\['
	sed -n "s/.*$side.*\"name\":\"$1\",\"type\":\"[^\"]*\",$v.*/\1/p"
}

case $tool in
setuids)
	spec=(--from 'tp:syscalls:sys_enter_setuid(current->pid, current->cred->uid.val, uid)'
		--to 'tp:syscalls:sys_exit_setuid(current->pid, ret)')
	run=(workload setuid 65534)
	;;
naptime)
	spec=('tp:syscalls:sys_enter_nanosleep(current->real_parent->pid, current->real_parent->comm, rqtp->tv_sec, rqtp->tv_nsec)')
	run=(workload naps 120 30 1100)
	;;
*)
	echo "usage: $0 setuids|naptime" >&2
	exit 2
	;;
esac

: >"$T/k.out"
: >"$T/b.out"
spawn bpftrace "/usr/sbin/$tool.bt" >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop -j trace "${spec[@]}" >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
wait_polling $kpid
"${run[@]}" >/dev/null
sleep_s 1
stop_beside_bpftrace $kpid $bpid

grep '"comm":"workload"' "$T/k.out" >"$T/k.json"
while IFS= read -r line; do
	case $tool in
	setuids)
		echo "$(json_value current-\>pid <<<"$line") workload" \
			"$(json_value current-\>cred-\>uid.val from <<<"$line")" \
			"$(json_value uid from <<<"$line") $(json_value ret <<<"$line")"
		;;
	naptime)
		printf '%s %s %s workload %s.%03d\n' "$(json_value current-\>real_parent-\>pid <<<"$line")" \
			"$(json_value current-\>real_parent-\>comm <<<"$line")" \
			"$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' <<<"$line")" \
			"$(json_value rqtp-\>tv_sec <<<"$line")" \
			$(($(json_value rqtp-\>tv_nsec <<<"$line") / 1000000))
		;;
	esac
done <"$T/k.json" >"$T/k.lines"
case $tool in
setuids)
	awk '$3 == "workload" && $5 == "setuid" {
		sub(/^uid=/, "", $6); gsub(/[()]/, "", $7); print $2, $3, $4, $6, $7 }' "$T/b.out"
	;;
naptime) awk '$5 == "workload" { print $2, $3, $4, $5, $6 }' "$T/b.out" ;;
esac >"$T/b.lines"

same=no
cmp -s "$T/k.lines" "$T/b.lines" && same=yes
echo "lines ksnoop=$(wc -l <"$T/k.lines") bpftrace=$(wc -l <"$T/b.lines") same=$same"
[ $same = yes ] || diff "$T/k.lines" "$T/b.lines" | head -8
grep -h -e Error -e Warning "$T/k.err" | head -3
grep -h -i error "$T/b.err" | grep -v RLIMIT_MEMLOCK | head -3
exit 0
