#!/bin/bash
# Every definition of TABLE (kpe-verdicts.txt's format) that names its
# event and that the running kernel accepts, through tracefs and through
# one ksnoop probe around WORKLOAD, compared call by call and value by
# value (kpe-compare.sh). Left out: definitions whose values change between
# the two handlers of one call (@jiffies), integers read from a low
# address, which faults (the kernel leaves what its buffer held; ksnoop
# stores 0), and those that reuse an event name already taken.
#
#   tests/vm/kpe-table-compare.sh TABLE WORKLOAD
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/kpe-lib.sh"
table=$1 workload=$2

accepted() {
	local file=$TRACEFS/kprobe_events
	[[ $1 == f* ]] && file=$TRACEFS/dynamic_events
	echo "$1" >>"$file" 2>/dev/null || return 1
	kpe_event_of "$1" 2>/dev/null && echo "-:$KPE_GROUP/$KPE_EVENT" >>"$file"
}

defs=()
declare -A seen
kpe_table_read "$table"
for def in "${KPE_DEFS[@]}"; do
	[[ $def == *@jiffies* || $def =~ \(@[0-9]+\) ]] && continue
	kpe_event_of "$def" 2>/dev/null && [ -n "$KPE_EVENT" ] || continue
	# the comparison tells events apart by name alone
	[ -n "${seen[$KPE_EVENT]:-}" ] && continue
	accepted "$def" || continue
	seen[$KPE_EVENT]=1
	defs+=("$def")
done
echo "table: ${#defs[@]} definitions the kernel accepts"
exec "$HERE/kpe-compare.sh" -n 1 "${defs[@]}" -- "$workload"
