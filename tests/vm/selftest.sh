#!/bin/bash
# The VM harness's lockup detection, for real, as TAP.
#
#   [ARCH=x86] tests/vm/selftest.sh [KERNEL]
#
# Boots KERNEL (default: the arch table's first) with a job that runs
# tests/vm/lockup.bpf.c once through bpftool: a socket filter that spins in
# the kernel for minutes. The guest's soft-lockup watchdog fires for real
# and, with softlockup_panic=1, ends the guest; vm-exec.sh must report one
# "Error: [K] guest locked up: ..." line, exit status 123 and a backtrace
# in its "console| " excerpt, soon after the spin began. The x86 guest runs
# the host's bpftool; the arm64 guest has none, so it skips there.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/arch.sh
vm_arch || exit 2
read -r -a ks <<<"$VM_KERNELS"
KERNEL=${1:-${ks[0]}}
K="$LABEL_PREFIX$KERNEL"
NAME="harness: a guest that locks up is stopped and reported"
# The watchdog's threshold is 20 s, checked every 4 s; under TCG its
# first report has been seen 44 s into a lockup.
LIMIT=${SELFTEST_LIMIT:-90}

if [ "$GUEST_ROOT" != 9p ] || ! command -v bpftool >/dev/null; then
	echo "ok - [$K] $NAME # SKIP needs bpftool in the guest"
	exit 0
fi
OBJ=build/tests/lockup.bpf.o
mkdir -p build/tests
if ! out=$(clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine)" \
	-c tests/vm/lockup.bpf.c -o "$OBJ" 2>&1); then
	echo "not ok - [$K] $NAME: cannot build $OBJ"
	echo "$out" | sed 's/^/#   /'
	exit 1
fi
tmp=$(mktemp -d /tmp/ksnoop-selftest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
tests/vm/vm-exec.sh --arch "$ARCH" --kernel "$KERNEL" --timeout 600 -- bash -c "
	bpftool prog load $OBJ /sys/fs/bpf/lockup || exit 1
	head -c 64 /dev/zero >/tmp/packet
	echo job-started
	bpftool prog run pinned /sys/fs/bpf/lockup data_in /tmp/packet
	echo job-finished" >"$tmp/out" 2>"$tmp/err" &
vm=$!
# Follow the job's output: the clock starts when the spin does.
spin=
while kill -0 "$vm" 2>/dev/null; do
	[ -z "$spin" ] && grep -q '^job-started$' "$tmp/out" && spin=$(date +%s)
	sleep 0.5
done
wait "$vm"
rc=$?
end=$(date +%s)
took=$((end - ${spin:-$start}))

why=()
[ -n "$spin" ] || why+=("the job never started its spin")
[ "$rc" = 123 ] || why+=("exit status $rc, expected 123")
[ "$(grep -cE "^Error: \[$K\] guest locked up: .*(soft lockup|detected stall)" "$tmp/err")" = 1 ] ||
	why+=("no single 'Error: [$K] guest locked up: ...' line naming the detector")
grep -qE '^console\| .*(Call Trace:|RIP: )' "$tmp/err" || why+=("no backtrace in the console excerpt")
grep -q '^job-finished$' "$tmp/out" && why+=("the job went on")
[ "$took" -le "$LIMIT" ] || why+=("took ${took}s after the spin began, limit ${LIMIT}s")
if [ ${#why[@]} = 0 ]; then
	echo "ok - [$K] $NAME (${took}s after the spin began)"
	grep -m1 '^Error:' "$tmp/err" | sed 's/^/# /'
	exit 0
fi
echo "not ok - [$K] $NAME"
printf '#   %s\n' "${why[@]}"
sed 's/^/#   | /' "$tmp/err" | head -n 40
exit 1
