#!/bin/bash
# make install into a staging DESTDIR puts every file and link in place,
# the staged binary runs under each of its names, and make uninstall
# removes all of it. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/usr/local
root=$stage$prefix

tap() {
	if eval "$2" >/dev/null 2>&1; then
		echo "ok - install: $1"
	else
		echo "not ok - install: $1"
	fi
}

if ! out=$(make -s install DESTDIR="$stage" PREFIX="$prefix" 2>&1); then
	echo "not ok - install: make install"
	printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
	exit 0
fi
echo "ok - install: make install DESTDIR=... PREFIX=$prefix"

tap "ksnoop in sbin, executable" '[ -x "$root/sbin/ksnoop" ] && [ ! -L "$root/sbin/ksnoop" ]'
for l in ktrace kdump; do
	tap "bin/$l is a relative link to ../sbin/ksnoop" \
		'[ "$(readlink "$root/bin/$l")" = ../sbin/ksnoop ]'
done
for page in doc/*.[158]; do
	sec=${page##*.}
	tap "man$sec/$(basename "$page")" \
		'cmp -s "$page" "$root/share/man/man$sec/$(basename "$page")"'
done
if [ -f completion/ksnoop ]; then
	tap "bash completion" \
		'cmp -s completion/ksnoop "$root/share/bash-completion/completions/ksnoop"'
else
	echo "ok - install: bash completion # SKIP completion/ksnoop not in the tree"
fi

version=$(cat VERSION)
tap "the staged ksnoop -V prints $version" \
	'[ "$("$root/sbin/ksnoop" -V)" = "ksnoop v$version" ]'
tap "the staged ktrace link runs as ktrace (-h)" \
	'"$root/bin/ktrace" -h 2>&1 | grep -q "^usage: ktrace"'
tap "the staged kdump link runs as kdump (-h)" \
	'"$root/bin/kdump" -h 2>&1 | grep -q "^usage: kdump"'

# Files the tree had before install that it must keep after uninstall.
touch "$root/bin/other-tool"
if make -s uninstall DESTDIR="$stage" PREFIX="$prefix" >/dev/null 2>&1; then
	echo "ok - install: make uninstall"
else
	echo "not ok - install: make uninstall"
fi
left=$(find "$stage" ! -type d ! -path "$root/bin/other-tool")
if [ -z "$left" ]; then
	echo "ok - install: uninstall leaves no file behind"
else
	echo "not ok - install: uninstall left:" $left
fi
tap "uninstall keeps files it did not install" '[ -e "$root/bin/other-tool" ]'
