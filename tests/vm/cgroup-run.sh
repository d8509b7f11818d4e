#!/bin/bash
# Run a command inside a fresh cgroup v2 directory, $KSNOOP_CG/ksnoop-NAME
# (the cgroup2 root, mounted at /tmp/ksnoop-cg unless already there).
# Usage: cgroup-run.sh NAME CMD [ARGS...]
set -euo pipefail
name=$1
shift
root=/tmp/ksnoop-cg
mkdir -p "$root"
awk -v r="$root" '$2 == r && $3 == "cgroup2" { found = 1 } END { exit !found }' /proc/mounts ||
	mount -t cgroup2 cgroup2 "$root"
mkdir -p "$root/ksnoop-$name"
echo $$ >"$root/ksnoop-$name/cgroup.procs"
exec "$@"
