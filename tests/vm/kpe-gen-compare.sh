#!/bin/bash
# `ksnoop kprobe-events SPEC...` lines written to tracefs, and one
# `ksnoop trace SPEC...` over BPF, both enabled at once around a workload;
# then the values compared call by call (tests/vm/kpe-gen-compare.py).
#
#   tests/vm/kpe-gen-compare.sh [-F] [-b BACKEND] [-n MIN] SPEC... -- WORKLOAD
#
# -F generates fprobe lines (kprobe-events --fprobe, for dynamic_events).
# -b is ksnoop trace's backend (default auto).
# WORKLOAD is a shell command; both sides keep only tasks called
# "workload": tracefs with its filter, ksnoop trace with --comm. (Without
# it the harness's own reads of /proc were do_sys_openat2 events: the
# output never went quiet, and each run waited out its 100 s limit.)
# Give each SPEC its own function. The generated lines must be
# accepted by the kernel (a rejection prints its error_log). Prints
# "gen-compare: N calls equal" and exits 0, or what differs and exits 1.
# Every function needs at least MIN (default 1) calls.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/kpe-lib.sh"

usage() {
	echo "usage: $0 [-F] [-b BACKEND] [-n MIN] SPEC... -- WORKLOAD" >&2
	exit 2
}

MIN=1
GEN_OPTS=()
export BACKEND=auto
while getopts "Fb:n:" o; do
	case $o in
	F) GEN_OPTS+=(--fprobe) ;;
	b) BACKEND=$OPTARG ;;
	n) MIN=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
SPECS=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	SPECS+=("$1")
	shift
done
[ $# -ge 2 ] && [ ${#SPECS[@]} -gt 0 ] || usage
shift
WORKLOAD=$*

T=$(mktemp -d /tmp/kpe-gen.XXXXXX) || exit 1
trap 'kpe_tracefs_remove; rm -rf "$T"' EXIT

ksnoop kprobe-events "${GEN_OPTS[@]}" -g kpegen "${SPECS[@]}" >"$T/lines" ||
	{ echo "gen-compare: kprobe-events failed"; exit 1; }
sed 's/^/# generated: /' "$T/lines"
while IFS= read -r line; do
	[[ $line == \#* || -z $line ]] && continue
	kpe_tracefs_add "$line" || exit 1
	echo 'comm == "workload"' >"$KPE_EVDIR/filter" || exit 1
done <"$T/lines"
echo >"$TRACEFS/trace"
kpe_tracefs_enable_all || exit 1

# ksnoop trace -j prints no header: the wrapper says READY once ksnoop's
# debug output reports every function attached, alone or in one
# kprobe.multi link. Three fentry functions beside tracefs kprobes on
# them took 55-110 s to attach on a 6.12 TCG guest; kprobes take seconds.
export ERRF="$T/ksnoop.err" NSPECS=${#SPECS[@]}
trace_bg --ready '^READY$' --workload "$WORKLOAD" --settle 1 --timeout 100 \
	--out "$T/ksnoop" --err "$T/err" -- bash -c '
	trap "" INT
	ksnoop -d -j -b "$BACKEND" --comm workload trace "$@" 2>"$ERRF" &
	k=$!
	attached() {
		local one multi
		one=$(grep -c "attached with" "$ERRF")
		multi=$(sed -n "s/.*kprobe\.multi: attached \([0-9]*\) functions.*/\1/p" "$ERRF")
		[ $((one + ${multi:-0})) -ge "$NSPECS" ]
	}
	until attached; do
		kill -0 $k 2>/dev/null || { grep -v "^libbpf:" "$ERRF" >&2; exit 1; }
		sleep 0.1
	done
	echo READY
	wait $k' bash "${SPECS[@]}"
rc=$?
kpe_tracefs_disable_all
if [ $rc != 0 ]; then
	echo "gen-compare: ksnoop trace failed with status $rc"
	cat "$T/err"
	exit 1
fi
cat "$TRACEFS/trace" >"$T/trace"
python3 "$HERE/kpe-gen-compare.py" "$T/lines" "$T/trace" "$T/ksnoop" "$MIN"
rc=$?
# On a mismatch, what ksnoop said of its own events: a loss, or none.
[ $rc = 0 ] || grep -h -e Warning -e 'events delivered' "$ERRF" | sed 's/^/#   ksnoop: /'
exit $rc
