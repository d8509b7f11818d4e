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
	. tests/host/lib/fuzz.sh
	# Longer inputs than SERVE_LINE_MAX, so the line limit is crossed too.
	fuzz_target "$tmp" "config parser" fuzz-serve-config build/fuzz/serve_config_fuzz \
		tests/fuzz/serve-config-corpus 9000 build/fuzz/serve-config-
}

fuzz_tests
exit 0
