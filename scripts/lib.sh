# shellcheck shell=bash
# What the set-up scripts share: one error helper, apt's output in one log
# (each step says one line on stderr), and progress on a terminal while a
# download runs.
#
#   . "$(dirname "$0")/lib.sh"
#
# KSNOOP_DEPS_LOG names the log (default: the repository's
# build/deps-apt.log, wherever the script runs from).

KSNOOP_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
APT_LOG=${KSNOOP_DEPS_LOG:-$KSNOOP_REPO/build/deps-apt.log}

die() {
	echo "Error: $*" >&2
	exit 1
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# apt_logged CMD...: CMD with its output appended to $APT_LOG.
apt_logged() {
	mkdir -p "${APT_LOG%/*}" 2>/dev/null || true
	"$@" >>"$APT_LOG" 2>&1
}

# apt_update: refresh the package lists (as root only).
apt_update() {
	[ "$(id -u)" = 0 ] || return 1
	apt_logged apt-get update -q
}

# apt_install PKG...: install, refreshing the lists once if that fails
# (a fresh machine, or a foreign architecture just added, has none).
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	apt_logged apt-get install -y -q --no-install-recommends "$@" ||
		{ apt_update && apt_logged apt-get install -y -q --no-install-recommends "$@"; }
}

# with_progress LABEL DIR CMD...: run CMD; on a terminal, say how much it
# has written into DIR so far, every second, on one line.
with_progress() {
	local label=$1 dir=$2 pid base now rc tenths
	shift 2
	if [ ! -t 2 ]; then
		"$@"
		return
	fi
	base=$(du -sk "$dir" 2>/dev/null | cut -f1)
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		now=$(du -sk "$dir" 2>/dev/null | cut -f1)
		tenths=$(((${now:-0} - ${base:-0}) * 10 / 1024))
		printf '\r\033[K%s: %d.%d MiB' "$label" $((tenths / 10)) $((tenths % 10)) >&2
		sleep 1
	done
	wait "$pid"
	rc=$?
	printf '\r\033[K' >&2
	return $rc
}

# apt_download DIR PKG: the package's .deb into DIR, without installing it,
# refreshing the lists once if that fails. As root apt would drop to _apt,
# who cannot write a root-owned cache.
apt_download() {
	local dir=$1 pkg=$2 sandbox=()
	[ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
	mkdir -p "$dir"
	echo "${0##*/}: downloading $pkg (log: $APT_LOG)" >&2
	_fetch() { (cd "$dir" && apt_logged apt-get download -q "${sandbox[@]}" "$pkg"); }
	with_progress "${0##*/}: downloading $pkg" "$dir" _fetch ||
		{ apt_update && with_progress "${0##*/}: downloading $pkg" "$dir" _fetch; }
}

# The Debian suites the system's apt is not set up for (the VM tests'
# older and newer kernels) come through an apt state of the project's own,
# never added to the system's sources: STATE/sources.list, STATE/lists and
# STATE/cache, used with these options only.
KSNOOP_APT_SOURCES='deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bullseye-security main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main'

# suite_apt STATE CMD...: apt-get CMD... on STATE's private sources and
# lists, logged.
suite_apt() {
	local state=$1 opts
	shift
	opts=(-o "Dir::Etc::sourcelist=$state/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache")
	[ "$(id -u)" = 0 ] && opts+=(-o APT::Sandbox::User=root)
	apt_logged apt-get -q "${opts[@]}" "$@"
}

# apt_download_suite STATE DIR PKG: like apt_download, from the suites in
# KSNOOP_APT_SOURCES, with the package lists in STATE (fetched on first
# use, refreshed once when a download fails). One line per step; a lock
# keeps concurrent callers (the x86-64 and arm64 caches share STATE) apart.
apt_download_suite() {
	local state=$1 dir=$2 pkg=$3
	mkdir -p "$dir" "$state/lists/partial" "$state/cache/archives/partial" || return 1
	(
		local fresh=0
		flock 8
		[ "$(cat "$state/sources.list" 2>/dev/null)" = "$KSNOOP_APT_SOURCES" ] ||
			echo "$KSNOOP_APT_SOURCES" >"$state/sources.list"
		_suite_update() {
			echo "${0##*/}: updating the package lists in $state (log: $APT_LOG)" >&2
			fresh=1
			suite_apt "$state" update
		}
		_suite_fetch() { (cd "$dir" && suite_apt "$state" download "$pkg"); }
		if ! ls "$state/lists/"*_Packages* >/dev/null 2>&1; then
			_suite_update || exit 1
		fi
		echo "${0##*/}: downloading $pkg (log: $APT_LOG)" >&2
		with_progress "${0##*/}: downloading $pkg" "$dir" _suite_fetch && exit 0
		[ $fresh = 0 ] && _suite_update && with_progress "${0##*/}: downloading $pkg" "$dir" _suite_fetch
	) 8>"$state/.lock"
}

# locked DIR CMD...: CMD under DIR/.lock, so concurrent runs wait.
locked() {
	local dir=$1
	shift
	mkdir -p "$dir" 2>/dev/null || die "cannot create $dir; set KSNOOP_CACHE to a writable directory"
	exec 9>"$dir/.lock"
	flock 9
	"$@"
}
