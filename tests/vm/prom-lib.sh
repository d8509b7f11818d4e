# shellcheck shell=bash
# Debian's prometheus scraping a ksnoop endpoint, for tests/vm/prometheus.sh
# (in a guest) and tests/host/prom.sh.

# prom_cmd DIR TARGET LISTEN: write DIR/prometheus.yml (job "ksnoop",
# TARGET scraped every second) and leave in PROM_CMD the command line of a
# prometheus with its data in DIR/data and its API on LISTEN.
prom_cmd() {
	cat >"$1/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ksnoop
    static_configs:
      - targets: ['$2']
EOF
	# shellcheck disable=SC2034 # read by the sourcing script
	PROM_CMD=(prometheus --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/data"
		--web.listen-address="$3" --log.level=warn)
}
