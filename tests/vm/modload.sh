#!/bin/bash
# Loads a module of the running kernel, and the modules it depends on
# (its .modinfo "depends="), from the kernel cache the VM harness fills
# (KSNOOP_KERNEL_CACHE, default /var/cache/ksnoop/kernels): the guest has
# no modprobe and no modules tree of its own. .ko.xz files are unpacked
# to /tmp first. A module already loaded, or built in, is left as it is.
# Exit 0 when MOD is loaded, 125 (the harness's skip-worthy failure) when
# the cache has no such module.
#
#   tests/vm/modload.sh MOD
set -uo pipefail
rel=$(uname -r)
cache=${KSNOOP_KERNEL_CACHE:-/var/cache/ksnoop/kernels}/$rel

find_ko() {
	find "$cache/lib/modules/$rel" "$cache/usr/lib/modules/$rel" \
		\( -name "$1.ko" -o -name "$1.ko.xz" -o -name "${1//_/-}.ko" -o -name "${1//_/-}.ko.xz" \) \
		2>/dev/null | head -1
}

loaded() {
	grep -q "^$1 " /proc/modules || [ -d "/sys/module/$1" ]
}

load() {
	local mod=$1 ko dep plain
	loaded "$mod" && return 0
	ko=$(find_ko "$mod")
	if [ -z "$ko" ]; then
		echo "modload: no module $mod for $rel under $cache" >&2
		return 125
	fi
	plain=$ko
	if [[ $ko == *.xz ]]; then
		plain=/tmp/modload.$mod.ko
		xz -dc "$ko" >"$plain" || return 1
	fi
	for dep in $(grep -a -o 'depends=[a-z0-9_,-]*' "$plain" | head -1 | cut -d= -f2 | tr , ' '); do
		load "$dep" || return
	done
	busybox insmod "$plain" || { echo "modload: insmod $mod failed" >&2; return 1; }
}

load "$1"
