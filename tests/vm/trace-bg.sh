#!/bin/bash
# Command-line front end of trace_bg (tests/vm/lib.sh): run a tracer in the
# background around a workload and print its output.
#
#   tests/vm/trace-bg.sh [--ready RE] [--workload 'SHELL CMD']
#                        [--paused-workload 'WORKLOAD ARGS'] [--until RE]...
#                        [--settle S] [--timeout S] -- TRACER [ARGS...]
#
# Starts TRACER, waits for its ready line (default ^TIME, ksnoop's header),
# runs the workload, waits for --until lines and for output to settle,
# sends SIGINT, then prints TRACER's stdout and stderr and exits with its
# status (124/125 and a "trace-bg: ..." line for harness failures). See
# trace_bg in lib.sh for the details. Example:
#
#   tests/vm/trace-bg.sh --paused-workload 'udp-send 150' -- \
#           sh -c 'exec ./ksnoop -p $WPID trace ip_send_skb'
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d /tmp/trace-bg.XXXXXX) || exit 125
trap 'rm -rf "$T"' EXIT

opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in
	--ready | --workload | --paused-workload | --until | --settle | --timeout)
		[ $# -ge 2 ] || { echo "trace-bg: $1 needs a value" >&2; exit 2; }
		opts+=("$1" "$2")
		shift 2
		;;
	*) echo "trace-bg: unknown option '$1'; see $0" >&2; exit 2 ;;
	esac
done
[ $# -ge 2 ] || { echo "trace-bg: no tracer command after --" >&2; exit 2; }
shift

trace_bg "${opts[@]}" --out "$T/out" --err "$T/err" --wout "$T/wout" -- "$@"
rc=$?
cat "$T/out"
cat "$T/err" >&2
if [ $rc -ge 124 ] && [ -s "$T/wout" ]; then
	sed 's/^/workload| /' "$T/wout" >&2
fi
exit $rc
