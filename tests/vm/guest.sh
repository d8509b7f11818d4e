#!/bin/bash
# Run the declarative VM test cases and print TAP lines, "ok - [6.1] NAME".
#
#   tests/vm/guest.sh [-k LABEL] [-t REGEX] [-s N] [-l] [-v] [CASEFILE...]
#
# tests/vm/run.sh boots each kernel once and runs this inside; it also runs
# on any machine directly (LABEL defaults to $KSNOOP_VM_KERNEL, else
# "host"). -t keeps the cases whose name matches REGEX; -v adds timings.
# Every case -t keeps prints exactly one TAP line (so does a malformed
# line before a file's first NAME, and an unreadable file): -s N passes
# over the first N of them without running them, which is how run.sh
# resumes after a guest that locked up; -l lists them, one line each,
# without running anything.
# Default CASEFILEs: tests/vm/cases/*.case, in name order.
#
# CASE FILE FORMAT (in the style of bpftrace's runtime tests)
# One directive per line, "KEY value": one blank after KEY, then the value
# verbatim (leading blanks included); blank lines and lines starting with
# '#' are ignored; a line ending in '\' continues on the next (that line's
# leading blanks dropped). NAME starts
# a case; the other keys describe it:
#
#   NAME text          case name, shown in the TAP line
#   RUN cmd            shell command (bash -c); its exit status and output
#                      are checked
#   TRACE cmd          a tracer to run in the background instead of RUN:
#                      started, waited for until READY, the workload run,
#                      stopped with SIGINT (see trace-bg.sh); one command,
#                      run as bash -c "exec cmd"
#   READY regex        TRACE's ready line on stdout (default '^ *TIME( |$)',
#                      ksnoop's header); READY @epoll: ready once the
#                      tracer sleeps in epoll_wait (its event loop), for
#                      output without a header such as -j
#   WORKLOAD cmd       shell command: with TRACE, run once READY (after
#                      the paused workload, if any); with RUN, run in the
#                      background alongside it
#   PAUSED_WORKLOAD args   with TRACE: build/tests/workload -S args is
#                      started (stopped) before the tracer, whose command
#                      can use its pid as $WPID, and let go once READY;
#                      "@PROG args" starts PROG (on PATH) instead
#   EXPECT regex       some stdout line matches (grep -E); repeatable.
#                      Every case needs at least one positive check (EXPECT,
#                      EXPECT_EXACT, EXPECT_STDERR, EXPECT_LINES n > 0): a
#                      case that checks only an exit status or absences is
#                      a bad case
#   EXPECT_EXACT line  some stdout line is exactly this; repeatable
#   EXPECT_NONE regex  no stdout line matches; repeatable
#   EXPECT_LINES n regex   exactly n stdout lines match; repeatable
#   EXPECT_STDERR regex, EXPECT_STDERR_NONE regex   the same for stderr
#   EXIT n|nonzero|any expected exit status (default 0)
#   REQUIRES feat...   skip unless every feature holds; "!feat" negates:
#                      btf, btf:MODULE, module_btf, func:NAME (a
#                      function in vmlinux's BTF), fentry, kprobe,
#                      uprobe, uprobe.multi, kprobe.multi, kprobe_events,
#                      fprobe_events, eprobe_events,
#                      bpf_loop, func_arg, attach_cookie, task_storage,
#                      perf_link (the BPF features past 5.10's, from
#                      BTF), vm,
#                      root, kernel>=X.Y, kernel<X.Y, config:CONFIG_FOO,
#                      cmd:PROGRAM, arch:x86|arm64 (the machine's, as the
#                      Makefile names it), file:PATH (a file or folder
#                      that exists: /usr/lib/debug/.build-id, debug files)
#   WAIT_FOR regex     with TRACE: after the workload, wait (up to TIMEOUT)
#                      for a stdout line matching regex before SIGINT;
#                      repeatable. Use it for events that may arrive late;
#                      output printed only at exit must not be waited for.
#   SETTLE s           with TRACE: then wait until stdout has been quiet for
#                      s seconds before SIGINT. Default 0: at SIGINT ksnoop
#                      detaches, then prints every event left in its ring,
#                      so all that a workload did before it exited is
#                      printed. Give it for events that may come later (a
#                      flood still being printed, another tracer)
#   TIMEOUT s          per-case limit (default 30; TCG is slow), times
#                      $KSNOOP_TIMEOUT_SCALE (default 1; the emulated arm64
#                      guests run slower)
#
# Commands run through eval in a subshell of this script, in the repo
# directory, with ksnoop and workload on PATH and $KERNEL set to the label;
# the helpers of lib.sh (trace_bg, sleep_s, ksym, notrace_func, ...) are
# available to them. In the VM, /tmp is a fresh tmpfs per boot. Output is
# shown only when a case fails. REQUIRES slow marks cases that run only
# with KSNOOP_SLOW_TESTS=1.
#
# Example, a background trace filtered on the workload's pid:
#
#   NAME trace ip_send_skb skb->len
#   REQUIRES fentry
#   TRACE ksnoop -p $WPID trace 'ip_send_skb(skb->len)'
#   PAUSED_WORKLOAD udp-send 150 3
#   WAIT_FOR "len": 178
#   EXPECT_LINES 3 "len": 178
#   TIMEOUT 60
set -uo pipefail

