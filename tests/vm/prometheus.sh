#!/bin/bash
# ksnoop's --prometheus endpoints scraped by Debian's real prometheus, in a
# guest. Each group "PROMQL WORKLOAD KSNOOP_ARGS..." (groups apart by a
# word "--next") starts one ksnoop with its endpoint on 127.0.0.1:PORT
# (ports from $KSNOOP_PROM_PORT on, default 20000 + 4 * (pid % 5000)); one
# prometheus scrapes them all every second (its data in a tmpdir, its API
# on the port after the last), and once each endpoint has had a good
# scrape, the WORKLOADs run one after the other. After a scrape of every
# endpoint that began when they had all ended, it queries each PROMQL and
# prints, for group I (from 1):
#   "I: value=V series=N" (the first series' value, and how many series;
#                          value=none when the result is empty)
#   "I: rc=N"             (that ksnoop's exit status after SIGINT)
# then up to 3 lines of each ksnoop's stderr. Several exporters share one
# prometheus because it starts slowly under TCG (a large Go binary read
# over 9p): choose workloads that do not feed each other's queries. A
# harness failure prints one "prometheus.sh: ..." line and exits 125
# (124: out of time).
#
#   tests/vm/prometheus.sh PROMQL WORKLOAD KSNOOP_ARGS... [--next PROMQL WORKLOAD KSNOOP_ARGS...]...
#
# WORKLOAD is a shell command (eval). In KSNOOP_ARGS a word "@ADDR" becomes
# 127.0.0.1:PORT; without one, "--prometheus 127.0.0.1:PORT" goes right
# after the first word "count" or "hist".
# x86 guests only: they see the host's root (/usr/bin/prometheus, curl)
# read-only over 9p; /tmp is the guest's tmpfs. ksnoop starts its endpoint
# once every probe is attached, so an answer on /metrics means ready.
# Example case:
#
#   NAME prometheus reads back count by skb->len and hist --latency
#   REQUIRES kprobe arch:x86 cmd:prometheus cmd:curl
#   RUN tests/vm/prometheus.sh 'ksnoop_calls_total{func="ip_send_skb",skb_len="178"}' \
#       'workload udp-send 150 5 >/dev/null' count "ip_send_skb(skb->len)" --comm workload \
#       --next 'ksnoop_latency_seconds_count{func="do_nanosleep"}' \
#       'sleep 0.05; sleep 0.05; sleep 0.05' hist --latency --unit ms do_nanosleep --comm sleep
#   EXPECT ^1: value=5 series=1$
#   EXPECT ^2: value=3 series=1$
#   EXPECT_LINES 2 ^[12]: rc=0$
#   TIMEOUT 180
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom-lib.sh"

usage() {
	echo "usage: $0 PROMQL WORKLOAD KSNOOP_ARGS... [--next PROMQL WORKLOAD KSNOOP_ARGS...]..." >&2
	exit 2
}

# Ports of this run's own: a prometheus of the case before, still going
# down, must not answer this one's queries (a CI run saw an empty answer).
base=${KSNOOP_PROM_PORT:-$((20000 + $$ % 5000 * 4))}
# Prometheus (a large Go binary read over 9p) starts slowly under TCG.
limit_s=${PROMETHEUS_TIMEOUT:-120}

# One group's ksnoop command line, with "--prometheus ADDR" an option of
# count and hist after the command word, unless the group places it with
# @ADDR. Into KARGS; fails when there is no place for it.
ksnoop_args() {
	local addr=$1 a placed=0
	shift
	KARGS=()
	for a in "$@"; do
		if [ "$a" = @ADDR ]; then
			KARGS+=("$addr")
			placed=1
		else
			KARGS+=("$a")
		fi
	done
	[ $placed = 1 ] && return 0
	KARGS=()
	for a in "$@"; do
		KARGS+=("$a")
		if [ $placed = 0 ] && { [ "$a" = count ] || [ "$a" = hist ]; }; then
			KARGS+=(--prometheus "$addr")
			placed=1
		fi
	done
	[ $placed = 1 ]
}

# The groups: PROMQLS, WORKLOADS, ADDRS, and each ksnoop's arguments in
# file DIR/args.I (one per line: the words may hold anything but newlines).
t=$(mktemp -d /tmp/prometheus-vm.XXXXXX)
PROMQLS=() WORKLOADS=() ADDRS=() KPIDS=()
ppid=""
cleanup() {
	local k
	[ -n "$ppid" ] && stop_group "$ppid"
	for k in "${KPIDS[@]}"; do
		[ -n "$k" ] && stop_group "$k"
	done
	rm -rf "$t"
}
trap cleanup EXIT

