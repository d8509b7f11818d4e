#!/bin/bash
# Host test of the ring reader (src/lib/ringbuf.c) on a real BPF ring
# buffer: tests/host/ringbuf_driver.c produces records with BPF programs
# run by BPF_PROG_TEST_RUN and checks that a reader with a window an
# eighth of the ring delivers each one, in order, across many wraps, and
# while the ring is written from another CPU; and that the event loop
# stops at the first write error of an -o file, said once.
set -u
cd "$(dirname "$0")/../.."

if ! make -s ringbuf-driver >/dev/null; then
	echo "not ok - ringbuf: the driver builds"
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "ok - ringbuf: a real ring buffer # SKIP needs root for BPF maps and programs"
	exit 0
fi
# trace -o's writes on a full file system: a 64 KiB tmpfs of our own.
full=$(mktemp -d /tmp/ksnoop-ringbuf.XXXXXX)
trap 'umount "$full" 2>/dev/null; rm -rf "$full"' EXIT
if mount -t tmpfs -o size=64k tmpfs "$full" 2>/dev/null; then
	build/ringbuf_driver "$full/events"
else
	build/ringbuf_driver
	echo "ok - ringbuf: trace -o on a full disk # SKIP cannot mount a tmpfs"
fi
