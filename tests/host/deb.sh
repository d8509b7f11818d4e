#!/bin/bash
# make deb builds a package that lintian passes without errors, that dpkg
# installs, that works (ksnoop -V, info, ktrace, kdump, its man page), and
# that dpkg removes and purges without leaving a file. Needs root for
# dpkg; the package is never left installed. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

checks="make deb|lintian|dpkg -i|ksnoop -V|ksnoop info|ktrace|kdump|man -w|serve unit|serve config|serve with the unit's capabilities|dpkg -r and purge|nothing left"
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
# The exporter's check attaches tracepoints: tracefs as perf would have it.
mounted=
if [ ! -d /sys/kernel/tracing/events ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	mounted=1
fi
cleanup() {
	purge
	[ -n "$mounted" ] && umount /sys/kernel/tracing
}
trap cleanup EXIT

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

tap "man -w ksnoop-serve finds the config format (section 5)" \
	'[ "$(man -w 5 ksnoop-serve)" = /usr/share/man/man5/ksnoop-serve.5.gz ]'

# The exporter's unit: installed, verified clean, not enabled; its config
# a conffile that serve plans without an error.
unit=/lib/systemd/system/ksnoop.service
tap "serve unit: systemd-analyze verify $unit says nothing" \
	'[ -z "$(systemd-analyze verify "$unit" 2>&1)" ]'
tap "serve unit: installed, not enabled" \
	'[ -f "$unit" ] && ! ls /etc/systemd/system/*.wants/ksnoop.service'
tap "serve config: /etc/ksnoop/serve.conf is a conffile" \
	'dpkg-query -W -f="\${Conffiles}" ksnoop | grep -q "^ /etc/ksnoop/serve.conf "'
tap "serve config: ksnoop serve --check plans every metric" \
	'/usr/sbin/ksnoop serve --check /etc/ksnoop/serve.conf | grep -q "3 metrics, every spec planned"'
serve_caps() {
	local caps port=$((30000 + $$ % 5000)) conf pid ok=1 i
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr 'A-Z' 'a-z' |
		sed 's/cap_/+/g; s/ /,/g')
	conf=$(mktemp /tmp/ksnoop-deb.XXXXXX)
	sed "s/^listen = .*/listen = 127.0.0.1:$port/" /etc/ksnoop/serve.conf >"$conf"
	setpriv --inh-caps=-all --bounding-set=-all,"$caps" \
		/usr/sbin/ksnoop serve "$conf" 2>"$conf.err" &
	pid=$!
	for i in $(seq 60); do
		curl -s --max-time 5 "http://127.0.0.1:$port/metrics" 2>/dev/null |
			grep -q '^ksnoop_serve_probes_attached{metric="ksnoop_block_io_seconds"} 2$' &&
			{ ok=0; break; }
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	[ $? = 0 ] || ok=1
	[ $ok = 0 ] || sed 's/^/#   /' "$conf.err" >&2
	rm -f "$conf" "$conf.err"
	return $ok
}
if [ -d /sys/kernel/tracing/events/block ] && command -v setpriv >/dev/null &&
	command -v curl >/dev/null; then
	tap "serve with the unit's capabilities only (setpriv) serves the default config" serve_caps
else
	echo "ok - deb: serve with the unit's capabilities # SKIP needs tracefs, setpriv and curl"
fi

if dpkg_locked -r ksnoop && dpkg_locked --purge ksnoop; then
	echo "ok - deb: dpkg -r and purge"
else
	echo "not ok - deb: dpkg -r and purge"
fi
left=
while read -r f; do
	# Directories are shared (/lib is a link to usr/lib on merged /usr).
	[ -d "$f" ] && continue
	if [ -e "$f" ] || [ -L "$f" ]; then left="$left $f"; fi
done <<<"$files"
[ ! -e /usr/share/doc/ksnoop ] || left="$left /usr/share/doc/ksnoop"
if [ -n "$files" ] && [ -z "$left" ] && ! dpkg-query -W ksnoop >/dev/null 2>&1; then
	echo "ok - deb: nothing left after purge"
else
	echo "not ok - deb: left after purge:${left:- (dpkg still knows ksnoop)}"
fi
