#!/bin/bash
# Host test of ktrace and kdump (TAP: "ok - name" / "not ok - name").
#
# Traces tests/host/ktrace_target and checks the exact CALL, NAMI, RET,
# GIO, PSIG and ARGS lines kdump prints; then ktrace -p/-d/-g/-c/-C, kdump's
# options, the error paths (bad options, corrupt and truncated files,
# refused trace files) under valgrind and ASan, and a short fuzz run.
set -u
cd "$(dirname "$0")/../.."

W=$(mktemp -d /tmp/ktrace-test.XXXXXX)
BG_PIDS=()
cleanup() {
	local f
	for f in "$W"/*.out; do
		[ -e "$f" ] && ./ksnoop ktrace -c -f "$f" >/dev/null 2>&1
	done
	for f in "${BG_PIDS[@]}"; do
		kill "$f" 2>/dev/null
	done
	rm -rf "$W"
}
trap cleanup EXIT

ok() { echo "ok - $1"; }
not_ok() {
	echo "not ok - $1"
	shift
	local d
	for d in "$@"; do echo "# $d"; done
}
skip() { echo "ok - $1 # SKIP $2"; }
check() { # name command...
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# Escape a fixed string for grep -E.
q() { printf '%s' "$1" | sed 's/[][\.|$(){}?+*^]/\\&/g'; }

# Lines matching the given anchored EREs, one after the other, in FILE.
has_seq() { # file re...
	local file=$1
	shift
	# Through the environment: awk -v would eat the backslashes.
	SEQ_RES=$(printf '%s\037' "$@") awk -v n=$# '
		BEGIN { split(ENVIRON["SEQ_RES"], re, "\037") }
		{ line[NR] = $0 }
		END {
			for (i = 1; i + n - 1 <= NR; i++) {
				for (k = 1; k <= n; k++)
					if (line[i + k - 1] !~ ("^" re[k] "$"))
						break
				if (k > n)
					exit 0
			}
			exit 1
		}' "$file"
}

# One stderr line, starting "Error: ", matching the ERE; exit code 1, or
# the one given.
one_error() { # name rc stderr-file ere [expected-rc]
	local name=$1 rc=$2 err=$3 want=$4 want_rc=${5:-1}
	if [ "$rc" -eq "$want_rc" ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -qE "^Error: $want\$" "$err"; then
		ok "$name"
	else
		not_ok "$name" "rc=$rc, stderr:" "$(cat "$err")"
	fi
}

make -s ktrace-target ktrace-links >/dev/null || { not_ok "build ktrace_target"; exit 1; }
TARGET=build/ktrace_target
PTR='0x[0-9a-f]+'

can_trace=1
why_not=""
if [ "$(id -u)" -ne 0 ]; then
	can_trace=0 why_not="needs root"
elif [ ! -r /sys/kernel/btf/vmlinux ]; then
	can_trace=0 why_not="needs kernel BTF"
fi

#
# The traced program, with -i: every record kind.
#
trace_tests() {
	local out=$W/t.out dump=$W/t.txt pid child P P0 C
	mkdir -p "$W/dir"
	if ! (umask 000 && timeout 60 ./ktrace -i -f "$out" "$TARGET" "$W/dir" >"$W/target.stdout" 2>"$W/target.stderr"); then
		not_ok "ktrace -i runs the command" "$(cat "$W/target.stderr")"
		return
	fi
	ok "ktrace -i runs the command"
	check "trace file is created with mode 0600" [ "$(stat -c %a "$out")" = 600 ]
	./kdump -f "$out" >"$dump" 2>"$W/kdump.err"
	check "kdump reads the trace without error" [ $? -eq 0 -a ! -s "$W/kdump.err" ]

	pid=$(awk 'NR == 1 { print $1 }' "$dump")
	child=$(awk '/^child / { print $2 }' "$W/target.stdout")
	P=$(q "$(printf '%6d %-8s ' "$pid" ktrace_target)")
	P0=$(q "$(printf '%6d %-8s ' "$pid" ktrace)")
	C=$(q "$(printf '%6d %-8s ' "$child" ktrace_target)")

	check "CALL execve from ktrace, NAMI, ARGS, RET" has_seq "$dump" \
		"${P0}CALL  execve\($PTR,$PTR,$PTR\)" \
		"${P}NAMI  $(q "\"$TARGET\"")" \
		"${P}ARGS  " \
		"$(printf '\t')$(q "[0] = \"$TARGET\"")" \
		"$(printf '\t')$(q "[1] = \"$W/dir\"")" \
		"${P}RET   execve 0"
	check "open for writing: CALL with flags and mode, NAMI, RET" has_seq "$dump" \
		"${P}CALL  openat\(AT_FDCWD,$PTR,$(q "0x80241<O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC>,0644)")" \
		"${P}NAMI  \"data.txt\"" \
		"${P}RET   openat 3"
	check "write: CALL, GIO with the bytes written, RET" has_seq "$dump" \
		"${P}CALL  write\(3,$PTR,0xd\)" \
		"${P}GIO   fd 3 wrote 13 bytes" \
		"       $(q '"hello ktrace\n"')" \
		"${P}RET   write 13/0xd"
	check "open for reading: O_RDONLY, no mode" has_seq "$dump" \
		"${P}CALL  openat\(AT_FDCWD,$PTR,0<O_RDONLY>\)" \
		"${P}NAMI  \"data.txt\"" \
		"${P}RET   openat 3"
	check "read: GIO of the bytes read" has_seq "$dump" \
		"${P}CALL  read\(3,$PTR,0x40\)" \
		"${P}GIO   fd 3 read 13 bytes" \
		"       $(q '"hello ktrace\n"')" \
		"${P}RET   read 13/0xd"
	check "failed open: RET -1 errno 2 ENOENT" has_seq "$dump" \
		"${P}CALL  openat\(AT_FDCWD,$PTR,0<O_RDONLY>\)" \
		"${P}NAMI  \"does-not-exist\"" \
		"${P}RET   openat -1 errno 2 ENOENT"
	check "writev: GIO gathers the iovecs" has_seq "$dump" \
		"${P}CALL  writev\(3,$PTR,0x2\)" \
		"${P}GIO   fd 3 wrote 16 bytes" \
		"       $(q '"vec-one vec-two\n"')" \
		"${P}RET   writev 16/0x10"
	check "preadv: GIO scatters into the iovecs" has_seq "$dump" \
		"${P}CALL  preadv\(3,$PTR,0x2,0,0\)" \
		"${P}GIO   fd 3 read 16 bytes" \
		"       $(q '"vec-one vec-two\n"')" \
		"${P}RET   preadv 16/0x10"
	check "sendmsg: GIO of the message" has_seq "$dump" \
		"${P}CALL  sendmsg\(3,$PTR,0\)" \
		"${P}GIO   fd 3 wrote 8 bytes" \
		"       \"sock-msg\"" \
		"${P}RET   sendmsg 8"
	check "recvmsg: GIO of the message" has_seq "$dump" \
		"${P}CALL  recvmsg\(4,$PTR,0\)" \
		"${P}GIO   fd 4 read 8 bytes" \
		"       \"sock-msg\"" \
		"${P}RET   recvmsg 8"
	check "kill: CALL with the signal name, then PSIG caught" has_seq "$dump" \
		"${P}CALL  kill\($pid,SIGUSR1\)" \
		"${P}RET   kill 0" \
		"${P}PSIG  SIGUSR1 caught handler=$PTR mask=0 code=SI_USER pid=$pid uid=0"
	check "no RET for rt_sigreturn's restored registers" \
		bash -c "! grep -qF 'RET   [' '$dump'"
	check "fork with -i: parent RET has the child pid" \
		grep -qE "^${P}RET   clone3? $child/$PTR\$" "$dump"
	./kdump -f "$out" -p "$child" >"$W/child.txt"
	check "fork with -i: the child is traced from its fork" \
		grep -qE "^${C}RET   clone3? 0\$" <(head -n 1 "$W/child.txt")
	check "fork with -i: the child's open" has_seq "$W/child.txt" \
		"${C}CALL  openat\(AT_FDCWD,$PTR,$(q "0x241<O_WRONLY|O_CREAT|O_TRUNC>,0600)")" \
		"${C}NAMI  \"child.txt\"" \
		"${C}RET   openat 3"
	check "fork with -i: the child's write" has_seq "$W/child.txt" \
		"${C}CALL  write\(3,$PTR,0xb\)" \
		"${C}GIO   fd 3 wrote 11 bytes" \
		"       $(q '"from child\n"')" \
		"${C}RET   write 11/0xb"
	check "fork with -i: the child's exit" \
		grep -qE "^${C}CALL  exit_group\(0\)\$" <(tail -n 1 "$W/child.txt")
	check "kdump -p shows only that process" \
		bash -c "! grep -vE '^( *$child |	|       )' '$W/child.txt'"

	kdump_option_tests "$out" "$dump" "$pid"
	chrome_tests "$out" "$pid"
	trace_variants "$pid"
}

#
# kdump --format=chrome on the trace of the target: checked by Python's
# json module against the text of the same file.
#
chrome_tests() {
	local out=$1 pid=$2
	./kdump --format=chrome -f "$out" -o "$W/t.json" 2>"$W/chrome.err"
	check "kdump --format=chrome -o FILE: no error" [ $? -eq 0 -a ! -s "$W/chrome.err" ]
	if ! command -v python3 >/dev/null; then
		skip "kdump --format=chrome: the JSON" "python3 missing"
		return
	fi
	./kdump -T -H -f "$out" >"$W/TH.txt"
	python3 tests/host/lib/chrome-check.py "$W/t.json" "$W/TH.txt" "$pid"
	./kdump --format=chrome -f "$out" >"$W/stdout.json"
	check "kdump --format=chrome without -o: the same JSON on stdout" cmp -s "$W/t.json" "$W/stdout.json"
	./kdump --format=text -f "$out" >"$W/text.txt"
	check "kdump --format=text: the text, as without --format" cmp -s "$W/text.txt" <(./kdump -f "$out")
	./kdump --format=chrome -p "$pid" -t s -f "$out" >"$W/psig.json"
	check "kdump --format=chrome -t s -p PID: only the signal and thread names" python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
sys.exit(not ev or any(e["ph"] != "M" and e["name"] != "SIGUSR1" for e in ev))' "$W/psig.json"
	utf8_test
}

# A UTF-8 path is kept as written in the JSON; an invalid byte is escaped.
utf8_test() {
	local name=$'\xc3\xa9t\xc3\xa9' bad=$'x\xffy'
	: >"$W/$name.txt"
	./ktrace -f "$W/utf8.out" cat "$W/$name.txt" "$W/$bad" >/dev/null 2>&1
	./kdump --format=chrome -f "$W/utf8.out" >"$W/utf8.json" 2>"$W/utf8.err"
	check "kdump --format=chrome: a UTF-8 path as written, an invalid byte as \\u00ff" python3 -c '
import json, sys
text = open(sys.argv[1], "rb").read()
json.loads(text)
sys.exit(not (sys.argv[2].encode() + b".txt" in text and b"x\\u00ffy" in text))' \
		"$W/utf8.json" "$W/$name"
}

#
# kdump's options on the trace of the target.
#
kdump_option_tests() {
	local out=$1 dump=$2 pid=$3 P
	P=$(q "$(printf '%6d %-8s ' "$pid" ktrace_target)")

	./kdump -n -f "$out" >"$W/n.txt"
	check "kdump -n: raw arguments and no errno name" has_seq "$W/n.txt" \
		"${P}CALL  openat\(0xffffff9c,$PTR,0,(0|$PTR)\)" \
		"${P}NAMI  \"does-not-exist\"" \
		"${P}RET   openat -1 errno 2"
	./kdump -d -f "$out" >"$W/d.txt"
	check "kdump -d: decimal numbers" has_seq "$W/d.txt" \
		"${P}CALL  read\(3,$PTR,64\)" \
		"${P}GIO   fd 3 read 13 bytes" \
		"       $(q '"hello ktrace\n"')" \
		"${P}RET   read 13"
	./kdump -x -f "$out" >"$W/x.txt"
	check "kdump -x: data in hex" has_seq "$W/x.txt" \
		"${P}GIO   fd 3 wrote 13 bytes" \
		"       0000  68 65 6c 6c 6f 20 6b 74 72 61 63 65 0a"
	./kdump -X -f "$out" >"$W/X.txt"
	check "kdump -X: data in hex and ASCII" has_seq "$W/X.txt" \
		"${P}GIO   fd 3 wrote 13 bytes" \
		"       0000  68 65 6c 6c 6f 20 6b 74 72 61 63 65 0a           \|hello ktrace\.\|"
	./kdump -m 5 -f "$out" >"$W/m.txt"
	check "kdump -m 5: data cut at 5 bytes" has_seq "$W/m.txt" \
		"${P}GIO   fd 3 wrote 13 bytes" \
		"       \"hello\"" \
		"       $(q "[5 of 13 bytes shown]")"
	./kdump -H -f "$out" >"$W/H.txt"
	check "kdump -H: pid/tid" grep -qE "^ *$pid/$pid +ktrace_target CALL  " "$W/H.txt"
	./kdump -T -f "$out" >"$W/T.txt"
	check "kdump -T: absolute timestamps" \
		grep -qE "^ *$pid ktrace_target 1[0-9]{9}\.[0-9]{6} CALL  kill" "$W/T.txt"
	./kdump -R -f "$out" >"$W/R.txt"
	check "kdump -R: relative timestamps" \
		grep -qE "^ *$pid ktrace_target 0\.[0-9]{6} RET   kill 0" "$W/R.txt"
	./kdump -t n -f "$out" >"$W/tn.txt"
	check "kdump -t n: only NAMI" bash -c "[ -s '$W/tn.txt' ] && ! grep -v ' NAMI  ' '$W/tn.txt'"
	./kdump -t i -f "$out" >"$W/ti.txt"
	check "kdump -t i: only GIO and its data" \
		bash -c "grep -q ' GIO   ' '$W/ti.txt' && ! grep -vE ' GIO   |^       ' '$W/ti.txt'"
	./kdump -f - <"$out" >"$W/stdin.txt"
	check "kdump -f - reads stdin" cmp -s "$dump" "$W/stdin.txt"
	follow_test "$out" "$dump"
}

# kdump -l on a file that grows: it waits at a partial record.
follow_test() {
	local out=$1 dump=$2 half kp
	half=$(($(stat -c %s "$out") / 2 + 3))
	head -c "$half" "$out" >"$W/grow.ktr"
	./kdump -l -f "$W/grow.ktr" >"$W/follow.txt" 2>&1 &
	kp=$!
	sleep 0.4
	tail -c +"$((half + 1))" "$out" >>"$W/grow.ktr"
	sleep 0.6
	kill "$kp" 2>/dev/null
	wait "$kp" 2>/dev/null
	check "kdump -l follows a growing file" cmp -s "$dump" "$W/follow.txt"
}

# Runs of the target without -i, with -t, and appending with -a.
trace_variants() {
	local first=$1 pid child
	timeout 60 ./ktrace -f "$W/noi.out" "$TARGET" "$W/dir" >"$W/noi.stdout" 2>&1
	child=$(awk '/^child / { print $2 }' "$W/noi.stdout")
	check "without -i the child is not traced" \
		bash -c "[ -n '$child' ] && [ -z \"\$(./kdump -f '$W/noi.out' -p '$child')\" ]"

	timeout 60 ./ktrace -t n -f "$W/tn.out" "$TARGET" "$W/dir" >/dev/null 2>&1
	./kdump -f "$W/tn.out" >"$W/tn2.txt"
	check "ktrace -t n records only NAMI" \
		bash -c "grep -q 'NAMI  \"data.txt\"' '$W/tn2.txt' && ! grep -v ' NAMI  ' '$W/tn2.txt'"
	timeout 60 ./ktrace -t c -f "$W/tc.out" "$TARGET" "$W/dir" >/dev/null 2>&1
	./kdump -f "$W/tc.out" >"$W/tc.txt"
	check "ktrace -t c records only CALL and RET" \
		bash -c "grep -q ' CALL  ' '$W/tc.txt' && ! grep -vE ' (CALL|RET )  ' '$W/tc.txt'"
	timeout 60 ./ktrace -t X -f "$W/tX.out" env -i KTRACE_TEST=42 true >/dev/null 2>&1
	check "ktrace -t X records the environment" has_seq <(./kdump -f "$W/tX.out") \
		" *[0-9]+ true     ENV   " "$(printf '\t')$(q '[0] = "KTRACE_TEST=42"')"

	cp "$W/t.out" "$W/a.out"
	timeout 60 ./ktrace -a -f "$W/a.out" true >/dev/null 2>&1
	check "ktrace -a appends to an existing trace" bash -c \
		"[ \"\$(./kdump -f '$W/a.out' | grep -c ' ARGS  ')\" = 2 ] && ./kdump -f '$W/a.out' | head -n 40 | cmp -s - <(head -n 40 '$W/t.txt')"
	timeout 60 ./ktrace -f "$W/a.out" true >/dev/null 2>&1
	check "ktrace without -a truncates" \
		bash -c "[ \"\$(./kdump -f '$W/a.out' | grep -c ' ARGS  ')\" = 1 ]"
	cp tests/fuzz/corpus/crafted-each-type.ktr "$W/v1.out"
	./ktrace -a -f "$W/v1.out" true >/dev/null 2>"$W/err"
	one_error "ktrace -a refuses a version 1 file" $? "$W/err" \
		"cannot append to '$(q "$W/v1.out")': an older trace file version \(ktrace writes version 2: use a new file\)" 125
	format_v2_tests
}

# Version 2 files: a thread is named once, and again when its name changes;
# a read or write costs 80 bytes (CALL with its 3 arguments, RET).
format_v2_tests() {
	local f=$W/v2
	timeout 60 ./ktrace -t cn -f "$f.rename" bash -c \
		'read -r x </etc/hostname; printf kt-renamed >/proc/$$/comm; read -r x </etc/hostname' \
		>/dev/null 2>&1
	check "a thread renamed by /proc/PID/comm: its later records carry the new name" \
		has_seq <(./kdump -t n -f "$f.rename" | grep -E '"/etc/hostname"|/comm"') \
		" *[0-9]+ bash     NAMI  \"/etc/hostname\"" \
		" *[0-9]+ bash     NAMI  \"/proc/[0-9]+/comm\"" \
		" *[0-9]+ kt-renamed NAMI  \"/etc/hostname\""
	check "the file header says version 2" \
		[ "$(od -An -tu2 -j8 -N2 "$f.rename" | tr -d ' ')" = 2 ]
	timeout 60 ./ktrace -t c -f "$f.1000" dd if=/dev/zero of=/dev/null bs=1 count=1000 \
		>/dev/null 2>&1
	timeout 60 ./ktrace -t c -f "$f.3000" dd if=/dev/zero of=/dev/null bs=1 count=3000 \
		>/dev/null 2>&1
	check "ktrace -t c: 4000 more 1-byte reads and writes take 80 bytes each" \
		[ $(($(stat -c %s "$f.3000") - $(stat -c %s "$f.1000"))) = $((4000 * 80)) ]
}

# The state file of the recorder writing FILE, if one runs.
state_of() {
	local f=/run/ksnoop/ktrace-$(printf '%x' "$(stat -c %d "$1")")-$(stat -c %i "$1")
	[ -e "$f" ] && echo "$f"
}

# The process has exited (a zombie awaiting its reaper counts) and its
# state file is gone.
gone() { # pid state-file
	local i
	for i in $(seq 50); do
		if ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*zombie' "/proc/$1/status" 2>/dev/null; then
			[ ! -e "$2" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}

wait_gone() { # state-file: wait for a recorder to finish on its own
	local i
	for i in $(seq 50); do
		[ -e "$1" ] || return 0
		sleep 0.1
	done
	return 1
}

#
# Attaching to running processes: -p, -c, -c -p, -d, -g, -C.
#
attach_tests() {
	local lp st rpid lp2 sp pg others
	bash -c 'while :; do sleep 0.05; done' &
	lp=$!
	BG_PIDS+=("$lp")
	check "ktrace -p attaches to a running process" timeout 20 ./ktrace -f "$W/p.out" -p "$lp"
	st=$(state_of "$W/p.out")
	rpid=$(awk '/^pid/ { print $2 }' "$st" 2>/dev/null)
	check "the recorder runs in the background" kill -0 "${rpid:-0}"
	sleep 0.5
	check "ktrace -c stops the recorder of the file" timeout 20 ./ktrace -c -f "$W/p.out"
	check "the stopped recorder is gone" gone "${rpid:-0}" "$st"
	check "the attached process was traced" \
		grep -qE "^ *$lp bash +(CALL|RET )  (clone|wait4)" <(./kdump -f "$W/p.out")

	timeout 20 ./ktrace -f "$W/p2.out" -p "$lp"
	st=$(state_of "$W/p2.out")
	check "ktrace -c -p stops tracing the process" timeout 20 ./ktrace -c -p "$lp"
	check "a recorder with nothing left to trace ends" wait_gone "$st"

	bash -c 'sleep 30 & wait' &
	lp2=$!
	BG_PIDS+=("$lp2")
	sleep 0.2
	sp=$(pgrep -P "$lp2" sleep)
	check "ktrace -d also traces existing children" \
		timeout 20 ./ktrace -d -f "$W/desc.out" -p "$lp2"
	st=$(state_of "$W/desc.out")
	kill -TERM "$sp"
	wait "$lp2" 2>/dev/null
	wait_gone "$st"
	# A fatal signal reaches the task as the group exit it started.
	check "-d: the child's fatal signal is a PSIG SIG_DFL" grep -qE \
		"^ *$sp sleep +PSIG  SIGTERM SIG_DFL code=SI_(USER|KERNEL)( pid=$$ uid=0)?\$" \
		<(./kdump -f "$W/desc.out")

	setsid sleep 30 &
	pg=$!
	BG_PIDS+=("$pg")
	sleep 0.2
	check "ktrace -g traces a process group" timeout 20 ./ktrace -g "$pg" -f "$W/g.out"
	st=$(state_of "$W/g.out")
	kill -TERM "$pg"
	wait_gone "$st"
	check "-g: the group's process was traced" grep -qE "^ *$pg sleep +PSIG  SIGTERM SIG_DFL" \
		<(./kdump -f "$W/g.out")

	others=$(ls /run/ksnoop 2>/dev/null | grep -c '^ktrace-')
	if [ "$others" -ne 0 ]; then
		skip "ktrace -C stops every recorder" "other recorders are running"
	else
		timeout 20 ./ktrace -f "$W/c1.out" -p "$lp"
		bash -c 'while :; do sleep 0.05; done' &
		BG_PIDS+=("$!")
		timeout 20 ./ktrace -f "$W/c2.out" -p "$!"
		check "ktrace -C stops every recorder" bash -c \
			"timeout 30 ./ktrace -C && [ -z \"\$(ls /run/ksnoop | grep '^ktrace-')\" ]"
	fi
}

#
# Error paths: one "Error: ..." line and exit status 1; never a crash.
#
error_tests() {
	local rc e=$W/err corpus=tests/fuzz/corpus vg
	./kdump -q >/dev/null 2>"$e"
	one_error "kdump: unknown option" $? "$e" "unknown option '-q'; usage: kdump .*"
	./kdump -m lots >/dev/null 2>"$e"
	one_error "kdump: bad -m" $? "$e" "invalid -m maxdata 'lots': need 0 to 65536 bytes"
	./kdump -t z >/dev/null 2>"$e"
	one_error "kdump: bad -t" $? "$e" "unknown trace point 'z' in -t 'z': use c, i, n, s, x, X or \+"
	./kdump -f "$W/missing" >/dev/null 2>"$e"
	one_error "kdump: missing file" $? "$e" \
		"cannot open trace file '$W/missing': No such file or directory"
	./ktrace -t q true >/dev/null 2>"$e"
	one_error "ktrace: bad -t" $? "$e" "unknown trace point 'q' in -t 'q': .*"
	./ktrace >/dev/null 2>"$e"
	one_error "ktrace: nothing to trace" $? "$e" "no process or command to trace; usage: ktrace .*"
	./ktrace -p 2147483646 >/dev/null 2>"$e"
	one_error "ktrace: no such process" $? "$e" "no such process: 2147483646"
	./ktrace -p 1 true >/dev/null 2>"$e"
	one_error "ktrace: -p with a command" $? "$e" "a command cannot be combined with .*"

	head -c 600 "$corpus/crafted-each-type.ktr" >"$W/trunc.ktr"
	./kdump -f "$W/trunc.ktr" >"$W/trunc.txt" 2>"$e"
	one_error "kdump: truncated file names the record's offset" $? "$e" \
		"$(q "$W/trunc.ktr"): truncated record at byte offset 568: record header needs 40 bytes, the file ends after 32"
	check "kdump: records before the truncation are printed" \
		grep -qF '[1] = "PATH=/bin"' "$W/trunc.txt"
	head -c 100 /dev/urandom >"$W/garbage.ktr"
	./kdump -f "$W/garbage.ktr" >/dev/null 2>"$e"
	one_error "kdump: not a trace file" $? "$e" \
		"$(q "$W/garbage.ktr"): bad file header at byte offset 0: not a ksnoop trace file \(bad magic\)"
	cp "$corpus/crafted-each-type.ktr" "$W/badlen.ktr"
	printf '\377\377\377\177' | dd of="$W/badlen.ktr" bs=1 seek=124 conv=notrunc 2>/dev/null
	./kdump -f "$W/badlen.ktr" >/dev/null 2>"$e"
	one_error "kdump: absurd record length" $? "$e" \
		"$(q "$W/badlen.ktr"): bad record at byte offset 120: record longer than any record type"
	head -c 600 "$corpus/target-all-types-v2.ktr" >"$W/trunc2.ktr"
	./kdump -f "$W/trunc2.ktr" >/dev/null 2>"$e"
	one_error "kdump: truncated version 2 file" $? "$e" \
		"$(q "$W/trunc2.ktr"): truncated record at byte offset 585: record header needs 16 bytes, the file ends after 15"
	(head -c 24 "$corpus/target-all-types-v2.ktr" && tail -c +65 "$corpus/target-all-types-v2.ktr") \
		>"$W/nothread.ktr"
	./kdump -f "$W/nothread.ktr" >/dev/null 2>"$e"
	one_error "kdump: a record before its thread's THREAD record" $? "$e" \
		"$(q "$W/nothread.ktr"): bad record at byte offset 24: record of a thread no THREAD record introduced"
	: >"$W/empty.ktr"
	./kdump -f "$W/empty.ktr" >/dev/null 2>"$e"
	one_error "kdump: empty file" $? "$e" \
		".*: truncated record at byte offset 0: the file header needs 24 bytes, the file ends after 0"
	chrome_error_tests

	ln -s "$W/victim" "$W/link.out"
	./ktrace -f "$W/link.out" true >/dev/null 2>"$e"
	one_error "ktrace: refuses a symlink trace file" $? "$e" \
		"refusing trace file '$(q "$W/link.out")': it is a symbolic link" 125
	check "ktrace: the symlink's target is not created" [ ! -e "$W/victim" ]
	timeout 10 ./ktrace -f /dev/null true >/dev/null 2>"$e"
	one_error "ktrace: refuses a device" $? "$e" \
		"refusing trace file '/dev/null': not a regular file" 125
	mkfifo "$W/fifo.out"
	timeout 10 ./ktrace -f "$W/fifo.out" true >/dev/null 2>"$e"
	one_error "ktrace: refuses a FIFO without blocking" $? "$e" \
		"refusing trace file '$(q "$W/fifo.out")': not a regular file" 125
	echo "not a trace" >"$W/other.out"
	chown 65534 "$W/other.out"
	./ktrace -f "$W/other.out" true >/dev/null 2>"$e"
	one_error "ktrace: refuses another user's file" $? "$e" \
		"refusing trace file '$(q "$W/other.out")': owned by uid 65534, not $(id -u)" 125
	head -c 200 /dev/zero | tr '\0' x >"$W/text.out"
	./ktrace -a -f "$W/text.out" true >/dev/null 2>"$e"
	one_error "ktrace -a: refuses to append to a non-trace file" $? "$e" \
		"cannot append to '$(q "$W/text.out")': not a ksnoop trace file \(bad magic\)" 125
	./ktrace -c -f "$W/trunc.ktr" >/dev/null 2>"$e"
	one_error "ktrace -c: no recorder for the file" $? "$e" \
		"no recorder is writing '$(q "$W/trunc.ktr")'"

	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 && command -v su >/dev/null; then
		cp ksnoop "$W/ksnoop-copy"
		chmod 755 "$W" "$W/ksnoop-copy"
		(cd / && su nobody -s /bin/sh -c "'$W/ksnoop-copy' ktrace -f /tmp/x true") \
			>/dev/null 2>"$e"
		one_error "ktrace: needs root, says so before creating anything" $? "$e" \
			"ktrace needs root: it loads BPF programs and keeps its state in /run/ksnoop" 125
	else
		skip "ktrace: needs root, says so before creating anything" "needs root and su"
	fi

	if ! command -v valgrind >/dev/null; then
		skip "error paths under valgrind" "valgrind missing"
	else
		vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
		rc=0
		for f in trunc garbage badlen empty; do
			$vg ./ksnoop kdump -f "$W/$f.ktr" >/dev/null 2>&1
			[ $? -eq 1 ] || rc=1
		done
		$vg ./ksnoop kdump -X -T -f "$corpus/target-all-types.ktr" >/dev/null 2>&1 || rc=1
		$vg ./ksnoop kdump --format=chrome -f "$corpus/target-all-types.ktr" >/dev/null 2>&1 || rc=1
		$vg ./ksnoop kdump --format=chrome -f "$W/trunc.ktr" >/dev/null 2>&1
		[ $? -eq 1 ] || rc=1
		$vg ./ksnoop kdump -q >/dev/null 2>&1
		[ $? -eq 1 ] || rc=1
		$vg ./ksnoop ktrace -f "$W/link.out" true >/dev/null 2>&1
		[ $? -eq 125 ] || rc=1
		$vg ./ksnoop ktrace -t q true >/dev/null 2>&1
		[ $? -eq 1 ] || rc=1
		check "error paths are clean under valgrind" [ $rc -eq 0 ]
	fi
}

# kdump --format=chrome and -o on bad input: one error line, exit 1.
chrome_error_tests() {
	local e=$W/err
	./kdump --format=chrome -f "$W/trunc.ktr" -o "$W/trunc.json" 2>"$e"
	one_error "kdump --format=chrome: truncated file" $? "$e" \
		"$(q "$W/trunc.ktr"): truncated record at byte offset 568: record header needs 40 bytes, the file ends after 32"
	if command -v python3 >/dev/null; then
		check "kdump --format=chrome: the records before the truncation are valid JSON" \
			python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]' \
			"$W/trunc.json"
	fi
	./kdump --format=chrome -f "$W/badlen.ktr" >/dev/null 2>"$e"
	one_error "kdump --format=chrome: corrupt record" $? "$e" \
		"$(q "$W/badlen.ktr"): bad record at byte offset 120: record longer than any record type"
	./kdump --format=chrome -f "$W/garbage.ktr" >"$W/garbage.json" 2>"$e"
	one_error "kdump --format=chrome: not a trace file" $? "$e" \
		"$(q "$W/garbage.ktr"): bad file header at byte offset 0: not a ksnoop trace file \(bad magic\)"
	check "kdump --format=chrome: no JSON for a file that is not a trace" [ ! -s "$W/garbage.json" ]
	./kdump --format=xml -f "$W/trunc.ktr" >/dev/null 2>"$e"
	one_error "kdump: unknown --format" $? "$e" "unknown --format 'xml': use text or chrome"
	./kdump --format -f "$W/trunc.ktr" >/dev/null 2>"$e"
	one_error "kdump: --format without text or chrome" $? "$e" "unknown --format '-f': use text or chrome"
	./kdump -l --format=chrome -f "$W/trunc.ktr" >/dev/null 2>"$e"
	one_error "kdump: -l with --format=chrome" $? "$e" \
		"-l cannot be combined with --format=chrome: its JSON ends at the end of the file"
	cp "$W/trunc.ktr" "$W/self.ktr"
	./kdump -f "$W/self.ktr" -o "$W/self.ktr" 2>"$e"
	one_error "kdump -o: refuses to overwrite the trace it reads" $? "$e" \
		"refusing to write the output '$(q "$W/self.ktr")' over the trace file it reads"
	check "kdump -o: the trace file is left intact" cmp -s "$W/self.ktr" "$W/trunc.ktr"
	./kdump -f "$W/trunc.ktr" -o "$W/no-dir/x.json" 2>"$e"
	one_error "kdump -o: cannot create" $? "$e" \
		"cannot create output file '$(q "$W/no-dir/x.json")': No such file or directory"
	./kdump --format=chrome -f tests/fuzz/corpus/target-all-types.ktr >/dev/full 2>"$e"
	one_error "kdump --format=chrome >/dev/full: the write error" $? "$e" \
		"writing the output( failed|: No space left on device)"
	output_file_tests
}

# kdump -o follows ktrace's rules for the files it writes: a regular file
# of one link, no symbolic link followed, 0600 when new, never blocking.
output_file_tests() {
	local e=$W/err t=tests/fuzz/corpus/target-all-types.ktr rc
	rm -f "$W/new.txt"
	(umask 022 && ./kdump -f "$t" -o "$W/new.txt" 2>"$e")
	check "kdump -o: a new file is 0600 (umask 022)" [ "$(stat -c %a "$W/new.txt")" = 600 ]
	check "kdump -o: it holds the dump" cmp -s "$W/new.txt" <(./kdump -f "$t")
	printf 'old\n' >"$W/mine.txt"
	chmod 0644 "$W/mine.txt"
	./kdump -f "$t" -o "$W/mine.txt" 2>"$e"
	check "kdump -o: an existing file keeps its mode (0644), its content replaced" \
		[ "$(stat -c %a "$W/mine.txt")" = 644 -a "$(head -c 4 "$W/mine.txt")" != "old" ]
	printf 'secret\n' >"$W/target"
	chmod 0600 "$W/target"
	ln -sf "$W/target" "$W/link"
	./kdump -f "$t" -o "$W/link" 2>"$e"
	one_error "kdump -o: refuses a symbolic link" $? "$e" \
		"refusing output file '$(q "$W/link")': it is a symbolic link"
	ln -f "$W/target" "$W/hard"
	./kdump -f "$t" -o "$W/hard" 2>"$e"
	one_error "kdump -o: refuses a file with another hard link" $? "$e" \
		"refusing output file '$(q "$W/hard")': it has 2 hard links"
	check "kdump -o: the files behind them are untouched" \
		[ "$(cat "$W/target")" = secret -a "$(stat -c %a "$W/target")" = 600 ]
	rm -f "$W/hard"
	mkfifo "$W/fifo"
	timeout 10 ./kdump -f "$t" -o "$W/fifo" 2>"$e"
	rc=$?
	one_error "kdump -o: a FIFO without a reader is refused at once" $rc "$e" \
		"refusing output file '$(q "$W/fifo")': not a regular file"
	./kdump -f "$t" -o /dev/full 2>"$e"
	one_error "kdump -o: refuses a device" $? "$e" \
		"refusing output file '/dev/full': not a regular file"
}

# The pid of the recorder writing FILE, once it runs.
recorder_of() { # file
	local i st pid
	for i in $(seq 100); do
		st=$(state_of "$1" 2>/dev/null)
		pid=$(awk '/^pid / { print $2 }' "$st" 2>/dev/null)
		[ -n "$pid" ] && echo "$pid" && return 0
		sleep 0.05
	done
	return 1
}

#
# What the trace file may be: private, one name, on a file system for data.
#
trfile_tests() {
	local e=$W/err sp
	printf 'secret' >"$W/m644.out"
	chmod 644 "$W/m644.out"
	timeout 60 ./ktrace -f "$W/m644.out" true >/dev/null 2>"$e"
	check "an existing 0644 trace file is made 0600" [ "$(stat -c %a "$W/m644.out")" = 600 ]
	: >"$W/m666.out"
	chmod 666 "$W/m666.out"
	timeout 60 ./ktrace -t X -f "$W/m666.out" env -i KTRACE_SECRET=1 true >/dev/null 2>"$e"
	check "an existing 0666 file gets the environment only as 0600" \
		[ "$(stat -c %a "$W/m666.out")" = 600 ]

	printf 'original' >"$W/linked.txt"
	ln "$W/linked.txt" "$W/hard.out"
	timeout 60 ./ktrace -f "$W/hard.out" true >/dev/null 2>"$e"
	one_error "ktrace: refuses a file with another hard link" $? "$e" \
		"refusing trace file '$(q "$W/hard.out")': it has 2 hard links" 125
	check "the hard link's other name keeps its contents" [ "$(cat "$W/linked.txt")" = original ]

	sleep 30 &
	sp=$!
	BG_PIDS+=("$sp")
	timeout 60 ./ktrace -f "/proc/$sp/mem" true >/dev/null 2>"$e"
	one_error "ktrace: refuses /proc/PID/mem" $? "$e" \
		"refusing trace file '/proc/$sp/mem': it is on a proc file system, not one that stores files" 125
	timeout 60 ./ktrace -f "/proc/$sp/mem" -p "$sp" >/dev/null 2>"$e"
	one_error "ktrace -p: refuses /proc/PID/mem" $? "$e" \
		"refusing trace file '/proc/$sp/mem': it is on a proc file system, not one that stores files"
	check "the process whose memory was named lives on" kill -0 "$sp"
	kill "$sp"
}

#
# ktrace command: the command's exit status, and 125 for ktrace's own.
#
exit_status_tests() {
	local e=$W/err
	timeout 60 ./ktrace -f "$W/st.out" true >/dev/null 2>"$e"
	check "ktrace command: 0 when the command succeeds" [ $? -eq 0 ]
	timeout 60 ./ktrace -f "$W/st.out" sh -c 'exit 3' >/dev/null 2>"$e"
	check "ktrace command: the command's exit status" [ $? -eq 3 ]
	timeout 60 ./ktrace -f "$W/st.out" sh -c 'kill -USR1 $$' >/dev/null 2>"$e"
	check "ktrace command: 128+N for a command killed by signal N" [ $? -eq 138 ]
	timeout 60 ./ktrace -f "$W/st.out" "$W/no-such-command" >/dev/null 2>"$e"
	one_error "ktrace command: 127 when the command is not found" $? "$e" \
		"cannot run '$(q "$W/no-such-command")': No such file or directory" 127
	printf '#!/bin/sh\n' >"$W/not-executable"
	chmod 644 "$W/not-executable"
	timeout 60 ./ktrace -f "$W/st.out" "$W/not-executable" >/dev/null 2>"$e"
	one_error "ktrace command: 126 when it cannot be executed" $? "$e" \
		"cannot run '$(q "$W/not-executable")': Permission denied" 126
}

# The command runs (its child has become sleep) only once ktrace watches
# its recorder: a recorder killed before that "ended as it started".
command_running() { # timeout's pid
	local i k
	for i in $(seq 200); do
		k=$(pgrep -P "$1" | head -1)
		[ -n "$k" ] && pgrep -x -P "$k" sleep >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# ktrace command must not return 0 when its recorder died mid-trace.
recorder_death_test() { # signal
	local sig=$1 out=$W/die-$1.out e=$W/die-$1.err kp rpid st rc
	(ulimit -c 0 && exec timeout 60 ./ktrace -i -f "$out" sleep 1.5) >/dev/null 2>"$e" &
	kp=$!
	rpid=$(recorder_of "$out")
	st=$(state_of "$out")
	command_running "$kp"
	kill "-$sig" "${rpid:-0}"
	wait "$kp"
	rc=$?
	if [ "$sig" = TERM ]; then
		one_error "ktrace command: a recorder stopped by SIGTERM is an error" $rc "$e" \
			"the recorder of '$(q "$out")' was stopped by SIGTERM before the traced processes ended; the trace is incomplete" 125
	else
		one_error "ktrace command: a recorder killed by SIG$sig is an error" $rc "$e" \
			"the recorder of '$(q "$out")' \(pid $rpid\) died before writing every record; the trace is incomplete" 125
	fi
	check "the state file of the SIG$sig recorder is gone" [ -n "$st" -a ! -e "$st" ]
}

# A full file system: the file stays decodable and ktrace says so.
disk_full_test() {
	local mnt=$W/full e=$W/full.err rc krc n sum
	mkdir -p "$mnt"
	if ! mount -t tmpfs -o size=64k ktrace-test "$mnt" 2>/dev/null; then
		skip "disk full: the trace stays decodable" "cannot mount a tmpfs"
		return
	fi
	timeout 60 ./ktrace -t ci -f "$mnt/t.out" \
		dd if=/dev/zero of=/dev/null bs=4096 count=100 status=none >/dev/null 2>"$e"
	rc=$?
	./kdump -f "$mnt/t.out" >"$W/full.txt" 2>"$W/full.kdump"
	krc=$?
	umount "$mnt"
	check "disk full: kdump reads the file to its last record" [ $krc -eq 0 -a ! -s "$W/full.kdump" ]
	one_error "disk full: ktrace says records were lost, exit 125" $rc "$e" \
		"cannot write '$(q "$mnt/t.out")': No space left on device; [0-9]+ records were lost, marked DROP in the file" 125
	n=$(sed -n 's/.*; \([0-9]*\) records were lost.*/\1/p' "$e")
	sum=$(awk '/ DROP  [0-9]+ records? dropped$/ { s += $(NF - 2) } END { print s + 0 }' "$W/full.txt")
	check "disk full: the DROP records count every lost record (${n:-?} = $sum)" [ "${n:-x}" = "$sum" ]
	# Not always the last record: records that fit in the rest of the
	# file's last page are still written after it.
	check "disk full: the loss is marked by a DROP record" grep -qE ' DROP  [1-9][0-9]* records? dropped$' \
		"$W/full.txt"
}

