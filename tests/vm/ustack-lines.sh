#!/bin/bash
# The source lines of `ksnoop trace --ustack`'s frames beside addr2line's
# for the same addresses: the workload (static, not position-independent,
# built with -g) makes COUNT calls of workload_ucall, traced at its entry
# by a uprobe. A frame "func+0xOFF (OBJ) at FILE:LINE" is at func's
# address (nm) plus OFF; every frame but the innermost is a return
# address, whose line is the call's, at the byte before. Prints
# "lines: N frames, M with a line, all as addr2line has them", or each
# that differs.
#
#   tests/vm/ustack-lines.sh COUNT
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
count=$1
T=$(mktemp -d /tmp/ustack-lines.XXXXXX) || exit 125
trap 'rm -rf "$T"' EXIT
command -v addr2line >/dev/null && command -v nm >/dev/null || { echo "lines: no binutils"; exit 125; }

trace_bg --ready '^ *TIME( |$)' --paused-workload "ucall $count" --settle 1 --timeout 60 \
	--out "$T/out" --err "$T/err" -- \
	bash -c 'exec ksnoop trace --ustack -p "$WPID" "build/tests/workload:workload_ucall(int i)"'
rc=$?
[ $rc = 0 ] || { echo "lines: ksnoop failed ($rc)"; cat "$T/err"; exit 1; }

frames=0 lined=0 bad=0 depth=0
while IFS= read -r l; do
	if [[ $l =~ workload_ucall\($ ]]; then
		depth=0
		continue
	fi
	[[ $l =~ ^\ +([A-Za-z_][A-Za-z0-9_.]*)(\+0x([0-9a-f]+))?\ \((/[^\)]*)\)(\ at\ ([^:]+):([0-9]+))?$ ]] ||
		continue
	func=${BASH_REMATCH[1]} off=$((16#${BASH_REMATCH[3]:-0})) obj=${BASH_REMATCH[4]}
	file=${BASH_REMATCH[6]} line=${BASH_REMATCH[7]}
	frames=$((frames + 1))
	base=$(nm "$obj" 2>/dev/null | awk -v f="$func" '$3 == f && $2 ~ /^[tTwW]$/ { print $1; exit }')
	if [ -n "$base" ]; then
		addr=$((16#$base + off - (depth > 0)))
		want=$(addr2line -e "$obj" "$(printf '%x' $addr)" | sed -e 's|.*/||' -e 's/ .*//')
	else
		want='??:0'
	fi
	depth=$((depth + 1))
	[ -n "$file" ] && lined=$((lined + 1))
	got=${file:+$file:$line}
	# addr2line knows no line where the frame has none: "??:0", "FILE:?"
	[[ -z $got && ( $want == \?\?:* || $want == *:\? ) ]] && continue
	if [ "$got" != "$want" ]; then
		bad=$((bad + 1))
		echo "lines: $func+0x$(printf %x $off): ksnoop ${got:-none}, addr2line $want"
	fi
done <"$T/out"
if [ $bad = 0 ] && [ $frames -gt 0 ]; then
	echo "lines: $frames frames, $lined with a line, all as addr2line has them"
else
	sed 's/^/# /' "$T/out"
fi
