#!/bin/bash
# ksnoop probe and ksnoop kprobe-events on the host, as TAP: every
# malformed definition or filter must exit 1 with one "Error: ..." line
# (then the kernel-style "Command:"/"Filter:" line and caret), nothing on
# stdout, and no sanitizer report; generated lines must have their shape.
# Nothing here needs kprobes: definitions fail before anything attaches.
# Uses the sanitizer build of tests/host/errors.sh when it exists.
set -uo pipefail
cd "$(dirname "$0")/../.."

KS=./ksnoop
[ -x build/asan/ksnoop ] && KS=build/asan/ksnoop
export ASAN_OPTIONS=exitcode=99:detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS=exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1
tmp=$(mktemp -d /tmp/ksnoop-kpe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - kpe: $*"; }
notok() {
	echo "not ok - kpe: $1"
	shift
	sed 's/^/#   /' "$@" 2>/dev/null | head -12
}

run() {
	timeout -k 5 30 "$KS" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
}

# bad LABEL MESSAGE_ERE ARGS...: exit 1, an Error line matching, caret lines
bad() {
	local label=$1 want=$2 lines
	shift 2
	run "$@"
	lines=$(wc -l <"$tmp/err")
	if [ $st = 1 ] && [ ! -s "$tmp/out" ] && head -1 "$tmp/err" | grep -qE "^Error: .*$want" &&
		[ "$lines" -le 3 ] && ! grep -qE 'Sanitizer|runtime error' "$tmp/err" &&
		{ [ "$lines" = 1 ] || sed -n 3p "$tmp/err" | grep -qE '^ +\^$'; }; then
		ok "$label"
	else
		echo "# exit $st, $lines stderr lines" >>"$tmp/err"
		notok "$label" "$tmp/err" "$tmp/out"
	fi
}

bad "arm64 register on x86-64" "%x0 is an arm64 register" \
	probe 'p:myprobe follow_page_mask vma=%x0 address=%x1'
bad "unclosed dereference, with its offset" "Dereference brace is not closed \(at offset 22\)" \
	probe 'p:a ip_send_skb +0(%si'
bad "unknown type" "Unknown type is specified" probe 'p:a ip_send_skb x=%si:u7'
bad "\$retval on an entry probe" "\\\$retval is not available on probe" \
	probe 'p:a ip_send_skb x=$retval'
bad "a second bad definition after a good one" "Invalid \\\$-variable specified" \
	probe 'p:a ip_send_skb x=%di' 'p:b ip_send_skb y=$nope'
bad "a bad filter" "invalid filter 'x ~ 1' for kprobes/a: Illegal operation for field type" \
	probe 'p:a ip_send_skb x=%di' --filter 'x ~ 1'
bad "a filter before every definition must fit each" "Field not found" \
	probe --filter 'x > 1' 'p:a ip_send_skb x=%di' 'p:b ip_send_skb y=%di'
bad "a tracepoint probe names a tracepoint, a C name" "Invalid character in tracepoint name \(at offset 9\)" \
	probe 't:a sched/sched_switch'
bad "a tracepoint probe at no tracepoint" "no tracepoint no_such_tp_ksnoop in this kernel" \
	probe 't:a no_such_tp_ksnoop'
bad "a tracepoint probe's \$stack" "\\\$stack is not available in a tracepoint probe" \
	probe 't:a sched_switch $stack0'
bad "an event probe needs SYSTEM.EVENT" "This requires both group and event name to attach \(at offset 4\)" \
	probe 'e:a sched_switch'
bad "an event probe at no event" "Attached event does not exist" probe 'e:a sched.no_such_event_ksnoop'
bad "an event probe's unknown field, where it starts" "Invalid \\\$-variable specified \(at offset 25\)" \
	probe 'e:a sched.sched_switch x=$nope'
bad "no definition" "probe needs at least one" probe
bad "unknown option" "unknown option '--nope' for probe" probe --nope 'p:a f'
bad "ambiguous option" "ambiguous option '--p' for probe" probe --p 1 'p:a f'
bad "missing option argument" "option '--filter' for probe needs an argument" probe 'p:a f' --filter
for d in 0 128 x 3x -1 99999999999999999999; do
	bad "--kstack-depth $d" "invalid --kstack-depth '$d': need a number from 1 to 127$" \
		probe --kstack-depth "$d" 'p:a ip_send_skb'
done
bad "--kstack-depth without N" "option '--kstack-depth' for probe needs an argument" \
	probe 'p:a ip_send_skb' --kstack-depth
bad "--kstack takes no argument" "option '--kstack' for probe takes no argument" \
	probe --kstack=3 'p:a ip_send_skb'
bad "65 definitions" "at most 64 definitions" probe $(for i in $(seq 65); do echo "p:e$i:x"; done)

long=$(printf 'p:a ip_send_skb'; for i in $(seq 200); do printf ' a%d=%%di' "$i"; done)
bad "200 arguments" "Too many arguments are specified" probe "$long"
long=$(head -c 6000 /dev/zero | tr '\0' 'x')
bad "a 6000-character definition" "definition longer than 4096" probe "p:a $long"
bad "nested past the argument length" "Argument expression is too long" \
	probe "p:a f x=$(printf '+0(%.0s' $(seq 30))%di$(printf ')%.0s' $(seq 30))"
bad "control bytes" "unknown probe type" probe $'\x01\x02 \x7f'
bad "a 6000-character filter" "Operand too long" probe 'p:a ip_send_skb x=%di' --filter "x == $long"

# A MEMADDR must lie in kernel or module text; needs kallsyms addresses.
addr_of() { awk -v re="$1" '$2 ~ re && $3 !~ /^__pfx_/ { print "0x" $1; exit }' /proc/kallsyms; }
text=$(addr_of '^[tT]$')
if [ -n "$text" ] && [ "$text" != 0x0000000000000000 ]; then
	for a in 0xffffffffffffffff "$(addr_of '^[dDrRbB]$')" \
		"0x$(awk '$3 == "_etext" { print $1; exit }' /proc/kallsyms)"; do
		bad "address $a outside text" "Invalid probed address or symbol: $a is not in kernel or module text" \
			probe "p:a $a"
	done
	# in text it passes the check, and fails only where kprobes are missing
	if [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
		run probe "p:a $text"
		if [ $st = 1 ] && grep -q '^Error: cannot attach kprobes/a at ' "$tmp/err"; then
			ok "address $text in text is taken"
		else
			notok "address $text in text is taken" "$tmp/err"
		fi
	fi
else
	echo "ok - kpe: addresses outside text # SKIP no kallsyms addresses"
fi

# t: and e: attach raw tracepoint and tracepoint programs, which this host
# has even where it has no kprobes: the values of a child's exec.
tp_run() {
	local label=$1 want=$2
	shift 2
	: >"$tmp/out"
	timeout -k 5 30 "$KS" probe "$@" --filter 'comm == "true"' >"$tmp/out" 2>"$tmp/err" &
	local pid=$! i
	for ((i = 0; i < 300; i++)); do
		grep -q '^#' "$tmp/out" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	/bin/true
	sleep 1
	kill -INT $pid 2>/dev/null
	wait $pid
	st=$?
	if [ $st = 0 ] && grep -qE "$want" "$tmp/out" && ! grep -qE 'Sanitizer|runtime error' "$tmp/err"; then
		ok "$label"
	else
		echo "# exit $st" >>"$tmp/err"
		notok "$label" "$tmp/out" "$tmp/err"
	fi
}
if [ -r /sys/kernel/btf/vmlinux ] && [ "$(id -u)" = 0 ] && grep -q sched_process_exec /proc/kallsyms; then
	tp_run "a tracepoint probe: an exec's arguments by BTF name" \
		'^ +true-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: sched_process_exec: \([a-z_]*sched_process_exec[+/0-9a-fx]*\) pid=[0-9]+ old_pid=[0-9]+ fn="/bin/true" c="true"$' \
		't sched_process_exec pid=p->pid old_pid fn=bprm->filename:string c=$comm'
	tp_run "an event probe: an exec's fields, a string and \$comm's address" \
		'^ +true-[0-9]+ .*: ex: \(sched\.sched_process_exec\) fn="/bin/true" old=0x[0-9a-f]+ c=0x[0-9a-f]+ cs="true"$' \
		'e:ep/ex sched.sched_process_exec fn=$filename:string old=$old_pid c=$comm cs=$comm:string'
else
	echo "ok - kpe: t: and e: on this host # SKIP needs root and the kernel's BTF"
fi

# --check: a verdict line per definition, each checked alone, after what
# refused it; exit 1 when any was refused. Syntax is checked first; BTF
# typing needs the kernel's BTF.
check_ok() {
	local label=$1 want_st=$2 want=$3
	shift 3
	timeout -k 5 30 "$KS" probe --check "$@" >"$tmp/out" 2>&1 </dev/null
	st=$?
	if [ $st = "$want_st" ] && diff -u <(printf '%s\n' "$want") "$tmp/out" >"$tmp/diff" &&
		! grep -qE 'Sanitizer|runtime error' "$tmp/out"; then
		ok "$label"
	else
		echo "# exit $st" >>"$tmp/diff"
		notok "$label" "$tmp/diff"
	fi
}
check_ok "--check: each definition's verdict after its refusal, in order" 1 \
"Error: invalid definition 'p:a ip_send_skb x=\$nope': Invalid \$-variable specified (at offset 18)
  Command: p:a ip_send_skb x=\$nope
                             ^
refused: p:a ip_send_skb x=\$nope
accepted: p:a ip_send_skb x=%di
Error: invalid definition 'f100 vfs_read': Invalid maxactive number (at offset 1)
  Command: f100 vfs_read
            ^
refused: f100 vfs_read" \
	'p:a ip_send_skb x=$nope' 'p:a ip_send_skb x=%di' 'f100 vfs_read'
# The same event twice is refused in one run, not in a check of each.
check_ok "--check: all accepted, exit 0; the same event twice is no conflict alone" 0 \
"accepted: p:a ip_send_skb x=%di
accepted: p:a ip_send_skb x=%si:u8" \
	'p:a ip_send_skb x=%di' 'p:a ip_send_skb x=%si:u8'
check_ok "--check: a filter after a definition is its alone" 1 \
"accepted: p:a ip_send_skb x=%di
Error: invalid filter 'y > 1' for kprobes/b: Field not found (at offset 0)
  Filter: y > 1
          ^
refused: p:b ip_send_skb x=%di" \
	'p:a ip_send_skb x=%di' 'p:b ip_send_skb x=%di' --filter 'y > 1'
# Each is checked alone: the 64 a run loads at once do not bound a check.
defs=()
for i in $(seq 100); do
	defs+=("p:e$i ip_send_skb")
done
run probe --check "${defs[@]}"
if [ $st = 0 ] && [ "$(grep -c '^accepted: p:e[0-9]* ip_send_skb$' "$tmp/out")" = 100 ]; then
	ok "--check: 100 definitions, 100 verdicts"
else
	notok "--check: 100 definitions, 100 verdicts" "$tmp/err"
fi
if [ -r /sys/kernel/btf/vmlinux ]; then
	check_ok "--check: a string of a stack slot, typed by BTF" 1 \
"Error: invalid definition 'p vfs_read \$stack0:string': String accepts only memory argument (at offset 19)
  Command: p vfs_read \$stack0:string
                              ^
refused: p vfs_read \$stack0:string
accepted: p vfs_read count" \
		'p vfs_read $stack0:string' 'p vfs_read count'
	# 7.3's typecasts and $current, from the kernel's BTF (under ASan)
	check_ok "--check: typecasts and \$current against the kernel's BTF" 1 \
"accepted: f vfs_read x=(dentry)(file->f_path.dentry)->d_name.name:string y=(file,f_pos)\$arg1->f_flags
accepted: p vfs_read p=\$current->pid c=(file)\$current->f_flags
Error: invalid definition 'f vfs_read x=(file,f_path->dentry)file->f_flags': Typecast field option does not support -> operator (at offset 25)
  Command: f vfs_read x=(file,f_path->dentry)file->f_flags
                                    ^
refused: f vfs_read x=(file,f_path->dentry)file->f_flags
Error: invalid definition 'f vfs_read x=(file)file->f_path->dentry': This is not a pointer to union/structure. (at offset 33)
  Command: f vfs_read x=(file)file->f_path->dentry
                                            ^
refused: f vfs_read x=(file)file->f_path->dentry" \
		'f vfs_read x=(dentry)(file->f_path.dentry)->d_name.name:string y=(file,f_pos)$arg1->f_flags' \
		'p vfs_read p=$current->pid c=(file)$current->f_flags' \
		'f vfs_read x=(file,f_path->dentry)file->f_flags' 'f vfs_read x=(file)file->f_path->dentry'
	run -j probe --check 'p vfs_read count' 'p vfs_read nope'
	if [ $st = 1 ] && [ "$(sed -n 1p "$tmp/out")" = '{"definition":"p vfs_read count","verdict":"accepted"}' ] &&
		[ "$(sed -n 2p "$tmp/out")" = '{"definition":"p vfs_read nope","verdict":"refused"}' ] &&
		grep -q '^{"error": "invalid definition .p vfs_read nope.: ' "$tmp/err"; then
		ok "--check -j: a verdict object per definition, refusals as error objects"
	else
		notok "--check -j: a verdict object per definition, refusals as error objects" "$tmp/out" "$tmp/err"
	fi
else
	echo "ok - kpe: --check with BTF # SKIP no kernel BTF"
fi

# kprobe-events
bad "kprobe-events: a missing member" "no member 'nope'" kprobe-events 'ip_send_skb(skb->nope)'
bad "kprobe-events: a malformed spec" "invalid function spec" kprobe-events 'ip_send_skb('
bad "kprobe-events: no spec" "needs at least one function spec" kprobe-events
bad "kprobe-events: a bad group" "invalid --group 'a-b': a letter or '_'" kprobe-events -g a-b f
bad "kprobe-events: unknown option" "unknown option '--nope' for kprobe-events" kprobe-events --nope f

if [ -r /sys/kernel/btf/vmlinux ]; then
	run kprobe-events 'ip_send_skb(skb->len, return)'
	if [ $st = 0 ] && [ ! -s "$tmp/err" ] &&
		sed -n 1p "$tmp/out" | grep -qE '^p:ksnoop/ip_send_skb ip_send_skb skb_len=\+[0-9]+\(%si\):u32$' &&
		sed -n 2p "$tmp/out" | grep -qxF 'r:ksnoop/ip_send_skb_ret ip_send_skb ret=$retval:s32' &&
		[ "$(wc -l <"$tmp/out")" = 2 ]; then
		ok "kprobe-events: the issue's example on this kernel's BTF"
	else
		notok "kprobe-events: the issue's example on this kernel's BTF" "$tmp/out" "$tmp/err"
	fi
	run kprobe-events --fprobe -g mine 'ip_send_skb(skb->len > 100)'
	if [ $st = 0 ] && grep -qE '^f:mine/ip_send_skb ip_send_skb skb_len=\+[0-9]+\(\$arg2\):u32$' "$tmp/out" &&
		grep -qxF "# echo 'skb_len > 100' > events/mine/ip_send_skb/filter" "$tmp/out"; then
		ok "kprobe-events: fprobe lines, a group and a filter comment"
	else
		notok "kprobe-events: fprobe lines, a group and a filter comment" "$tmp/out" "$tmp/err"
	fi
	# -j: the same definitions and filters, one object per event
	specs=('ip_send_skb(skb->len, return)' 'tcp_sendmsg(size > 100)')
	run kprobe-events "${specs[@]}"
	cp "$tmp/out" "$tmp/text"
	run -j kprobe-events "${specs[@]}"
	if [ $st = 0 ] && [ ! -s "$tmp/err" ] && python3 - "$tmp/out" "$tmp/text" "${specs[@]}" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
text = open(sys.argv[2]).read().splitlines()
want = []
for o in objs:
    assert set(o) == {'spec', 'event', 'definition', 'file', 'filter'}, o
    assert o['file'] == 'kprobe_events' and o['definition'].split()[0][2:] == o['event'], o
    want.append(o['definition'])
    if o['filter']:
        want.append("# echo '%s' > events/%s/filter" % (o['filter'], o['event']))
assert want == text, (want, text)
assert [o['spec'] for o in objs] == [sys.argv[3]] * 2 + [sys.argv[4]], objs
PY
	then
		ok "kprobe-events -j: each event's definition, file and filter as the text lines give them"
	else
		notok "kprobe-events -j: each event's definition, file and filter as the text lines give them" "$tmp/out" "$tmp/err"
	fi
else
	echo "ok - kpe: kprobe-events on this kernel's BTF # SKIP no /sys/kernel/btf/vmlinux"
fi

# The definition parser under libFuzzer, ASan and UBSan, with both kernels'
# limits (tests/fuzz/kpe_parse_fuzz.c, `make fuzz-kpe-parse`): it replays
# tests/fuzz/kpe-corpus (kpe-verdicts.txt's definitions and more), then
# fuzzes briefly from it; an input that fails is kept as
# build/fuzz/kpe-parse-crash-* (or -timeout-, -oom-).
#   KSNOOP_FUZZ_SECONDS=N  length of the fuzz run (default 15)
skip() { echo "ok - kpe: $1 # SKIP $2"; }
. tests/host/lib/fuzz.sh
notok() { echo "not ok - kpe: $1"; shift; for l in "$@"; do echo "#   $l"; done; }
# Past KPE_DEF_MAX_LEN, so the length limit is crossed too.
fuzz_target "$tmp" "definition parser" fuzz-kpe-parse build/fuzz/kpe_parse_fuzz \
	tests/fuzz/kpe-corpus 5000 build/fuzz/kpe-parse-
