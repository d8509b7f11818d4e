#!/bin/bash
# The same kprobe_events definition through tracefs and through
# `ksnoop probe`, both enabled at once around one paused workload process;
# then the two streams compared call by call.
#
#   tests/vm/kpe-compare.sh [-f FILTER] [-n MIN] DEF -- WORKLOAD ARGS...
#
# DEF must name its event (p:GRP/EVENT ...). Both sides filter on the
# workload's pid ("common_pid == N", plus FILTER when given, on both), so
# they see the same calls. Compared per event: the location "(sym+off/size)"
# of entry probes (return probes may read "[unknown/kretprobe'd]" in the
# kernel when two kretprobes share a function) and every name=value.
# Prints "compare: N events equal" and exits 0, or the two streams side by
# side and exits 1. MIN (default 1) is the fewest events that count.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/kpe-lib.sh"

FILTER=
MIN=1
while getopts "f:n:" o; do
	case $o in
	f) FILTER=$OPTARG ;;
	n) MIN=$OPTARG ;;
	*) echo "usage: $0 [-f FILTER] [-n MIN] DEF -- WORKLOAD ARGS..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] && [ "$2" = -- ] || { echo "usage: $0 [-f FILTER] [-n MIN] DEF -- WORKLOAD ARGS..." >&2; exit 2; }
DEF=$1
shift 2

kpe_event_of "$DEF" || exit 2
T=$(mktemp -d /tmp/kpe-compare.XXXXXX) || exit 1
trap 'kpe_tracefs_remove; rm -rf "$T"' EXIT

kpe_tracefs_add "$DEF" || exit 1

# The tracer starts with $WPID known: the kernel side is set up first.
export DEF FILTER KPE_EVDIR
trace_bg --ready '^#' --paused-workload "$*" --settle 1 --timeout 60 \
	--out "$T/ksnoop" --err "$T/err" -- bash -c '
	f="common_pid == $WPID${FILTER:+ && ($FILTER)}"
	echo "$f" >"$KPE_EVDIR/filter" || exit 1
	echo >/sys/kernel/tracing/trace
	echo 1 >"$KPE_EVDIR/enable" || exit 1
	exec ksnoop probe "$DEF" --filter "$f"'
rc=$?
echo 0 >"$KPE_EVDIR/enable"
if [ $rc != 0 ]; then
	echo "compare: ksnoop probe failed with status $rc"
	cat "$T/err"
	exit 1
fi
cat /sys/kernel/tracing/trace >"$T/trace"
kpe_fields "$T/trace" >"$T/k"
kpe_fields "$T/ksnoop" >"$T/b"
kpe_compare "$T/k" "$T/b" "$MIN"
