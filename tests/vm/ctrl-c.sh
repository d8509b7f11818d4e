#!/bin/bash
# Ctrl-C during a burst. The tracer is stopped (SIGSTOP) while CALLS
# getppid() calls fill its ring, then gets one SIGINT (it detaches and
# prints everything) or two, the second once it is printing (it skips the
# rest and exits). Either way, the events printed plus the events it reports lost
# must equal the 2 * CALLS generated. Prints
#   "printed=N reported=N sum=N rc=N", "note=0|1" (whether it said how
# many events remained to print), and with two signals "exit_ms=N" (from
# the second SIGINT to the tracer's exit).
#
#   tests/vm/ctrl-c.sh BACKEND SIGNALS FUNC [CALLS]
set -uo pipefail
. "$(dirname "$0")/lib.sh"
backend=$1 nsig=$2 func=$3 calls=${4:-100000}
out=$(mktemp /tmp/ctrl-c.XXXXXX)
err=$(mktemp /tmp/ctrl-c.XXXXXX)
wout=$(mktemp /tmp/ctrl-c.XXXXXX)

workload -S getppid-loop "$calls" >"$wout" &
wpid=$!
# Stopped by itself, right after printing its pid.
for ((i = 0; i < 100; i++)); do
	proc_state $wpid T && break
	sleep_s 0.1
done
ksnoop -j -b "$backend" -p "$wpid" trace "$func" >"$out" 2>"$err" &
kpid=$!
wait_polling $kpid
kill -STOP $kpid
kill -CONT $wpid
wait $wpid
kill -INT $kpid
kill -CONT $kpid
if [ "$nsig" = 2 ]; then
	# Two SIGINTs pending at once are one: the second goes only once the
	# tracer has taken the first, which it has when it prints the backlog
	# (it was stopped before any output).
	for ((i = 0; i < 300; i++)); do
		[ -s "$out" ] && break
		sleep_s 0.1
	done
	sleep_s 0.2
	now
	t0=$NOW
	kill -INT $kpid
fi
wait $kpid
rc=$?
now
printed=$(grep -c "\"tid\":$wpid," "$out")
reported=$(sed -n 's/.*lost \([0-9]*\) events.*/\1/p' "$err" | tail -1)
reported=${reported:-0}
echo "printed=$printed reported=$reported sum=$((printed + reported)) rc=$rc"
note=0
grep -q 'printing about [0-9]* more events' "$err" && note=1
echo "note=$note"
[ "$nsig" = 2 ] && echo "exit_ms=$(((NOW - t0) / 1000))"
grep -vE 'printing about|lost [0-9]+ events' "$err" | head -3
rm -f "$out" "$err" "$wout"
