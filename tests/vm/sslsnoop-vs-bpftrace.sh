#!/bin/bash
# bpftrace's sslsnoop.bt (its libssl probes) beside ksnoop trace -j of libssl's SSL_read,
# SSL_write and SSL_do_handshake with their returns, in one boot: openssl's
# s_server and s_client on loopback, a fresh P-256 certificate, N client
# connections that each send one HTTP request (s_server -www answers).
# Prints, per function, "FUNC ksnoop=K bpftrace=B same=yes|no": the calls
# of the openssl processes each printed, and whether both saw the same
# return values (sorted); and "FUNC latency count=H calls=B": the calls
# ksnoop hist --latency --comm openssl (ssllatency) timed, beside
# bpftrace's; then each
# tool's errors.
#
#   tests/vm/sslsnoop-vs-bpftrace.sh N
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ssl-lib.sh"
n=$1
T=$(mktemp -d /tmp/sslsnoop.XXXXXX) || exit 125
kpid= bpid= hpid=
trap 'kill -KILL $kpid $bpid $hpid 2>/dev/null; rm -rf "$T"' EXIT
command -v openssl >/dev/null || { echo "sslsnoop: no openssl"; exit 125; }
port=$((20000 + $$ % 20000))

ssl_cert "$T" || exit 125
: >"$T/k.out"
: >"$T/b.out"
# sslsnoop.bt's probes on libssl, each naming its function itself: the
# tool's own "func" names a return's function by its address at print time,
# which for a client gone by then is the bare address (bpftrace 0.17)
prog='BEGIN { printf("Tracing\n"); }'
for f in SSL_read SSL_write SSL_do_handshake; do
	prog+=" uprobe:libssl:$f { @start_$f[tid] = nsecs; }
uretprobe:libssl:$f /@start_$f[tid] != 0/ { printf(\"%-10u %-8d %-8s %7u %5d $f\\n\",
	elapsed / 1000, tid, comm, (nsecs - @start_$f[tid]) / 1000, retval); delete(@start_$f[tid]); }"
done
spawn bpftrace -e "$prog" >"$T/b.out" 2>"$T/b.err"
bpid=$SPAWNED
tracing_ready "$T/b.out" $bpid
spawn ksnoop -j trace 'ssl:SSL_read(int return)' 'ssl:SSL_write(int return)' \
	'ssl:SSL_do_handshake(int return)' >"$T/k.out" 2>"$T/k.err"
kpid=$SPAWNED
spawn ksnoop hist --latency --unit us --comm openssl 'ssl:SSL_read' 'ssl:SSL_write' \
	'ssl:SSL_do_handshake' >"$T/h.out" 2>"$T/h.err"
hpid=$SPAWNED
wait_polling $kpid
tracing_ready "$T/h.err" $hpid
ssl_traffic "$T" $port $n
sleep_s 0.5
kill -INT $hpid
now
wait_until $hpid $((NOW + 30000000))
stop_beside_bpftrace $kpid $bpid
for f in SSL_read SSL_write SSL_do_handshake; do
	grep '"comm":"openssl"' "$T/k.out" | grep -F "\"function\":\"ssl:$f\"" |
		sed -n 's/.*"name":"return","type":"int","value":\(-\{0,1\}[0-9]*\).*/\1/p' | sort -n >"$T/k.$f"
	awk -v f="$f" '$3 == "openssl" && $6 == f { print $5 }' "$T/b.out" | sort -n >"$T/b.$f"
	same=no
	cmp -s "$T/k.$f" "$T/b.$f" && same=yes
	echo "$f ksnoop=$(wc -l <"$T/k.$f") bpftrace=$(wc -l <"$T/b.$f") same=$same"
	echo "$f latency count=$(awk -v f="ssl:$f: latency (us)" '$0 == f { getline
		sub(",", "", $2); n = $2 } END { print n + 0 }' "$T/h.out") calls=$(wc -l <"$T/b.$f")"
done
grep -h -e Error -e Warning "$T/k.err" "$T/h.err" | head -3
grep -h -i error "$T/b.err" | grep -v RLIMIT_MEMLOCK | head -3
exit 0
