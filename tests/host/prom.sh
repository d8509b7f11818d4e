#!/bin/bash
# The Prometheus endpoint end to end, as TAP. build/tests/test_agg_prom
# --serve HOST:PORT serves fixed tables (its render_fixed); then
#  - the listen socket is exactly the address given, and nothing answers
#    on another local address;
#  - the HTTP answers: Content-Type, 404, 405 with Allow, 500 when the
#    render fails;
#  - promtool check metrics finds nothing to say about the exposition;
#  - Debian's real prometheus scrapes it every second, and its query API
#    reads back a counter with its labels (one with escaped quotes and a
#    backslash), histogram buckets, a latency _count and _sum in seconds,
#    a histogram_quantile, and the drops;
#  - under abuse from loopback (tests/host/prom_abuse.py: idle, slowloris
#    and malformed clients) and with 20 file descriptors, every scrape of
#    a prometheus and every curl GET gets through, memory stays bounded,
#    and the server exits cleanly;
#  - tests/vm/prometheus.sh, the guest's script, reads a counter back with
#    the fixture server standing in for ksnoop.
# Ports are picked free on 127.0.0.1; prometheus is always killed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/prom-lib.sh

BIN=build/tests/test_agg_prom

ok() { echo "ok - prom: $*"; }
skip() { echo "ok - prom: $1 # SKIP $2"; }
check() { # check NAME STATUS DIAG...
	local name=$1 st=$2
	shift 2
	if [ "$st" = 0 ]; then
		ok "$name"
		return
	fi
	echo "not ok - prom: $name"
	for l in "$@"; do echo "#   $l"; done
}

for cmd in prometheus promtool curl python3 ss; do
	if ! command -v $cmd >/dev/null; then
		skip "endpoint" "needs $cmd (scripts/deps.sh)"
		exit 0
	fi
done
make -s -j2 "$BIN" >/dev/null || { echo "not ok - prom: build $BIN"; exit 1; }

t=$(mktemp -d /tmp/ksnoop-prom.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$t"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# N free TCP ports on 127.0.0.1, one a line.
free_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# free_port_run N: the first of N consecutive ports free on 127.0.0.1 (the
# guest script's ports follow each other).
free_port_run() {
	python3 - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 60000 - n)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    break
EOF
}

