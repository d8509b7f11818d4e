#!/bin/bash
# Debian kernels for the VM tests, downloaded and unpacked once into a cache
# outside the repo (KSNOOP_CACHE, default /var/cache/ksnoop):
#
#   $KSNOOP_CACHE/deb/*.deb                  the packages (apt-get download)
#   $KSNOOP_CACHE/kernels/KVER/              dpkg-deb -x of each package
#   $KSNOOP_CACHE/kernels/KVER/boot/vmlinux-KVER   the uncompressed kernel
#   $KSNOOP_CACHE/apt/                       the private apt state (below)
#
# The kernels, x86-64 (arm64):
#   5.10  5.10.0-46-amd64 (5.10.0-32-arm64)   bullseye, bullseye-security
#   6.1   6.1.0-50-amd64 (-arm64)             bookworm (the system's apt)
#   6.12  6.12.117+deb12-amd64 (-arm64)       bookworm (the system's apt)
#   7.3   7.3.4+deb13-amd64 (x86-64 only)     trixie-backports
# The VM matrix boots 6.1 and 6.12 by default (tests/vm/arch.sh); 5.10
# and 7.3 on request (KERNELS, ARM64_KERNELS, --kernel).
#
# 6.1 and 6.12 come from the system's apt sources. The other suites are
# never added there: scripts/lib.sh's apt_download_suite keeps a
# sources.list, package lists and apt cache of its own in
# $KSNOOP_CACHE/apt (shared by both architectures), fetches the lists on
# first use and refreshes them once when a download fails.
#
# 7.3 comes as three packages, laid out the merged-/usr way:
# linux-binary-unsigned-KVER (usr/lib/modules/KVER/vmlinuz.unsigned),
# linux-modules-KVER (.ko.xz) and linux-base-KVER (config, modules.order,
# modules.builtin; its System.map is a stub). The unpacked tree gets the
# older packages' paths as links: boot/vmlinuz-KVER, boot/config-KVER and
# lib -> usr/lib.
#
# QEMU boots the uncompressed ELF directly through its PVH entry point: under
# TCG that saves the 4-5 s the bzImage spends decompressing itself. It is
# extracted when the config has CONFIG_PVH=y (x86-64 only), or, for a
# kernel without a config, when the extracted ELF carries the PVH note.
#
# Usage:
#   scripts/kernels.sh [fetch] [5.10|6.1|6.12|7.3 ...]   unpack (default: all kernels)
#   scripts/kernels.sh kver 6.1                 print the release, 6.1.0-50-amd64
#   scripts/kernels.sh dir 6.1                  print the unpacked root (fetches)
#   scripts/kernels.sh list                     print the known short names, oldest first
#
# KSNOOP_ARCH=arm64 does the same for the arm64 kernels (5.10, 6.1, 6.12),
# in $KSNOOP_CACHE/arm64 (the foreign architecture must be enabled first:
# scripts/arm64.sh deps).
#
# Idempotent and safe to run concurrently: a lock serialises the work and a
# stamp file marks a finished unpack, so an interrupted run starts over.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}
ARCH=${KSNOOP_ARCH:-x86}

# short name -> release and Debian packages (the -unsigned flavour has 9p;
# cloud has not). 6.1 and 6.12 come from the system's apt sources; the
# others from suites it has not, through the private apt state in SUITE_APT
# (scripts/lib.sh, apt_download_suite). 7.3 is split the new way: the
# image, the modules, and linux-base with the config and modules.order.
declare -A KVER PKGS SUITE=([5.10]=1 [7.3]=1)
case $ARCH in
x86)
	KVER=(
		[5.10]=5.10.0-46-amd64
		[6.1]=6.1.0-50-amd64
		[6.12]=6.12.117+deb12-amd64
		[7.3]=7.3.4+deb13-amd64
	)
	PKGS=(
		[5.10]=linux-image-5.10.0-46-amd64-unsigned
		[6.1]=linux-image-6.1.0-50-amd64-unsigned
		[6.12]=linux-image-6.12.117+deb12-amd64-unsigned
		[7.3]="linux-binary-unsigned-7.3.4+deb13-amd64 linux-modules-7.3.4+deb13-amd64 linux-base-7.3.4+deb13-amd64"
	)
	NAMES=(5.10 6.1 6.12 7.3)
	APT_ARCH=
	;;
arm64)
	# bullseye-security's arm64 5.10 builds are not all on the mirror;
	# the 5.10.0-32 of the bullseye point release is.
	KVER=(
		[5.10]=5.10.0-32-arm64
		[6.1]=6.1.0-50-arm64
		[6.12]=6.12.117+deb12-arm64
	)
	PKGS=(
		[5.10]=linux-image-5.10.0-32-arm64-unsigned
		[6.1]=linux-image-6.1.0-50-arm64-unsigned
		[6.12]=linux-image-6.12.117+deb12-arm64-unsigned
	)
	NAMES=(5.10 6.1 6.12)
	APT_ARCH=:arm64
	CACHE=$CACHE/arm64
	;;
