#!/bin/bash
# ksnoop info on this machine's kernel BTF, as TAP ("ok - ..." lines):
#
# 1. Agreement with the reference ksnoop (Debian libbpf-tools 0.26) on a
#    sample of KSNOOP_INFO_SAMPLE (500) functions spread evenly over vmlinux
#    BTF, limited to prototypes the reference can print:
#      - a single BTF FUNC of that name, 1 to 5 parameters, not variadic;
#      - every parameter and the return type, once const/volatile/restrict
#        and pointers are stripped, is a named int, struct, union, enum,
#        typedef or float, behind at most one pointer level.
#    See tests/host/lib/btf-funcs.awk.  Outside that set the reference is
#    wrong or hangs: "void" parameters past 5, "name()" for no parameters,
#    one '*' for "**", no "struct" on forward declarations, an endless loop
#    on function pointers (kthread_create_on_node) and anonymous types.
#    Known difference, normalised away: the reference drops every
#    const/volatile/restrict (it prints "char *buf" for "const char *buf"),
#    so those words are removed from OUR output only, before comparing.
#    Whitespace is normalised on both sides.
#    The reference reads all of /proc/kallsyms once per function (~60 ms)
#    only to find a module name; when possible it runs in a private mount
#    namespace with an empty kallsyms, which changes nothing for vmlinux
#    functions and makes it ~8x faster.
# 2. Cases where ksnoop must be right and the reference is not: more than 5
#    parameters, variadic functions, function pointers, no parameters,
#    "**", volatile, enum, clone names (.isra.0), --btf with raw BTF and an
#    ELF file, unknown functions.
set -uo pipefail
cd "$(dirname "$0")/../.."

KSNOOP=${KSNOOP:-./ksnoop}
CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}
REF=${KSNOOP_REF:-$CACHE/libbpf-tools/usr/sbin/ksnoop}
VMLINUX=/sys/kernel/btf/vmlinux
SAMPLE=${KSNOOP_INFO_SAMPLE:-500}

