#!/bin/bash
# `ksnoop kprobe-events SPEC` lines written to tracefs, and `ksnoop trace
# SPEC` over BPF, both enabled at once around one paused workload process;
# then the values compared call by call (tests/vm/kpe-gen-compare.py).
#
#   tests/vm/kpe-gen-compare.sh [-F] [-n MIN] SPEC -- WORKLOAD ARGS...
#
# -F generates fprobe lines (kprobe-events --fprobe, for dynamic_events).
# The generated lines must be accepted by the kernel (a rejection prints
# its error_log). Prints "gen-compare: N calls equal" and exits 0, or what
# differs and exits 1.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/kpe-lib.sh"

MIN=1
GEN_OPTS=()
while getopts "Fn:" o; do
	case $o in
	F) GEN_OPTS+=(--fprobe) ;;
	n) MIN=$OPTARG ;;
	*) echo "usage: $0 [-F] [-n MIN] SPEC -- WORKLOAD ARGS..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] && [ "$2" = -- ] || { echo "usage: $0 [-F] [-n MIN] SPEC -- WORKLOAD ARGS..." >&2; exit 2; }
SPEC=$1
shift 2

T=$(mktemp -d /tmp/kpe-gen.XXXXXX) || exit 1
trap 'kpe_tracefs_remove; rm -rf "$T"' EXIT

ksnoop kprobe-events "${GEN_OPTS[@]}" -g kpegen "$SPEC" >"$T/lines" || { echo "gen-compare: kprobe-events failed"; exit 1; }
sed 's/^/# generated: /' "$T/lines"
EVDIRS=
while IFS= read -r line; do
	[[ $line == \#* || -z $line ]] && continue
	kpe_tracefs_add "$line" || exit 1
	EVDIRS+="$KPE_EVDIR "
done <"$T/lines"

# ksnoop trace -j prints no header: the wrapper says READY once ksnoop's
# debug output reports the function attached.
export SPEC EVDIRS ERRF="$T/ksnoop.err"
trace_bg --ready '^READY$' --paused-workload "$*" --settle 1 --timeout 60 \
	--out "$T/ksnoop" --err "$T/err" -- bash -c '
	trap "" INT
	echo >/sys/kernel/tracing/trace
	for d in $EVDIRS; do
		echo "common_pid == $WPID" >"$d/filter" && echo 1 >"$d/enable" || exit 1
	done
	ksnoop -d -j -p "$WPID" trace "$SPEC" 2>"$ERRF" &
	k=$!
	until grep -q "attached with" "$ERRF"; do
		kill -0 $k 2>/dev/null || { cat "$ERRF" >&2; exit 1; }
		sleep 0.1
	done
	echo READY
	wait $k'
rc=$?
for d in $EVDIRS; do
	echo 0 >"$d/enable"
done
if [ $rc != 0 ]; then
	echo "gen-compare: ksnoop trace failed with status $rc"
	cat "$T/err"
	grep -v '^libbpf:' "$ERRF" | tail -5
	exit 1
fi
cat /sys/kernel/tracing/trace >"$T/trace"
python3 "$HERE/kpe-gen-compare.py" "$T/lines" "$T/trace" "$T/ksnoop" "$MIN"
