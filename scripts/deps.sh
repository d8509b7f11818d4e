#!/bin/bash
# Install exactly the Debian packages a purpose needs and that are missing.
# Safe to run repeatedly; does nothing when all are present.
#   scripts/deps.sh build        what building and make vm need
#   scripts/deps.sh test         build + the tests (the default: make test)
#   scripts/deps.sh bench        build + the comparison tools of make bench
#   scripts/deps.sh --list WHAT  print WHAT's packages, one a line; install nothing
# apt's output goes to $KSNOOP_DEPS_LOG (default: the repository's
# build/deps-apt.log, wherever this runs from); each step prints one line
# on stderr.
set -euo pipefail

# package             why
BUILD_PKGS=(
	make              # build driver
	gcc               # user-space compiler
	libc6-dev         # C headers, and libc.a for the static test workload
	clang             # BPF compiler (clang -target bpf)
	llvm              # llvm-strip for BPF objects
	bpftool           # vmlinux.h and skeleton generation
	libbpf-dev        # libbpf 1.1: loader, BTF, ring buffer
	libelf-dev        # libbpf's ELF dependency
	zlib1g-dev        # libbpf's zlib dependency
	libdw-dev         # user functions' parameters from DWARF (elfutils' libdw)
	libbz2-dev        # libdw's, for STATIC=1 (libdw-dev brings liblzma-dev)
	pkg-config        # library flags
	libmicrohttpd-dev # --prometheus: the /metrics HTTP endpoint
	qemu-system-x86   # make vm, VM tests (TCG)
	busybox-static    # VM initramfs
	cpio              # initramfs packing
	xz-utils          # 6.12, 7.3 ship .ko.xz modules; 5.10, 6.1 bzImages are xz
	zstd              # 6.12, 7.3 bzImages are zstd (scripts/kernels.sh unpacks them)
	iproute2          # loopback setup inside the VM
)
TEST_PKGS=(
	clang-format      # tests/host/format.sh: the tree follows .clang-format
	libcmocka-dev     # unit tests
	valgrind          # error-path tests
	python3           # VM checks: JSON schema, generated kprobe_events lines
	prometheus        # tests/host/prom.sh scrapes the endpoint; promtool checks it
	curl              # tests/host/prom.sh: HTTP requests to the endpoint
	dpkg-dev          # make deb: dpkg-buildpackage
	debhelper         # make deb: debian/rules uses dh
	lintian           # tests/host/deb.sh: the package has no lintian error
	mandoc            # tests/host/manlint.sh: mandoc -Tlint on every man page
	bpftrace          # VM cases: bpftrace's own tools beside ksnoop, same boot
	libc6-dbg         # libc's debug file: tests name its functions and parameters
	gdb               # VM cases: --call-graph dwarf's stacks beside gdb's backtrace
	openssl           # VM cases: a TLS server and client on loopback, for sslsnoop
	chromium          # tests/host/flame.sh: --svg's flame graph, searched and zoomed in a browser
	libxml2-utils     # tests/host/flame.sh: xmllint checks the SVG
)
BENCH_PKGS=(
	strace            # ktrace overhead comparison in make bench
	bpftrace          # side-by-side comparison in make bench
)

here=$(dirname "$0")
. "$here/lib.sh"

# packages PURPOSE: the purpose's packages, one a line.
packages() {
	case $1 in
	build) printf '%s\n' "${BUILD_PKGS[@]}" ;;
	test) printf '%s\n' "${BUILD_PKGS[@]}" "${TEST_PKGS[@]}" ;;
	bench) printf '%s\n' "${BUILD_PKGS[@]}" "${BENCH_PKGS[@]}" ;;
	*) die "unknown purpose '$1' (want build, test or bench)" ;;
	esac
}

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
[ $# -le 1 ] || die "too many arguments (usage: deps.sh [--list] [build|test|bench])"
purpose=${1:-test}
pkgs=$(packages "$purpose")
if [ $list = 1 ]; then
	echo "$pkgs"
	exit 0
fi

missing=()
for p in $pkgs; do
	installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]}; run as root or install them"
	echo "deps: installing ${missing[*]} (log: $APT_LOG)" >&2
	apt_install "${missing[@]}" || die "apt-get failed installing ${missing[*]}; see $APT_LOG"
fi

[ "$purpose" = test ] || exit 0
# The arm64 cross toolchain and emulator, for the arm64 VM matrix that
# make test runs unless KSNOOP_ARM64=0. Its kernels, like the x86-64 ones,
# are downloaded on first use into $KSNOOP_CACHE (scripts/kernels.sh).
[ "${KSNOOP_ARM64:-1}" = 0 ] || "$here/arm64.sh" deps
# The reference ksnoop, unpacked into the cache for tests/host/info.sh.
exec "$here/reference.sh"