ok() { echo "ok - info: $*"; }
notok() { echo "not ok - info: $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { echo "ok - info: $1 # SKIP $2"; }
check() { # check NAME COND-EXIT-STATUS DIAG...
	local name=$1 st=$2
	shift 2
	if [ "$st" -eq 0 ]; then ok "$name"; else notok "$name" "$@"; fi
}

if [ ! -r $VMLINUX ]; then
	skip "kernel BTF" "no $VMLINUX on this machine"
	exit 0
fi
if [ ! -x "$KSNOOP" ]; then
	notok "ksnoop binary" "$KSNOOP is not built"
	exit 1
fi

tmp=$(mktemp -d /tmp/ksnoop-info.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Whitespace-insensitive form; on_ours also drops the qualifiers.
norm() { sed -E 's/[[:space:]]+/ /g; s/ *([*(),;]) */\1/g; s/^ //; s/ $//'; }
unqual() { sed -E 's/\<(const|volatile|restrict)\>//g'; }

bpftool btf dump file $VMLINUX >"$tmp/raw" 2>"$tmp/err" || {
	notok "bpftool btf dump" "$(head -3 "$tmp/err")"
	exit 1
}
# NAME COUNT NPARAMS VARIADIC REFOK
awk -f tests/host/lib/btf-funcs.awk "$tmp/raw" >"$tmp/funcs"

# --- 1. the reference on hundreds of functions --------------------------

awk '$2 == 1 && $3 >= 1 && $3 <= 5 && $4 == 0 && $5 == 1 { print $1 }' "$tmp/funcs" \
	>"$tmp/cand"
awk -v n="$SAMPLE" '{ a[NR] = $0 }
	END { if (n > NR) n = NR; for (i = 0; i < n; i++) print a[int(i * NR / n) + 1] }' \
	"$tmp/cand" >"$tmp/sample"
nsample=$(wc -l <"$tmp/sample")

run_ref() { # names on stdin, one prototype per line out; 64 per run at most
	: >"$tmp/nokallsyms"
	if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
		unshare -m sh -c 'mount --bind "$1" /proc/kallsyms &&
			exec xargs -n 64 timeout 60 "$2" info' sh "$tmp/nokallsyms" "$REF"
	else
		xargs -n 64 timeout 60 "$REF" info
	fi
}

if [ ! -x "$REF" ]; then
	scripts/reference.sh >&2 || true
fi
if [ ! -x "$REF" ]; then
	notok "reference ksnoop at $REF" "run scripts/deps.sh (as root) to unpack it"
elif [ "$nsample" -lt 100 ]; then
	notok "sample of comparable functions" "only $nsample found"
else
	run_ref <"$tmp/sample" >"$tmp/ref" 2>"$tmp/ref.err"
	xargs "$KSNOOP" info <"$tmp/sample" >"$tmp/ours" 2>"$tmp/ours.err"
	st=$?
	check "ksnoop info on $nsample functions exits 0" $st "$(head -3 "$tmp/ours.err")"
	if [ "$(wc -l <"$tmp/ref")" -ne "$nsample" ] || [ "$(wc -l <"$tmp/ours")" -ne "$nsample" ]; then
		# line counts differ: fall back to one function per run
		while read -r f; do
			timeout 5 "$REF" info "$f" 2>/dev/null | head -1
		done <"$tmp/sample" >"$tmp/ref"
		while read -r f; do
			out=$("$KSNOOP" info "$f" 2>&1 | head -1)
			echo "${out:-<nothing>}"
		done <"$tmp/sample" >"$tmp/ours"
	fi
	unqual <"$tmp/ours" | norm >"$tmp/ours.n"
	norm <"$tmp/ref" >"$tmp/ref.n"
	# One test with its figure: every sampled function agrees.
	paste -d '\n' "$tmp/sample" "$tmp/ours.n" "$tmp/ref.n" "$tmp/ours" "$tmp/ref" |
		while read -r f && read -r a && read -r b && read -r ao && read -r bo; do
			[ "$a" = "$b" ] || printf '%s\n  ours: %s\n  ref:  %s\n' "$f" "$ao" "$bo"
		done >"$tmp/differ"
	ndiff=$(grep -c '^[^ ]' "$tmp/differ")
	check "$((nsample - ndiff)) of $nsample sampled prototypes match the reference" \
		"$([ "$ndiff" -eq 0 ] && echo 0 || echo 1)" "$(head -12 "$tmp/differ")"
fi

# --- 2. where the reference is wrong ------------------------------------

info1() { timeout 10 "$KSNOOP" info "$@" 2>"$tmp/e1"; }

expect() { # expect NAME EXPECTED-LINE
	local out
	if grep -q "^$1 " "$tmp/funcs"; then
		out=$(info1 "$1")
		if [ "$out" = "$2" ]; then
			ok "$1: $2"
		else
			notok "$1" "got:  $out" "want: $2" "$(cat "$tmp/e1")"
		fi
	else
		skip "$1" "not in this kernel's BTF"
	fi
}

# More than 5 parameters: the reference prints bogus "void" ones.
expect __sys_sendto "int __sys_sendto(int fd, void *buff, size_t len, unsigned int flags, struct sockaddr *addr, int addr_len);"
# Variadic with a function pointer: the reference spins forever.
expect kthread_create_on_node "struct task_struct *kthread_create_on_node(int (*threadfn)(void *), void *data, int node, const char *namefmt, ...);"
# No parameters: the reference prints "void schedule();".
expect schedule "void schedule(void);"
# const and volatile kept: the reference drops both.
expect vfs_write "ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos);"
expect iounmap "void iounmap(volatile void *addr);"
expect ip_send_skb "int ip_send_skb(struct net *net, struct sk_buff *skb);"

# Every function with more than 5 parameters, 100 of them: all parameters,
# counted at the top level of the parentheses, none of them "void".
awk '$2 == 1 && $3 > 5 && $4 == 0 { print $1, $3 }' "$tmp/funcs" | head -100 >"$tmp/many"
if [ -s "$tmp/many" ]; then
	cut -d' ' -f1 "$tmp/many" | xargs timeout 60 "$KSNOOP" info >"$tmp/many.out" 2>&1
	bad=$(paste -d' ' "$tmp/many" "$tmp/many.out" | awk '{
		want = $2; line = $0; sub(/^[^ ]+ [^ ]+ /, "", line)
		start = index(line, "(" $1 "(") ? index(line, "(" $1 "(") + length($1) + 2 : index(line, $1 "(") + length($1) + 1
		depth = 0; n = 1; voidp = 0
		for (i = start; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "(") depth++
			else if (c == ")") { if (depth == 0) break; depth-- }
			else if (c == "," && depth == 0) n++
		}
		if (line ~ /[(,] *void *[,)]/) voidp = 1
		if (n != want || voidp) print $1 ": " n " params, want " want ": " line
	}')
	check "$(wc -l <"$tmp/many") functions with 6+ parameters show all of them" \
		"$([ -z "$bad" ] && echo 0 || echo 1)" "$(echo "$bad" | head -5)"
fi

# Every variadic function ends in ", ...)" and none hangs.
awk '$4 == 1 { print $1 }' "$tmp/funcs" >"$tmp/variadic"
if [ -s "$tmp/variadic" ]; then
	xargs timeout 60 "$KSNOOP" info <"$tmp/variadic" >"$tmp/variadic.out" 2>&1
	st=$?
	n=$(wc -l <"$tmp/variadic")
	bad=$(grep -vc ', \.\.\.);$' "$tmp/variadic.out")
	check "$n variadic functions end in ', ...)' (exit $st)" \
		"$([ $st -eq 0 ] && [ "$bad" -eq 0 ] && [ "$(wc -l <"$tmp/variadic.out")" -eq "$n" ] &&
			echo 0 || echo 1)" "$(grep -v ', \.\.\.);$' "$tmp/variadic.out" | head -3)"
