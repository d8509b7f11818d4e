#!/bin/bash
# ksnoop serve's configuration parser under ASan and UBSan (TAP): the
# libFuzzer target (tests/fuzz/serve_config_fuzz.c, `make
# fuzz-serve-config`) replays tests/fuzz/serve-config-corpus, then fuzzes
# briefly from it; an input that fails is kept as
# build/fuzz/serve-config-crash-* (or -timeout-, -oom-). The parser's
# messages and fields are the unit test's (tests/unit/test_serve_config.c).
#   KSNOOP_FUZZ_SECONDS=N  length of the fuzz run (default 15)
set -uo pipefail
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d /tmp/ksnoop-serve.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - serve-config: $*"; }
notok() { echo "not ok - serve-config: $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { echo "ok - serve-config: $1 # SKIP $2"; }

fuzz_tests() {
	local fz=build/fuzz/serve_config_fuzz corpus=tests/fuzz/serve-config-corpus
	local replay="config fuzz target replays $corpus" run="short fuzz run of the config parser"

	. tests/host/lib/fuzz.sh
	fuzz_available "$tmp" "$replay" "$run" || return
	if ! make -s fuzz-serve-config >"$tmp/fuzz-build.log" 2>&1; then
		notok "build the config fuzz target (make fuzz-serve-config)" \
			"$(tail -n 20 "$tmp/fuzz-build.log")"
		return
	fi
	fuzz_check "$replay" "$tmp/replay.log" "$fz" "$corpus"/*
	mkdir -p "$tmp/corpus"
	# Longer inputs than SERVE_LINE_MAX, so the line limit is crossed too.
	fuzz_check "$run" "$tmp/fuzz.log" timeout 120 "$fz" \
		-max_total_time="${KSNOOP_FUZZ_SECONDS:-15}" -max_len=9000 -timeout=10 \
		-rss_limit_mb=1024 -artifact_prefix=build/fuzz/serve-config- "$tmp/corpus" "$corpus"
}

fuzz_tests
exit 0
