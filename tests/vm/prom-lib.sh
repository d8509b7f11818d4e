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
