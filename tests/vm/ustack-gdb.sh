#!/bin/bash
# `ksnoop trace --call-graph MODE`'s user stack beside gdb's backtrace at
# the same place, in two runs of the same program:
#   ucall: at workload_ucall's entry (a uprobe; gdb's breakpoint)
#   nap:   at nanosleep(2)'s entry (sys_enter_nanosleep; gdb's catch syscall)
# Each frame is compared as its ELF symbol and offset, gdb's from "info
# symbol" at each frame's pc (inlined frames skipped: they have no pc of
# their own). Prints "gdb: N frames, ksnoop the same: F1;F2;..." or the two
# lists.
#
#   tests/vm/ustack-gdb.sh ucall|nap PROGRAM [fp|dwarf]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
where=$1 prog=$2 mode=${3:-dwarf}
T=$(mktemp -d /tmp/ustack-gdb.XXXXXX) || exit 125
trap 'rm -rf "$T"' EXIT
command -v gdb >/dev/null || { echo "gdb: not installed"; exit 125; }
[ -x "$prog" ] || { echo "gdb: no $prog"; exit 125; }
comm=$(basename "$prog" | cut -c1-15)

case $where in
ucall)
	args='ucall 1 300'
	stop=(-ex 'break workload_ucall')
	spec="$prog:workload_ucall"
	;;
nap)
	args='naps 10 300'
	stop=(-ex 'catch syscall nanosleep')
	spec='tp:syscalls:sys_enter_nanosleep'
	;;
*)
	echo "usage: $0 ucall|nap PROGRAM [fp|dwarf]" >&2
	exit 2
	;;
esac

# "main + 2300 in section .text [of OBJ]" -> main+0x8fc, as ksnoop names a frame
cat >"$T/frames.py" <<'EOF'
import re
f = gdb.newest_frame()
while f is not None:
    if f.type() != gdb.INLINE_FRAME:
        s = gdb.execute("info symbol 0x%x" % f.pc(), to_string=True)
        m = re.match(r"(\S+)(?: \+ (\d+))? in section", s)
        if m:
            off = int(m.group(2) or 0)
            print("FRAME " + m.group(1) + ("+0x%x" % off if off else ""))
        else:
            print("FRAME [unknown] 0x%x" % f.pc())
    f = f.older()
EOF
# shellcheck disable=SC2086 # args is a word list
run_timeout 60 gdb -nx -batch -ex 'set pagination off' -ex 'set backtrace past-main on' "${stop[@]}" -ex run \
	-ex "source $T/frames.py" --args "$prog" $args >"$T/gdb" 2>&1
sed -n 's/^FRAME //p' "$T/gdb" >"$T/want"
[ -s "$T/want" ] || { echo "gdb: no backtrace"; sed 's/^/# /' "$T/gdb"; exit 1; }

trace_bg --workload "$prog $args" --settle 1 --timeout 60 --out "$T/out" --err "$T/err" -- \
	ksnoop trace --call-graph "$mode" --comm "$comm" "$spec"
rc=$?
[ $rc = 0 ] || { echo "gdb: ksnoop failed ($rc)"; cat "$T/err"; exit 1; }
# The first event's frames, "func+0xOFF (OBJ) at ..." or "[unknown] 0xADDR
# (OBJ)", up to its blank line; the object and line go.
awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ / { n++; next }
     n == 1 && /^$/ { exit }
     n == 1 && /^ +([A-Za-z_.][A-Za-z0-9_.@]*(\+0x[0-9a-f]+)?|\[unknown\] 0x[0-9a-f]+)( \(.*)?$/ {
	sub(/^ +/, ""); sub(/ \(.*/, ""); print }' \
	"$T/out" >"$T/got"

if cmp -s "$T/want" "$T/got"; then
	echo "gdb: $(wc -l <"$T/want") frames, ksnoop the same: $(paste -sd';' "$T/want")"
else
	echo "gdb: frames differ"
	paste "$T/want" "$T/got" | sed 's/^/# gdb\tksnoop: /'
	sed 's/^/# /' "$T/out" | head -40
fi
