#!/bin/bash
# A burst larger than a small ring, with the reader stopped while it runs:
# events delivered plus the drops ksnoop reports must equal the events
# the burst generated. Prints "generated=N delivered=N reported=N", and
# the ring's size as "ring_kib=N".
#
#   tests/vm/drop-count.sh PAGES CALLS [SPEC EVENTS_PER_CALL]
# PAGES "plan" leaves the ring to be sized from the plan (no -P).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
pages=$1 calls=$2 spec=${3:-__do_sys_getppid} per_call=${4:-2}
out=$(mktemp /tmp/drop-count.XXXXXX)
err=$(mktemp /tmp/drop-count.XXXXXX)
popt=(-P "$pages")
[ "$pages" = plan ] && popt=()
ksnoop -d -j "${popt[@]}" --comm workload trace "$spec" >"$out" 2>"$err" &
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
echo "generated=$((per_call * calls)) delivered=$delivered reported=${reported:-0}"
echo "ring_kib=$(sed -n 's/.*ring buffer: \([0-9]*\) KiB.*/\1/p' "$err" | head -1)"
echo "sum=$((delivered + ${reported:-0}))"
rm -f "$out" "$err"
