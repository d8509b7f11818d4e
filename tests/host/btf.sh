#!/bin/bash
# Damaged BTF (TAP): copies of this machine's vmlinux BTF, each broken in
# one way (tests/host/lib/btf-damage.py) or with one random bit flipped,
# through `ksnoop --btf FILE info` and `kprobe-events` under ASan/UBSan,
# a timeout and an RSS cap. A targeted damage must give exactly one line,
# "Error: FILE: type [N] ...", and exit 1; a random flip may also be
# harmless (exit 0), but never crash, hang, grow or print a second error.
#   KSNOOP_BTF_FLIPS=N   random flips to try (default 12)
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

if [ ! -r $VMLINUX ]; then
	skip "damaged vmlinux BTF" "no $VMLINUX"
	exit 0
fi
if ! make -s -j2 ASAN=1 OUT=$OUT BIN=$OUT/ksnoop $OUT/ksnoop >"$tmp/build" 2>&1; then
	skip "damaged vmlinux BTF" "no sanitizer build: $(tail -1 "$tmp/build")"
	exit 0
fi
cp $VMLINUX "$tmp/vmlinux"

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

# The undamaged copy still works: the tests below judge the damage alone.
test_ok() { [ $st -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || echo "exit $st"; }
both "undamaged copy" "$tmp/vmlinux" test_ok

targeted() { # damage arg ere
	local f="$tmp/$1.btf"
	if ! python3 tests/host/lib/btf-damage.py "$tmp/vmlinux" "$f" "$1" "$2" 2>"$tmp/py"; then
		notok "$1 $2: cannot make the file" "$(cat "$tmp/py")"
		return
	fi
	both "$1 $2" "$f" one_error "$(printf '%s' "$f" | sed 's/[.]/[.]/g'): type \[[0-9]+\] $3"
}

PAST="refers to type [0-9]+, past the last type [0-9]+"
LOOP="is in a loop of typedefs, modifiers, pointers, arrays or function prototypes"
targeted func-name $FUNC "FUNC has name offset [0-9]+, outside the string section"
targeted param-type $FUNC "FUNC_PROTO parameter 'net' $PAST"
targeted return-type $FUNC "FUNC_PROTO return type $PAST"
targeted member-type sk_buff "UNION member 0 $PAST|STRUCT 'sk_buff' member 0 $PAST"
targeted bit-offset list_head "STRUCT 'list_head' member 'prev' at bit 4294967288 ends at bit"
targeted ptr-loop $FUNC "PTR $LOOP"
targeted const-loop $FUNC "CONST $LOOP"
targeted anon-self sk_buff "STRUCT 'sk_buff' contains itself"

# Random flips: harmless (exit 0, output) or one error, never worse.
flip_ok() {
	[ $st -eq 0 ] && [ -s "$tmp/out" ] && return
	one_error ".*"
}
for seed in $(seq 1 "${KSNOOP_BTF_FLIPS:-12}"); do
	python3 tests/host/lib/btf-damage.py "$tmp/vmlinux" "$tmp/flip.btf" flip "$seed"
	both "random bit flip, seed $seed" "$tmp/flip.btf" flip_ok
done
exit 0
