#!/bin/bash
# The running kernel's verdict on kprobe_events definitions beside ksnoop
# probe's. For each definition of TABLE (one a line; '#' comments): the
# kernel's, by writing it to tracefs (kprobe_events, or dynamic_events for
# fprobes) and reading error_log; ksnoop's, by running `ksnoop probe` (a
# refusal exits 1 before anything loads; what attaches prints its header,
# then gets SIGINT): every definition the kernel accepted in one run, the
# others through one `ksnoop probe --check` (and what it accepts, alone).
# A verdict is the same when both accept, or both refuse with their
# carets at the same column; the messages are compared apart, as
# kernels word them differently from version to version. Prints a line
# per difference,
#   differs: DEF | kernel: accepted|COL MSG | ksnoop: accepted|COL MSG
#   worded: DEF | kernel: COL MSG | ksnoop: COL MSG
# then "verdicts: N same, D differ, W worded otherwise, M beyond this
# kernel (A accepted, R refused by the kernel)". What the kernel lacks (a
# definition marked with a newer kernel, as the table's header says, or an
# fprobe or tracepoint probe where it has no fprobe events, an event probe
# where it has no event probes) is held to its
# section instead:
# ksnoop accepts it, or refuses it with a column.
#
#   tests/vm/kpe-verdict.sh TABLE
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kpe-lib.sh"
table=$1
T=$(mktemp -d /tmp/kpe-verdict.XXXXXX) || exit 125
trap 'echo >"$TRACEFS/kprobe_events"; echo >"$TRACEFS/dynamic_events"; rm -rf "$T"' EXIT

