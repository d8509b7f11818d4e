#!/bin/bash
# Run a command inside a fresh cgroup v2 directory, /sys/fs/cgroup/ksnoop-$1.
# Usage: cgroup-run.sh NAME CMD [ARGS...]
set -euo pipefail
name=$1
shift
root=/sys/fs/cgroup
grep -q "^cgroup2 $root " /proc/mounts || mount -t cgroup2 none "$root"
mkdir -p "$root/ksnoop-$name"
echo $$ >"$root/ksnoop-$name/cgroup.procs"
exec "$@"
