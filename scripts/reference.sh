#!/bin/bash
# Unpack the reference ksnoop (Debian libbpf-tools) into the cache, without
# installing it: tests run $KSNOOP_CACHE/libbpf-tools/usr/sbin/ksnoop.
# Idempotent; prints nothing when the binary is already there.
set -euo pipefail

cache=${KSNOOP_CACHE:-/var/cache/ksnoop}
dest=$cache/libbpf-tools
bin=$dest/usr/sbin/ksnoop

[ -x "$bin" ] && exit 0

mkdir -p "$cache/deb"
# As root, apt would drop to _apt, who cannot write the cache.
sandbox=
[ "$(id -u)" -eq 0 ] && sandbox="-o APT::Sandbox::User=root"
deb=$(ls "$cache"/deb/libbpf-tools_*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ]; then
	echo "reference: downloading libbpf-tools" >&2
	# apt-get download writes into the current directory.
	get() { (cd "$cache/deb" && apt-get download -qq $sandbox libbpf-tools >&2); }
	# Stale package lists are the usual reason for a failed download.
	get || { [ "$(id -u)" -eq 0 ] && apt-get update -qq >&2 && get; } || {
		echo "Error: cannot download libbpf-tools; run apt-get update" >&2
		exit 1
	}
	deb=$(ls "$cache"/deb/libbpf-tools_*.deb | head -n1)
fi
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
dpkg-deb -x "$deb" "$dest.tmp"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
[ -x "$bin" ] || { echo "Error: $deb has no usr/sbin/ksnoop" >&2; exit 1; }
