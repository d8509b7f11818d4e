#!/bin/bash
# ksnoop's --prometheus endpoint scraped by Debian's real prometheus, in a
# guest: start KSNOOP_ARGS with the endpoint on 127.0.0.1:$KSNOOP_PROM_PORT
# (default 19100), start prometheus (scraping it every second, its data in
# a tmpdir, its API on 127.0.0.1:$PROMETHEUS_PORT, default 19090), wait for
# the first good scrape, run WORKLOAD, wait for a scrape that began after
# the workload ended, query PROMQL and print
#   "value=V series=N" (the first series' value, and how many series;
#                       value=none when the result is empty)
#   "rc=N"            (ksnoop's exit status after SIGINT)
# then up to 3 lines of ksnoop's stderr. A harness failure prints one
# "prometheus.sh: ..." line and exits 125 (124: out of time).
#
#   tests/vm/prometheus.sh PROMQL WORKLOAD KSNOOP_ARGS...
#
# WORKLOAD is a shell command (eval). In KSNOOP_ARGS a word "@ADDR" becomes
# 127.0.0.1:PORT; without one, "--prometheus 127.0.0.1:PORT" goes first.
# x86 guests only: they see the host's root (/usr/bin/prometheus, curl)
# read-only over 9p; /tmp is the guest's tmpfs. Example case:
#
#   NAME count: prometheus reads back the calls of a 1000-call loop
#   REQUIRES fentry arch:x86 cmd:prometheus cmd:curl
#   RUN tests/vm/prometheus.sh 'ksnoop_calls_total{func="__do_sys_getppid"}' \
#       'workload getppid-loop 1000' --comm workload count __do_sys_getppid
#   EXPECT ^value=1000 series=1$
#   EXPECT ^rc=0$
#   TIMEOUT 180
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom-lib.sh"

if [ $# -lt 3 ]; then
	echo "usage: $0 PROMQL WORKLOAD KSNOOP_ARGS..." >&2
	exit 2
fi
promql=$1 workload=$2
shift 2
port=${KSNOOP_PROM_PORT:-19100}
pport=${PROMETHEUS_PORT:-19090}
addr=127.0.0.1:$port
# Prometheus (a large Go binary read over 9p) starts slowly under TCG.
limit_s=${PROMETHEUS_TIMEOUT:-120}

args=()
has_addr=0
for a in "$@"; do
	if [ "$a" = @ADDR ]; then
		args+=("$addr")
		has_addr=1
	else
		args+=("$a")
	fi
done
[ $has_addr = 1 ] || args=(--prometheus "$addr" "${args[@]}")

t=$(mktemp -d /tmp/prometheus-vm.XXXXXX)
kpid="" ppid=""
cleanup() {
	[ -n "$ppid" ] && stop_group "$ppid"
	[ -n "$kpid" ] && stop_group "$kpid"
	rm -rf "$t"
}
trap cleanup EXIT

fail() {
	echo "prometheus.sh: $2"
	[ -s "$t/kerr" ] && head -3 "$t/kerr"
	[ -s "$t/plog" ] && tail -3 "$t/plog"
	exit "$1"
}

now
deadline=$((NOW + limit_s * 1000000))
# until_ok WHAT CMD...: run CMD every 0.5 s until it succeeds, or fail.
until_ok() {
	local what=$1
	shift
	until "$@"; do
		if [ -n "$kpid" ] && { ! kill -0 "$kpid" 2>/dev/null || proc_state "$kpid" Z; }; then
			fail 125 "ksnoop exited while waiting for $what"
		fi
		now
		[ "$NOW" -lt "$deadline" ] || fail 124 "no $what within ${limit_s}s"
		sleep_s 0.5
	done
}

# query PROMQL: the API's JSON answer in $JSON.
query() {
	JSON=$(curl -s -G --max-time 10 --data-urlencode "query=$1" \
		"http://127.0.0.1:$pport/api/v1/query" 2>/dev/null)
}

# The first series' value in $VALUE ("none" without one), their number in $SERIES.
parse_result() {
	local rest=$JSON
	SERIES=0
	while [[ $rest == *'"metric":'* ]]; do
		SERIES=$((SERIES + 1))
		rest=${rest#*'"metric":'}
	done
	local re='"value":\[[-0-9.e+]+,"([^"]*)"\]'
	VALUE=none
	[[ $JSON =~ $re ]] && VALUE=${BASH_REMATCH[1]}
}

# The endpoint answers with ksnoop's exposition (the drops are always in it).
endpoint_up() {
	curl -s --max-time 5 "http://$addr/metrics" 2>/dev/null | grep -q '^ksnoop_lost_samples_total'
}

# Prometheus has a scrape of the target that began after $1 (epoch seconds),
# and it succeeded.
scraped_since() {
	query 'timestamp(up{job="ksnoop"} == 1)'
	parse_result
	[ "$VALUE" != none ] && [ "${VALUE%%.*}" -ge "$1" ]
}

spawn ksnoop "${args[@]}" >"$t/kout" 2>"$t/kerr"
kpid=$SPAWNED
until_ok "answer on http://$addr/metrics" endpoint_up

prom_cmd "$t" "$addr" "127.0.0.1:$pport"
spawn "${PROM_CMD[@]}" >"$t/plog" 2>&1
ppid=$SPAWNED
now
until_ok "good scrape by prometheus" scraped_since $((NOW / 1000000))

run_timeout $(((deadline - NOW) / 1000000 + 1)) eval "$workload" >"$t/wout" 2>&1
rc=$?
[ $rc = 124 ] && fail 124 "workload timed out"
[ $rc = 0 ] || fail 125 "workload failed with status $rc: $(head -c 200 "$t/wout")"
# A scrape that began a whole second after the workload's end saw all of it.
now
until_ok "scrape after the workload" scraped_since $((NOW / 1000000 + 1))

query "$promql"
parse_result
echo "value=$VALUE series=$SERIES"

stop_group "$ppid"
ppid=
kill -INT -- "-$kpid" 2>/dev/null
now
if wait_until "$kpid" $((NOW + 10000000)); then
	echo "rc=$WAIT_RC"
else
	echo "rc=timeout"
fi
kpid=
head -3 "$t/kerr"
