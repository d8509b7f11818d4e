#!/bin/bash
# Unpack the reference ksnoop (Debian libbpf-tools) into the cache, without
# installing it: tests run $KSNOOP_CACHE/libbpf-tools/usr/sbin/ksnoop.
# Idempotent; prints nothing when the binary is already there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=${KSNOOP_CACHE:-/var/cache/ksnoop}
dest=$cache/libbpf-tools
bin=$dest/usr/sbin/ksnoop

[ -x "$bin" ] && exit 0

deb=$(ls "$cache"/deb/libbpf-tools_*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ]; then
	apt_download "$cache/deb" libbpf-tools ||
		die "cannot download libbpf-tools (see $APT_LOG); run apt-get update"
	deb=$(ls "$cache"/deb/libbpf-tools_*.deb | head -n1)
fi
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
dpkg-deb -x "$deb" "$dest.tmp"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
[ -x "$bin" ] || die "$deb has no usr/sbin/ksnoop"
