#!/bin/bash
# Install exactly the Debian packages ksnoop's build and tests need and that
# are missing. Safe to run repeatedly; does nothing when all are present.
set -euo pipefail

# package             why
PKGS=(
	make              # build driver
	gcc               # user-space compiler
	libc6-dev         # C headers, and libc.a for the static test workload
	clang             # BPF compiler (clang -target bpf)
	clang-format      # tests/host/format.sh: the tree follows .clang-format
	llvm              # llvm-strip for BPF objects
	bpftool           # vmlinux.h and skeleton generation
	libbpf-dev        # libbpf 1.1: loader, BTF, ring buffer
	libelf-dev        # libbpf's ELF dependency
	zlib1g-dev        # libbpf's zlib dependency
	pkg-config        # library flags
	libcmocka-dev     # unit tests
	qemu-system-x86   # VM tests (TCG)
	busybox-static    # VM initramfs
	cpio              # initramfs packing
	xz-utils          # 6.12 ships .ko.xz modules; 6.1's bzImage is xz
	zstd              # 6.12's bzImage is zstd (scripts/kernels.sh unpacks it)
	iproute2          # loopback setup inside the VM
	valgrind          # error-path tests
	python3           # VM checks: JSON schema, generated kprobe_events lines
	strace            # ktrace overhead comparison in make bench
	bpftrace          # side-by-side comparison in make bench
	libmicrohttpd-dev # --prometheus: the /metrics HTTP endpoint
	prometheus        # tests/host/prom.sh scrapes the endpoint; promtool checks it
	curl              # tests/host/prom.sh: HTTP requests to the endpoint
	dpkg-dev          # make deb: dpkg-buildpackage
	debhelper         # make deb: debian/rules uses dh
	lintian           # tests/host/deb.sh: the package has no lintian error
	mandoc            # tests/host/manlint.sh: mandoc -Tlint on every man page
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
# The arm64 cross toolchain and emulator, for the arm64 VM matrix that
# make test runs unless KSNOOP_ARM64=0. Its kernels, like the x86-64 ones,
# are downloaded on first use into $KSNOOP_CACHE (scripts/kernels.sh).
[ "${KSNOOP_ARM64:-1}" = 0 ] || "$(dirname "$0")/arm64.sh" deps
# The reference ksnoop, unpacked into the cache for comparison tests.
reference="$(dirname "$0")/reference.sh"
[ ${#missing[@]} -eq 0 ] && exec "$reference"

if [ "$(id -u)" -ne 0 ]; then
	echo "Error: missing packages: ${missing[*]}; run as root or install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
exec "$reference"
