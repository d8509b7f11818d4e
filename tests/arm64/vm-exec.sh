#!/bin/bash
# Run one command inside a Debian arm64 kernel under qemu-system-aarch64
# (TCG) and return its exit status: the arm64 twin of tests/vm/vm-exec.sh.
#
#   tests/arm64/vm-exec.sh [--kernel 6.1|6.12] [--timeout S] [--env NAME=VALUE]...
#                          [--append KERNEL_ARGS] [--console] [--timing] -- CMD [ARGS...]
#
# The guest cannot use the host's x86-64 root, so the initramfs carries
# everything: a base archive cached per kernel (static arm64 busybox and
# bash, the virtio modules, the kernel config, tests/arm64/init) and a
# payload built per run, /ksnoop, laid out like the repo:
#   /ksnoop/ksnoop                 build/arm64/ksnoop (make ARCH=arm64)
#   /ksnoop/build/tests/workload   build/arm64/tests/workload
#   /ksnoop/build/tests/ktrace_target   build/arm64/ktrace_target, if built
#   /ksnoop/tests/vm, tests/arm64  the test scripts and case files
# CMD runs under bash as root in /ksnoop, with fresh proc, sys, dev, tmpfs
# /tmp, tracefs, debugfs and bpffs, and lo up. Its stdout and stderr
# stream back to ours.
#
# Protocol: ttyAMA0 carries the kernel console and the marker lines
# "KSNOOP-VM-<nonce> boot|start|exit N|fail WHY"; two virtio console ports
# (hvc0, hvc1) carry CMD's stdout and stderr, so kernel messages never mix
# with them. Exit status: CMD's own when the guest reported "exit N".
# Otherwise one "Error: ..." line on stderr naming the cause (timeout 124,
# panic/crash 125) and the kept console log.
#
# --console streams the guest console to stderr (boot debugging);
# --timing prints "vm-timing: ..." to stderr (boot and run seconds).
# A boot that has not started CMD after KSNOOP_VM_BOOT_TIMEOUT seconds
# (default 90) is an emulator hang: QEMU is killed and the VM booted again,
# once. KSNOOP_CACHE (default /var/cache/ksnoop) holds kernels, userland
# and base initramfs under arm64/. ARM64_OUT (default build/arm64) is
# where the arm64 build put ksnoop and the workload.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}/arm64
BUILD=${ARM64_OUT:-$REPO/build/arm64}
KERNEL=6.1
TIMEOUT=300
CONSOLE=0
TIMING=0
ENVS=()
APPEND=

die() {
	echo "Error: $*" >&2
	exit 125
}

usage() {
	sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--env) ENVS+=("${2:?}"); shift 2 ;;
	--append) APPEND="$APPEND ${2:?}"; shift 2 ;;
	--console) CONSOLE=1; shift ;;
	--timing) TIMING=1; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) usage ;;
	esac
