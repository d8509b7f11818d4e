#!/bin/bash
# Debian kernels for the VM tests, downloaded and unpacked once into a cache
# outside the repo (KSNOOP_CACHE, default /var/cache/ksnoop):
#
#   $KSNOOP_CACHE/deb/linux-image-*.deb      the packages (apt-get download)
#   $KSNOOP_CACHE/kernels/KVER/              dpkg-deb -x of each package
#   $KSNOOP_CACHE/kernels/KVER/boot/vmlinux-KVER   the uncompressed kernel
#
# QEMU boots the uncompressed ELF directly through its PVH entry point: under
# TCG that saves the 4-5 s the bzImage spends decompressing itself.
#
# Usage:
#   scripts/kernels.sh [fetch] [6.1|6.12 ...]   unpack (default: all kernels)
#   scripts/kernels.sh kver 6.1                 print the release, 6.1.0-50-amd64
#   scripts/kernels.sh dir 6.1                  print the unpacked root (fetches)
#   scripts/kernels.sh list                     print the known short names
#
# KSNOOP_ARCH=arm64 does the same for the arm64 kernels, in
# $KSNOOP_CACHE/arm64 (the foreign architecture must be enabled first:
# scripts/arm64.sh deps).
#
# Idempotent and safe to run concurrently: a lock serialises the work and a
# stamp file marks a finished unpack, so an interrupted run starts over.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}
ARCH=${KSNOOP_ARCH:-x86}

# short name -> Debian package (the -unsigned flavour has 9p; cloud has not)
case $ARCH in
x86)
	declare -A PKG=(
		[6.1]=linux-image-6.1.0-50-amd64-unsigned
		[6.12]=linux-image-6.12.117+deb12-amd64-unsigned
	)
	APT_ARCH=
	;;
arm64)
	declare -A PKG=(
		[6.1]=linux-image-6.1.0-50-arm64-unsigned
		[6.12]=linux-image-6.12.117+deb12-arm64-unsigned
	)
	APT_ARCH=:arm64
	CACHE=$CACHE/arm64
	;;
*)
	echo "Error: unknown KSNOOP_ARCH '$ARCH': use x86 or arm64" >&2
	exit 1
	;;
esac
NAMES=(6.1 6.12)

pkg_of() {
	[ -n "${PKG[$1]:-}" ] || die "unknown kernel '$1' (known: ${NAMES[*]})"
	echo "${PKG[$1]}"
}

# linux-image-6.1.0-50-amd64-unsigned -> 6.1.0-50-amd64
kver_of() {
	local p
	p=$(pkg_of "$1")
	p=${p#linux-image-}
	echo "${p%-unsigned}"
}

find_deb() {
	local f
	for f in "$CACHE/deb/$1"_*.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

download() {
	apt_download "$CACHE/deb" "$1$APT_ARCH" ||
		die "cannot download $1$APT_ARCH (see $APT_LOG)${APT_ARCH:+; is the architecture enabled? run scripts/arm64.sh deps}"
}

# Like the kernel's scripts/extract-vmlinux: try every compressed-stream
# magic in the bzImage until one decompresses to an ELF file.
extract_vmlinux() {
	local img=$1 out=$2 magic tool pos
	for magic in '\xfd7zXZ\x00:xz -dcq' '\x28\xb5\x2f\xfd:zstd -dcq' '\x1f\x8b\x08:gzip -dcq'; do
		tool=${magic#*:}
		command -v "${tool%% *}" >/dev/null || continue
		for pos in $(LC_ALL=C grep -obUaP "${magic%%:*}" "$img" | cut -d: -f1); do
			tail -c +$((pos + 1)) "$img" | $tool >"$out.tmp" 2>/dev/null
			if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ] &&
				readelf -l "$out.tmp" >/dev/null 2>&1; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}

fetch_one() {
	local name=$1 pkg kver dir
	pkg=$(pkg_of "$name")
	kver=$(kver_of "$name")
	dir=$CACHE/kernels/$kver
	[ -f "$dir/.unpacked" ] || unpack "$pkg" "$kver" "$dir"
	[ -f "$dir/.vmlinux" ] && return 0
	# Without CONFIG_PVH QEMU cannot boot the ELF; keep the bzImage then.
	if grep -q '^CONFIG_PVH=y' "$dir/boot/config-$kver"; then
		echo "kernels: extracting vmlinux-$kver" >&2
		extract_vmlinux "$dir/boot/vmlinuz-$kver" "$dir/boot/vmlinux-$kver" ||
			echo "kernels: cannot extract vmlinux-$kver; the VM boots the slower bzImage" >&2
	fi
	touch "$dir/.vmlinux"
}

unpack() {
	local pkg=$1 kver=$2 dir=$3 deb
	deb=$(find_deb "$pkg") || { download "$pkg"; deb=$(find_deb "$pkg"); } ||
		die "no .deb for $pkg in $CACHE/deb after download"
	echo "kernels: unpacking $(basename "$deb")" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$deb" "$dir"
	[ -f "$dir/boot/vmlinuz-$kver" ] || die "$deb has no boot/vmlinuz-$kver"
	touch "$dir/.unpacked"
}

fetch() {
	local n
	[ $# -gt 0 ] || set -- "${NAMES[@]}"
	for n in "$@"; do
		pkg_of "$n" >/dev/null
	done
	for n in "$@"; do
		fetch_one "$n"
	done
}

cmd=${1:-fetch}
case $cmd in
fetch)
	shift || true
	locked "$CACHE" fetch "$@"
	;;
kver)
	[ $# -eq 2 ] || die "usage: $0 kver NAME"
	kver_of "$2"
	;;
dir)
	[ $# -eq 2 ] || die "usage: $0 dir NAME"
	kver=$(kver_of "$2")
	[ -f "$CACHE/kernels/$kver/.unpacked" ] && [ -f "$CACHE/kernels/$kver/.vmlinux" ] ||
		locked "$CACHE" fetch "$2"
	echo "$CACHE/kernels/$kver"
	;;
list)
	echo "${NAMES[@]}"
	;;
6.*)
	locked "$CACHE" fetch "$@"
	;;
*)
	die "unknown command '$cmd'; see the top of $0"
	;;
esac
