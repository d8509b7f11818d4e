#!/bin/bash
# Every definition of TABLE (kpe-verdicts.txt's format) that names its
# event and that the running kernel accepts, through tracefs and through
# one ksnoop probe around WORKLOAD, compared call by call and value by
# value (kpe-compare.sh). Left out: definitions whose values change between
# the two handlers of one call (@jiffies), integers read from a low
# address, which faults (the kernel leaves what its buffer held; ksnoop
# stores 0), those that reuse an event name already taken, what the table
# marks newer than the running kernel, and tracepoint and event probes,
# whose events the workload may not fire (kpe.case compares them apart).
#
#   tests/vm/kpe-table-compare.sh TABLE WORKLOAD
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/kpe-lib.sh"
table=$1 workload=$2

accepted() {
	local file=$TRACEFS/kprobe_events
	[[ $1 == [fte]* ]] && file=$TRACEFS/dynamic_events
	echo "$1" >>"$file" 2>/dev/null || return 1
	kpe_event_of "$1" 2>/dev/null && echo "-:$KPE_GROUP/$KPE_EVENT" >>"$file"
}

defs=()
declare -A seen
kpe_table_read "$table"
for i in "${!KPE_DEFS[@]}"; do
	def=${KPE_DEFS[i]}
	[[ $def == *@jiffies* || $def =~ \(@[0-9]+\) || $def == [te]* ]] && continue
	kpe_kernel_before "${KPE_SINCE[i]}" && continue
	kpe_event_of "$def" 2>/dev/null && [ -n "$KPE_EVENT" ] || continue
	# the comparison tells events apart by name alone
	[ -n "${seen[$KPE_EVENT]:-}" ] && continue
	accepted "$def" || continue
	seen[$KPE_EVENT]=1
	defs+=("$def")
done
echo "table: ${#defs[@]} definitions the kernel accepts"
exec "$HERE/kpe-compare.sh" -n 1 "${defs[@]}" -- "$workload"
