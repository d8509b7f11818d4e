#!/bin/bash
# User stacks of processes that have exited before ksnoop reads their
# maps: ksnoop trace --ustack SPEC, its reader stopped (SIGSTOP) while N
# short-lived runs of PROG ARGS... each make one event and exit, then
# resumed. Each event's frames can then only be named from the mappings
# it carried from the kernel. Prints "events=E" and, for each FUNC given
# with -f, "FUNC=K": how many frames of that function (as "FUNC (" or
# "FUNC+0x") were printed; then "mappings=captured", or "mappings=refused"
# where the verifier refused their capture and ksnoop loaded its programs
# without it (ksnoop -d says so); then ksnoop's errors.
#
#   tests/vm/ustack-exited.sh [-f FUNC]... N SPEC PROG [ARGS...]
set -uo pipefail
. "$(dirname "$0")/lib.sh"
funcs=()
while [ "${1:-}" = -f ]; do
	funcs+=("$2")
	shift 2
done
n=$1 spec=$2
shift 2
T=$(mktemp -d /tmp/uexited.XXXXXX) || exit 125
kpid=
trap 'kill -CONT $kpid 2>/dev/null; kill -KILL $kpid 2>/dev/null; rm -rf "$T"' EXIT

prog=$(command -v "$1") || { echo "ustack-exited: no $1"; exit 125; }
shift
spawn ksnoop -d trace --ustack --comm "${prog##*/}" "$spec" >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
for ((i = 0; i < 600; i++)); do
	grep -q " TIME " "$T/k.out" && break
	kill -0 $kpid 2>/dev/null || break
	sleep_s 0.1
done
grep -q " TIME " "$T/k.out" || { echo "ustack-exited: not ready: $(grep -m1 Error "$T/k.err")"; exit 1; }
kill -STOP $kpid
for ((i = 0; i < n; i++)); do
	"$prog" "$@" >/dev/null || { echo "ustack-exited: $prog failed"; exit 1; }
done
kill -CONT $kpid
sleep_s 2
kill -INT $kpid
now
wait_until $kpid $((NOW + 30000000))
kpid=
echo "events=$(grep -c "^ *[0-9]\+ \+[0-9]\+ \+[0-9]\+ " "$T/k.out")"
for f in "${funcs[@]}"; do
	echo "$f=$(grep -c -e "^ \+$f (" -e "^ \+$f+0x" "$T/k.out")"
done
if grep -q "refused the programs with the user stacks' mappings" "$T/k.err"; then
	echo mappings=refused
else
	echo mappings=captured
fi
grep -h -e Error -e Warning "$T/k.err" | head -3
exit 0
