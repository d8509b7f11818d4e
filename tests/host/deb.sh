#!/bin/bash
# make deb builds a package that lintian passes without errors, that dpkg
# installs, that works (ksnoop -V, info, ktrace, kdump, its man page), and
# that dpkg removes and purges without leaving a file. Needs root for
# dpkg; the package is never left installed. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

checks="make deb|lintian|dpkg -i|ksnoop -V|ksnoop info|ktrace|kdump|man -w|dpkg -r and purge|nothing left"
skip_all() {
	local IFS='|' c
	for c in $checks; do echo "ok - deb: $c # SKIP $1"; done
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
# Someone's own install of the package is not this test's to remove.
dpkg-query -W -f='${Status}' ksnoop 2>/dev/null | grep -q 'ok installed' &&
	skip_all "a ksnoop package is already installed on this host"
for t in dpkg-buildpackage dh lintian; do
	command -v "$t" >/dev/null || skip_all "$t missing (scripts/deps.sh)"
done

tap() {
	if eval "$2" >/dev/null 2>&1; then
		echo "ok - deb: $1"
	else
		echo "not ok - deb: $1"
	fi
}

# dpkg takes a lock and fails at once if another dpkg or apt holds it:
# wait for it rather than fail because of someone else's install.
dpkg_locked() {
	local i out
	for i in $(seq 30); do
		out=$(dpkg "$@" 2>&1) && return 0
		grep -q 'lock' <<<"$out" || break
		sleep 2
	done
	printf '%s\n' "$out" | tail -5 | sed 's/^/#   /' >&2
	return 1
}

# Installed or half removed (config-files): purge it.
purge() {
	local st
	st=$(dpkg-query -W -f='${db:Status-Status}' ksnoop 2>/dev/null)
	[ -z "$st" ] || [ "$st" = not-installed ] || dpkg_locked --purge ksnoop
}
trap purge EXIT

start=$(date +%s)
if ! out=$(make -s deb 2>&1); then
	echo "not ok - deb: make deb"
	printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
	exit 0
fi
echo "ok - deb: make deb ($(($(date +%s) - start)) s)"
version=$(cat VERSION)
deb=build/ksnoop_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb

errors=$(lintian "$deb" 2>&1 | grep '^E:')
if [ -z "$errors" ]; then
	echo "ok - deb: lintian reports no error"
else
	echo "not ok - deb: lintian errors"
	printf '%s\n' "$errors" | sed 's/^/#   /'
fi

if ! dpkg_locked -i "$deb"; then
	echo "not ok - deb: dpkg -i $deb"
	exit 0
fi
echo "ok - deb: dpkg -i $deb"
files=$(dpkg -L ksnoop)

tap "/usr/sbin/ksnoop -V prints $version" \
	'[ "$(/usr/sbin/ksnoop -V)" = "ksnoop v$version" ]'
if [ -r /sys/kernel/btf/vmlinux ]; then
	tap "ksnoop info ip_send_skb" \
		'/usr/sbin/ksnoop info ip_send_skb | grep -q "^int ip_send_skb("'
else
	echo "ok - deb: ksnoop info # SKIP no /sys/kernel/btf/vmlinux"
fi
tap "/usr/bin/ktrace -h runs as ktrace" \
	'/usr/bin/ktrace -h 2>&1 | grep -q "^usage: ktrace"'
tap "/usr/bin/kdump -h exits 0" '/usr/bin/kdump -h'
tap "man -w ksnoop finds the package's page" \
	'[ "$(man -w ksnoop)" = /usr/share/man/man8/ksnoop.8.gz ]'

if dpkg_locked -r ksnoop && dpkg_locked --purge ksnoop; then
	echo "ok - deb: dpkg -r and purge"
else
	echo "not ok - deb: dpkg -r and purge"
fi
left=
while read -r f; do
	[ -d "$f" ] || [ ! -e "$f" ] && [ ! -L "$f" ] || left="$left $f"
done <<<"$files"
[ ! -e /usr/share/doc/ksnoop ] || left="$left /usr/share/doc/ksnoop"
if [ -n "$files" ] && [ -z "$left" ] && ! dpkg-query -W ksnoop >/dev/null 2>&1; then
	echo "ok - deb: nothing left after purge"
else
	echo "not ok - deb: left after purge:${left:- (dpkg still knows ksnoop)}"
fi
