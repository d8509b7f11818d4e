#!/bin/bash
# Kprobe_events definitions through tracefs and through one `ksnoop probe`
# at the same time, around a workload; then the two streams compared call
# by call, event by event.
#
#   tests/vm/kpe-compare.sh [-f FILTER] [-n MIN] DEF... -- WORKLOAD
#
# Each DEF must name its event (p:GRP/EVENT ...). WORKLOAD is a shell
# command; both sides keep only events of tasks called "workload" (plus
# FILTER when given, on both: 'comm == "workload" && (FILTER)'), so they
# see the same calls. Compared per event: the location "(sym+off/size)" of
# entry probes (return probes may read "[unknown/kretprobe'd]" in the
# kernel when two kretprobes share a function) and every name=value.
# Prints "compare: EVENT: N events equal" per event and exits 0, or both
# streams of the event that differs and exits 1. Every event needs at
# least MIN (default 1) calls.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/kpe-lib.sh"

usage() {
	echo "usage: $0 [-f FILTER] [-n MIN] DEF... -- WORKLOAD" >&2
	exit 2
}

FILTER=
MIN=1
while getopts "f:n:" o; do
	case $o in
	f) FILTER=$OPTARG ;;
	n) MIN=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
DEFS=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	DEFS+=("$1")
	shift
done
[ $# -ge 2 ] && [ ${#DEFS[@]} -gt 0 ] || usage
shift
WORKLOAD=$*

T=$(mktemp -d /tmp/kpe-compare.XXXXXX) || exit 1
trap 'kpe_tracefs_remove; rm -rf "$T"' EXIT

F="comm == \"workload\"${FILTER:+ && ($FILTER)}"
EVENTS=()
for d in "${DEFS[@]}"; do
	kpe_tracefs_add "$d" || exit 1
	echo "$F" >"$KPE_EVDIR/filter" || { echo "compare: the kernel rejected filter '$F'"; exit 1; }
	EVENTS+=("$KPE_EVENT")
done
echo >"$TRACEFS/trace"
kpe_tracefs_enable_all || exit 1

ARGS=()
for d in "${DEFS[@]}"; do
	ARGS+=("$d" --filter "$F")
done
# No quiet wait: at SIGINT ksnoop prints every event left in its ring, and
# tracefs has each event as the workload made it.
trace_bg --ready '^#' --workload "$WORKLOAD" --settle 0 --timeout 60 \
	--out "$T/ksnoop" --err "$T/err" -- ksnoop probe "${ARGS[@]}"
rc=$?
kpe_tracefs_disable_all
if [ $rc != 0 ]; then
	echo "compare: ksnoop probe failed with status $rc"
	cat "$T/err"
	exit 1
fi
cat "$TRACEFS/trace" >"$T/trace"
kpe_fields "$T/trace" >"$T/k"
kpe_fields "$T/ksnoop" >"$T/b"
bad=0
for e in "${EVENTS[@]}"; do
	grep "^$e: " "$T/k" >"$T/k.$e"
	grep "^$e: " "$T/b" >"$T/b.$e"
	kpe_compare "$e" "$T/k.$e" "$T/b.$e" "$MIN" || bad=1
done
exit $bad