*)
	echo "Error: unknown KSNOOP_ARCH '$ARCH': use x86 or arm64" >&2
	exit 1
	;;
esac
# One apt state for both architectures' caches.
SUITE_APT=${KSNOOP_CACHE:-/var/cache/ksnoop}/apt

pkgs_of() {
	[ -n "${PKGS[$1]:-}" ] || die "unknown kernel '$1' (known: ${NAMES[*]})"
	echo "${PKGS[$1]}"
}

# 6.1 -> 6.1.0-50-amd64
kver_of() {
	pkgs_of "$1" >/dev/null
	echo "${KVER[$1]}"
}

find_deb() {
	local f
	for f in "$CACHE/deb/$1"_*.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# download NAME PKG
download() {
	if [ -n "${SUITE[$1]:-}" ]; then
		apt_download_suite "$SUITE_APT" "$CACHE/deb" "$2$APT_ARCH"
	else
		apt_download "$CACHE/deb" "$2$APT_ARCH"
	fi || die "cannot download $2$APT_ARCH (see $APT_LOG)${APT_ARCH:+; is the architecture enabled? run scripts/arm64.sh deps}"
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

# has_pvh ELF: does it carry the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY,
# type 18) that QEMU needs to boot it?
has_pvh() {
	readelf -n "$1" 2>/dev/null | grep -qE 'Xen[[:space:]]+0x[0-9a-f]+[[:space:]]+(Unknown note type: \(0x00000012\)|NT_XEN_PHYS32_ENTRY)'
}

fetch_one() {
	local name=$1 kver dir config
	kver=$(kver_of "$name")
	dir=$CACHE/kernels/$kver
	[ -f "$dir/.unpacked" ] || unpack "$name" "$kver" "$dir"
	[ -f "$dir/.vmlinux" ] && return 0
	# Without CONFIG_PVH QEMU cannot boot the ELF; keep the bzImage then.
	# Without a config, try, and keep the ELF if it has the PVH note.
	config=$dir/boot/config-$kver
	if [ ! -f "$config" ]; then
		echo "kernels: $kver has no config; extracting vmlinux-$kver anyway" >&2
		if extract_vmlinux "$dir/boot/vmlinuz-$kver" "$dir/boot/vmlinux-$kver" &&
			! has_pvh "$dir/boot/vmlinux-$kver"; then
			rm -f "$dir/boot/vmlinux-$kver"
		fi
		[ -f "$dir/boot/vmlinux-$kver" ] ||
			echo "kernels: no bootable vmlinux-$kver; the VM boots the slower bzImage" >&2
	elif grep -q '^CONFIG_PVH=y' "$config"; then
		echo "kernels: extracting vmlinux-$kver" >&2
		extract_vmlinux "$dir/boot/vmlinuz-$kver" "$dir/boot/vmlinux-$kver" ||
			echo "kernels: cannot extract vmlinux-$kver; the VM boots the slower bzImage" >&2
	fi
	touch "$dir/.vmlinux"
}

# unpack NAME KVER DIR: every package of NAME into DIR. Packages that
# install under usr/lib/modules/KVER only (7.3: vmlinuz.unsigned, config,
# modules) get the layout of the older ones as links: boot/vmlinuz-KVER,
# boot/config-KVER and lib/modules/KVER.
unpack() {
	local name=$1 kver=$2 dir=$3 pkg deb debs=() mod
	for pkg in $(pkgs_of "$name"); do
		deb=$(find_deb "$pkg") || { download "$name" "$pkg"; deb=$(find_deb "$pkg"); } ||
			die "no .deb for $pkg in $CACHE/deb after download"
		debs+=("$deb")
	done
	rm -rf "$dir"
	mkdir -p "$dir"
	for deb in "${debs[@]}"; do
		echo "kernels: unpacking $(basename "$deb")" >&2
		dpkg-deb -x "$deb" "$dir"
	done
	mod=usr/lib/modules/$kver
	if [ ! -e "$dir/boot/vmlinuz-$kver" ] && [ -d "$dir/$mod" ]; then
		mkdir -p "$dir/boot"
		[ -f "$dir/$mod/vmlinuz.unsigned" ] && ln -s "../$mod/vmlinuz.unsigned" "$dir/boot/vmlinuz-$kver"
		[ -f "$dir/$mod/vmlinuz" ] && ln -s "../$mod/vmlinuz" "$dir/boot/vmlinuz-$kver"
		[ -f "$dir/$mod/config" ] && ln -s "../$mod/config" "$dir/boot/config-$kver"
		[ -e "$dir/lib" ] || ln -s usr/lib "$dir/lib"
	fi
	[ -f "$dir/boot/vmlinuz-$kver" ] || die "${debs[*]} have no boot/vmlinuz-$kver"
	touch "$dir/.unpacked"
}

fetch() {
	local n
	[ $# -gt 0 ] || set -- "${NAMES[@]}"
	for n in "$@"; do
		pkgs_of "$n" >/dev/null
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
[0-9]*)
	locked "$CACHE" fetch "$@"
	;;
*)
	die "unknown command '$cmd'; see the top of $0"
	;;
esac
