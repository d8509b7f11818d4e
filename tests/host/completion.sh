#!/bin/bash
# completion/ksnoop: drive _ksnoop as bash would (COMP_WORDS, COMP_CWORD,
# COMP_LINE, COMP_POINT) and check COMPREPLY, on a fake function list
# (KSNOOP_COMPLETION_FUNCS) and, where readable, on this kernel's.
# TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
script=completion/ksnoop

t=$(mktemp -d /tmp/ksnoop-compl.XXXXXX)
trap 'rm -rf "$t"' EXIT

if bash -n "$script" 2>"$t/err"; then
	echo "ok - completion: $script parses"
else
	echo "not ok - completion: $script does not parse"
	sed 's/^/#   | /' "$t/err"
	exit 0
fi
# shellcheck source=SCRIPTDIR/../../completion/ksnoop
. "$script"

printf '%s\n' ip_send_skb ip_send_check tcp_sendmsg tcp_sendmsg tcp_v4_rcv \
	__pfx_tcp_v4_rcv 'nft_do_chain [nf_tables]' 'nft_lookup_eval [nf_tables]' \
	'nobtf_fn [nobtf]' >"$t/funcs"
mkdir -p "$t/btf/vmlinux" "$t/btf/nf_tables"
export XDG_CACHE_HOME=$t/cache KSNOOP_COMPLETION_FUNCS=$t/funcs \
	KSNOOP_COMPLETION_BTF=$t/btf KSNOOP_COMPLETION_ARCH=x86_64
# bash's default
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'

