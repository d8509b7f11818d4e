#!/bin/bash
# A module's tracepoint, through ksnoop trace SPEC: ext4 loaded from the
# kernel cache (tests/vm/modload.sh), a small ext4 file system on a loop
# device, and dd writing N blocks of 4 KiB to a file there, then sync.
# Prints ksnoop's output; "Error:" lines as they come.
#
#   tests/vm/ext4-tp.sh N SPEC...
set -uo pipefail
HERE=$(dirname "$0")
. "$HERE/lib.sh"
PATH=$PATH:/sbin:/usr/sbin
n=$1
shift
T=$(mktemp -d /tmp/ext4-tp.XXXXXX) || exit 125
dev=
trap 'umount "$T/mnt" 2>/dev/null; [ -n "$dev" ] && losetup -d "$dev"; rm -rf "$T"' EXIT

# ext4 asks the crypto API for crc32c as it mounts; where that is a module
# (before 7.x), it has to be there already: the guest has no modprobe
"$HERE/modload.sh" crc32c_generic 2>/dev/null
"$HERE/modload.sh" ext4 || exit 125
truncate -s 16M "$T/fs.img" || exit 125
mkfs.ext4 -q -F -O ^metadata_csum,^has_journal "$T/fs.img" || { echo "ext4: mkfs failed"; exit 125; }
dev=$(loop_attach "$T/fs.img") || { echo "ext4: losetup failed"; exit 125; }
mkdir "$T/mnt" && mount -t ext4 "$dev" "$T/mnt" || { echo "ext4: mount failed"; exit 125; }
trace_bg --workload "dd if=/dev/zero of=$T/mnt/file bs=4096 count=$n 2>/dev/null && sync" \
	--settle 0.5 --timeout 60 --out "$T/k.out" --err "$T/k.err" -- ksnoop trace "$@"
cat "$T/k.out"
grep -h Error "$T/k.err"
exit 0