fi

# No parameters: "(void)".
awk '$3 == 0 && $4 == 0 { print $1 }' "$tmp/funcs" | head -200 >"$tmp/noparam"
if [ -s "$tmp/noparam" ]; then
	xargs "$KSNOOP" info <"$tmp/noparam" >"$tmp/noparam.out" 2>&1
	bad=$(grep -vc '(void);$' "$tmp/noparam.out")
	check "$(wc -l <"$tmp/noparam") functions without parameters end in '(void)'" \
		"$([ "$bad" -eq 0 ] && echo 0 || echo 1)" "$(grep -v '(void);$' "$tmp/noparam.out" | head -3)"
fi

# Categories by BTF shape: function-pointer params "(*name)(", pointers to
# pointers "**", enums "enum ", volatile "volatile ".
awk -f - "$tmp/raw" >"$tmp/shapes" <<'AWK'
function attr(s, key,    i, r) { i = index(s, " " key "="); if (!i) return ""
	r = substr(s, i + length(key) + 2); sub(/ .*/, "", r); return r }
/^\[/ { id = substr($1, 2, length($1) - 2) + 0; kind[id] = $2
	n = $0; sub(/^[^']*'/, "", n); sub(/'.*/, "", n); name[id] = n
	r = attr($0, "type_id"); if (r == "") r = attr($0, "ret_type_id"); ref[id] = r + 0
	cur = $2 == "FUNC_PROTO" ? id : -1; if (cur >= 0) np[id] = 0
	if ($2 == "FUNC") funcs[++nf] = id; next }
/^\t/ { if (cur >= 0) pt[cur, np[cur]++] = attr($0, "type_id") + 0 }
END { for (i = 1; i <= nf; i++) { f = funcs[i]; p = ref[f]
	for (j = 0; j < np[p]; j++) { t = pt[p, j]
		if (kind[t] == "PTR" && kind[ref[t]] == "FUNC_PROTO") print "fp", name[f]
		if (kind[t] == "PTR" && kind[ref[t]] == "PTR") print "ptrptr", name[f]
		if (kind[t] == "ENUM") print "enum", name[f]
		if (kind[t] == "VOLATILE" || (kind[t] == "PTR" && kind[ref[t]] == "VOLATILE")) print "volatile", name[f] } } }
AWK
shape() { # shape KIND REGEX LABEL
	local names n
	names=$(awk -v k="$1" '$1 == k { print $2 }' "$tmp/shapes" | sort -u | head -50)
	if [ -z "$names" ]; then
		skip "$3" "none in this kernel's BTF"
		return
	fi
	n=$(echo "$names" | wc -l)
	# shellcheck disable=SC2086
	timeout 60 "$KSNOOP" info $names >"$tmp/shape.out" 2>&1
	local st=$? bad
	bad=$(grep -Evc -- "$2" "$tmp/shape.out")
	check "$n functions with $3 show them" \
		"$([ $st -eq 0 ] && [ "$bad" -eq 0 ] && echo 0 || echo 1)" \
		"$(grep -Ev -- "$2" "$tmp/shape.out" | head -3)"
}
shape fp '\(\*[A-Za-z_0-9]*\)\(' "function-pointer parameters"
shape ptrptr '\*\*' "pointer-to-pointer parameters"
shape enum 'enum [A-Za-z_]' "enum parameters"
shape volatile 'volatile ' "volatile parameters"

# Several BTF FUNCs with one name (static functions in different files).
dup=$(awk '$2 > 1 { print $1 }' "$tmp/funcs" | head -1)
if [ -n "$dup" ]; then
	count=$(awk -v f="$dup" '$1 == f { print $2 }' "$tmp/funcs")
	out=$(info1 "$dup")
	check "$dup: all $count BTF entries shown" \
		"$([ "$(echo "$out" | grep -c "BTF entry [0-9]* of $count")" -eq "$count" ] && echo 0 || echo 1)" \
		"$out"
else
	skip "static functions with several BTF entries" \
		"none in this kernel's BTF (unit test test_cli covers them)"
fi

# Compiler clones: a NAME.isra.N / NAME.constprop.N from kallsyms whose NAME
# is in BTF prints NAME's prototype and says so.
clone_case() { # clone_case SUFFIX
	local sym base out want
	sym=$(grep -oE " [tT] [A-Za-z_][A-Za-z0-9_]*\.$1\.[0-9]+$" /proc/kallsyms 2>/dev/null |
		awk '{ print $2 }' | while read -r s; do
			grep -q "^${s%%.*} 1 " "$tmp/funcs" && { echo "$s"; break; }
		done)
	if [ -z "$sym" ]; then
		# none visible: the suffix is still stripped
		sym=ip_send_skb.$1.0
	fi
	base=${sym%%.*}
	want=$(info1 "$base")
	out=$(info1 "$sym")
	check "$sym resolves to $base" \
		"$([ "${out%%;*};" = "$want" ] && [[ $out == *"$sym is a compiler clone of $base"* ]] &&
			echo 0 || echo 1)" "got:  $out" "want: $want /* ... compiler clone ... */"
}
clone_case isra
clone_case constprop

# Unknown function: one line on stderr, a suggestion, exit 1, no stdout.
out=$("$KSNOOP" info ip_send_skbb 2>"$tmp/e1")
st=$?
check "unknown function: one error line with a suggestion, exit 1" \
	"$([ $st -eq 1 ] && [ -z "$out" ] &&
		[ "$(cat "$tmp/e1")" = "Error: function 'ip_send_skbb' not found in kernel BTF; did you mean 'ip_send_skb'?" ] &&
		echo 0 || echo 1)" "exit $st" "$(cat "$tmp/e1")"
out=$("$KSNOOP" info ip_send_skb no_such_function_at_all vfs_write 2>"$tmp/e1")
st=$?
check "unknown among known: the known are printed, exit 1" \
	"$([ $st -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 2 ] && [ "$(wc -l <"$tmp/e1")" -eq 1 ] &&
		echo 0 || echo 1)" "exit $st" "$out" "$(cat "$tmp/e1")"

