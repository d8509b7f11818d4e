#!/bin/bash
# Tracepoints on the host (TAP): raw tracepoints need neither kprobes nor
# fentry, so the VM cases of tests/vm/cases/tracepoint.case run here too,
# without a guest, and those of serve.case marked for the host (ksnoop
# serve's metrics on tracepoints). tracefs is mounted for them where it is not (as perf
# and bpftrace would have it), and unmounted after.
set -u
cd "$(dirname "$0")/../.."
mounted=
if [ "$(id -u)" = 0 ] && [ ! -d /sys/kernel/tracing/events ] &&
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	mounted=1
fi
tests/vm/guest.sh -k host tests/vm/cases/tracepoint.case tests/vm/cases/serve.case
rc=$?
[ -n "$mounted" ] && umount /sys/kernel/tracing
exit $rc
