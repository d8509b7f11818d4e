#!/bin/bash
# ksnoop serve CONFIG end to end, scraped by Debian's real prometheus:
# six metrics from one config (tracepoints, so the host runs it too; MODE
# funcs adds two on kernel functions for the guests), a reload that adds
# one, changes one and keeps the rest, a reload of a broken file (MODE tp
# only: they touch no kernel function), a broken file at start, and the
# series cap. Prints, one per line:
#   "A NAME=V"        after workload A, PromQL values through prometheus
#   "reload1 ok=N"    ksnoop_serve_config_reloads_total{result="success"}
#   "B NAME=V"        after workload B, under the reloaded config
#   "reload2 failed=N stderr=LINE"   the broken reload: counted, said, and
#   "C NAME=V"        the running metrics still count (workload C)
#   "promtool=OK"     promtool check metrics on the last exposition
#   "start rc=N stderr=LINE"         ksnoop serve on a broken file
#   "rc=N"            serve's status after SIGINT
# A harness failure prints one "serve.sh: ..." line and exits 125 (124:
# out of time).
#
#   tests/vm/serve.sh tp|funcs
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom-lib.sh"

mode=${1:-tp}
base=${KSNOOP_PROM_PORT:-$((20000 + $$ % 5000 * 4))}
limit_s=${PROMETHEUS_TIMEOUT:-150}
W=$TEST_WORKLOAD
t=$(mktemp -d /tmp/serve-vm.XXXXXX)
kpid="" ppid=""
cleanup() {
	[ -n "$ppid" ] && stop_group "$ppid"
	[ -n "$kpid" ] && stop_group "$kpid"
	rm -rf "$t"
}
trap cleanup EXIT

fail() {
	echo "serve.sh: $2"
	[ -s "$t/kerr" ] && head -5 "$t/kerr"
	[ -s "$t/plog" ] && tail -3 "$t/plog"
	exit "$1"
}

now
deadline=$((NOW + limit_s * 1000000))
until_ok() { # WHAT CMD...
	local what=$1
	shift
	until "$@"; do
		if [ -n "$kpid" ] && { ! kill -0 "$kpid" 2>/dev/null || proc_state "$kpid" Z; }; then
			fail 125 "ksnoop serve exited while waiting for $what"
		fi
		now
		[ "$NOW" -lt "$deadline" ] || fail 124 "no $what within ${limit_s}s"
		sleep_s 0.5
	done
}

addr=127.0.0.1:$base
pport=$((base + 1))

# The six: one kept through every reload, one changed and one added by
# the first reload, a cap of 3 series, a span's latency, one by cgroup.
conf_common() {
	cat <<EOF
# ksnoop serve's test config
listen = $addr

[getppid_calls_total]
help = getppid system calls of the workload
kind = count
spec = tp:syscalls:sys_enter_getppid
comm = workload

[getppid_by_pid_total]
help = getppid calls by pid, at most 3 series
kind = count
spec = tp:syscalls:sys_enter_getppid
by = pid
comm = workload
max-series = 3

[nanosleep_span_seconds]
help = nanosleep from entry to exit, by thread
kind = latency
from = tp:syscalls:sys_enter_nanosleep(current->pid)
to = tp:syscalls:sys_exit_nanosleep(current->pid)
unit = us
comm = workload

[naps_total]
help = nanosleep calls of the workload, by cgroup, with container and pod
kind = count
spec = tp:syscalls:sys_enter_nanosleep
by = cgroup
comm = workload

[naps_by_stack_total]
help = nanosleep calls of the workload, by user stack
kind = count
spec = tp:syscalls:sys_enter_nanosleep
by = ustack
comm = workload

[open_result]
help = openat's return value
kind = hist
spec = tp:syscalls:sys_exit_openat(ret)
buckets = linear 0,1024,256
comm = workload
EOF
	if [ "$mode" = funcs ]; then
		cat <<EOF

[udp_send_bytes]
help = bytes of each UDP datagram sent
kind = hist
spec = ip_send_skb(skb->len)
comm = workload

[nanosleep_seconds]
help = do_nanosleep's duration
kind = latency
spec = do_nanosleep
unit = ms
comm = workload
EOF
	fi
}

