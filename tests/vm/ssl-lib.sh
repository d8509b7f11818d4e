# shellcheck shell=bash
# TLS traffic on loopback for the libssl cases, sourced after lib.sh:
# Debian's openssl s_server -www and s_client with a fresh P-256
# certificate; each client sends one 18-byte HTTP request.

# ssl_cert DIR: DIR/cert.pem and DIR/key.pem; 1, with a line on stdout, if openssl cannot.
ssl_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-subj /CN=localhost -days 2 -keyout "$1/key.pem" -out "$1/cert.pem" \
		2>"$1/req.err" && return 0
	echo "no certificate: $(head -1 "$1/req.err")"
	return 1
}

# ssl_traffic DIR PORT N: the server on 127.0.0.1:PORT with DIR's
# certificate, N clients one after another, then the server killed.
ssl_traffic() {
	local dir=$1 port=$2 n=$3 spid i
	spawn openssl s_server -quiet -www -accept "127.0.0.1:$port" -cert "$dir/cert.pem" \
		-key "$dir/key.pem" >/dev/null 2>&1
	spid=$SPAWNED
	for ((i = 0; i < 300; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep_s 0.1
	done
	for ((i = 0; i < n; i++)); do
		printf 'GET / HTTP/1.0\r\n\r\n' |
			run_timeout 60 openssl s_client -quiet -connect "127.0.0.1:$port" >/dev/null 2>&1
	done
	sleep_s 1
	{
		kill -KILL $spid
		wait $spid
	} 2>/dev/null
}
