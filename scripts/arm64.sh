#!/bin/bash
# What the arm64 build and its emulated VM tests need, on an x86-64 Debian 12
# build host. Every command is idempotent.
#
#   scripts/arm64.sh deps        enable the arm64 architecture in dpkg and
#                                install the cross compiler, the :arm64
#                                libraries and qemu-system-arm
#   scripts/arm64.sh userland    print the directory holding the guest's
#                                static arm64 busybox and bash, and the
#                                Debian bash, openssl and libssl the user
#                                space cases probe (downloaded and unpacked
#                                once into the cache)
#   scripts/arm64.sh btf NAME FILE   write kernel NAME's (6.1, 6.12) raw
#                                vmlinux BTF to FILE
#
# The kernels themselves come from KSNOOP_ARCH=arm64 scripts/kernels.sh.
# KSNOOP_CACHE (default /var/cache/ksnoop) holds everything under arm64/.
#
# Multiarch: libbpf-dev, libelf-dev, zlib1g-dev and libdw-dev (with its
# liblzma-dev and libbz2-dev) are "Multi-Arch: same", so their :arm64
# builds install beside the amd64 ones the x86 build uses.
# busybox-static is not (it would replace the amd64 busybox the x86 VM
# boots with) and bash-static is not needed on the host, so both are only
# unpacked into the cache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

REPO=$KSNOOP_REPO
CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}/arm64

# package                  why
PKGS=(
	gcc-aarch64-linux-gnu  # cross compiler for ksnoop and the workload
	libc6-dev:arm64        # libc.a for the static links
	libbpf-dev:arm64       # libbpf.a
	libelf-dev:arm64       # libelf.a (libbpf's ELF dependency)
	zlib1g-dev:arm64       # libz.a (libelf's and libbpf's)
	libdw-dev:arm64        # libdw.a: user functions' DWARF
	liblzma-dev:arm64      # liblzma.a (libdw's)
	libbz2-dev:arm64       # libbz2.a (libdw's)
	qemu-system-arm        # qemu-system-aarch64 (TCG)
	cpio                   # initramfs packing
	xz-utils               # 6.12 ships .ko.xz modules
)
# The guest's shell and tools, then what the user-space cases probe: Debian's
# own bash (readline) and openssl with libssl, dynamic on the payload's libc.
USERLAND_PKGS=(busybox-static bash-static bash libtinfo6 openssl libssl3)

deps() {
	local missing=() p
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" = 0 ] || die "dpkg has no arm64 architecture; as root run: dpkg --add-architecture arm64 && apt-get update"
		echo "arm64: enabling the arm64 architecture in dpkg (log: $APT_LOG)" >&2
		dpkg --add-architecture arm64
		apt_update || die "apt-get update failed; see $APT_LOG"
	fi
	for p in "${PKGS[@]}"; do
		installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}; run as root or install them"
	echo "arm64: installing ${missing[*]} (log: $APT_LOG)" >&2
	apt_install "${missing[@]}" || die "apt-get failed installing ${missing[*]}; see $APT_LOG"
}

fetch_userland() {
	local dir=$CACHE/userland p deb
	# the marker names the packages: a changed list unpacks anew
	[ "$(cat "$dir/.unpacked" 2>/dev/null)" = "${USERLAND_PKGS[*]}" ] && return 0
	mkdir -p "$CACHE/deb"
	for p in "${USERLAND_PKGS[@]}"; do
		compgen -G "$CACHE/deb/${p}_*_arm64.deb" >/dev/null && continue
		apt_download "$CACHE/deb" "$p:arm64" ||
			die "cannot download $p:arm64 (see $APT_LOG; run scripts/arm64.sh deps first)"
	done
	rm -rf "$dir"
	mkdir -p "$dir"
	for p in "${USERLAND_PKGS[@]}"; do
		for deb in "$CACHE/deb/${p}_"*_arm64.deb; do
			dpkg-deb -x "$deb" "$dir"
		done
	done
	[ -x "$dir/bin/busybox" ] && [ -x "$dir/bin/bash-static" ] && [ -x "$dir/bin/bash" ] &&
		[ -x "$dir/usr/bin/openssl" ] ||
		die "the userland packages lack bin/busybox, bin/bash-static, bin/bash or usr/bin/openssl"
	echo "${USERLAND_PKGS[*]}" >"$dir/.unpacked"
}

# The arm64 package ships a raw Image (no ELF sections, no System.map), but
# the .BTF section is in it verbatim: find the header (magic 0xeB9F,
# version 1, hdr_len 24) and cut hdr_len + str_off + str_len bytes.
extract_btf() {
	local img=$1 out=$2 pos f size total
	total=$(stat -c %s "$img")
	for pos in $(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$img" | cut -d: -f1); do
		# magic|version|flags, hdr_len, type_off, type_len, str_off, str_len
		read -r -a f < <(od -An -v -w24 -j "$pos" -N 24 -t u4 "$img")
		size=$((f[1] + f[4] + f[5]))
		[ "${f[2]}" = 0 ] && [ "${f[4]}" = "${f[3]}" ] && [ $((pos + size)) -le "$total" ] ||
			continue
		dd if="$img" of="$out.tmp" bs=1M iflag=skip_bytes,count_bytes \
			skip="$pos" count="$size" status=none
		if bpftool btf dump file "$out.tmp" >/dev/null 2>&1; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done
	rm -f "$out.tmp"
	die "no vmlinux BTF found in $img"
}

btf() {
	local name=$1 out=$2 kroot kver
	kroot=$(KSNOOP_ARCH=arm64 "$REPO/scripts/kernels.sh" dir "$name")
	kver=$(KSNOOP_ARCH=arm64 "$REPO/scripts/kernels.sh" kver "$name")
	extract_btf "$kroot/boot/vmlinuz-$kver" "$out"
}

case ${1:-} in
deps)
	deps
	;;
userland)
	locked "$CACHE" fetch_userland
	echo "$CACHE/userland"
	;;
btf)
	[ $# -eq 3 ] || die "usage: $0 btf 6.1|6.12 FILE"
	btf "$2" "$3"
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
