#!/bin/bash
# Damaged BTF (TAP): copies of this machine's vmlinux BTF, each broken in
# one way (tests/host/lib/btf-damage.py) or with one random bit flipped,
# through `ksnoop --btf FILE info` and `kprobe-events` under ASan/UBSan,
# a timeout and an RSS cap. A targeted damage must give exactly one line,
# "Error: FILE: type [N] ...", and exit 1; a random flip may also be
# harmless (exit 0), but never crash, hang, grow or print a second error.
# Then the libFuzzer target over BTF (tests/fuzz/btf_fuzz.c, `make
# fuzz-btf`, ASan and UBSan) replays tests/fuzz/btf-corpus and fuzzes
# briefly from it; an input that fails is kept as build/fuzz/btf-crash-*
# (or -timeout-, -oom-). kdump's reader is fuzzed by tests/host/ktrace.sh.
#   KSNOOP_BTF_FLIPS=N     random flips to try (default 12)
#   KSNOOP_FUZZ_SECONDS=N  length of the fuzz run (default 15)
set -uo pipefail
cd "$(dirname "$0")/../.."

OUT=build/asan
VMLINUX=/sys/kernel/btf/vmlinux
FUNC=ip_send_skb
tmp=$(mktemp -d /tmp/ksnoop-btf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - btf: $*"; }
notok() { echo "not ok - btf: $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { echo "ok - btf: $1 # SKIP $2"; }

# The loops this guards against grew libbpf's stack by gigabytes.
export ASAN_OPTIONS=exitcode=99:detect_leaks=1:abort_on_error=0:hard_rss_limit_mb=1024
export LSAN_OPTIONS=exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1

# Why the damaged copies cannot be tried, or nothing.
cannot_damage() {
	if [ ! -r $VMLINUX ]; then
		echo "no $VMLINUX"
	elif ! make -s -j2 ASAN=1 OUT=$OUT BIN=$OUT/ksnoop $OUT/ksnoop >"$tmp/build" 2>&1; then
		echo "no sanitizer build: $(tail -1 "$tmp/build")"
	fi
}

# run FILE ARGS...: ksnoop --btf FILE ARGS...; sets st, $tmp/out, $tmp/err
run() {
	local file=$1
	shift
	timeout -k 5 60 $OUT/ksnoop --btf "$file" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
}

# What is wrong with the last run whatever the BTF, or nothing.
crashed() {
	case $st in
	99) echo "sanitizer error (exit 99)" ;;
	124 | 137) echo "hang (timeout)" ;;
	*) [ $st -gt 128 ] && echo "killed by signal $((st - 128))" ;;
	esac
	grep -qE 'Sanitizer|runtime error|rss limit' "$tmp/err" && echo "sanitizer report"
}

# Exactly one "Error:" line matching ERE, exit 1, nothing on stdout.
one_error() { # ere
	[ $st -eq 1 ] || { echo "exit $st, not 1"; return; }
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "$(wc -l <"$tmp/err") lines on stderr"; return; }
	grep -qE "^Error: $1" "$tmp/err" || echo "not the error wanted"
	[ -s "$tmp/out" ] && echo "output on stdout"
}

# Both commands on FILE; check (a function of $st and the files) judges.
both() { # name file check [args]
	local name=$1 file=$2 check=$3 why cmd
	shift 3
	for cmd in info kprobe-events; do
		local spec=$FUNC
		[ $cmd = kprobe-events ] && spec="$FUNC(skb->len)"
		run "$file" $cmd "$spec"
		why=$(crashed)
		[ -z "$why" ] && why=$("$check" "$@")
		if [ -z "$why" ]; then
			ok "$name: $cmd -> $(head -c 160 "$tmp/err" | head -1)"
		else
			notok "$name: $cmd: $why" "$(head -c 600 "$tmp/err" | head -6)"
		fi
	done
}

