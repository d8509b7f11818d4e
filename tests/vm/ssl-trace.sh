#!/bin/bash
# sslsnoop's and ssllatency's questions answered by ksnoop alone, where
# there may be no bpftrace (the arm64 guests): Debian's openssl s_server
# -www and s_client on loopback, a fresh P-256 certificate, N client
# connections that each send one 18-byte HTTP request. The clients call
# libssl's SSL_write and SSL_read (the server's SSL BIO calls libssl's
# internals, which export no symbol). ksnoop trace -j of both, with
# SSL_write's prototype from the spec, beside ksnoop hist --latency of
# SSL_write. Prints:
#   SSL_write requests=R num=18 buf=GET / HTTP/1.0   the calls that
#                      returned 18: their count, and each one's num and
#                      buffer when all are equal
#   SSL_read clients=C with-bytes=B  clients that read, and how many of
#                      them got bytes back (the server's page)
#   latency SSL_write count=H calls=W  the calls hist timed, beside the
#                      calls trace printed
# then ksnoop's errors.
#
#   tests/vm/ssl-trace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ssl-lib.sh"
n=$1
T=$(mktemp -d /tmp/ssltrace.XXXXXX) || exit 125
kpid= hpid=
trap 'kill -KILL $kpid $hpid 2>/dev/null; rm -rf "$T"' EXIT
command -v openssl >/dev/null || { echo "ssl-trace: no openssl"; exit 125; }
port=$((20000 + $$ % 20000))

ssl_cert "$T" || exit 125
: >"$T/k.out"
spawn ksnoop -j trace --comm openssl 'ssl:SSL_write(void *ssl, const char *buf, int num, int return)' \
	'ssl:SSL_read(int return)' \
	>"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
spawn ksnoop hist --latency --unit us --comm openssl 'ssl:SSL_write' >"$T/h.out" 2>"$T/h.err"
hpid=$SPAWNED
wait_polling $kpid || { echo "ssl-trace: trace did not start: $(head -1 "$T/k.err")"; exit 1; }
tracing_ready "$T/h.err" $hpid || { echo "ssl-trace: hist did not start: $(head -1 "$T/h.err")"; exit 1; }
ssl_traffic "$T" $port $n
sleep_s 0.5
kill -INT $kpid $hpid
now
wait_until $kpid $((NOW + 30000000))
wait_until $hpid $((NOW + 30000000))

# SSL_write's buffer holds any bytes when num is 0, and is no C string (a
# string read of it goes on past num): each figure is its own grep
grep -F '"function":"ssl:SSL_write"' "$T/k.out" >"$T/writes"
grep -F '{"name":"num","type":"int","value":18},{"name":"return","type":"int","value":18}' \
	"$T/writes" >"$T/requests"
r=$(wc -l <"$T/requests")
what=mixed
[ "$(grep -c -F '"value":"GET / HTTP/1.0\u000d\u000a\u000d\u000a' "$T/requests")" = "$r" ] &&
	what="18 buf=GET / HTTP/1.0"
echo "SSL_write requests=$r num=$what"
[ "$what" = mixed ] && sed -n 's/.*"name":"buf",\([^}]*}\).*/request: \1/p' "$T/requests" | head -3
sed -n 's/.*"pid":\([0-9]*\).*"function":"ssl:SSL_read".*"value":\(-\{0,1\}[0-9]*\)}]}$/\1 \2/p' \
	"$T/k.out" | awk '{ c[$1] = 1; if ($2 > 0) got[$1] = 1 }
		END { for (p in c) nc++; for (p in got) ng++
		      printf "SSL_read clients=%d with-bytes=%d\n", nc, ng }'
echo "latency SSL_write count=$(awk '$0 == "ssl:SSL_write: latency (us)" { getline
	sub(",", "", $2); n = $2 } END { print n + 0 }' "$T/h.out") calls=$(wc -l <"$T/writes")"
grep -h -e Error -e Warning "$T/k.err" "$T/h.err" | head -3
exit 0