conf1() {
	conf_common
	cat <<EOF

[open_errors_total]
help = failed openat calls by errno
kind = count
spec = tp:syscalls:sys_exit_openat(ret, ret < 0)
comm = workload
EOF
}

# open_errors_total changed (by comm too: new counters), enters_total added.
conf2() {
	conf_common
	cat <<EOF

[open_errors_total]
help = failed openat calls by errno and comm
kind = count
spec = tp:syscalls:sys_exit_openat(ret, ret < 0)
by = comm
comm = workload

[enters_total]
help = getppid entries, again
kind = count
spec = tp:syscalls:sys_enter_getppid
comm = workload
EOF
}

scrape() { curl -s --max-time 10 "http://$addr/metrics" 2>/dev/null; }

serving() { scrape | grep -q '^ksnoop_serve_probes_attached'; }

# The value of one sample line of the exposition ($1: its name and labels, a prefix).
sample() {
	scrape | awk -v p="$1" 'index($0, p) == 1 { print $NF; found = 1 } END { if (!found) print "none" }'
}

# Builtins only: a grep and a wc a query are two execs, 100-400 ms each
# under TCG.
query() {
	prom_query "$pport" "$1"
	local re='"value":\[[-0-9.e+]+,"([^"]*)"\]' rest
	VALUE=none
	[[ $JSON =~ $re ]] && VALUE=${BASH_REMATCH[1]}
	SERIES=0
	rest=$JSON
	while [[ $rest == *'"value":['* ]]; do
		rest=${rest#*'"value":['}
		SERIES=$((SERIES + 1))
	done
}

scraped_since() {
	query 'timestamp(up{job="ksnoop"}) and on(instance) (up{job="ksnoop"} == 1)'
	[ "$VALUE" != none ] || return 1
	secs_to_us "$VALUE"
	[ "$US" -gt "$1" ]
}

settle() {
	now
	until_ok "scrape after workload $1" scraped_since "$NOW"
}

report() { # PHASE NAME PROMQL
	query "$3"
	echo "$1 $2=$VALUE series=$SERIES"
}

workload() {
	run_timeout 60 "$@" >/dev/null 2>&1 || fail 125 "workload failed: $*"
}

conf1 >"$t/serve.conf"
spawn ksnoop serve "$t/serve.conf" >"$t/kout" 2>"$t/kerr"
kpid=$SPAWNED
until_ok "answer on $addr" serving

prom_spawn "$t" "127.0.0.1:$pport" "$addr"
ppid=$SPAWNED
now
until_ok "good scrape by prometheus" scraped_since "$NOW"

# A: 100 getppid from one process, 1 each from five more; 7 failed opens;
# three naps of 50 ms (and five of 1 ms below).
workload "$W" getppid-loop 100
for i in 1 2 3 4 5; do
	workload "$W" getppid-loop 1
done
workload "$W" open-mixed /etc/hostname 7
workload "$W" naps 50 50 50
[ "$mode" = funcs ] && workload "$W" udp-send 300 4
# Three naps in a cgroup named as Kubernetes with containerd names one,
# two outside.
pod=1234abcd-0000-1111-2222-333344445555 ctr=$(printf 'ab%.0s' {1..32})
cg="kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${pod//-/_}.slice"
cg="$cg/cri-containerd-$ctr.scope"
workload "$(dirname "$0")/cgroup-run.sh" "$cg" "$W" naps 1 1 1
workload "$W" naps 1 1
settle A
report A getppid 'getppid_calls_total'
report A by_pid_own 'sum(getppid_by_pid_total{folded=""})'
report A by_pid_other 'getppid_by_pid_total{folded="true"}'
report A by_pid_all 'sum(getppid_by_pid_total)'
report A folded 'ksnoop_serve_series_folded{metric="getppid_by_pid_total"}'
report A span_count 'nanosleep_span_seconds_count'
report A span_over_32ms 'nanosleep_span_seconds_count - ignoring(le) nanosleep_span_seconds_bucket{le="0.032767999"}'
report A naps_container "naps_total{container=\"$ctr\",pod=\"$pod\",cgroup=\"/ksnoop-$cg\"}"
report A naps_no_container 'naps_total{container="",pod=""}'
# each process's maps read at its first nap: named after it exited
report A naps_stack_named 'sum(naps_by_stack_total{ustack=~".*__libc_start_call_main.*;syscall.*"})'
report A open_below0 'open_result_bucket{le="-1"}'
report A open_errors 'open_errors_total{ret="-2"}'
if [ "$mode" = funcs ]; then
	report A udp_328 'udp_send_bytes_bucket{le="511"} - ignoring(le) udp_send_bytes_bucket{le="255"}'
	report A nanosleep 'nanosleep_seconds_count'
fi

# The reloads change and add tracepoint metrics only: the host's run (tp)
# checks them; a guest's (funcs) goes on to the end.
reloads() {
# The first reload: one changed, one added, the rest keep counting.
conf2 >"$t/serve.conf"
kill -HUP "$kpid"
ok_reloads() { [ "$(sample 'ksnoop_serve_config_reloads_total{result="success"}')" = 1 ]; }
until_ok "reload" ok_reloads
echo "reload1 ok=$(sample 'ksnoop_serve_config_reloads_total{result="success"}')"
workload "$W" getppid-loop 50
workload "$W" open-mixed /etc/hostname 3
settle B
report B getppid 'getppid_calls_total'
report B open_errors 'open_errors_total{ret="-2",comm="workload"}'
report B enters 'enters_total'
report B span_count 'nanosleep_span_seconds_count'

# A broken file is refused at reload; the running metrics keep counting.
printf '[broken_total]\nhelp = x\nkind = count\nspec = no_such_function_at_all\n' >"$t/serve.conf"
kill -HUP "$kpid"
failed_reloads() { [ "$(sample 'ksnoop_serve_config_reloads_total{result="failure"}')" = 1 ]; }
until_ok "failed reload" failed_reloads
echo "reload2 failed=1 stderr=$(grep -m1 'no_such_function_at_all' "$t/kerr")"
workload "$W" getppid-loop 10
settle C
report C getppid 'getppid_calls_total'
report C last_ok 'ksnoop_serve_config_last_reload_successful'
}
[ "$mode" = tp ] && reloads
scrape >"$t/exposition"
if command -v promtool >/dev/null; then
	promtool check metrics <"$t/exposition" >"$t/lint" 2>&1 &&
		echo promtool=OK || echo "promtool: $(head -3 "$t/lint")"
fi

# A broken file at start: nothing attaches, one line with file:line.
printf 'listen = %s\n[x_total]\nhelp = x\nkind = count\nspec = tp:syscalls:sys_enter_getppid\nby = color\n' \
	"127.0.0.1:$((base + 2))" >"$t/bad.conf"
run_timeout 60 ksnoop serve "$t/bad.conf" >/dev/null 2>"$t/bad.err"
echo "start rc=$? lines=$(wc -l <"$t/bad.err") stderr=$(head -1 "$t/bad.err")"

stop_group "$ppid"
ppid=
kill -INT -- "-$kpid" 2>/dev/null
now
if wait_until "$kpid" $((NOW + 15000000)); then
	echo "rc=$WAIT_RC"
else
	echo "rc=timeout"
fi
kpid=
head -3 "$t/kerr"
cgdir=/tmp/ksnoop-cg/ksnoop-$cg
while [ "$cgdir" != /tmp/ksnoop-cg ]; do
	rmdir "$cgdir" 2>/dev/null
	cgdir=${cgdir%/*}
done
