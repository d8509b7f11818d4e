#!/bin/bash
# The VM harness's own logic, on the host, as TAP: the console classifier
# (tests/vm/console.sh) on recorded console excerpts, guest.sh's case
# rules (-s, -l, a case must EXPECT something), and run.sh's rerun after a
# guest lockup, with tests/host/lib/fake-vm-exec.sh standing in for QEMU.
# tests/vm/selftest.sh locks a real guest up; this needs no VM.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/console.sh
FIX=tests/host/lib/console
tmp=$(mktemp -d /tmp/ksnoop-vmharness.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - vm-harness: $*"; }
notok() {
	echo "not ok - vm-harness: $1"
	shift
	[ $# -gt 0 ] && sed 's/^/#   /' "$@" | head -n 30
}

# check NAME WANT GOT [FILE...]: WANT == GOT, else the files as diagnostics.
check() {
	local name=$1 want=$2 got=$3
	shift 3
	if [ "$want" = "$got" ]; then
		ok "$name"
	else
		notok "$name" "$@"
		echo "#   want: $want"
		echo "#   got:  $got"
	fi
}

# ---- console_trouble on recorded excerpts ------------------------------------

verdict() {
	console_trouble "$1"
	echo "rc=$?"
}
check "soft lockup (then its panic) is a lockup" \
	"lockup watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [bpftool:127]"$'\n'rc=0 "$(verdict $FIX/soft-lockup.log)"
check "RCU stall is a lockup" \
	"lockup rcu: INFO: rcu_preempt self-detected stall on CPU"$'\n'rc=0 "$(verdict $FIX/rcu-stall.log)"
check "hung task is a lockup" \
	"lockup INFO: task kworker/1:2:88 blocked for more than 120 seconds."$'\n'rc=0 "$(verdict $FIX/hung-task.log)"
check "oops is a crash" \
	"crash BUG: kernel NULL pointer dereference, address: 0000000000000008"$'\n'rc=0 "$(verdict $FIX/oops.log)"
check "panic is a crash" \
	"crash Kernel panic - not syncing: sysrq triggered crash"$'\n'rc=0 "$(verdict $FIX/panic.log)"
cat $FIX/oops.log $FIX/soft-lockup.log >"$tmp/oops-then-lockup.log"
check "an oops followed by a lockup is a crash" \
	"crash BUG: kernel NULL pointer dereference, address: 0000000000000008"$'\n'rc=0 "$(verdict "$tmp/oops-then-lockup.log")"
printf '%s\n' '[    0.101] NMI watchdog: Perf NMI watchdog permanently disabled' \
	'[    0.102] rcu: Hierarchical RCU implementation.' 'KSNOOP-VM-0 exit 0 6.2' >"$tmp/clean.log"
check "a clean console is neither" rc=1 "$(verdict "$tmp/clean.log")"
console_excerpt $FIX/soft-lockup.log "watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [bpftool:127]" >"$tmp/excerpt"
if grep -q '^console| \[ *[0-9.]*\] watchdog: BUG: soft lockup' "$tmp/excerpt" &&
	grep -q '^console| .*Call Trace:' "$tmp/excerpt" && ! grep -qv '^console| ' "$tmp/excerpt"; then
	ok "the lockup excerpt starts at its line and has the backtrace"
else
	notok "the lockup excerpt starts at its line and has the backtrace" "$tmp/excerpt"
fi

# ---- guest.sh: -s, -l, EXPECT required ----------------------------------------

# Five passing cases, c1..c5, after a stray line before the first NAME.
{
	echo "RUN stray"
	for i in 1 2 3 4 5; do
		printf 'NAME c%s\nRUN echo c%s\nEXPECT_EXACT c%s\n\n' $i $i $i
	done
} >"$tmp/five.case"
tests/vm/guest.sh -k host -l "$tmp/five.case" >"$tmp/list"
check "-l lists every item that prints a TAP line" \
	"${tmp#/}/five.case:1 c1 c2 c3 c4 c5" "$(tr '\n' ' ' <"$tmp/list" | sed 's/^\///; s/ $//')" "$tmp/list"
check "-l after -t lists the cases it keeps (and the stray line)" "${tmp#/}/five.case:1 c2 c4" \
	"$(tests/vm/guest.sh -l -t 'c[24]' "$tmp/five.case" | tr '\n' ' ' | sed 's/^\///; s/ $//')"
tests/vm/guest.sh -k host -s 3 "$tmp/five.case" >"$tmp/s3" 2>&1
check "-s 3 passes over the stray line and c1, c2, runs c3..c5" \
	"ok - [host] c3|ok - [host] c4|ok - [host] c5" "$(grep -E '^(not )?ok' "$tmp/s3" | paste -sd'|')" "$tmp/s3"
check "-s with a bad count is one error" "Error: invalid -s '-1': want a case count|2" \
	"$(tests/vm/guest.sh -s -1 "$tmp/five.case" 2>&1 | paste -sd'|')|$?"

printf '%s\n' "NAME exit only" "RUN true" "EXIT 0" "" "NAME stderr none only" "RUN true" \
	"EXPECT_STDERR_NONE ." "" "NAME none and zero lines only" "RUN true" "EXPECT_NONE x" \
	"EXPECT_LINES 0 x" "" "NAME one line" "RUN echo x" "EXPECT_LINES 1 x" "" \
	"NAME stderr" "RUN echo x >&2" "EXPECT_STDERR x" >"$tmp/expect.case"
tests/vm/guest.sh -k host "$tmp/expect.case" >"$tmp/expect" 2>&1
st=$?
if grep -qx 'not ok - \[host\] exit only' "$tmp/expect" &&
	grep -q "expect.case:1: bad case: no positive EXPECT line" "$tmp/expect" &&
	grep -qx 'not ok - \[host\] stderr none only' "$tmp/expect" &&
	grep -qx 'not ok - \[host\] none and zero lines only' "$tmp/expect" &&
	grep -qx 'ok - \[host\] one line' "$tmp/expect" &&
	grep -qx 'ok - \[host\] stderr' "$tmp/expect" && [ $st = 1 ]; then
	ok "a case whose checks are all absences is a bad case; EXPECT, EXACT, STDERR and LINES n>0 count"
else
	notok "a case whose checks are all absences is a bad case; EXPECT, EXACT, STDERR and LINES n>0 count" "$tmp/expect"
fi

# Every committed case expects something it printed.
bad=$(for f in tests/vm/cases/*.case tests/arm64/cases/*.case; do
	awk -v f="$f" 'function end_case() { if (n != "" && !e) print f ": " n }
		/^NAME /{ end_case(); n = $0; e = 0 }
		/^(EXPECT|EXPECT_EXACT|EXPECT_STDERR) /{ e = 1 }
		/^EXPECT_LINES 0*[1-9]/{ e = 1 }
		END { end_case() }' "$f"
done)
check "every committed case has a positive EXPECT line" "" "$bad"

# ---- run.sh: a lockup reruns the rest once; a crash is not retried ------------

sed 1d "$tmp/five.case" >"$tmp/five-clean.case"
fake_run() { # MODE VM_JOBS: run.sh over five-clean.case, lockup at case 3
	rm -f "$tmp/state" "$tmp/calls"
	FAKE_VM_MODE=$1 FAKE_VM_AT=3 FAKE_VM_STATE=$tmp/state FAKE_VM_CALLS=$tmp/calls \
		VM_EXEC=tests/host/lib/fake-vm-exec.sh VM_JOBS=$2 KERNELS=6.1 ARCH=x86 \
		tests/vm/run.sh "$tmp/five-clean.case" >"$tmp/run" 2>&1
	st=$?
	taps=$(grep -E '^(not )?ok' "$tmp/run" | paste -sd'|')
}
all_ok="ok - [6.1] c1|ok - [6.1] c2|ok - [6.1] c3|ok - [6.1] c4|ok - [6.1] c5"
for jobs in 1 2; do
	fake_run lockup-once $jobs
	if [ "$taps" = "$all_ok" ] && [ $st = 0 ] && [ "$(cat "$tmp/state")" = 2 ] &&
		grep -qx "# \[6.1\] guest locked up in 'c3'; running the remaining 3 cases again in a fresh boot" "$tmp/run" &&
		grep -q '^#   watchdog: BUG: soft lockup - CPU#0 stuck for 26s' "$tmp/run" &&
		grep -q '^#   .*Call Trace:' "$tmp/run" && [ "$(sed -n 2p "$tmp/calls" | grep -o -- '-s [0-9]*')" = "-s 2" ]; then
		ok "VM_JOBS=$jobs: a lockup in case 3 of 5 reruns cases 3..5 in a fresh boot, once"
	else
		notok "VM_JOBS=$jobs: a lockup in case 3 of 5 reruns cases 3..5 in a fresh boot, once" "$tmp/run" "$tmp/calls"
	fi
done

fake_run lockup-twice 1
if [ "$(grep -c '^not ok' "$tmp/run")" = 1 ] && [ $st != 0 ] && [ "$(cat "$tmp/state")" = 2 ] &&
	grep -qx 'not ok - \[6.1\] guest locked up twice: watchdog: BUG: soft lockup - CPU#0 stuck for 26s! \[bpftool:127\] (console log: .*)' "$tmp/run"; then
	ok "a lockup that repeats in the rerun is one failure"
else
	notok "a lockup that repeats in the rerun is one failure" "$tmp/run"
fi

fake_run crash 1
if [ "$(grep -c '^not ok' "$tmp/run")" = 1 ] && [ $st != 0 ] && [ "$(cat "$tmp/state")" = 1 ] &&
	grep -q "^not ok - \[6.1\] VM run did not complete: Error: \[6.1\] guest kernel crashed: Kernel panic .*; last case started: 'c3'$" "$tmp/run" &&
	! grep -q 'locked up' "$tmp/run"; then
	ok "a crash is a failure, never retried"
else
	notok "a crash is a failure, never retried" "$tmp/run"
fi

# The queue: VM_ORDER's order (6.12 and 7.3 first), then what it does not name.
# arm64 takes case files from the repo only (its guest gets a copy).
mkdir -p build && inrepo=$(mktemp -d build/vm-harness.XXXXXX) && cp "$tmp/five-clean.case" "$inrepo/five.case"
trap 'rm -rf "$tmp" "$inrepo"' EXIT
order() { # VM_ARCHES KERNELS ARM64_KERNELS: the labels in boot order
	rm -f "$tmp/calls"
	FAKE_VM_MODE=pass FAKE_VM_STATE=$tmp/state FAKE_VM_CALLS=$tmp/calls VM_JOBS=1 \
		VM_ARCHES=$1 KERNELS=$2 ARM64_KERNELS=$3 VM_EXEC=tests/host/lib/fake-vm-exec.sh \
		tests/vm/run.sh "$inrepo/five.case" >"$tmp/run" 2>&1
	sed 's/.* -k \(.*\) -s 0 .*/\1/' "$tmp/calls" | paste -sd'|'
}
check "one arch's boots start in VM_ORDER's order, the kernels it does not name last" \
	"7.3|6.1|5.10|9.9" "$(order x86 "6.1 9.9 5.10 7.3" "")" "$tmp/run"
if [ "${KSNOOP_ARM64:-1}" = 0 ]; then
	echo "ok - vm-harness: both arches' boots in one queue # SKIP KSNOOP_ARM64=0"
else
	check "both arches' boots in one queue, each line labelled with its arch" \
		"7.3|6.1|arm64 6.12|arm64 6.1" "$(order "x86 arm64" "6.1 7.3" "6.1 6.12")" "$tmp/run"
	check "both arches' boots: 4 kernels of 5 cases pass" "20 0" \
		"$(grep -c '^ok - \[' "$tmp/run") $(grep -c '^not ok' "$tmp/run")" "$tmp/run"
fi

# VM_HOLD: one boot at a time until the file exists (tests/run.sh opens
# the second lane when the host suites are done). Each fake boot takes 6 s:
# 3 s in, the second waits; 2 s after the file appears, both run.
rm -f "$tmp/calls" "$tmp/state" "$tmp/gate"
FAKE_VM_MODE=pass FAKE_VM_STATE=$tmp/state FAKE_VM_CALLS=$tmp/calls FAKE_VM_SLEEP=6 VM_JOBS=2 \
	VM_HOLD=$tmp/gate VM_ARCHES=x86 KERNELS="6.1 7.3" VM_EXEC=tests/host/lib/fake-vm-exec.sh \
	tests/vm/run.sh "$inrepo/five.case" >"$tmp/run" 2>&1 &
held_run=$!
sleep 3
held=$(wc -l <"$tmp/calls" 2>/dev/null || echo 0)
touch "$tmp/gate"
sleep 2
opened=$(wc -l <"$tmp/calls" 2>/dev/null || echo 0)
wait "$held_run"
check "VM_HOLD: one boot until the file exists, then two at once" "1 2 0" \
	"$held $opened $(grep -c '^not ok' "$tmp/run")" "$tmp/run"

# ---- scripts/kernels.sh: the names and releases, no download ----------------

check "kernels.sh list: x86-64's kernels, oldest first" "5.10 6.1 6.12 7.3" "$(scripts/kernels.sh list)"
check "kernels.sh list: arm64's kernels, oldest first" "5.10 6.1 6.12" "$(KSNOOP_ARCH=arm64 scripts/kernels.sh list)"
got=$(for n in 5.10 6.1 6.12 7.3; do scripts/kernels.sh kver $n; done | paste -sd' ')
check "kernels.sh kver: x86-64's releases" \
	"5.10.0-46-amd64 6.1.0-50-amd64 6.12.117+deb12-amd64 7.3.4+deb13-amd64" "$got"
got=$(for n in 5.10 6.1 6.12; do KSNOOP_ARCH=arm64 scripts/kernels.sh kver $n; done | paste -sd' ')
check "kernels.sh kver: arm64's releases" "5.10.0-32-arm64 6.1.0-50-arm64 6.12.117+deb12-arm64" "$got"
check "kernels.sh: an unknown kernel is one Error: line" \
	"Error: unknown kernel '7.3' (known: 5.10 6.1 6.12)|1" \
	"$(KSNOOP_ARCH=arm64 scripts/kernels.sh kver 7.3 2>&1 | paste -sd'|')|$?"
got=$(for a in x86 arm64; do (unset KERNELS ARM64_KERNELS; ARCH=$a; . tests/vm/arch.sh; vm_arch && echo "$VM_KERNELS"); done | paste -sd'|')
check "the default VM matrix: every kernel of each architecture, the longest run first" \
	"7.3 6.12 6.1 5.10|6.12 5.10 6.1" "$got"

# ---- tests/vm/demo.sh's pass-through and closing line -----------------------

. tests/vm/demo-lib.sh
cat >"$tmp/demo.in" <<'DEMO'
            TIME  CPU      PID FUNCTION/ARGS
     21386407926    1      180 ip_send_skb(net=0xffffffff838b6540, skb=0xffff888004ab3200)
     21398444470    1      180 ip_send_skb() = 0
     21399055275    1      180 tcp_sendmsg(sk=0xffff888004bb0480, msg=0xffffc90000403d50, size=1000)
                                 {"a": 1}
DEMO
demo_tally "$tmp/demo.counts" <"$tmp/demo.in" >"$tmp/demo.out"
check "demo: ksnoop's output passes through unchanged" "" "$(cmp "$tmp/demo.in" "$tmp/demo.out" 2>&1)"
check "demo: 3 events from 2 functions" "3 2" "$(cat "$tmp/demo.counts")"
check "demo: the closing line of a clean stop" \
	"demo: 3 events from 2 functions in 10s; ksnoop stopped cleanly" "$(demo_summary 0 3 2 10)"
check "demo: the closing line without events (count, hist)" \
	"demo: ran 10s; ksnoop stopped cleanly" "$(demo_summary 0 0 0 10)"
check "demo: the closing line of a failure" \
	"demo: 1 event from 1 function in 3s; ksnoop failed (exit 1); its error is above" \
	"$(demo_summary 1 1 1 3)"