done
[ $# -gt 0 ] || usage
[[ $TIMEOUT =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || die "invalid --timeout '$TIMEOUT'"
for e in "${ENVS[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "invalid --env '$e': use NAME=VALUE"
done
command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 missing; run scripts/arm64.sh deps"
for f in "$BUILD/ksnoop" "$BUILD/tests/workload"; do
	[ -x "$f" ] || die "$f missing; run make ARCH=arm64"
done

KROOT=$(KSNOOP_ARCH=arm64 "$REPO/scripts/kernels.sh" dir "$KERNEL") || exit 125
KVER=$(KSNOOP_ARCH=arm64 "$REPO/scripts/kernels.sh" kver "$KERNEL")
USERLAND=$("$REPO/scripts/arm64.sh" userland) || exit 125
IMAGE=$KROOT/boot/vmlinuz-$KVER
MODDIR=$KROOT/lib/modules/$KVER

# virtio-mmio carries the console ports; where a driver is built in, its
# module is simply not needed. Neither has dependencies on these kernels.
WANT_MODS=(virtio_mmio virtio_console)

mod_file() {
	local name=$1 p ext
	p=$(grep -m1 -E "/${name//_/[-_]}\.ko$" "$MODDIR/modules.order") || return 1
	for ext in "" .xz .zst .gz; do
		[ -f "$MODDIR/$p$ext" ] && { echo "$MODDIR/$p$ext"; return 0; }
	done
	return 1
}

mod_cat() {
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# The base archive depends on the kernel, the userland and /init only; its
# name carries a hash of them so any change rebuilds it.
build_base() {
	local hash out stage m f
	hash=$(cat "$HERE/init" "$USERLAND/bin/busybox" "$USERLAND/bin/bash-static" \
		"$MODDIR/modules.order" | sha256sum | cut -c1-16)
	out=$CACHE/initramfs/$KVER-$hash.cpio.gz
	[ -f "$out" ] && { echo "$out"; return 0; }
	stage=$(mktemp -d /tmp/ksnoop-a64base.XXXXXX) || die "mktemp failed"
	mkdir -p "$stage"/{bin,dev,proc,sys,root,tmp,modules,boot}
	cp "$USERLAND/bin/busybox" "$stage/bin/busybox"
	cp "$USERLAND/bin/bash-static" "$stage/bin/bash"
	cp "$HERE/init" "$stage/init"
	chmod 755 "$stage/init"
	# guest.sh reads the config to decide which features the kernel has.
	cp "$KROOT/boot/config-$KVER" "$stage/boot/config-$KVER"
	: >"$stage/modules.order"
	for m in "${WANT_MODS[@]}"; do
		if f=$(mod_file "$m"); then
			mod_cat "$f" >"$stage/modules/$m.ko" || die "cannot unpack module $f"
			echo "$m.ko" >>"$stage/modules.order"
		elif ! grep -qE "/${m//_/[-_]}\.ko$" "$MODDIR/modules.builtin"; then
			die "module $m is neither in modules.order nor built into $KVER"
		fi
	done
	mkdir -p "$CACHE/initramfs"
	(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out.tmp.$$" &&
		mv "$out.tmp.$$" "$out" || die "cannot write $out"
	rm -rf "$stage"
	echo "$out"
}

BASE=$(build_base) || exit 125

WORK=$(mktemp -d /tmp/ksnoop-vm64.XXXXXX) || die "mktemp failed"
QPID=
keep_work=0
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	[ $keep_work = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

NONCE=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
M="KSNOOP-VM-$NONCE"

# The payload: this run's binaries, scripts and job.
build_payload() {
	local p=$WORK/payload/ksnoop
	mkdir -p "$p/build/tests" "$p/tests"
	# Debug info only costs initramfs bytes in the guest.
	aarch64-linux-gnu-strip -o "$p/ksnoop" "$BUILD/ksnoop" 2>/dev/null ||
		cp "$BUILD/ksnoop" "$p/ksnoop"
	aarch64-linux-gnu-strip -o "$p/build/tests/workload" "$BUILD/tests/workload" 2>/dev/null ||
		cp "$BUILD/tests/workload" "$p/build/tests/workload"
	# ktrace's traced program, when built (make ARCH=arm64 ktrace-target).
	if [ -x "$BUILD/ktrace_target" ]; then
		aarch64-linux-gnu-strip -o "$p/build/tests/ktrace_target" "$BUILD/ktrace_target" 2>/dev/null ||
			cp "$BUILD/ktrace_target" "$p/build/tests/ktrace_target"
	fi
	cp -r "$REPO/tests/vm" "$REPO/tests/arm64" "$p/tests/"
	{
		echo "export PATH=/ksnoop:/ksnoop/build/tests:/bin"
		echo "export HOME=/root TERM=dumb LC_ALL=C"
		printf 'export KSNOOP_VM=1 KSNOOP_VM_ARCH=arm64 KSNOOP_VM_KERNEL=%q KSNOOP_VM_KVER=%q KSNOOP_VM_CONFIG=%q\n' \
			"$KERNEL" "$KVER" "/boot/config-$KVER"
		for e in "${ENVS[@]}"; do
			printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
		done
		echo "cd /ksnoop || exit 125"
		printf 'exec'
		printf ' %q' "$@"
		echo
	} >"$p/.job.sh"
	(cd "$WORK/payload" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$WORK/payload.cpio.gz" ||
		die "cannot pack the payload"
	# The kernel unpacks concatenated archives in order.
	cat "$BASE" "$WORK/payload.cpio.gz" >"$WORK/initrd.gz"
}

build_payload "$@"

BOOT_TIMEOUT=${KSNOOP_VM_BOOT_TIMEOUT:-90}

started() {
	grep -aqE "^$M (start|fail)" "$WORK/console.log"
}

# One QEMU run. Returns 1 when the boot hung, 0 otherwise; sets qrc and
# boot_wall (milliseconds from QEMU start to the job's start, host clock).
boot_once() {
	local t0 now t_out t_err t_con=
	: >"$WORK/console.log"
	: >"$WORK/stdout"
	: >"$WORK/stderr"
	t0=$(date +%s%N)
	timeout -k 5 "$TIMEOUT" qemu-system-aarch64 \
		-M virt -cpu max -smp 2 -m 1024 -nographic -no-reboot \
		-nodefaults -nic none \
		-kernel "$IMAGE" -initrd "$WORK/initrd.gz" \
		-append "console=ttyAMA0 mitigations=off panic=-1 oops=panic quiet loglevel=4 rdinit=/init ksnoop.nonce=$NONCE$APPEND" \
		-serial "file:$WORK/console.log" \
		-device virtio-serial-device \
		-chardev "file,id=out,path=$WORK/stdout" -device virtconsole,chardev=out \
		-chardev "file,id=err,path=$WORK/stderr" -device virtconsole,chardev=err \
		</dev/null >"$WORK/qemu.log" 2>&1 &
	QPID=$!

	tail -n +1 -s 0.2 -f --pid=$QPID "$WORK/stdout" 2>/dev/null &
	t_out=$!
	tail -n +1 -s 0.2 -f --pid=$QPID "$WORK/stderr" >&2 2>/dev/null &
	t_err=$!
	if [ $CONSOLE = 1 ]; then
		tail -n +1 -s 0.2 -f --pid=$QPID "$WORK/console.log" >&2 2>/dev/null &
		t_con=$!
	fi
	boot_wall=
	hung=0
	while kill -0 $QPID 2>/dev/null; do
		now=$(date +%s%N)
		if [ -z "$boot_wall" ]; then
			if started; then
				boot_wall=$(((now - t0) / 1000000))
			elif [ $(((now - t0) / 1000000000)) -ge "$BOOT_TIMEOUT" ]; then
				hung=1
				kill $QPID 2>/dev/null
				break
			fi
		fi
		sleep 0.2
	done
	wait $QPID
	qrc=$?
	QPID=
	wait $t_out $t_err $t_con 2>/dev/null
	return $hung
}

start=$(date +%s.%N)
if ! boot_once; then
	echo "vm-exec: [arm64 $KERNEL] the guest did not start the job within ${BOOT_TIMEOUT}s; booting again" >&2
	cp "$WORK/console.log" "$WORK/console-hung.log"
	if ! boot_once; then
		keep_work=1
		echo "Error: [arm64 $KERNEL] the guest hung while booting, twice (console log: $WORK/console.log)" >&2
		exit 125
	fi
fi
end=$(date +%s.%N)

fail() {
	keep_work=1
	echo "Error: [arm64 $KERNEL] $1 (console log: $WORK/console.log)" >&2
	exit "${2:-125}"
}

marker() {
	tr -d '\r' <"$WORK/console.log" | grep -a "^$M $1" | tail -n 1
}

line=$(marker exit)
if [ -n "$line" ]; then
	set -- $line
	rc=$3
	if [ $TIMING = 1 ]; then
		boot=$(marker start | awk '{print $3}')
		awk -v k="arm64 $KERNEL" -v b="$boot" -v w="$boot_wall" -v g="$4" -v s="$start" -v e="$end" 'BEGIN {
			printf "vm-timing: [%s] boot %.1fs (guest uptime %.1fs), command %.1fs, wall %.1fs\n",
				k, w / 1000, b, g - b, e - s
		}' >&2
	fi
	exit "$rc"
fi

line=$(marker fail)
[ -n "$line" ] && fail "VM setup failed: ${line#* fail }"
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	if [ -n "$(marker start)" ]; then
		fail "timed out after ${TIMEOUT}s while running '$*'" 124
	fi
	fail "timed out after ${TIMEOUT}s while booting" 124
fi
panic=$(tr -d '\r' <"$WORK/console.log" | grep -a -m1 -E 'Kernel panic|BUG:|Oops|Internal error' || true)
[ -n "$panic" ] && fail "guest kernel crashed: $panic"
if [ $qrc != 0 ]; then
	fail "qemu failed (exit $qrc): $(tail -n 1 "$WORK/qemu.log")"
fi
if [ -z "$(marker boot)" ]; then
	fail "the guest never reached /init"
fi
fail "the VM stopped without reporting an exit status"
