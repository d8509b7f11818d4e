# shellcheck shell=bash
# Shell helpers for the VM tests, sourced by guest.sh and trace-bg.sh.
#
# Under QEMU TCG every exec of a dynamically linked program costs 100 to
# 400 ms, so these helpers use bash builtins only: a read -t on a pipe
# instead of sleep, EPOCHREALTIME instead of date, an incremental read
# loop instead of grep and stat.

LIB_REPO=$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)
TEST_WORKLOAD=${TEST_WORKLOAD:-$LIB_REPO/build/tests/workload}

# A pipe that never delivers data: "read -t S" on it is a builtin sleep.
# Process substitution needs /dev/fd; a named pipe does the same without.
# (The braces keep 2>/dev/null to this one exec: on a bare exec it would
# silence the sourcing script's stderr for good.)
if ! { exec {LIB_SLEEP_FD}<> <(:); } 2>/dev/null; then
	LIB_FIFO=$(mktemp -u /tmp/ksnoop-sleep.XXXXXX)
	mkfifo "$LIB_FIFO" && exec {LIB_SLEEP_FD}<>"$LIB_FIFO"
	rm -f "$LIB_FIFO"
fi

sleep_s() {
	read -r -t "$1" -u "$LIB_SLEEP_FD"
	return 0
}

# ksym REGEX: the first kernel function whose whole name matches REGEX, for
# a case that needs one exact name where releases differ (do_filp_open is
# do_file_open from 7.x on). Exported, so TRACE's own shell has it too.
ksym() {
	awk -v re="^($1)\$" '$3 ~ re { print $3; exit }' /proc/kallsyms
}
export -f ksym

