#!/bin/bash
# ksnoop's --prometheus endpoint scraped by Debian's real prometheus, in a
# guest: start KSNOOP_ARGS with the endpoint on 127.0.0.1:$KSNOOP_PROM_PORT
# (default 20000 + 2 * (pid % 10000)), start prometheus (scraping it every
# second, its data in a tmpdir, its API on 127.0.0.1:$PROMETHEUS_PORT,
# default the next port), wait for
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
# 127.0.0.1:PORT; without one, "--prometheus 127.0.0.1:PORT" goes right
# after the first word "count" or "hist".
# x86 guests only: they see the host's root (/usr/bin/prometheus, curl)
# read-only over 9p; /tmp is the guest's tmpfs. ksnoop starts its endpoint
# once every probe is attached, so an answer on /metrics means ready.
# Example cases:
#
#   NAME prometheus reads back count by skb->len: 178 x5
#   REQUIRES fentry arch:x86 cmd:prometheus cmd:curl
#   RUN tests/vm/prometheus.sh 'ksnoop_calls_total{func="ip_send_skb",skb_len="178"}' \
#       'workload udp-send 150 5 >/dev/null' count "ip_send_skb(skb->len)" --comm workload
#   EXPECT ^value=5 series=1$
#   EXPECT ^rc=0$
#   TIMEOUT 180
#
#   NAME prometheus reads back hist --latency: 3 sleeps in _count
#   REQUIRES fentry arch:x86 cmd:prometheus cmd:curl
#   RUN tests/vm/prometheus.sh 'ksnoop_latency_seconds_count{func="do_nanosleep"}' \
#       'sleep 0.05; sleep 0.05; sleep 0.05' hist --latency --unit ms do_nanosleep --comm sleep
#   EXPECT ^value=3 series=1$
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
# Ports of this run's own: a prometheus of the case before, still going
# down, must not answer this one's queries (a CI run saw an empty answer).
port=${KSNOOP_PROM_PORT:-$((20000 + $$ % 10000 * 2))}
pport=${PROMETHEUS_PORT:-$((port + 1))}
addr=127.0.0.1:$port
# Prometheus (a large Go binary read over 9p) starts slowly under TCG.
limit_s=${PROMETHEUS_TIMEOUT:-120}

# "--prometheus ADDR" is an option of count and hist: it goes after the
# command word, unless the arguments place it themselves with @ADDR.
args=()
placed=0
for a in "$@"; do
	if [ "$a" = @ADDR ]; then
		args+=("$addr")
		placed=1
	else
		args+=("$a")
	fi
done
if [ $placed = 0 ]; then
	args=()
	for a in "$@"; do
		args+=("$a")
		if [ $placed = 0 ] && { [ "$a" = count ] || [ "$a" = hist ]; }; then
			args+=(--prometheus "$addr")
			placed=1
		fi
	done
fi
if [ $placed = 0 ]; then
	echo "prometheus.sh: no count or hist command, and no @ADDR, in: $*"
	exit 2
fi

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
	curl -s --max-time 5 "http://$addr/metrics" 2>/dev/null | grep '^ksnoop_lost_samples_total' >/dev/null
}

# Prometheus has a good scrape of the target that began after $1 (epoch
# microseconds). timestamp() must take the bare selector: of any other
# expression (up == 1 too) it gives the evaluation time, not the scrape's,
# and then a scrape still under way when the workload ended passed.
scraped_since() {
	query 'timestamp(up{job="ksnoop"}) and on(instance) (up{job="ksnoop"} == 1)'
	parse_result
	[ "$VALUE" != none ] || return 1
	secs_to_us "$VALUE"
	[ "$US" -gt "$1" ]
}

spawn ksnoop "${args[@]}" >"$t/kout" 2>"$t/kerr"
kpid=$SPAWNED
until_ok "answer on http://$addr/metrics" endpoint_up

prom_cmd "$t" "$addr" "127.0.0.1:$pport"
spawn "${PROM_CMD[@]}" >"$t/plog" 2>&1
ppid=$SPAWNED
now
until_ok "good scrape by prometheus" scraped_since "$NOW"

run_timeout $(((deadline - NOW) / 1000000 + 1)) eval "$workload" >"$t/wout" 2>&1
rc=$?
[ $rc = 124 ] && fail 124 "workload timed out"
[ $rc = 0 ] || fail 125 "workload failed with status $rc: $(head -c 200 "$t/wout")"
# A scrape that began after the workload's end saw all of it.
now
until_ok "scrape after the workload" scraped_since "$NOW"

query "$promql"
parse_result
echo "value=$VALUE series=$SERIES"
if [ "$VALUE" = none ]; then
	curl -s --max-time 5 "http://$addr/metrics" 2>/dev/null | grep -v '^#' | head -8
	cat "$t/kout" | head -5
fi

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