# A recorder traced by a recorder would record its own writes forever.
self_trace_test() {
	local lp rpid e=$W/err
	bash -c 'while :; do sleep 0.05; done' &
	lp=$!
	BG_PIDS+=("$lp")
	timeout 20 ./ktrace -f "$W/self.out" -p "$lp"
	rpid=$(recorder_of "$W/self.out")
	timeout 20 ./ktrace -f "$W/self2.out" -p "${rpid:-0}" >/dev/null 2>"$e"
	one_error "ktrace -p: refuses to trace a recorder" $? "$e" \
		"refusing to trace process $rpid: it is the recorder of '$(q "$W/self.out")'"
	timeout 20 ./ktrace -f "$W/self.out" -p "${rpid:-0}" >/dev/null 2>"$e"
	one_error "ktrace -p: refuses to trace a recorder into its own file" $? "$e" \
		"refusing to trace process $rpid: it is the recorder of '$(q "$W/self.out")'"
	# The recorder is alone in its process group (its double fork's).
	timeout 20 ./ktrace -f "$W/self2.out" -g "$(ps -o pgid= -p "${rpid:-0}" | tr -d ' ')" \
		>/dev/null 2>"$e"
	one_error "ktrace -g: leaves a recorder out" $? "$e" \
		"no process to trace: those given are all ktrace recorders"
	timeout 20 ./ktrace -c -f "$W/self.out"
	kill "$lp"
}

