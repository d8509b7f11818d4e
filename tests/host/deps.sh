#!/bin/bash
# scripts/deps.sh groups its packages by purpose: build needs none of the
# test or bench tools, test and bench add theirs, and every name is a real
# Debian package. Installs nothing. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

list() { ./scripts/deps.sh --list "$1"; }

# has PURPOSE PACKAGE YES|NO: whether PURPOSE's list has PACKAGE, as expected.
has() {
	local got=no
	grep -qx "$2" <<<"$(list "$1")" && got=yes
	if [ $got = "$3" ]; then
		echo "ok - deps: --list $1 $([ $3 = yes ] && echo lists || echo 'does not list') $2"
	else
		echo "not ok - deps: --list $1 $([ $3 = yes ] && echo 'misses' || echo 'lists') $2"
	fi
}

for p in valgrind bpftrace strace libcmocka-dev gcc-aarch64-linux-gnu qemu-system-arm; do
	has build $p no
done
for p in clang bpftool libbpf-dev qemu-system-x86 busybox-static; do
	has build $p yes
done
has test libcmocka-dev yes
has test valgrind yes
has test bpftrace no
has bench bpftrace yes
has bench strace yes
has bench valgrind no

if list nonsense >/dev/null 2>&1; then
	echo "not ok - deps: an unknown purpose is accepted"
else
	echo "ok - deps: an unknown purpose is refused"
fi
err=$(list nonsense 2>&1)
if [ "$(wc -l <<<"$err")" = 1 ] && [[ "$err" == Error:* ]]; then
	echo "ok - deps: an unknown purpose gets one Error: line"
else
	echo "not ok - deps: an unknown purpose gets: $(head -3 <<<"$err")"
fi
if [ "$(./scripts/deps.sh --list)" = "$(list test)" ]; then
	echo "ok - deps: no purpose means test"
else
	echo "not ok - deps: no purpose is not test"
fi

# An install with stand-ins for dpkg-query and apt-get: one line on stderr,
# apt's chatter in the log.
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"
printf '#!/bin/sh\necho "apt-get $*"\n' >"$fake/apt-get"
chmod +x "$fake/dpkg-query" "$fake/apt-get"
if [ "$(id -u)" -ne 0 ]; then
	echo "ok - deps: an install logs apt's output # SKIP not root"
else
	err=$(PATH="$fake:$PATH" KSNOOP_DEPS_LOG="$fake/apt.log" ./scripts/deps.sh build 2>&1 >/dev/null)
	if [ "$(wc -l <<<"$err")" = 1 ] && [[ "$err" == "deps: installing make gcc "*"(log: $fake/apt.log)" ]] &&
		grep -q '^apt-get install .* qemu-system-x86' "$fake/apt.log"; then
		echo "ok - deps: an install prints one line and logs apt's output"
	else
		echo "not ok - deps: an install printed: $(head -3 <<<"$err")"
	fi
fi

if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
	echo "ok - deps: every package is in the apt cache # SKIP apt has no package lists"
	exit 0
fi
# One apt-cache query for all: it prints "NAME:" for each package it knows.
pkgs=$( (list test; list bench) | sort -u)
known=$(apt-cache policy $pkgs 2>/dev/null | sed -n 's/^\([^ ].*\):$/\1/p')
unknown=($(comm -23 <(echo "$pkgs") <(sort -u <<<"$known")))
if [ ${#unknown[@]} -eq 0 ]; then
	echo "ok - deps: every package is in the apt cache"
else
	echo "not ok - deps: not in the apt cache: ${unknown[*]}"
fi
