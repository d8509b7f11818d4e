#!/bin/bash
# `current` in a spec: count do_sys_openat2 by current->pid,
# current->real_parent->pid and current->real_parent->comm while a
# workload (whose parent is this script) opens a file. Prints
#   row=PID PPID COMM COUNT self=WORKLOAD_PID parent=THIS_SCRIPT_PID
# where row is the table's row for the workload's pid (empty if none).
# Calls the kernel skipped (a probe already running on the CPU: 7.3 skips
# some under load) are counted for every task, not the workload's alone;
# when they are the report's only cause, they print as "skipped: ...", not
# as a warning, and the row still has to be right.
#
#   tests/vm/current.sh BACKEND
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b=$1
T=$(mktemp -d /tmp/current.XXXXXX) || exit 125
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT

ksnoop -b "$b" count \
	"do_sys_openat2(current->pid, current->real_parent->pid, current->real_parent->comm)" \
	--comm workload >"$T/out" 2>"$T/err" &
p=$!
for ((n = 0; n < 1200; n++)); do
	grep -q '^Tracing' "$T/err" && break
	kill -0 $p 2>/dev/null || break
	sleep_s 0.1
done
# sh execs the workload: its pid is the workload's, its parent this script
sh -c 'echo $$ >"$1"; exec workload open-missing /nonexistent/ksnoop-current' sh "$T/pid" \
	>/dev/null 2>&1
kill -INT $p
wait $p
self=$(cat "$T/pid")
row=$(awk -v p="$self" '$1 == p' "$T/out" | tr -s ' ')
echo "row=$row self=$self parent=$$"
skipped='^Warning: (lost ([0-9]+) samples \(\2 calls the kernel skipped: a probe already running on the CPU\))$'
grep -hE "$skipped" "$T/err" | sed -E "s/$skipped/skipped: \1/"
grep -h -e Error -e Warning "$T/err" | grep -vE "$skipped" | head -3
exit 0