# notrace_func: a function the running kernel's BTF describes and kallsyms
# names once, which ftrace cannot trace (not in available_filter_functions)
# and which is not on the kprobe blacklist. Which functions those are
# changes with every release and pahole version, so each boot asks: the
# first such text symbol ksnoop info finds in the BTF, asked 20 at a time
# (it looks each name up across the whole BTF, 50 ms under TCG; a name it
# does not find, in every module's BTF too, 500 ms). Symbols BTF never
# names are not asked: the __pfx_ padding before each function, static
# call trampolines (__SCT__), CFI stubs and the compiler's clones
# (foo.constprop.0, foo.cold); they filled most of a batch.
notrace_func() {
	local t=/sys/kernel/tracing names=() f proto
	[ -r $t/available_filter_functions ] || t=/sys/kernel/debug/tracing
	while read -r f; do
		names+=("$f")
		[ ${#names[@]} -lt 20 ] && continue
		proto=$(ksnoop info "${names[@]}" 2>/dev/null | sed -n 1p)
		[ -n "$proto" ] && break
		names=()
	done < <(awk 'FILENAME == ARGV[1] { aff[$1] = 1; next }
		     FILENAME == ARGV[2] { bl[$2] = 1; next }
		     NF == 3 && ($2 == "t" || $2 == "T") && $3 !~ /^__(pfx_|SCT__|cfi_)|\./ &&
		     !($3 in aff) && !($3 in bl) { n[$3]++ }
		     END { for (f in n) if (n[f] == 1 && k++ < 400) print f }' \
		$t/available_filter_functions /sys/kernel/debug/kprobes/blacklist /proc/kallsyms)
	# the last names, fewer than 20
	[ -z "$proto" ] && [ ${#names[@]} -gt 0 ] &&
		proto=$(ksnoop info "${names[@]}" 2>/dev/null | sed -n 1p)
	proto=${proto%%(*}
	echo "${proto##*[ *]}"
}

# Whether FILE has a line starting with PREFIX (builtins: no exec per poll).
has_line() {
	local l
	while IFS= read -r l; do
		[[ $l == "$2"* ]] && return 0
	done <"$1"
	return 1
}

# The clock in microseconds, in $NOW (a $(...) would fork).
now() {
	NOW=${EPOCHREALTIME/./}
}

# "1.5" (seconds) -> 1500000 in $US.
secs_to_us() {
	local i=${1%%.*} f=
	[[ $1 == *.* ]] && f=${1#*.}
	f=${f}000000
	US=$((10#${i:-0} * 1000000 + 10#${f:0:6}))
}

# Whether process $1 is in state $2 (T stopped, Z zombie); builtins only.
proc_state() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat%% *}" = "$2" ]
}

# Microseconds -> "1.23" in $SECS.
fmt_us() {
	printf -v SECS '%d.%02d' $(($1 / 1000000)) $(($1 % 1000000 / 10000))
}

# Start "$@" in the background in its own process group, so that the whole
# tree can be signalled with kill -SIG -- -PID, and with SIGINT at its
# default (a script's background jobs otherwise start with it ignored).
# The pid is left in SPAWNED.
spawn() {
	set -m
	"$@" &
	SPAWNED=$!
	set +m
}

# Stop a spawned group: SIGTERM, then SIGKILL after 2 s. Reaps quietly.
stop_group() {
	local pid=$1 i
	kill -TERM -- "-$pid" 2>/dev/null
	for ((i = 0; i < 40; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep_s 0.05
	done
	kill -KILL -- "-$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
}

# Wait for a spawned pid until the deadline (a $NOW value). Sets
# WAIT_RC to its exit status; returns 1 on timeout (the pid still runs).
wait_until() {
	local pid=$1 deadline=$2
	# A zombie still answers kill -0: ask /proc whether it exited.
	while kill -0 "$pid" 2>/dev/null && ! proc_state "$pid" Z; do
		now
		[ "$NOW" -lt "$deadline" ] || return 1
		sleep_s 0.02
	done
	{ wait "$pid"; } 2>/dev/null
	WAIT_RC=$?
	return 0
}

# tracing_ready FILE PID: until FILE has a "Tracing" line (bpftrace's
# tools and count/hist say it once attached), while PID runs; 1 if it
# exits first or 150 s pass.
tracing_ready() {
	local i
	for ((i = 0; i < 1500; i++)); do
		has_line "$1" Tracing && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep_s 0.1
	done
	return 1
}

# A loop device over FILE, its path on stdout. util-linux's losetup says
# which it took (--show); the arm64 guests' busybox has no --show, and
# takes the next free one, named by -f, in two steps.
loop_attach() {
	local dev
	losetup -f --show "$1" 2>/dev/null && return 0
	dev=$(losetup -f) && losetup "$dev" "$1" && echo "$dev"
}

# SIGINT ksnoop (pid $1) and bpftrace (pid $2) side by side, and wait for
# both: ksnoop within 30 s; bpftrace 0.17 now and then sleeps on after a
# SIGINT (as a user would, it gets another, up to 6).
stop_beside_bpftrace() {
	local i
	kill -INT "$1" "$2"
	for ((i = 1; i <= 6; i++)); do
		now
		wait_until "$1" $((NOW + 30000000)) && wait_until "$2" $((NOW + 5000000)) && break
		kill -INT "$2"
	done
}

# Run "$@" with a time limit in seconds; returns its status, 124 on timeout.
run_timeout() {
	local secs=$1 pid
	shift
	spawn "$@"
	pid=$SPAWNED
	now
	if wait_until "$pid" $((NOW + secs * 1000000)); then
		return "$WAIT_RC"
	fi
	stop_group "$pid"
	return 124
}

# ---- following a growing file line by line -------------------------------
# tail_open FILE; then tail_poll puts the new complete lines (up to
# TAIL_BATCH) in TAIL_NEW and returns 0 when anything (even half a line)
# arrived. Bash reads line
# by line: fine for a tracer's first lines, too slow for a flood, so
# callers switch to grep past TAIL_MAX bytes.
TAIL_MAX=262144
TAIL_BATCH=500

tail_open() {
	[ -n "${TAIL_FD:-}" ] && exec {TAIL_FD}<&-
	exec {TAIL_FD}<"$1"
	TAIL_PART=
	TAIL_NEW=()
}

tail_poll() {
	local line got=1 n=0
	TAIL_NEW=()
	# At most TAIL_BATCH lines a call: a flood must not stall the caller.
	while [ $n -lt $TAIL_BATCH ] && IFS= read -r -u "$TAIL_FD" line; do
		TAIL_NEW+=("$TAIL_PART$line")
		TAIL_PART=
		got=0
		n=$((n + 1))
		line=
	done
	# read consumed a line without its newline: keep it for the next poll.
	if [ -n "$line" ]; then
		TAIL_PART+=$line
		got=0
	fi
	return $got
}

tail_close() {
	[ -n "${TAIL_FD:-}" ] && exec {TAIL_FD}<&-
	TAIL_FD=
}

# Whether any line of the array named $1 matches ERE $2.
lines_match() {
	local -n _lines=$1
	local l
	for l in "${_lines[@]}"; do
		[[ $l =~ $2 ]] && return 0
	done
	return 1
}

# Bytes process $1 has written to its fd $2 (a file opened with >), in
# OUT_POS; 1 when /proc does not tell.
out_pos() {
	local line
	OUT_POS=
	while read -r line; do
		[[ $line == pos:* ]] && { OUT_POS=${line##*[[:space:]]}; return 0; }
	done 2>/dev/null <"/proc/$1/fdinfo/$2"
	return 1
}

# Whether tracer $1 sleeps in epoll_wait, i.e. has reached its event loop
# with everything attached (for output such as JSON that has no header).
in_epoll() {
	local w= l
	read -r w 2>/dev/null <"/proc/$1/wchan"
	[[ $w == *epoll* || $w == ep_poll* ]] && return 0
	# x86-64 kernels before 5.16 with the ORC unwinder show no wchan ("0"):
	# the task's kernel stack tells.
	[[ $w == 0 || -z $w ]] || return 1
	while read -r l; do
		[[ $l == *ep_poll* || $l == *epoll_wait* ]] && return 0
	done 2>/dev/null <"/proc/$1/stack"
	return 1
}

# wait_polling PID: until PID sleeps in epoll_wait; 1 if it exits first or
# 60 s pass.
wait_polling() {
	local i
	for ((i = 0; i < 600; i++)); do
		in_epoll "$1" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep_s 0.1
	done
	return 1
}

# Ready: @epoll means in_epoll; @stderr:RE a line of trace_bg's --err
# (count and hist say "Tracing N functions" there once attached); anything
# else is a regex for a line of TAIL_NEW.
tracer_ready() {
	if [ "$2" = @epoll ]; then
		in_epoll "$1"
		return
	fi
	if [[ $2 == @stderr:* ]]; then
		grep -qE -- "${2#@stderr:}" "$err"
		return
	fi
	lines_match TAIL_NEW "$2"
}

# "6.1.0-50-amd64" >= "6.12"? Numeric, field by field.
version_ge() {
	local IFS=.- i
	local -a a b
	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for ((i = 0; i < ${#b[@]}; i++)); do
		[[ ${a[i]:-0} =~ ^[0-9]+$ ]] || return 0
		((10#${a[i]:-0} > 10#${b[i]})) && return 0
		((10#${a[i]:-0} < 10#${b[i]})) && return 1
	done
	return 0
}

# ---- the background-trace helper ----------------------------------------
#
# trace_bg [--ready RE] [--workload 'SHELL CMD'] [--paused-workload ARGS]
#          [--until RE]... [--settle S] [--timeout S]
#          --out FILE --err FILE [--wout FILE] -- TRACER [ARGS...]
#
#  1. With --paused-workload, start build/tests/workload -S ARGS first: it
#     prints pid=N and stops itself; N is in $WPID for the tracer. ARGS
#     "@PROG ..." start PROG, a build of the workload on PATH, instead.
#  2. Start TRACER (own process group, SIGINT at its default), stdout to
#     --out, stderr to --err.
#  3. Wait for a stdout line matching --ready (default '^ *TIME( |$)':
#     ksnoop's header, printed once every probe is attached); --ready
#     @epoll waits instead until the tracer sleeps in epoll_wait.
#  4. Run the workloads: SIGCONT the paused one and wait for it, then run
#     --workload through eval (output to --wout); both may be given.
#  5. Wait for a stdout line matching each --until RE, then until stdout
#     has been quiet for --settle seconds (default 0.5; 0 does not wait).
#  6. SIGINT the tracer's group; wait for it to exit.
# Returns the tracer's exit status. Harness failures (no ready line,
# workload failed, no exit after SIGINT, --timeout, default 30 s, hit)
# append one "trace-bg: ..." line to --err and return 124 (time) or 125.

trace_bg() {
	local ready='^ *TIME( |$)' workload= paused= settle=0.5 timeout=30 out= err= wout=/dev/null
	local -a until=() todo=()
	local deadline tpid wpid= re i grace quiet_us last pos=-1 slow=0

	while [ $# -gt 0 ]; do
		case $1 in
		--ready) ready=$2; shift 2 ;;
		--workload) workload=$2; shift 2 ;;
		--paused-workload) paused=$2; shift 2 ;;
		--until) until+=("$2"); shift 2 ;;
		--settle) settle=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--err) err=$2; shift 2 ;;
		--wout) wout=$2; shift 2 ;;
		--) shift; break ;;
		*) echo "trace-bg: unknown option '$1'" >&2; return 2 ;;
		esac
	done
	if [ -z "$out" ] || [ -z "$err" ] || [ $# -eq 0 ]; then
		echo "trace-bg: --out, --err and a tracer command are required" >&2
		return 2
	fi
	: >"$out"
	: >"$err"
	[ "$wout" = /dev/null ] || : >"$wout"
	now
	deadline=$((NOW + timeout * 1000000))

	_tb_fail() {
		echo "trace-bg: $2" >>"$err"
		[ -n "$tpid" ] && stop_group "$tpid"
		[ -n "$wpid" ] && stop_group "$wpid"
		tail_close
		return "$1"
	}

	tpid=
	if [ -n "$paused" ]; then
		local prog=$TEST_WORKLOAD
		if [[ $paused == @* ]]; then
			prog=${paused%% *} paused=${paused#* }
			prog=$(command -v "${prog#@}") || { _tb_fail 125 "no ${paused%% *} on PATH"; return; }
		fi
		# shellcheck disable=SC2086 # a word list by design
		spawn "$prog" -S $paused >>"$wout" 2>&1
		wpid=$SPAWNED
		until proc_state "$wpid" T; do
			if ! kill -0 "$wpid" 2>/dev/null || proc_state "$wpid" Z; then
				_tb_fail 125 "paused workload exited early"
				return
			fi
			now
			[ "$NOW" -lt "$deadline" ] ||
				{ _tb_fail 124 "paused workload did not stop itself"; return; }
			sleep_s 0.02
		done
	fi

	WPID=$wpid spawn "$@" >"$out" 2>"$err"
	tpid=$SPAWNED
	tail_open "$out"

	until tail_poll; tracer_ready "$tpid" "$ready"; do
		# A full batch: more is waiting, read on before sleeping.
		[ ${#TAIL_NEW[@]} -ge $TAIL_BATCH ] && continue
		if ! kill -0 "$tpid" 2>/dev/null || proc_state "$tpid" Z; then
			{ wait "$tpid"; } 2>/dev/null
			i=$?
			tpid=
			_tb_fail 125 "tracer exited with status $i before a line matching '$ready'"
			return
		fi
		now
		[ "$NOW" -lt "$deadline" ] ||
			{ _tb_fail 124 "no line matching '$ready' from the tracer within ${timeout}s"; return; }
		sleep_s 0.05
	done

	# Lines after the ready line in the same read count for --until.
	todo=("${until[@]}")
	_tb_match_new() {
		local -a left=()
		for re in "${todo[@]}"; do
			lines_match TAIL_NEW "$re" || left+=("$re")
		done
		todo=("${left[@]}")
	}
	_tb_match_new

	if [ -n "$wpid" ]; then
		kill -CONT "$wpid"
		wait_until "$wpid" "$deadline" || { _tb_fail 124 "workload timed out"; return; }
		wpid=
		[ "$WAIT_RC" = 0 ] || { _tb_fail 125 "workload failed with status $WAIT_RC"; return; }
	fi
	if [ -n "$workload" ]; then
		now
		run_timeout $(((deadline - NOW) / 1000000 + 1)) eval "$workload" >>"$wout" 2>&1
		i=$?
		[ $i = 124 ] && { _tb_fail 124 "workload timed out"; return; }
		[ $i = 0 ] || { _tb_fail 125 "workload failed with status $i"; return; }
	fi

	# Missing output is no harness error: the caller's expectations judge.
	while [ ${#todo[@]} -gt 0 ] && kill -0 "$tpid" 2>/dev/null && ! proc_state "$tpid" Z; do
		now
		[ "$NOW" -lt "$deadline" ] || break
		out_pos "$tpid" 1 && [ "$OUT_POS" -gt "$TAIL_MAX" ] && slow=1
		if [ $slow = 0 ]; then
			tail_poll && _tb_match_new
			[ ${#todo[@]} -gt 0 ] && sleep_s 0.05
		else
			# A flood: one grep per pending pattern, a few times a second.
			local -a left=()
			for re in "${todo[@]}"; do
				grep -qE -- "$re" "$out" || left+=("$re")
			done
			todo=("${left[@]}")
			[ ${#todo[@]} -gt 0 ] && sleep_s 0.3
		fi
	done
	tail_close

	# Quiet means the tracer's stdout offset stopped moving.
	secs_to_us "$settle"
	quiet_us=$US
	now
	last=$NOW
	while [ "$quiet_us" -gt 0 ] && kill -0 "$tpid" 2>/dev/null && ! proc_state "$tpid" Z &&
		[ "$NOW" -lt "$deadline" ]; do
		out_pos "$tpid" 1 || OUT_POS=$pos
		if [ "$OUT_POS" != "$pos" ]; then
			pos=$OUT_POS
			last=$NOW
		elif [ $((NOW - last)) -ge "$quiet_us" ]; then
			break
		fi
		sleep_s 0.05
		now
	done

	kill -INT -- "-$tpid" 2>/dev/null
	now
	grace=$((deadline - NOW))
	[ $grace -lt 5000000 ] && grace=5000000
	if ! wait_until "$tpid" $((NOW + grace)); then
		_tb_fail 124 "tracer still running $((grace / 1000000))s after SIGINT"
		return
	fi
	return "$WAIT_RC"
}