# "COL MSG" of a refusal's three lines (message, Command:, caret) in the
# array named $1, the message after $2 on the first line, up to " (at
# offset" if any; nothing when the first line has no $2 or a line is
# missing. In bash alone: a fork costs tens of milliseconds in a guest.
refusal() {
	local -n lines=$1
	local msg cmd=0 caret=0
	[ ${#lines[@]} -ge 3 ] && [[ ${lines[0]} == *"$2"* ]] || return 0
	msg=${lines[0]#*"$2"}
	[[ $msg =~ ^(.*)\ \(at\ offset\ [0-9]+\)$ ]] && msg=${BASH_REMATCH[1]}
	[[ ${lines[1]} == *"Command: "* ]] && cmd=${lines[1]%%Command: *} && cmd=$((${#cmd} + 1))
	[[ ${lines[2]} == *^* ]] && caret=${lines[2]%%^*} && caret=$((${#caret} + 1))
	echo "$((caret - cmd - 9)) $msg"
}

# The lines of file $1 that are not empty and do not start with $2, in
# array REFUSAL.
lines_of() {
	local line
	REFUSAL=()
	while IFS= read -r line; do
		[ -n "$line" ] && [[ -z $2 || $line != "$2"* ]] && REFUSAL+=("$line")
	done <"$1"
}

# The kernel's verdict in KV: accepted, or its refusal.
kernel_verdict() {
	local file=$TRACEFS/kprobe_events
	[[ $1 == [fte]* ]] && file=$TRACEFS/dynamic_events
	echo >"$TRACEFS/error_log"
	if echo "$1" >>"$file" 2>/dev/null; then
		echo >"$file"
		KV=accepted
		return
	fi
	# the log keeps earlier errors: this one is its last 3 lines
	lines_of "$TRACEFS/error_log" ""
	[ ${#REFUSAL[@]} -gt 3 ] && REFUSAL=("${REFUSAL[@]: -3}")
	KV=$(refusal REFUSAL ' error: ')
}

# Runs ksnoop probe on DEFs until it prints its header (all attached) or
# exits; 0 when it attached them.
ksnoop_runs() {
	local pid i
	: >"$T/ksout"
	ksnoop probe "$@" >"$T/ksout" 2>"$T/kserr" &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		has_line "$T/ksout" '#' && break
		kill -0 $pid 2>/dev/null || break
		sleep_s 0.1
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	has_line "$T/ksout" '#'
}

# ksnoop's refusal in file $1 (its first 3 lines but warnings), or "?"
# and its first line.
ksnoop_refusal() {
	local r line=
	lines_of "$1" Warning
	r=$(refusal REFUSAL "': ")
	[ -z "$r" ] && IFS= read -r line <"$1"
	echo "${r:-? $line}"
}

ksnoop_verdict() {
	if ksnoop_runs "$1"; then
		echo accepted
		return
	fi
	ksnoop_refusal "$T/kserr"
}

# Syntax the running kernel lacks (a marked definition on an older kernel,
# fprobes or event probes where it has none): ksnoop's verdict is the
# newest kernels'.
fprobes=no eprobes=no
kpe_have_fprobes && fprobes=yes
kpe_have_eprobes && eprobes=yes
beyond_kernel() {
	kpe_kernel_before "${KPE_SINCE[$1]}" || [[ $fprobes == no && ${KPE_DEFS[$1]} == [ft]* ]] ||
		[[ $eprobes == no && ${KPE_DEFS[$1]} == e* ]]
}

# Where BTF has no tracepoint stubs (Debian's 5.10: the typedef names the
# arguments' types only) nothing names a tracepoint's arguments: ksnoop
# refuses every tracepoint probe there, at the tracepoint.
tp_stubs=yes
ksnoop info tp:sched:sched_switch 2>/dev/null | grep -q 'through btf_trace_' && tp_stubs=no
newest_verdict() {
	if [[ $tp_stubs == no && ${KPE_DEFS[$1]} == t* ]]; then
		echo refused
	else
		echo "${KPE_WANT[$1]}"
	fi
}

kpe_table_read "$table"
kv=() batch_defs=()
declare -A in_batch
for i in "${!KPE_DEFS[@]}"; do
	def=${KPE_DEFS[i]}
	kernel_verdict "$def"
	kv+=("$KV")
	if beyond_kernel "$i"; then
		[ "$(newest_verdict "$i")" = accepted ] || continue
	elif [ "${kv[-1]}" != accepted ]; then
		continue
	fi
	batch_defs+=("$def")
	in_batch[$def]=1
done
# What should be accepted goes to one ksnoop probe: one load, not one each.
batch=no
[ ${#batch_defs[@]} -gt 0 ] && ksnoop_runs "${batch_defs[@]}" && batch=yes

newer_verdict_ok() {
	case $1 in
	accepted) [ "$2" = accepted ] ;;
	refused) [[ $2 =~ ^[0-9]+\  ]] ;;
	*) true ;;
	esac
}

# The rest through one ksnoop probe --check, each on its own: a refusal
# there is probe's (it stops at the same place, before loading), what it
# accepts runs for real, alone. cv[i] is --check's refusal, or "run".
declare -A cv
rest=()
for i in "${!KPE_DEFS[@]}"; do
	[ $batch = yes ] && [ -n "${in_batch[${KPE_DEFS[i]}]:-}" ] && continue
	rest+=("$i")
done
check_rest() {
	local defs=() n=0 i line
	for i in "${rest[@]}"; do
		defs+=("${KPE_DEFS[i]}")
	done
	[ ${#defs[@]} -gt 0 ] || return 0
	ksnoop probe --check "${defs[@]}" >"$T/check" 2>&1
	: >"$T/block"
	while IFS= read -r line; do
		case $line in
		"accepted: "* | "refused: "*) ;;
		*)
			echo "$line" >>"$T/block"
			continue
			;;
		esac
		i=${rest[n]:-}
		if [ -z "$i" ] || [ "${line#*: }" != "${KPE_DEFS[i]}" ]; then
			echo "check: verdict $((n + 1)) is for another definition: $line"
			return 1
		fi
		if [[ $line == accepted* ]]; then
			cv[$i]=run
		else
			cv[$i]=$(ksnoop_refusal "$T/block")
		fi
		: >"$T/block"
		n=$((n + 1))
	done <"$T/check"
	[ $n = ${#rest[@]} ] || { echo "check: $n verdicts for ${#rest[@]} definitions"; return 1; }
}
check_rest || exit 1

same=0 differ=0 worded=0 newer=0 acc=0 ref=0
for i in "${!KPE_DEFS[@]}"; do
	def=${KPE_DEFS[i]} k=${kv[i]}
	if [ $batch = yes ] && [ -n "${in_batch[$def]:-}" ]; then
		s=accepted
	elif [ "${cv[$i]}" != run ]; then
		s=${cv[$i]}
	else
		s=$(ksnoop_verdict "$def")
	fi
	if [ "$k" = accepted ]; then acc=$((acc + 1)); else ref=$((ref + 1)); fi
	if beyond_kernel "$i"; then
		newer=$((newer + 1))
		want=$(newest_verdict "$i")
		newer_verdict_ok "$want" "$s" && continue
		differ=$((differ + 1))
		echo "differs: $def | kernel: $want on newer kernels | ksnoop: $s"
	elif [ "$k" = "$s" ]; then
		same=$((same + 1))
	elif [ "${k%% *}" = "${s%% *}" ]; then
		same=$((same + 1)) worded=$((worded + 1))
		echo "worded: $def | kernel: $k | ksnoop: $s"
	else
		differ=$((differ + 1))
		echo "differs: $def | kernel: $k | ksnoop: $s"
	fi
done
echo "verdicts: $same same, $differ differ, $worded worded otherwise, $newer beyond this kernel ($acc accepted, $ref refused by the kernel)"