case $0 in
*/*) HERE=$(cd "${0%/*}" && pwd) ;;
*) HERE=$PWD ;;
esac
REPO=${HERE%/tests/vm}
. "$HERE/lib.sh"
LABEL=${KSNOOP_VM_KERNEL:-host}
TIMEOUT_SCALE=${KSNOOP_TIMEOUT_SCALE:-1}
[[ $TIMEOUT_SCALE =~ ^[1-9][0-9]*$ ]] || TIMEOUT_SCALE=1
FILTER=
VERBOSE=0
PASS_OVER=0
LIST=0

usage() {
	echo "usage: $0 [-k LABEL] [-t REGEX] [-s N] [-l] [-v] [CASEFILE...]" >&2
	exit 2
}

while getopts "k:t:s:lv" o; do
	case $o in
	k) LABEL=$OPTARG ;;
	t) FILTER=$OPTARG ;;
	s) PASS_OVER=$OPTARG ;;
	l) LIST=1 ;;
	v) VERBOSE=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $PASS_OVER =~ ^[0-9]{1,6}$ ]] || { echo "Error: invalid -s '$PASS_OVER': want a case count" >&2; exit 2; }
[ $# -gt 0 ] || set -- "$HERE"/cases/*.case

cd "$REPO" || exit 1
export PATH="$REPO:$REPO/build/tests:$PATH"
export KERNEL=$LABEL
WORK=$(mktemp -d /tmp/ksnoop-guest.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
NPASS=0
NFAIL=0
NSKIP=0

# ---- features -------------------------------------------------------------
# Everything here runs once per case under TCG, where each exec costs 100+
# ms: bash builtins only.

CONFIG_TEXT=
load_config() {
	local f
	for f in "${KSNOOP_VM_CONFIG:-}" "/boot/config-$KREL"; do
		if [ -n "$f" ] && [ -r "$f" ]; then
			CONFIG_TEXT=$'\n'$(grep -E '=[ym]$' "$f")$'\n'
			return
		fi
	done
	[ -r /proc/config.gz ] && CONFIG_TEXT=$'\n'$(zcat /proc/config.gz | grep -E '=[ym]$')$'\n'
}

# The kernel's BPF features past 5.10's, as its BTF names them (lib/kfeat.c
# reads the same enums): probed, never inferred from the release.
# Every name in the BTF goes to one file, read once a boot: func:NAME asks it.
load_btf_names() {
	: >"$WORK/btf-names"
	[ -r /sys/kernel/btf/vmlinux ] || return
	tr '\000' '\n' </sys/kernel/btf/vmlinux >"$WORK/btf-names"
	BTF_NAMES=$'\n'$(grep -xE 'BPF_FUNC_(loop|get_func_arg|get_attach_cookie)|BPF_MAP_TYPE_TASK_STORAGE|BPF_LINK_TYPE_PERF_EVENT|BPF_TRACE_UPROBE_MULTI' "$WORK/btf-names")$'\n'
}

btf_names() {
	[[ ${BTF_NAMES:-} == *$'\n'"$1"$'\n'* ]]
}

config_has() {
	[[ $CONFIG_TEXT == *$'\n'"$1"=[ym]$'\n'* ]]
}

read -r KREL </proc/sys/kernel/osrelease
# bash's own idea of the machine, no exec needed.
case $HOSTTYPE in
x86_64) MACH=x86 ;;
aarch64) MACH=arm64 ;;
*) MACH=$HOSTTYPE ;;
esac

# Features come from the kernel's config and its file systems, never from
# ksnoop itself, so a broken "ksnoop feature" cannot skip its own tests.
# Returns 0 (yes), 1 (no) or 2 (unknown feature name).
have() {
	local c f
	case $1 in
	!*) have "${1#!}"; case $? in 0) return 1 ;; 1) return 0 ;; *) return 2 ;; esac ;;
	kernel\>=*) version_ge "$KREL" "${1#kernel>=}" ;;
	kernel\<*) ! version_ge "$KREL" "${1#kernel<}" ;;
	config:*) config_has "${1#config:}" ;;
	cmd:*) command -v "${1#cmd:}" >/dev/null ;;
	file:*) [ -e "${1#file:}" ] ;;
	arch:*) [ "${1#arch:}" = "$MACH" ] ;;
	btf) [ -r /sys/kernel/btf/vmlinux ] ;;
	btf:*) [ -r "/sys/kernel/btf/${1#btf:}" ] ;;
	# Debian 11's arm64 BTF lacks functions its kallsyms has (do_sys_openat2)
	func:*) grep -qxF "${1#func:}" "$WORK/btf-names" ;;
	module_btf)
		for f in /sys/kernel/btf/*; do
			[ "$f" != /sys/kernel/btf/vmlinux ] && [ -e "$f" ] && return 0
		done
		return 1
		;;
	# fentry patches functions through ftrace: where tracefs refuses to
	# list them (EPERM, as on a locked-down host), fentry loads fail too.
	fentry)
		[ -r /sys/kernel/btf/vmlinux ] && config_has CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS &&
			read -r -n 1 c 2>/dev/null </sys/kernel/tracing/available_filter_functions
		;;
	kprobe) [ -r /sys/bus/event_source/devices/kprobe/type ] ;;
	uprobe) [ -r /sys/bus/event_source/devices/uprobe/type ] ;;
	kprobe.multi) have kprobe && config_has CONFIG_FPROBE ;;
	uprobe.multi) have uprobe && btf_names BPF_TRACE_UPROBE_MULTI ;;
	kprobe_events) [ -w /sys/kernel/tracing/kprobe_events ] ;;
	fprobe_events) [ -w /sys/kernel/tracing/dynamic_events ] && config_has CONFIG_FPROBE_EVENTS ;;
	eprobe_events) grep -qE '^[[:space:]]*e\[:\[<group>/' /sys/kernel/tracing/README 2>/dev/null ;;
	bpf_loop) btf_names BPF_FUNC_loop ;;
	func_arg) btf_names BPF_FUNC_get_func_arg ;;
	attach_cookie) btf_names BPF_FUNC_get_attach_cookie ;;
	task_storage) btf_names BPF_MAP_TYPE_TASK_STORAGE ;;
	# kprobes attached as BPF links, which bpftool lists (5.15)
	perf_link) btf_names BPF_LINK_TYPE_PERF_EVENT ;;
	vm) [ -n "${KSNOOP_VM:-}" ] ;;
	root) [ "$EUID" = 0 ] ;;
	slow) [ -n "${KSNOOP_SLOW_TESTS:-}" ] ;;
	*) return 2 ;;
	esac
}

FEATURES=(btf module_btf fentry kprobe uprobe uprobe.multi kprobe.multi kprobe_events fprobe_events eprobe_events bpf_loop func_arg
	attach_cookie task_storage perf_link vm root slow)

# ---- one case -----------------------------------------------------------

reset_case() {
	C_NAME= C_WHERE= C_RUN= C_TRACE= C_READY='^ *TIME( |$)' C_WORKLOAD= C_PAUSED=
	C_EXIT=0 C_TIMEOUT=30 C_SETTLE= C_BAD=
	C_WAIT=() C_EXPECT=() C_EXACT=() C_NONE=() C_LINES=() C_ERR=() C_ERR_NONE=() C_REQ=()
}

diag() {
	echo "#   $*"
}

show_output() {
	local f=$1 what=$2 n
	[ -s "$f" ] || { diag "(no $what)"; return; }
	n=$(wc -l <"$f")
	diag "--- $what ($n lines)"
	head -n 80 "$f" | sed 's/^/#   | /'
	[ "$n" -gt 80 ] && diag "... $((n - 80)) more lines"
}

count_matches() {
	local -n _l=$1
	local x
	COUNT=0
	for x in "${_l[@]}"; do
		[[ $x =~ $2 ]] && COUNT=$((COUNT + 1))
	done
}

has_line() {
	local -n _l=$1
	local x
	for x in "${_l[@]}"; do
		[ "$x" = "$2" ] && return 0
	done
	return 1
}

# Checks the expectations; one diagnostic line per miss. 0 when all hold.
# Small outputs are matched with bash's own regex; past BIG_LINES lines
# (a burst of events) one grep per expectation is much faster under TCG.
BIG_LINES=5000

check_case() {
	local rc=$1 re line n bad=0 big=0
	local -a out err
	mapfile -t -n $((BIG_LINES + 1)) out <"$WORK/out"
	mapfile -t err <"$WORK/err"
	[ ${#out[@]} -gt $BIG_LINES ] && big=1
	case $C_EXIT in
	any) ;;
	nonzero) [ "$rc" != 0 ] || { diag "exit status 0, expected non-zero"; bad=1; } ;;
	*) [ "$rc" = "$C_EXIT" ] || { diag "exit status $rc, expected $C_EXIT"; bad=1; } ;;
	esac
	for re in "${C_EXPECT[@]}"; do
		out_match "$re" || { diag "no stdout line matches: $re"; bad=1; }
	done
	for line in "${C_EXACT[@]}"; do
		if [ $big = 1 ]; then
			grep -qxF -- "$line" "$WORK/out"
		else
			has_line out "$line"
		fi || { diag "no stdout line is exactly: $line"; bad=1; }
	done
	for re in "${C_NONE[@]}"; do
		out_match "$re" && { diag "a stdout line matches: $re"; bad=1; }
	done
	for line in "${C_LINES[@]}"; do
		n=${line%% *}
		re=${line#* }
		if [ $big = 1 ]; then
			COUNT=$(grep -cE -- "$re" "$WORK/out")
		else
			count_matches out "$re"
		fi
		[ "$COUNT" = "$n" ] || { diag "$COUNT stdout lines match, expected $n: $re"; bad=1; }
	done
	for re in "${C_ERR[@]}"; do
		lines_match err "$re" || { diag "no stderr line matches: $re"; bad=1; }
	done
	for re in "${C_ERR_NONE[@]}"; do
		lines_match err "$re" && { diag "a stderr line matches: $re"; bad=1; }
	done
	return $bad
}

# check_case's stdout match, by bash or by grep (uses its out and big).
out_match() {
	if [ $big = 1 ]; then
		grep -qE -- "$1" "$WORK/out"
	else
		lines_match out "$1"
	fi
}

# EXPECT, EXPECT_EXACT, EXPECT_STDERR or EXPECT_LINES with n > 0: a case
# whose every check is an absence passes when the tracer prints nothing.
has_positive_expect() {
	local r

	[ $((${#C_EXPECT[@]} + ${#C_EXACT[@]} + ${#C_ERR[@]})) -gt 0 ] && return 0
	for r in "${C_LINES[@]}"; do
		[[ $r =~ ^0*[1-9][0-9]*\  ]] && return 0
	done
	return 1
}

validate_case() {
	local r
	[ -n "$C_RUN" ] && [ -n "$C_TRACE" ] && C_BAD+="RUN and TRACE both given; "
	[ -z "$C_RUN" ] && [ -z "$C_TRACE" ] && C_BAD+="neither RUN nor TRACE; "
	[ -n "$C_PAUSED" ] && [ -z "$C_TRACE" ] && C_BAD+="PAUSED_WORKLOAD needs TRACE; "
	[ ${#C_WAIT[@]} -gt 0 ] && [ -z "$C_TRACE" ] && C_BAD+="WAIT_FOR needs TRACE; "
	[ -n "$C_SETTLE" ] && [ -z "$C_TRACE" ] && C_BAD+="SETTLE needs TRACE; "
	has_positive_expect ||
		C_BAD+="no positive EXPECT line: a case must check something it printed, not only absences; "
	[[ $C_EXIT =~ ^([0-9]+|any|nonzero)$ ]] || C_BAD+="bad EXIT '$C_EXIT'; "
	[[ $C_TIMEOUT =~ ^[0-9]+$ ]] || C_BAD+="bad TIMEOUT '$C_TIMEOUT'; "
	[[ -z $C_SETTLE || $C_SETTLE =~ ^[0-9]*\.?[0-9]+$ ]] || C_BAD+="bad SETTLE '$C_SETTLE'; "
	for r in "${C_LINES[@]}"; do
		[[ $r =~ ^[0-9]+\ . ]] || C_BAD+="bad EXPECT_LINES '$r' (want: N REGEX); "
	done
	for r in "${C_REQ[@]}"; do
		have "$r"
		[ $? = 2 ] && C_BAD+="unknown feature '$r'; "
	done
	[ -z "$C_BAD" ]
}

# Runs the case; its output lands in $WORK/out, err and wout. Sets RC.
exec_case() {
	local args re wpid= limit=$((C_TIMEOUT * TIMEOUT_SCALE))
	: >"$WORK/wout"
	if [ -n "$C_TRACE" ]; then
		args=(--ready "$C_READY" --timeout "$limit"
			--out "$WORK/out" --err "$WORK/err" --wout "$WORK/wout")
		[ -n "$C_WORKLOAD" ] && args+=(--workload "$C_WORKLOAD")
		[ -n "$C_PAUSED" ] && args+=(--paused-workload "$C_PAUSED")
		args+=(--settle "${C_SETTLE:-0}")
		for re in "${C_WAIT[@]}"; do args+=(--until "$re"); done
		trace_bg "${args[@]}" -- eval "exec $C_TRACE"
		RC=$?
		return
	fi
	if [ -n "$C_WORKLOAD" ]; then
		spawn eval "$C_WORKLOAD" >"$WORK/wout" 2>&1
		wpid=$SPAWNED
	fi
	run_timeout "$limit" eval "$C_RUN" >"$WORK/out" 2>"$WORK/err"
	RC=$?
	[ $RC = 124 ] && echo "guest.sh: timed out after ${limit}s" >>"$WORK/err"
	[ -n "$wpid" ] && stop_group "$wpid"
}

# passed_over TEXT: 0 when the item that would print a TAP line about TEXT
# is one of the first -s N, or when -l only lists it.
passed_over() {
	if [ "$PASS_OVER" -gt 0 ]; then
		PASS_OVER=$((PASS_OVER - 1))
		return 0
	fi
	[ $LIST = 1 ] && echo "$1"
	[ $LIST = 1 ]
}

run_case() {
	local start r missing=()
	[ -n "$C_NAME" ] || return 0
	if [ -n "$FILTER" ] && ! [[ $C_NAME =~ $FILTER ]]; then
		return 0
	fi
	passed_over "$C_NAME" && return 0
	if ! validate_case; then
		echo "not ok - [$LABEL] $C_NAME"
		diag "$C_WHERE: bad case: ${C_BAD%; }"
		NFAIL=$((NFAIL + 1))
		return 0
	fi
	for r in "${C_REQ[@]}"; do
		have "$r" || missing+=("$r")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "ok - [$LABEL] $C_NAME # SKIP needs ${missing[*]}"
		NSKIP=$((NSKIP + 1))
		return 0
	fi

	# run.sh hides this line; it names the case that crashed a VM.
	echo "# case: $C_NAME"
	now
	start=$NOW
	exec_case </dev/null
	now
	fmt_us $((NOW - start))
	if check_case "$RC" >"$WORK/diag"; then
		echo "ok - [$LABEL] $C_NAME"
		# The slow cases, named in every run, for keeping CI short.
		if [ $VERBOSE = 1 ] || [ "${SECS%%.*}" -ge 10 ]; then
			diag "took ${SECS}s"
		fi
		NPASS=$((NPASS + 1))
	else
		echo "not ok - [$LABEL] $C_NAME"
		diag "$C_WHERE, took ${SECS}s"
		cat "$WORK/diag"
		if [ -n "$C_TRACE" ]; then
			diag "trace: $C_TRACE"
		else
			diag "run: $C_RUN"
		fi
		show_output "$WORK/out" stdout
		show_output "$WORK/err" stderr
		[ -s "$WORK/wout" ] && show_output "$WORK/wout" "workload output"
		NFAIL=$((NFAIL + 1))
	fi
}

# ---- case files ---------------------------------------------------------

parse_file() {
	local f=$1 n=0 start raw next key val r
	reset_case
	while IFS= read -r raw || [ -n "$raw" ]; do
		n=$((n + 1))
		start=$n
		while [[ $raw == *\\ ]] && IFS= read -r next; do
			n=$((n + 1))
			raw=${raw%\\}${next#"${next%%[![:space:]]*}"}
		done
		[[ $raw =~ ^[[:space:]]*(#|$) ]] && continue
		# One blank separates KEY from its value; the rest is verbatim, so
		# EXPECT_EXACT can demand leading blanks.
		key=${raw%%[[:space:]]*}
		val=${raw#"$key"}
		val=${val#[[:space:]]}
		if [ "$key" = NAME ]; then
			run_case
			reset_case
			C_NAME=$val
			C_WHERE="${f#"$REPO"/}:$start"
			continue
		fi
		if [ -z "$C_NAME" ]; then
			passed_over "${f#"$REPO"/}:$start" && continue
			echo "not ok - [$LABEL] ${f#"$REPO"/}:$start: '$key' before the first NAME"
			NFAIL=$((NFAIL + 1))
			continue
		fi
		case $key in
		RUN) C_RUN=$val ;;
		TRACE) C_TRACE=$val ;;
		READY) C_READY=$val ;;
		WORKLOAD) C_WORKLOAD=$val ;;
		PAUSED_WORKLOAD) C_PAUSED=$val ;;
		EXPECT) C_EXPECT+=("$val") ;;
		EXPECT_EXACT) C_EXACT+=("$val") ;;
		EXPECT_NONE) C_NONE+=("$val") ;;
		EXPECT_LINES) C_LINES+=("$val") ;;
		EXPECT_STDERR) C_ERR+=("$val") ;;
		EXPECT_STDERR_NONE) C_ERR_NONE+=("$val") ;;
		EXIT) C_EXIT=$val ;;
		REQUIRES) read -r -a r <<<"$val"; C_REQ+=("${r[@]}") ;;
		TIMEOUT) C_TIMEOUT=$val ;;
		SETTLE) C_SETTLE=$val ;;
		WAIT_FOR) C_WAIT+=("$val") ;;
		*) C_BAD+="line $start: unknown key '$key'; " ;;
		esac
	done <"$f"
	run_case
}

# parse_files FILE...: every case of every file, run or (-s, -l) passed over.
parse_files() {
	local f
	for f in "$@"; do
		if [ ! -r "$f" ]; then
			passed_over "$f" && continue
			echo "not ok - [$LABEL] cannot read case file $f"
			NFAIL=$((NFAIL + 1))
			continue
		fi
		parse_file "$f"
	done
}

if [ $LIST = 1 ]; then
	parse_files "$@"
	exit 0
fi

load_config
load_btf_names
feats=()
for f in "${FEATURES[@]}"; do
	have "$f" && feats+=("$f")
done
echo "# guest [$LABEL] kernel $KREL; features: ${feats[*]:-none}"
[ "$PASS_OVER" -gt 0 ] && echo "# guest [$LABEL] passing over the first $PASS_OVER cases (run before)"

now
suite_start=$NOW
parse_files "$@"
now
fmt_us $((NOW - suite_start))
echo "# guest-done [$LABEL] $NPASS passed, $NFAIL failed, $NSKIP skipped in ${SECS}s"
[ $NFAIL = 0 ]
