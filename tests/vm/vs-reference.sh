#!/bin/bash
# The reference ksnoop (Debian's libbpf-tools, scripts/reference.sh) and
# this one attached to the same function at once: each call runs both
# programs on the same arguments, so every value prints the same. Only the
# TIME column may differ.
#
#   tests/vm/vs-reference.sh 'WORKLOAD ARGS' SPEC...
#
# Prints "SPEC: events=N same=1" per SPEC (N: the reference's events),
# else "same=0" and the first lines that differ.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
REF=${KSNOOP_REF:-/var/cache/ksnoop/libbpf-tools/usr/sbin/ksnoop}
[ -x "$REF" ] || { echo "no reference ksnoop at $REF" >&2; exit 125; }
read -r -a work <<<"$1"
shift
T=$(mktemp -d /tmp/vs-ref.XXXXXX) || exit 125
p1='' p2=''
trap 'kill $p1 $p2 2>/dev/null; rm -rf "$T"' EXIT

# The event's first line, "TIME CPU PID FUNCTION(", without its TIME.
norm() {
	sed -E 's/^ *[0-9]+ +([0-9]+ +[0-9]+ [A-Za-z_0-9.]+\()/T \1/' "$1" | grep -v ' FUNCTION/ARGS$'
}

compare() {
	local spec=$1 i events
	"$REF" trace "$spec" >"$T/ref" 2>"$T/ref.err" &
	p1=$!
	ksnoop trace "$spec" >"$T/ours" 2>"$T/ours.err" &
	p2=$!
	# The reference's stdout is a file: nothing shows before it exits.
	# Both wait for events in epoll_wait once attached.
	for ((i = 0; i < 1200; i++)); do
		in_epoll $p1 && in_epoll $p2 && break
		sleep_s 0.1
	done
	workload "${work[@]}" >/dev/null
	sleep_s 2
	kill -INT $p1 $p2
	wait $p1 $p2
	norm "$T/ref" >"$T/ref.n"
	norm "$T/ours" >"$T/ours.n"
	events=$(grep -c '^T ' "$T/ref.n")
	if cmp -s "$T/ref.n" "$T/ours.n"; then
		echo "$spec: events=$events same=1"
	else
		echo "$spec: events=$events same=0"
		diff "$T/ref.n" "$T/ours.n" | head -20
		head -3 "$T/ref.err" "$T/ours.err"
	fi
}

for spec; do
	compare "$spec"
done
exit 0