# Commands by unique prefix, as in the reference.
check "'ksnoop in FUNC' is info" \
	"$([ "$("$KSNOOP" in ip_send_skb 2>&1)" = "$("$KSNOOP" info ip_send_skb 2>&1)" ] && echo 0 || echo 1)"

# --btf FILE: a raw copy of vmlinux BTF and an ELF file holding it in .BTF
# give the same answers as the running kernel.
head -40 "$tmp/sample" >"$tmp/btfnames"
echo kthread_create_on_node >>"$tmp/btfnames"
xargs "$KSNOOP" info <"$tmp/btfnames" >"$tmp/live" 2>&1
cp $VMLINUX "$tmp/vmlinux.btf"
xargs "$KSNOOP" --btf "$tmp/vmlinux.btf" info <"$tmp/btfnames" >"$tmp/raw.out" 2>&1
st=$?
check "--btf with a raw BTF file" \
	"$([ $st -eq 0 ] && cmp -s "$tmp/live" "$tmp/raw.out" && echo 0 || echo 1)" \
	"$(diff "$tmp/live" "$tmp/raw.out" | head -4)"
if echo 'int ksnoop_test;' | ${CC:-cc} -x c -c - -o "$tmp/tiny.o" 2>/dev/null &&
	objcopy --add-section .BTF="$tmp/vmlinux.btf" "$tmp/tiny.o" "$tmp/vmlinux.elf" 2>/dev/null; then
	xargs "$KSNOOP" info --btf "$tmp/vmlinux.elf" <"$tmp/btfnames" >"$tmp/elf.out" 2>&1
	st=$?
	check "--btf with an ELF file with a .BTF section" \
		"$([ $st -eq 0 ] && cmp -s "$tmp/live" "$tmp/elf.out" && echo 0 || echo 1)" \
		"$(diff "$tmp/live" "$tmp/elf.out" | head -4)"
else
	notok "--btf with an ELF file" "cannot build one with cc and objcopy"
fi

# -j: the text's prototype, and its parts, as one object per function.
xargs "$KSNOOP" -j info <"$tmp/btfnames" >"$tmp/json.out" 2>"$tmp/json.err"
st=$?
why=$(python3 - "$tmp/json.out" "$tmp/live" 2>&1 <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
text = [l.split(';')[0] for l in open(sys.argv[2]).read().splitlines()]
assert [o['prototype'] for o in objs] == text, 'prototypes differ'
for o in objs:
    assert all(a['name'] in o['prototype'] for a in o['args']), o
    assert o['variadic'] == o['prototype'].endswith('...)'), o
    head = o['return'] + ('' if o['return'].endswith('*') else ' ') + o['function']
    assert o['prototype'].startswith(head + '('), o
    assert o['btf_entry'] >= 1 and o['btf_entry'] <= o['btf_entries'], o
PY
)
check "-j: one object per function, its prototype the text's" \
	"$([ $st -eq 0 ] && [ ! -s "$tmp/json.err" ] && [ -z "$why" ] && echo 0 || echo 1)" "$why"
exit 0
