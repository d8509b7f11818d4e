#!/bin/bash
# A stand-in for tests/vm/vm-exec.sh (run.sh's VM_EXEC) for
# tests/host/vm-harness.sh: runs the command on the host, as vm-exec.sh
# would in a guest, except that FAKE_VM_MODE makes the "guest" fail:
#   lockup-once   the first call locks up when case FAKE_VM_AT (1-based)
#                 starts, the next runs to the end
#   lockup-twice  every call locks up at the FAKE_VM_AT-th case it starts
#   crash         the first call crashes (kernel panic) there
#   pass          every call runs to the end
# FAKE_VM_STATE is a file counting the calls; FAKE_VM_CALLS appends each
# call's guest.sh arguments to it. FAKE_VM_SLEEP=S makes each "boot" take
# S seconds more, before its cases.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
K=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) K=$2; shift 2 ;;
	--arch | --timeout | --append) shift 2 ;;
	--env) export "${2?}"; shift 2 ;;
	--timing | --console) shift ;;
	--) shift; break ;;
	*) echo "fake-vm-exec: unknown option $1" >&2; exit 2 ;;
	esac
done
n=$(($(cat "$FAKE_VM_STATE" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_VM_STATE"
echo "$*" >>"$FAKE_VM_CALLS"
sleep "${FAKE_VM_SLEEP:-0}"
case $FAKE_VM_MODE:$n in
lockup-once:1 | lockup-twice:*) log=$HERE/console/soft-lockup.log why="guest locked up" rc=123 ;;
crash:1) log=$HERE/console/panic.log why="guest kernel crashed" rc=125 ;;
*) exec "$@" ;;
esac
# The guest stops as the FAKE_VM_AT-th case starts.
"$@" | awk -v at="$FAKE_VM_AT" '{ print } /^# case: / && ++n == at { exit }'
line=$(grep -m1 -E 'soft lockup|Kernel panic' "$log" | sed 's/^\[[^]]*\] //')
echo "Error: [$K] $why: $line (console log: $log)" >&2
[ $rc = 123 ] && sed 's/^/console| /' "$log" >&2
exit $rc
