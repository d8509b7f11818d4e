#!/bin/bash
# count --svg, the flame graph ksnoop draws, end to end on this host, as
# TAP: profile:99 samples a process looping on getppid() while the same
# run prints --folded stacks and writes the SVG. Then
#  - the SVG is well-formed XML (xmllint);
#  - its root frame holds every sample the folded lines count;
#  - opened in headless Chromium, its own search for 'getppid' marks
#    frames and reports the share of samples the folded lines that have
#    such a frame hold (to 0.1%);
#  - a zoom to do_syscall_64 (or el0_svc) lays that frame across the whole
#    width and hides the frames beside it;
#  - a screenshot of the search is a PNG.
# Where the kernel takes no CPU samples (no perf events, or before 6.1),
# each check is a skip that says so.
set -uo pipefail
cd "$(dirname "$0")/../.."

KS=./ksnoop
W=build/tests/workload
T=$(mktemp -d /tmp/ksnoop-flame.XXXXXX)
wpid=
trap 'kill $wpid 2>/dev/null; rm -rf "$T"' EXIT

ok() { echo "ok - flame: $*"; }
notok() { echo "not ok - flame: $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { # NAME STATUS DIAG...
	local name=$1 st=$2
	shift 2
	if [ "$st" = 0 ]; then ok "$name"; else notok "$name" "$@"; fi
}
CHECKS=("the SVG is well-formed" "the root holds every folded sample"
	"Chromium's search reports the folded lines' share" "Chromium's zoom widens one frame"
	"a screenshot of the search")
skip_all() {
	local c
	for c in "${CHECKS[@]}"; do echo "ok - flame: $c # SKIP $1"; done
	exit 0
}

for cmd in xmllint chromium; do
	command -v $cmd >/dev/null || skip_all "needs $cmd"
done
[ -x "$KS" ] && [ -x "$W" ] || { notok "build" "run make and make workload first"; exit 1; }
if ! "$KS" count -d 200ms profile:99 >/dev/null 2>"$T/probe.err"; then
	# only the kernel's refusal excuses the checks; any other error fails
	grep -qE 'CPU sampling needs|perf event|EPERM|EACCES|ENOENT|ENODEV' "$T/probe.err" ||
		{ notok "count profile:99 runs" "$(head -2 "$T/probe.err")"; exit 1; }
	skip_all "needs CPU samples here: $(head -1 "$T/probe.err")"
fi

"$W" getppid-loop 100000000 >/dev/null &
wpid=$!
"$KS" count -p $wpid -d 3 --by kstack --folded --svg "$T/f.svg" profile:99 \
	>"$T/folded" 2>"$T/err"
st=$?
kill $wpid 2>/dev/null
if [ $st -ne 0 ] || [ ! -s "$T/f.svg" ]; then
	notok "count --svg ran" "exit $st" "$(head -3 "$T/err")"
	exit 1
fi

xmllint --noout "$T/f.svg" 2>"$T/xml"
check "the SVG is well-formed" $? "$(head -3 "$T/xml")"

total=$(awk '{ s += $NF } END { print s + 0 }' "$T/folded")
root=$(sed -n 's/.*<title>all (\([0-9]*\) samples, 100\.00%).*/\1/p' "$T/f.svg")
[ "$total" -gt 0 ] && [ "$root" = "$total" ]
check "the root holds every folded sample" $? "folded $total, root ${root:-none}"

# The browser's answer, from the DOM after its script ran.
dom() { # FRAGMENT
	chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 \
		--dump-dom "file://$T/f.svg#$1" 2>/dev/null
}
want=$(awk -v t="$total" '/getppid/ { s += $NF } END { printf "%.2f", t ? 100 * s / t : 0 }' \
	"$T/folded")
got=$(dom "search=getppid" | sed -n 's/.*data-matched="\([0-9.]*\)".*/\1/p' | head -1)
awk -v w="$want" -v g="${got:--1}" 'BEGIN { d = w - g; exit !(w > 0 && d < 0.1 && d > -0.1) }'
check "Chromium's search reports the folded lines' share" $? "folded $want%, page ${got:-nothing}%"

frame=do_syscall_64
grep -q el0_svc "$T/folded" && frame=el0_svc
dom "zoom=$frame" >"$T/zoom.html"
grep -q "data-zoom=\"$frame\"" "$T/zoom.html" &&
	grep -q '<rect x="10.0" y="[0-9]*" width="1200.0"' "$T/zoom.html" &&
	grep -q 'display: none' "$T/zoom.html"
check "Chromium's zoom widens one frame" $? "zoom to $frame: $(grep -c 'display: none' "$T/zoom.html") frames hidden"

chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 --window-size=1220,600 \
	--screenshot="$T/f.png" "file://$T/f.svg#search=getppid" >/dev/null 2>&1
[ "$(head -c 8 "$T/f.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
check "a screenshot of the search" $? "no PNG from chromium --screenshot"
exit 0
