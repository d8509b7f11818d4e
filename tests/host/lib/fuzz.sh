# Sourced by the host tests that run libFuzzer targets (ktrace.sh: kdump's
# reader, btf.sh: BTF, serve-config.sh: serve's config file).

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
