#!/bin/bash
# A burst larger than a small ring, with the reader stopped while it runs:
# events delivered plus the drops ksnoop reports must equal the events
# the burst generated. Prints "generated=N delivered=N reported=N".
#
#   tests/vm/drop-count.sh PAGES CALLS
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pages=$1 calls=$2
out=$(mktemp /tmp/drop-count.XXXXXX)
err=$(mktemp /tmp/drop-count.XXXXXX)
ksnoop -j -P "$pages" --comm workload trace __do_sys_getppid >"$out" 2>"$err" &
pid=$!
# Attached once it sleeps polling the ring buffer (JSON has no header).
wait_polling $pid
kill -STOP $pid
wpid=$(workload getppid-loop "$calls" | sed -n 's/.*pid=\([0-9]*\).*/\1/p')
kill -CONT $pid
# Drained once the output stops growing.
last=-1
for i in $(seq 600); do
	size=$(stat -c %s "$out")
	[ "$size" = "$last" ] && break
	last=$size
	sleep 0.5
done
kill -INT $pid
wait $pid
delivered=$(grep -c "\"tid\":$wpid," "$out")
reported=$(sed -n 's/.*lost \([0-9]*\) events.*/\1/p' "$err" | tail -1)
echo "generated=$((2 * calls)) delivered=$delivered reported=${reported:-0}"
echo "sum=$((delivered + ${reported:-0}))"
rm -f "$out" "$err"