# complete LINE: COMPREPLY for the cursor at the end of LINE, one a line.
complete_line()
{
	local IFS=$' \t\n'
	COMP_LINE=$1
	COMP_POINT=${#COMP_LINE}
	# bash splits at ":" and "=" too
	local spaced=${COMP_LINE//:/ : }
	read -ra COMP_WORDS <<<"${spaced//=/ = }"
	[[ $COMP_LINE == *[\ :=] ]] && COMP_WORDS+=('')
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ksnoop 2>>"$t/stderr"
	[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}"
}

# check LINE EXPECTED...: the candidates are exactly EXPECTED (any order).
check()
{
	local line=$1 got want
	shift
	got=$(complete_line "$line" | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		echo "ok - completion: \"$line\" -> ${want:-nothing}"
	else
		echo "not ok - completion: \"$line\" -> \"$got\", want \"$want\""
	fi
}

# has LINE WORD: WORD is among the candidates.
has()
{
	# not grep -q: exiting at the first match would end complete_line with
	# SIGPIPE, which pipefail turns into a failure (seen once under load)
	if complete_line "$1" | grep -xF -- "$2" >/dev/null; then
		echo "ok - completion: \"$1\" offers $2"
	else
		echo "not ok - completion: \"$1\" does not offer $2"
	fi
}

cmds=(trace graph count hist info feature ktrace kdump probe kprobe-events serve help)
check "ksnoop " "${cmds[@]}"
check "ksnoop se" serve
check "ksnoop serve --c" --check
check "ksnoop count --by comm,cg" comm,cgroup
mkdir -p "$t/etc" && : >"$t/etc/serve.conf"
check "ksnoop serve $t/etc/ser" "$t/etc/serve.conf"
check "ksnoop serve $t/etc/serve.conf $t/etc/ser"
check "ksnoop c" count
check "ksnoop -p 1 -j tr" trace
check "ksnoop k" ktrace kdump kprobe-events

# options, per command
check "ksnoop trace --max-" --max-depth --max-bytes --max-nodes --max-spans
check "ksnoop info --s" --show-comm --stack --symbolize
check "ksnoop graph --err" --errors --errno
check "ksnoop count --max-" --max-keys --max-depth --max-bytes --max-nodes --max-spans
check "ksnoop hist --l" --linear --latency
check "ksnoop info --l"
check "ksnoop probe --" --filter --pid --pages --kstack --kstack-depth --btf --check --json --debug --help
check "ksnoop kprobe-events -" -F --fprobe -g --group --btf -j --json -d --debug -h --help
check "ksnoop ktrace -" -a -C -c -d -i -f -g -p -t -h
check "kdump -" -d -H -l -n -R -T -X -x -f --format -m -o -p -t -h
check "kdump --format " text chrome
check "kdump --format=c" chrome
check "/usr/bin/ktrace -" -a -C -c -d -i -f -g -p -t -h
# -i takes a value in count, not in ktrace
check "ktrace -i -" -a -C -c -d -i -f -g -p -t -h

# the options --help lists, no more, no fewer
longs() { grep -oE -- '--[a-z][a-z-]+' | sort -u | tr '\n' ' '; }
same_as_help()
{
	local line=$1 help got
	shift
	help=$("$@" 2>&1 | longs)
	got=$(complete_line "$line" | longs)
	if [ -n "$help" ] && [ "$got" = "$help" ]; then
		echo "ok - completion: \"$line\" offers the long options of $*"
	else
		echo "not ok - completion: \"$line\" -> \"$got\", $* lists \"$help\""
	fi
}
if [ -x ./ksnoop ]; then
	same_as_help "ksnoop trace --" ./ksnoop --help
	same_as_help "ksnoop count --" sh -c './ksnoop --help; ./ksnoop count --help'
	same_as_help "ksnoop probe --" ./ksnoop probe --help
	same_as_help "ksnoop kprobe-events --" ./ksnoop kprobe-events --help
else
	echo "ok - completion: options match --help # SKIP needs ./ksnoop (make)"
fi

# option values
check "ksnoop -b " fentry kprobe auto
check "ksnoop trace --backend k" kprobe
check "ksnoop trace --backend=f" fentry
check "ksnoop hist --latency --unit " ns us ms
check "ksnoop count --by " comm pid tid cpu kstack ustack cgroup
check "ksnoop count --by comm,t" comm,tid
check "ksnoop count --by=comm,pid,k" comm,pid,kstack
check "ksnoop count --by=kstack,u" kstack,ustack
has "ksnoop -p $$" $$
has "ksnoop probe -p $$" $$
has "ktrace -p $$" $$
check "ksnoop --cgroup /sys/fs/cg" /sys/fs/cgroup/
has "ksnoop --cpu " 0
# "ktrace [opts] command [args]": a command, then its arguments
has "ksnoop ktrace -p 1 ech" echo
has "ktrace -d -i ech" echo
touch "$t/some.btf" "$t/metrics.prom"
check "ksnoop info --btf $t/some" "$t/some.btf"
check "ksnoop count --textfile $t/met" "$t/metrics.prom"
check "kdump -f $t/some" "$t/some.btf"
check "ksnoop ktrace -f $t/met" "$t/metrics.prom"
check "ksnoop kdump -o $t/met" "$t/metrics.prom"
# a probe filter is an expression, not a file
check "ksnoop probe -f $t/some"

# kernel functions: each function-taking command, "ksnoop FUNC", "mod:"
check "ksnoop info ip_send" ip_send_check ip_send_skb
check "ksnoop trace -j tcp_s" tcp_sendmsg
check "ksnoop count tcp_v" tcp_v4_rcv
# after count, -d takes its run time: no FUNC is offered for it
check "ksnoop count -d tcp_v"
check "ksnoop count -d 5 tcp_v" tcp_v4_rcv
check "ksnoop count --run-time 5 tcp_v" tcp_v4_rcv
# before the command, and in trace, -d is --debug
check "ksnoop trace -d tcp_v" tcp_v4_rcv
check "ksnoop hist --latency ip_send_s" ip_send_skb
check "ksnoop graph tcp_v" tcp_v4_rcv
check "ksnoop kprobe-events tcp_v" tcp_v4_rcv
check "ksnoop tcp_v" tcp_v4_rcv
check "ksnoop info nf" nf_tables: nft_do_chain nft_lookup_eval
# readline replaces only what follows the ":"
check "ksnoop info nf_tables:" nft_do_chain nft_lookup_eval
check "ksnoop info nf_tables:nft_l" nft_lookup_eval
# a module without BTF is not offered as "mod:"
check "ksnoop info nob" nobtf_fn
check "ksnoop trace 'tcp_sendmsg(s"

# the cache: made under XDG_CACHE_HOME, named by the kernel, and re-read
# when the list it was made from changes
cache=("$t"/cache/ksnoop/funcs-*)
if [ -f "${cache[0]}" ] && [[ ${cache[0]} == *"$(uname -r)"*"$(cat /proc/sys/kernel/random/boot_id)"* ]]; then
	echo "ok - completion: function list cached in ${cache[0]#"$t"/}"
else
	echo "not ok - completion: no cache file named by uname -r and boot id: ${cache[*]}"
fi
# HOME unwritable: a directory of its own in XDG_RUNTIME_DIR
mkdir -p "$t/run"
got=$(XDG_CACHE_HOME='' HOME=/proc XDG_RUNTIME_DIR=$t/run _ksnoop_cache_dir)
if [ "$got" = "$t/run/ksnoop-completion-$UID" ] && [ -O "$got" ]; then
	echo "ok - completion: HOME unwritable: cache in \$XDG_RUNTIME_DIR/ksnoop-completion-UID"
else
	echo "not ok - completion: HOME unwritable: cache dir \"$got\""
fi
sleep 1
echo tcp_v6_rcv >>"$t/funcs"
check "ksnoop count tcp_v" tcp_v4_rcv tcp_v6_rcv

# probe: kprobe_events keywords and this architecture's registers
check "ksnoop probe " p: r: f:
check "ksnoop probe p" p:
check "ksnoop probe 'p:ev tcp_se" "p:ev tcp_sendmsg"
check "ksnoop probe 'p:ev nf_tables:" "p:ev nf_tables:nft_do_chain" "p:ev nf_tables:nft_lookup_eval"
check "ksnoop probe 'r:ev tcp_sendmsg \$re" "r:ev tcp_sendmsg \$retval"
check "ksnoop probe 'p:ev tcp_sendmsg \$re"
check "ksnoop probe -f 'x > 1' 'p:ev tcp_sendmsg \$arg" \
	"p:ev tcp_sendmsg \$arg"{1..8}
check "ksnoop probe 'p:ev tcp_sendmsg \$c" "p:ev tcp_sendmsg \$comm"
check "ksnoop probe 'p:ev tcp_sendmsg size=%d" "p:ev tcp_sendmsg size=%dx" "p:ev tcp_sendmsg size=%di"
# the names src/lib/archinfo.c accepts, no more, no fewer
arch_regs()
{
	sed -n "/^static const struct arch_reg $1\[\]/,/^};/p" src/lib/archinfo.c |
		grep -oE '\{ "[a-z0-9_]+"' | sed 's/{ "/%/; s/"//'
}
mapfile -t regs < <(arch_regs x86_regs)
check "ksnoop probe 'p:ev f %" "${regs[@]/#/p:ev f }"
KSNOOP_COMPLETION_ARCH=aarch64
mapfile -t regs < <(arch_regs arm64_regs)
check "ksnoop probe 'p:ev f %" "${regs[@]/#/p:ev f }"
check "ksnoop probe 'p:ev f %x2" "p:ev f %x2" "p:ev f %x2"{0..9}
KSNOOP_COMPLETION_ARCH=x86_64

# no function list: nothing, and nothing on the terminal
KSNOOP_COMPLETION_FUNCS=$t/missing
check "ksnoop info ip_send"
KSNOOP_COMPLETION_FUNCS=$t/funcs
if [ -s "$t/stderr" ]; then
	echo "not ok - completion: wrote to stderr"
	sed 's/^/#   | /' "$t/stderr"
else
	echo "ok - completion: nothing on stderr"
fi

# this kernel's list: tracefs, or /proc/kallsyms without it
unset KSNOOP_COMPLETION_FUNCS
src=$(_ksnoop_func_source)
if [ -z "$src" ] || ! grep -qw ip_send_skb "${src#* }" 2>/dev/null; then
	echo "ok - completion: this kernel's functions # SKIP no readable list with ip_send_skb"
else
	TIMEFORMAT=%R
	first=$({ time complete_line "ksnoop info ip_send_s" >"$t/real"; } 2>&1)
	cached=$({ time complete_line "ksnoop info ip_send_s" >/dev/null; } 2>&1)
	if grep -qx ip_send_skb "$t/real"; then
		echo "ok - completion: \"ksnoop info ip_send_s\" offers ip_send_skb from ${src#* }"
	else
		echo "not ok - completion: \"ksnoop info ip_send_s\" -> $(tr '\n' ' ' <"$t/real") from ${src#* }"
	fi
	echo "# completion time: first ${first}s (makes the cache), cached ${cached}s"
fi