add_group() {
	local i=${#PROMQLS[@]} addr
	[ $# -ge 3 ] || usage
	addr=127.0.0.1:$((base + i))
	PROMQLS+=("$1")
	WORKLOADS+=("$2")
	ADDRS+=("$addr")
	shift 2
	if ! ksnoop_args "$addr" "$@"; then
		echo "prometheus.sh: no count or hist command, and no @ADDR, in: $*"
		exit 2
	fi
	printf '%s\n' "${KARGS[@]}" >"$t/args.$i"
}

group=()
for a in "$@"; do
	if [ "$a" = --next ]; then
		add_group "${group[@]}"
		group=()
	else
		group+=("$a")
	fi
done
add_group "${group[@]}"
n=${#PROMQLS[@]}
pport=$((base + n))

fail() {
	local i
	echo "prometheus.sh: $2"
	for ((i = 0; i < n; i++)); do
		[ -s "$t/kerr.$i" ] && head -3 "$t/kerr.$i"
	done
	[ -s "$t/plog" ] && tail -3 "$t/plog"
	exit "$1"
}

now
deadline=$((NOW + limit_s * 1000000))
# until_ok WHAT CMD...: run CMD every 0.5 s until it succeeds, or fail.
until_ok() {
	local what=$1 k
	shift
	until "$@"; do
		for k in "${KPIDS[@]}"; do
			if ! kill -0 "$k" 2>/dev/null || proc_state "$k" Z; then
				fail 125 "ksnoop exited while waiting for $what"
			fi
		done
		now
		[ "$NOW" -lt "$deadline" ] || fail 124 "no $what within ${limit_s}s"
		sleep_s 0.5
	done
}

# query PROMQL: the API's JSON answer in $JSON.
query() {
	prom_query "$pport" "$1"
}

# The series' values in VALUES, the first in VALUE ("none" without one),
# their number in SERIES.
parse_result() {
	local rest=$JSON re='"value":\[[-0-9.e+]+,"([^"]*)"\]'
	SERIES=0
	VALUES=()
	while [[ $rest == *'"metric":'* ]]; do
		SERIES=$((SERIES + 1))
		rest=${rest#*'"metric":'}
		[[ $rest =~ $re ]] && VALUES+=("${BASH_REMATCH[1]}")
	done
	VALUE=${VALUES[0]:-none}
}

# Every endpoint answers with ksnoop's exposition (the drops are always in it).
endpoints_up() {
	local addr
	for addr in "${ADDRS[@]}"; do
		curl -s --max-time 5 "http://$addr/metrics" 2>/dev/null |
			grep '^ksnoop_lost_samples_total' >/dev/null || return 1
	done
}

# Prometheus has a good scrape of every target that began after $1 (epoch
# microseconds). timestamp() must take the bare selector: of any other
# expression (up == 1 too) it gives the evaluation time, not the scrape's,
# and then a scrape still under way when the workload ended passed.
scraped_since() {
	local v
	query 'timestamp(up{job="ksnoop"}) and on(instance) (up{job="ksnoop"} == 1)'
	parse_result
	[ "$SERIES" = "$n" ] && [ ${#VALUES[@]} = "$n" ] || return 1
	for v in "${VALUES[@]}"; do
		secs_to_us "$v"
		[ "$US" -gt "$1" ] || return 1
	done
}

for ((i = 0; i < n; i++)); do
	mapfile -t args <"$t/args.$i"
	spawn ksnoop "${args[@]}" >"$t/kout.$i" 2>"$t/kerr.$i"
	KPIDS+=("$SPAWNED")
done
until_ok "answer on every endpoint (${ADDRS[*]})" endpoints_up

prom_spawn "$t" "127.0.0.1:$pport" "${ADDRS[@]}"
ppid=$SPAWNED
now
until_ok "good scrape by prometheus" scraped_since "$NOW"

for ((i = 0; i < n; i++)); do
	run_timeout $(((deadline - NOW) / 1000000 + 1)) eval "${WORKLOADS[i]}" >"$t/wout" 2>&1
	rc=$?
	[ $rc = 124 ] && fail 124 "workload $((i + 1)) timed out"
	[ $rc = 0 ] || fail 125 "workload $((i + 1)) failed with status $rc: $(head -c 200 "$t/wout")"
	now
done
# A scrape that began after the workloads' end saw all of them.
until_ok "scrape after the workloads" scraped_since "$NOW"

for ((i = 0; i < n; i++)); do
	query "${PROMQLS[i]}"
	parse_result
	echo "$((i + 1)): value=$VALUE series=$SERIES"
	if [ "$VALUE" = none ]; then
		curl -s --max-time 5 "http://${ADDRS[i]}/metrics" 2>/dev/null | grep -v '^#' | head -8
		head -5 "$t/kout.$i"
	fi
done

stop_group "$ppid"
ppid=
for ((i = 0; i < n; i++)); do
	kill -INT -- "-${KPIDS[i]}" 2>/dev/null
done
for ((i = 0; i < n; i++)); do
	now
	if wait_until "${KPIDS[i]}" $((NOW + 10000000)); then
		echo "$((i + 1)): rc=$WAIT_RC"
	else
		echo "$((i + 1)): rc=timeout"
	fi
	KPIDS[i]=
	head -3 "$t/kerr.$i"
done