test_ok() { [ $st -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || echo "exit $st"; }

targeted() { # damage arg ere
	local f="$tmp/$1.btf"
	if ! python3 tests/host/lib/btf-damage.py "$tmp/vmlinux" "$f" "$1" "$2" 2>"$tmp/py"; then
		notok "$1 $2: cannot make the file" "$(cat "$tmp/py")"
		return
	fi
	both "$1 $2" "$f" one_error "$(printf '%s' "$f" | sed 's/[.]/[.]/g'): type \[[0-9]+\] $3"
}

# Random flips: harmless (exit 0, output) or one error, never worse.
flip_ok() {
	[ $st -eq 0 ] && [ -s "$tmp/out" ] && return
	one_error ".*"
}

damage_tests() {
	local why seed
	local past="refers to type [0-9]+, past the last type [0-9]+"
	local loop="is in a loop of typedefs, modifiers, pointers, arrays or function prototypes"

	why=$(cannot_damage)
	if [ -n "$why" ]; then
		skip "damaged vmlinux BTF" "$why"
		return
	fi
	cp $VMLINUX "$tmp/vmlinux"
	# The undamaged copy works: the tests below judge the damage alone.
	both "undamaged copy" "$tmp/vmlinux" test_ok
	targeted func-name $FUNC "FUNC has name offset [0-9]+, outside the string section"
	targeted param-type $FUNC "FUNC_PROTO parameter 'net' $past"
	targeted return-type $FUNC "FUNC_PROTO return type $past"
	targeted member-type sk_buff "UNION member 0 $past|STRUCT 'sk_buff' member 0 $past"
	targeted bit-offset list_head "STRUCT 'list_head' member 'prev' at bit 4294967288 ends at"
	targeted ptr-loop $FUNC "PTR $loop"
	targeted const-loop $FUNC "CONST $loop"
	targeted anon-self sk_buff "STRUCT 'sk_buff' contains itself"
	targeted empty-elems - "ARRAY would print more than 65536 members and elements"
	for seed in $(seq 1 "${KSNOOP_BTF_FLIPS:-12}"); do
		python3 tests/host/lib/btf-damage.py "$tmp/vmlinux" "$tmp/flip.btf" flip "$seed"
		both "random bit flip, seed $seed" "$tmp/flip.btf" flip_ok
	done
}

fuzz_tests() {
	. tests/host/lib/fuzz.sh
	fuzz_target "$tmp" "BTF reader" fuzz-btf build/fuzz/btf_fuzz tests/fuzz/btf-corpus 4096 \
		build/fuzz/btf-
}

# --btf FILE for tracing: a file that is not this kernel's is refused in one
# line before anything attaches; this kernel's own, copied to a file, is
# taken (fentry then declines: its attach ids must be the kernel's own).
file_kernel_tests() {
	local small=tests/fuzz/btf-corpus/small-kernel.btf cmd st
	local ere="^Error: '$small' does not describe the running kernel: /proc/kallsyms has [0-9]+ of its [0-9]+ functions \\([0-9]+%, 95% wanted\\)\$"

	for cmd in trace count hist graph probe; do
		if [ $cmd = probe ]; then
			./ksnoop --btf $small probe "p:btfcheck $FUNC" >"$tmp/out" 2>"$tmp/err"
		else
			./ksnoop $cmd --btf $small $FUNC >"$tmp/out" 2>"$tmp/err"
		fi
		st=$?
		if [ $st -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qE "$ere" "$tmp/err"; then
			ok "$cmd --btf of another kernel is refused in one line"
		else
			notok "$cmd --btf of another kernel is refused in one line" "exit $st" \
				"$(head -c 600 "$tmp/err")"
		fi
	done
	if [ ! -r $VMLINUX ] || [ ! -r /proc/kallsyms ] || [ "$(id -u)" != 0 ]; then
		skip "trace --btf of this kernel's own BTF is taken" "root, $VMLINUX and /proc/kallsyms"
		return
	fi
	cp $VMLINUX "$tmp/own.btf"
	./ksnoop trace --btf "$tmp/own.btf" $FUNC >"$tmp/out" 2>"$tmp/err" </dev/null &
	local pid=$!
	sleep 3
	kill -INT $pid 2>/dev/null
	wait $pid
	# Taken: the trace starts, or, without kprobes here, only fentry's refusal is about the file.
	if grep -q "does not describe" "$tmp/err" ||
		{ ! grep -q "fentry attaches by the type ids" "$tmp/err" &&
			! grep -q "FUNCTION/ARGS" "$tmp/out"; }; then
		notok "trace --btf of this kernel's own BTF is taken" "$(head -c 600 "$tmp/err")"
	else
		ok "trace --btf of this kernel's own BTF is taken"
	fi
}

damage_tests
file_kernel_tests
fuzz_tests
exit 0