fault_tests() {
	trfile_tests
	exit_status_tests
	recorder_death_test KILL
	recorder_death_test SEGV
	recorder_death_test TERM
	disk_full_test
	self_trace_test
}

# The -h synopsis and the manual page's agree.
usage_tests() {
	local prog syn
	if ! command -v man >/dev/null || ! command -v col >/dev/null; then
		skip "usage matches the manual pages" "man missing"
		return
	fi
	for prog in ktrace kdump; do
		syn=$(MANWIDTH=200 man -l "doc/$prog.1" 2>/dev/null | col -b |
			sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed 's/^ *//' | grep "^$prog ")
		check "$prog -h matches the SYNOPSIS of doc/$prog.1" \
			[ "$(./$prog -h | sed 's/^usage: //; s/^ *//')" = "$syn" ]
	done
}

#
# The decoder under ASan/UBSan: replay the bad files, then fuzz briefly.
#
fuzz_tests() {
	local fz=build/fuzz/kdump_fuzz

	. tests/host/lib/fuzz.sh
	fuzz_available "$W" "decoder under ASan on corrupt files" \
		"short fuzz run of the decoder" || return
	if ! quietly "$W/fuzz-build.log" make -s fuzz-kdump; then
		not_ok "build the decoder's fuzz target (make fuzz-kdump)"
		return
	fi
	check "decoder under ASan on corrupt files" quietly "$W/replay.log" \
		"$fz" "$W/trunc.ktr" "$W/trunc2.ktr" "$W/nothread.ktr" "$W/garbage.ktr" \
		"$W/badlen.ktr" "$W/empty.ktr" \
		tests/fuzz/corpus/*
	mkdir -p "$W/fuzz"
	check "short fuzz run of the decoder" quietly "$W/fuzz.log" \
		timeout 120 "$fz" -max_total_time="${KTRACE_FUZZ_SECONDS:-10}" -max_len=65536 \
		-timeout=10 -artifact_prefix="$W/" "$W/fuzz" tests/fuzz/corpus
}

# Run a command with its output in LOG, shown only when it fails.
quietly() { # log command...
	local log=$1
	shift
	"$@" >"$log" 2>&1 && return 0
	tail -n 20 "$log" | sed 's/^/# /'
	return 1
}

if [ $can_trace = 1 ]; then
	trace_tests
	attach_tests
	fault_tests
else
	skip "ktrace on the test target" "$why_not"
fi
error_tests
usage_tests
fuzz_tests
exit 0
