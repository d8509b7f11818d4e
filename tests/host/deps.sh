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
has test bpftrace yes
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

# A download (scripts/lib.sh, used by kernels.sh, arm64.sh, reference.sh)
# with a stand-in apt-get that fails until the lists are refreshed, then
# writes 3 MiB over two seconds: one line on stderr, apt in the log, and on
# a terminal the size so far.
cat >"$fake/apt-get" <<'FAKE'
#!/bin/bash
echo "apt-get $*"
case "$*" in
*update*) touch "$FAKE_DIR/updated" ;;
*download*)
	[ -e "$FAKE_DIR/updated" ] || exit 100
	for i in 1 2 3; do head -c 1048576 /dev/zero >>pkg_1_amd64.deb; sleep 0.7; done ;;
esac
FAKE
dl() {
	FAKE_DIR=$fake PATH="$fake:$PATH" KSNOOP_DEPS_LOG="$fake/dl.log" \
		bash -c '. scripts/lib.sh; apt_download "$1/deb" pkg' dl "$fake"
}
if [ "$(id -u)" -ne 0 ]; then
	echo "ok - deps: a download refreshes the lists once and logs apt's output # SKIP not root"
else
	err=$(dl 2>&1 >/dev/null)
	if [ "$(wc -l <<<"$err")" = 1 ] && [[ "$err" == "dl: downloading pkg (log: $fake/dl.log)" ]] &&
		[ "$(stat -c %s "$fake/deb/pkg_1_amd64.deb" 2>/dev/null)" = 3145728 ] &&
		grep -q '^apt-get update' "$fake/dl.log"; then
		echo "ok - deps: a download refreshes the lists once, prints one line and logs apt's output"
	else
		echo "not ok - deps: a download printed: $(head -3 <<<"$err")"
	fi
	rm -rf "$fake/deb" "$fake/updated"
	tty=$(FAKE_DIR=$fake script -qc "$(declare -f dl); fake=$fake; touch $fake/updated; dl" /dev/null 2>&1)
	if [[ "$tty" =~ "downloading pkg: "[12]\.[0-9]" MiB" ]]; then
		echo "ok - deps: on a terminal a download shows the MiB so far"
	else
		echo "not ok - deps: on a terminal a download showed: $(tr '\r' '\n' <<<"$tty" | head -4)"
	fi
fi

# A download from the suites outside the system's sources
# (apt_download_suite): apt-get sees only the private state's sources.list,
# lists and cache; the lists are fetched first, and refreshed once more
# when the download fails. A stand-in apt-get again.
cat >"$fake/apt-get" <<'FAKE'
#!/bin/bash
echo "apt-get $*"
lists=
for a in "$@"; do
	case $a in Dir::State::Lists=*) lists=${a#*=} ;; esac
done
case "$*" in
*" update"*) touch "$lists/x_Packages"; echo u >>"$FAKE_DIR/updates" ;;
*" download "*)
	[ -e "$FAKE_DIR/fail-once" ] && { rm "$FAKE_DIR/fail-once"; exit 100; }
	echo deb >"${*: -1}_1_amd64.deb" ;;
esac
FAKE
sdl() {
	FAKE_DIR=$fake PATH="$fake:$PATH" KSNOOP_DEPS_LOG="$fake/sdl.log" \
		bash -c '. scripts/lib.sh; apt_download_suite "$1/apt" "$1/sdeb" "$2"' sdl "$fake" "$1"
}
err=$(sdl pkg1 2>&1 >/dev/null)
want="sdl: updating the package lists in $fake/apt (log: $fake/sdl.log)
sdl: downloading pkg1 (log: $fake/sdl.log)"
opts="-o Dir::Etc::sourcelist=$fake/apt/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$fake/apt/lists -o Dir::Cache=$fake/apt/cache"
if [ "$err" = "$want" ] && [ -f "$fake/sdeb/pkg1_1_amd64.deb" ] &&
	grep -q "^apt-get -q $opts.* update$" "$fake/sdl.log" &&
	grep -q "^apt-get -q $opts.* download pkg1$" "$fake/sdl.log" &&
	grep -q '^deb \[signed-by=.*\] http.* bullseye main$' "$fake/apt/sources.list" &&
	grep -q '^deb .* trixie-backports main$' "$fake/apt/sources.list"; then
	echo "ok - deps: a suite download fetches the private lists first, one line per step"
else
	echo "not ok - deps: a suite download printed: $(head -3 <<<"$err")"
fi
touch "$fake/fail-once"
rm -f "$fake/updates"
err=$(sdl pkg2 2>&1 >/dev/null)
want="sdl: downloading pkg2 (log: $fake/sdl.log)
sdl: updating the package lists in $fake/apt (log: $fake/sdl.log)"
if [ "$err" = "$want" ] && [ -f "$fake/sdeb/pkg2_1_amd64.deb" ] && [ "$(cat "$fake/updates")" = u ]; then
	echo "ok - deps: a failed suite download refreshes the private lists once"
else
	echo "not ok - deps: a failed suite download printed: $(head -3 <<<"$err")"
fi

# `make vm` on a fresh machine: the Makefile asks pkg-config for the
# libraries' flags only when a link needs them, so nothing complains before
# deps-build has installed them. The stub is pkg-config without a .pc file.
nopc=$(mktemp -d)
cat >"$nopc/pkg-config" <<'STUB'
#!/bin/sh
for a; do [ "$a" = --exists ] && exit 1; done
for a; do
	case $a in
	-*) ;;
	*) echo "Package $a was not found in the pkg-config search path." >&2 ;;
	esac
done
exit 1
STUB
chmod +x "$nopc/pkg-config"
for t in vm deps-build; do
	PATH="$nopc:$PATH" make -n $t >/dev/null 2>"$nopc/err"
	if ! grep -q 'was not found' "$nopc/err"; then
		echo "ok - deps: make -n $t without the libraries' .pc files says nothing of pkg-config"
	else
		echo "not ok - deps: make -n $t without .pc files: $(grep -m1 'was not found' "$nopc/err")"
	fi
done
rm -rf "$nopc"

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