# serve HOSTPORT OUT [fail]: start the fixture server; wait for its line.
serve() {
	local i
	"$BIN" --serve "$1" ${3:+"$3"} >"$2" 2>"$2.err" &
	pids+=($!)
	for ((i = 0; i < 50; i++)); do
		grep -qs '^serving ' "$2" && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

mapfile -t ports < <(free_ports 4)
port=${ports[0]} pport=${ports[1]} fport=${ports[2]} v6port=${ports[3]}
url=http://127.0.0.1:$port/metrics

if ! serve "127.0.0.1:$port" "$t/srv"; then
	if grep -q 'built without libmicrohttpd' "$t/srv.err"; then
		skip "endpoint" "built with HAVE_MHD=0"
		exit 0
	fi
	check "the server starts on 127.0.0.1:$port" 1 "$(cat "$t/srv.err")"
	exit 1
fi

# ---- the socket -----------------------------------------------------------
listen=$(ss -ltnH "sport = :$port" | awk '{print $4}')
[ "$listen" = "127.0.0.1:$port" ]
check "it listens on exactly 127.0.0.1:$port" $? "ss: '$listen'"

code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.2:$port/metrics")
[ "$code" = 000 ]
check "nothing answers on 127.0.0.2:$port" $? "HTTP status $code"

other=$(ip -4 -o addr show scope global 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')
if [ -n "$other" ]; then
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$other:$port/metrics")
	[ "$code" = 000 ]
	check "nothing answers on the host's address $other:$port" $? "HTTP status $code"
else
	skip "nothing answers on the host's address" "no global IPv4 address"
fi

if serve "[::1]:$v6port" "$t/srv6"; then
	listen=$(ss -ltnH "sport = :$v6port" | awk '{print $4}')
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://[::1]:$v6port/metrics")
	[ "$listen" = "[::1]:$v6port" ] && [ "$code" = 200 ]
	check "[::1]:$v6port listens on exactly that and answers" $? "ss: '$listen'" "HTTP $code"
else
	skip "[::1] listens on exactly that" "no IPv6 loopback: $(cat "$t/srv6.err")"
fi

# ---- HTTP -----------------------------------------------------------------
ctype=$(curl -s -o /dev/null -w '%{content_type}' "$url")
[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ]
check "GET /metrics: Content-Type is the 0.0.4 text format" $? "got '$ctype'"

code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
[ "$code" = 404 ]
check "GET / is 404" $? "HTTP $code"

curl -s -D "$t/hdr" -o /dev/null -X POST --data x "$url"
grep -q '^HTTP/1.1 405 ' "$t/hdr" && grep -qi '^Allow: GET, HEAD' "$t/hdr"
check "POST /metrics is 405 with Allow: GET, HEAD" $? "$(head -5 "$t/hdr")"

if serve "127.0.0.1:$fport" "$t/srvf" fail; then
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$fport/metrics")
	[ "$code" = 500 ]
	check "a failed render is 500" $? "HTTP $code"
else
	check "a failed render is 500" 1 "$(cat "$t/srvf.err")"
fi

# ---- promtool ---------------------------------------------------------------
curl -s "$url" >"$t/exposition"
promtool check metrics <"$t/exposition" >"$t/lint" 2>&1
st=$?
[ $st = 0 ] && [ ! -s "$t/lint" ]
check "promtool check metrics: no problems" $? "status $st" "$(head -5 "$t/lint")"

# ---- prometheus -------------------------------------------------------------
prom_cmd "$t" "127.0.0.1:$pport" "127.0.0.1:$port"
"${PROM_CMD[@]}" >"$t/prom.log" 2>&1 &
prom_pid=$!
pids+=("$prom_pid")

# query PROMQL: "N VALUE", the number of series and the first one's value
# as a float's shortest repr ("1.5e-05", "5.0").
query() {
	curl -s -G --max-time 3 --data-urlencode "query=$1" \
		"http://127.0.0.1:$pport/api/v1/query" 2>/dev/null |
		python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
except Exception:
    r = []
print(len(r), repr(float(r[0]["value"][1])) if r else "none")'
}

# Scraped once the series are in; 20 s at most.
got=
for ((i = 0; i < 100; i++)); do
	got=$(query 'ksnoop_lost_samples_total{reason="stack not taken"}')
	[ "$got" = "1 3.0" ] && break
	sleep 0.2
done
[ "$got" = "1 3.0" ]
check "prometheus scraped the endpoint" $? "got '$got'" "$(tail -5 "$t/prom.log")"

# expect NAME PROMQL N VALUE: N series, the first one's value VALUE (to 1e-9,
# relative: Prometheus computes in float64).
expect() {
	got=$(query "$2")
	python3 -c '
import math, sys
n, v = sys.argv[1].split()
sys.exit(not (n == sys.argv[2] and v != "none" and
              math.isclose(float(v), float(sys.argv[3]), rel_tol=1e-9)))' "$got" "$3" "$4"
	check "$1" $? "query: $2" "got '$got', want '$3 $4'"
}

expect "up: the target is healthy" 'up{job="ksnoop"}' 1 1
expect "a counter with its labels" 'ksnoop_calls_total{func="ip_send_skb",skb_len="178"}' 1 5
expect "a label value with quotes and a backslash reads back" \
	'ksnoop_calls_total{func="tcp_sendmsg",comm="a \"b\"\\c"}' 1 11
expect "a drop counter at 0 is there" 'ksnoop_lost_samples_total{reason="key table full"}' 1 0
expect "a log2 bucket: le=127 holds the value 1" 'ksnoop_value_bucket{value="skb->len",le="127"}' 1 1
expect "a log2 bucket: le=255 holds 178 too" 'ksnoop_value_bucket{value="skb->len",le="255"}' 1 4
expect "the histogram's _sum" 'ksnoop_value_sum{func="ip_send_skb"}' 1 535
expect "the latency _count" 'ksnoop_latency_seconds_count{func="vfs_read"}' 1 10
expect "the latency _sum, in seconds" 'ksnoop_latency_seconds_sum{func="vfs_read"}' 1 1.5e-05
# 5 calls under 1 us, 5 in [2, 4) us: the 0.75 quantile interpolates
# halfway into le 0.000001999 .. 0.000003999.
expect "histogram_quantile over the latency buckets, in seconds" \
	'histogram_quantile(0.75, ksnoop_latency_seconds_bucket)' 1 2.999e-06
expect "every series of the exposition is stored" \
	'count({__name__=~"ksnoop_.*"})' 1 "$(grep -cv '^#' "$t/exposition")"

kill "$prom_pid" && wait "$prom_pid" 2>/dev/null

# ---- abuse ------------------------------------------------------------------
# For ABUSE_S, from loopback (tests/host/prom_abuse.py): 1,000 idle
# connections held open, 20 slowloris clients, and bad methods and paths,
# HTTP/0.9, pipelined requests, 1 MiB headers and URLs one after another;
# each connection the server closes is opened again. Once it is under way,
# a real prometheus starts, so its connections must get in too, and scrapes
# every second (1 s timeout), and curl GETs /metrics every half second:
# every scrape and every GET gets through, within 2 s. The server has 20
# file descriptors, far fewer than the 64 connections libmicrohttpd may
# hold: running out of them must not stop it answering either.
ABUSE_S=30
mapfile -t ports < <(free_ports 2)
aport=${ports[0]} pport=${ports[1]}
mkdir "$t/abuse"
nofile=$(ulimit -Sn)
ulimit -Sn 20
serve "127.0.0.1:$aport" "$t/srva" || check "the abused server starts" 1 "$(cat "$t/srva.err")"
ulimit -Sn "$nofile"
spid=${pids[-1]}

# vm_kb PID FIELD: a /proc/PID/status field in kB.
vm_kb() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
rss0=$(vm_kb "$spid" VmRSS)
python3 tests/host/prom_abuse.py 127.0.0.1 "$aport" "$ABUSE_S" 1000 20 >"$t/abuse.json" &
abuser=$!
pids+=("$abuser")
sleep 3 # the holders are all connecting by then
from=$(date +%s)
prom_cmd "$t/abuse" "127.0.0.1:$pport" "127.0.0.1:$aport"
"${PROM_CMD[@]}" >"$t/abuse/prom.log" 2>&1 &
pids+=($!)
while kill -0 "$abuser" 2>/dev/null; do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 2 \
		"http://127.0.0.1:$aport/metrics" >>"$t/curls"
	sleep 0.5
done
to=$(date +%s)
wait "$abuser"
rss1=$(vm_kb "$spid" VmHWM)

bad=$(awk '$1 != 200 || $2 >= 2' "$t/curls")
n=$(wc -l <"$t/curls")
[ -z "$bad" ] && [ "$n" -ge $((ABUSE_S / 4)) ]
check "under abuse, each of $n GETs of /metrics is 200 within 2 s" $? \
	"failed: $(echo "$bad" | head -3 | tr '\n' ',')" "$n GETs"

# Prometheus's own record from its start: every scrape up, most taken.
span=$((to - from))
got=$(query "min_over_time(up{job=\"ksnoop\"}[${span}s] @ $to)")
[ "$got" = "1 1.0" ]
check "under abuse, prometheus's up stayed 1 for ${span} s" $? "min(up): '$got'"
got=$(query "count_over_time(up{job=\"ksnoop\"}[${span}s] @ $to)")
python3 -c 'import sys; n, v = sys.argv[1].split(); sys.exit(not (v != "none" and float(v) >= int(sys.argv[2]) / 2))' "$got" "$span"
check "under abuse, prometheus scraped at least every other second" $? "scrapes in ${span} s: '$got'"

python3 - "$t/abuse.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = {"DELETE": "405", "BREW": "405", "path": "404", "body": "405", "pipelined": "200"}
bad = [f"{k}: {v}" for k, v in r["misc"].items() if "timeout" in v]
bad += [f"{k} never got {s}: {r['misc'].get(k)}" for k, s in want.items()
        if not any(a.split()[1:2] == [s] for a in r["misc"].get(k, []))]
if r["idle_opened"] < 1000 or r["slow_opened"] < 20:
    bad.append(f"too few abusers: {r}")
if r["slow_longest_s"] > 15:
    bad.append(f"a slowloris connection lived {r['slow_longest_s']} s")
if bad:
    print("\n".join(bad))
sys.exit(bool(bad))
PY
check "each abuse is answered or closed, none hangs; no slowloris lives 15 s" $? \
	"$(head -c 300 "$t/abuse.json")"

[ -n "$rss0" ] && [ -n "$rss1" ] && [ $((rss1 - rss0)) -le 8192 ]
check "the server's memory stays bounded: peak $rss1 kB from $rss0 kB" $?

kill -0 "$spid" 2>/dev/null && kill -TERM "$spid" && wait "$spid"
check "the abused server exits 0 on SIGTERM" $? "$(tail -3 "$t/srva.err")"

# ---- tests/vm/prometheus.sh, with the fixture server standing in for ksnoop --
mkdir "$t/bin"
cat >"$t/bin/ksnoop" <<EOF
#!/bin/bash
while [ \$# -gt 0 ]; do
	[ "\$1" = --prometheus ] && exec "$PWD/$BIN" --serve "\$2"
	shift
done
exit 2
EOF
chmod +x "$t/bin/ksnoop"
PATH="$t/bin:$PATH" KSNOOP_PROM_PORT=$(free_port_run 3) PROMETHEUS_TIMEOUT=20 \
	tests/vm/prometheus.sh 'ksnoop_calls_total{skb_len="178"}' true count ip_send_skb \
	--next 'count(up{job="ksnoop"} == 1)' true hist ip_send_skb >"$t/vm.out" 2>&1
st=$?
[ $st = 0 ] && [ "$(cat "$t/vm.out")" = $'1: value=5 series=2\n2: value=2 series=1\n1: rc=0\n2: rc=0' ]
check "tests/vm/prometheus.sh reads counters back from two endpoints through one prometheus" $? "status $st" "$(head -5 "$t/vm.out")"
