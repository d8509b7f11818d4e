#!/bin/bash
# trace --follow: run one tracer over a workload and print, for each
# object the start saw, the functions its lines name in order:
#   path 0xADDR: udp_send_skb ip_send_skb ... __consume_stateless_skb
#   copies: N     (lines "f(...) = 0xNEW" that made a followed copy)
#   attached: K kprobe, F fentry   (with -d: the functions each attached)
#   functions: K+F
#   stray: N      (lines that name no followed object: must be 0)
# A line belongs to a path when one of its values is an address of that
# path (the start's, or a copy's).
#
#   tests/vm/follow.sh START PARAM WORKLOAD-ARGS -- KSNOOP-TRACE-ARGS...
# START is the start function's name, PARAM the one --follow names (the
# start's line shows the object as PARAM=0x...); ksnoop runs as
#   ksnoop trace -p WORKLOAD_PID KSNOOP-TRACE-ARGS...
set -uo pipefail
. "$(dirname "$0")/lib.sh"
start=$1 param=$2 wargs=$3
shift 4
T=$(mktemp -d /tmp/follow.XXXXXX) || exit 125
trap 'rm -rf "$T"' EXIT

printf -v cmd '%q ' "$@"
# shellcheck disable=SC2086 # WORKLOAD-ARGS is a word list
trace_bg --paused-workload "$wargs" --out "$T/out" --err "$T/err" --settle 1 --timeout 240 \
	-- bash -c "exec ksnoop trace -p \$WPID $cmd"
rc=$?
echo "rc=$rc"
grep -h -e Error -e Warning -e trace-bg "$T/err" | head -5
# With -d among the arguments: how many functions each backend attached.
if grep -q '^debug: ' "$T/err"; then
	k=$(grep -c ': attached with kprobe$' "$T/err")
	f=$(grep -c ': attached with fentry$' "$T/err")
	echo "attached: $k kprobe, $f fentry"
	echo "functions: $((k + f))"
fi
awk -v start="$start" -v param="$param" '
function addrs(line, out,   n, m) {
	n = 0
	while (match(line, /0x[0-9a-f]+/)) {
		out[++n] = substr(line, RSTART, RLENGTH)
		line = substr(line, RSTART + RLENGTH)
	}
	return n
}
/^ *[0-9]+ +[0-9]+ +[0-9]+ [A-Za-z_][A-Za-z_0-9.]*\(/ {
	fn = $4; sub(/\(.*/, "", fn)
	call = $0; ret = ""
	if (match(call, /\) = 0x[0-9a-f]+$/)) {
		ret = substr(call, RSTART + 4)
		call = substr(call, 1, RSTART)
	}
	n = addrs(call, a)
	if (fn == start && match(call, "[(, ]" param "=0x[0-9a-f]+")) {
		obj = substr(call, RSTART + length(param) + 2, RLENGTH - length(param) - 2)
		p = ++np
		head[p] = obj; owner[obj] = p; path[p] = fn
		next
	}
	p = 0
	for (i = 1; i <= n && !p; i++)
		if (a[i] in owner) p = owner[a[i]]
	if (!p) { stray++; next }
	path[p] = path[p] " " fn
	if (ret != "" && !(ret in owner)) { owner[ret] = p; copies++ }
}
END {
	for (p = 1; p <= np; p++) print "path " head[p] ": " path[p]
	print "copies: " copies + 0
	print "stray: " stray + 0
}' "$T/out"
[ -n "${FOLLOW_KEEP:-}" ] && cp "$T/out" "$FOLLOW_KEEP"
exit 0
