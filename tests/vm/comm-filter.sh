#!/bin/bash
# --comm is a string predicate evaluated in BPF: a pattern that matches
# nothing must let no event through, and one that matches the workload
# must let all of its events through. Prints "comm=PATTERN events=N" for
# three getppid() calls of the workload (two events each).
#
#   tests/vm/comm-filter.sh FUNC     (the getppid body: __do_sys_getppid
#                                     on x86-64, __arm64_sys_getppid)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
func=$1
for pattern in zzz 'work*'; do
	# A new file each time: with one file, the header of the run before
	# could pass for this one's before its shell truncated it, and the
	# workload ran before the tracer was attached (arm64 6.1, 2 in 24).
	out=$(mktemp /tmp/comm-filter.XXXXXX)
	ksnoop --comm "$pattern" trace "$func" >"$out" 2>&1 &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^ *TIME' "$out" && break
		kill -0 $pid 2>/dev/null || break
		sleep_s 0.1
	done
	workload getppid-loop 3 >/dev/null
	sleep_s 2
	kill -INT $pid
	wait $pid
	echo "comm=$pattern events=$(grep -c "^ *[0-9]* *[0-9]* *[0-9]* $func($" "$out")"
	rm -f "$out"
done
