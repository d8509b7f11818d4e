# shellcheck shell=bash
# Debian's prometheus scraping a ksnoop endpoint, for tests/vm/prometheus.sh
# (in a guest) and tests/host/prom.sh.

# prom_cmd DIR LISTEN TARGET...: write DIR/prometheus.yml (job "ksnoop",
# each TARGET scraped every second) and leave in PROM_CMD the command line
# of a prometheus with its data in DIR/data and its API on LISTEN.
prom_cmd() {
	local dir=$1 listen=$2 targets
	shift 2
	targets=$(printf "'%s', " "$@")
	cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ksnoop
    static_configs:
      - targets: [${targets%, }]
EOF
	# shellcheck disable=SC2034 # read by the sourcing script
	PROM_CMD=(prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data"
		--web.listen-address="$listen" --log.level=warn)
}

# prom_spawn DIR LISTEN TARGET...: prom_cmd's prometheus started in its own
# process group (lib.sh's spawn), its log in DIR/plog, its pid in SPAWNED.
prom_spawn() {
	prom_cmd "$@"
	spawn "${PROM_CMD[@]}" >"$1/plog" 2>&1
}

# prom_query PORT PROMQL: the answer of the query API on 127.0.0.1:PORT,
# as JSON, in $JSON (empty when it does not answer).
prom_query() {
	JSON=$(curl -s -G --max-time 10 --data-urlencode "query=$2" \
		"http://127.0.0.1:$1/api/v1/query" 2>/dev/null)
}
