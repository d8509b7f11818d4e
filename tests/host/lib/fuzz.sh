# Sourced by the host tests that run libFuzzer targets (ktrace.sh: kdump's
# reader, btf.sh: BTF, serve-config.sh: serve's config file, kpe.sh: probe
# definitions).

# Why no libFuzzer target can be built here, or nothing. Then each fuzz
# check is a visible "# SKIP"; a target that fails to build where clang
# has libFuzzer is a failure, never a skip.
fuzz_unavailable() { # scratch-dir
	local cc=${FUZZ_CC:-clang}

	if ! command -v "$cc" >/dev/null; then
		echo "$cc is not installed"
		return
	fi
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
		>"$1/fuzz-probe.c"
	"$cc" -fsanitize=fuzzer,address "$1/fuzz-probe.c" -o "$1/fuzz-probe" >/dev/null 2>&1 ||
		echo "$cc cannot link -fsanitize=fuzzer (no libFuzzer runtime)"
}

# Whether fuzz targets can run here; if not, a "# SKIP" line for each check
# named, through the caller's skip NAME REASON.
fuzz_available() { # scratch-dir check-name...
	local why name dir=$1

	shift
	why=$(fuzz_unavailable "$dir")
	[ -z "$why" ] && return 0
	for name in "$@"; do
		skip "$name" "$why"
	done
	return 1
}

# A check that runs a command, its output in LOG shown only when it fails,
# through the caller's ok NAME and notok NAME DIAG....
fuzz_check() { # name log command...
	local name=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then
		ok "$name"
	else
		notok "$name" "failed: $*" "$(tail -n 20 "$log")"
	fi
}

# A libFuzzer target end to end: built by `make MAKE_TARGET`, replaying
# CORPUS, then fuzzing from it for $KSNOOP_FUZZ_SECONDS (default 15) with
# inputs up to MAX_LEN bytes; a failing input is kept as PREFIX-crash-*
# (-timeout-, -oom-). WHAT names the checks; the caller's ok, notok and
# skip print them (notok NAME DIAG...).
fuzz_target() { # scratch-dir what make-target binary corpus max-len prefix
	local dir=$1 what=$2 target=$3 fz=$4 corpus=$5 max_len=$6 prefix=$7
	local replay="$what fuzz target replays $corpus" run="short fuzz run of the $what"

	fuzz_available "$dir" "$replay" "$run" || return
	if ! make -s "$target" >"$dir/fuzz-build.log" 2>&1; then
		notok "build the $what fuzz target (make $target)" "$(tail -n 20 "$dir/fuzz-build.log")"
		return
	fi
	fuzz_check "$replay" "$dir/replay.log" "$fz" "$corpus"/*
	mkdir -p "$dir/corpus"
	fuzz_check "$run" "$dir/fuzz.log" timeout 120 "$fz" \
		-max_total_time="${KSNOOP_FUZZ_SECONDS:-15}" -max_len="$max_len" -timeout=10 \
		-rss_limit_mb=1024 -artifact_prefix="$prefix" "$dir/corpus" "$corpus"
}
