#!/bin/bash
# Run one command inside a Debian kernel under QEMU (TCG) and return its exit
# status.
#
#   tests/vm/vm-exec.sh [--kernel 6.1|6.12] [--timeout S] [--env NAME=VALUE]...
#                       [--append KERNEL_ARGS] [--console] [--timing] -- CMD [ARGS...]
#
# The guest sees the host's root file system read-only (virtio-9p), with
# fresh proc, sys, dev, tmpfs /tmp, tracefs, debugfs and bpffs, and runs CMD
# as root with cwd = the caller's cwd. CMD's stdout and stderr stream back
# to ours.
#
# Protocol. Three serial ports keep the streams apart, so kernel messages
# never mix with CMD's output:
#   ttyS0  kernel console + marker lines "KSNOOP-VM-<nonce> boot|start|exit N|fail WHY"
#   ttyS1  CMD's stdout      ttyS2  CMD's stderr
# Each port is a file on the host; stdout and stderr are followed live.
# Exit status: CMD's own when the guest reported "exit N". Otherwise one
# "Error: ..." line on stderr naming the cause (timeout 124, panic/crash 125)
# and the kept console log.
#
# --console streams the guest console to stderr (boot debugging);
# --timing prints "vm-timing: ..." to stderr (boot and run seconds).
# A boot that has not started CMD after KSNOOP_VM_BOOT_TIMEOUT seconds
# (default 90) is an emulator hang: QEMU is killed and the VM booted again,
# once.
# KSNOOP_CACHE (default /var/cache/ksnoop) holds kernels and initramfs.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}
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
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing; run scripts/deps.sh"

KROOT=$("$REPO/scripts/kernels.sh" dir "$KERNEL") || exit 125
KVER=$("$REPO/scripts/kernels.sh" kver "$KERNEL")
# The uncompressed ELF (PVH entry) boots seconds faster than the bzImage.
VMLINUZ=$KROOT/boot/vmlinux-$KVER
[ -f "$VMLINUZ" ] || VMLINUZ=$KROOT/boot/vmlinuz-$KVER
MODDIR=$KROOT/lib/modules/$KVER

# What the guest needs to mount the host root: the virtio transport and 9p.
# Debian's packages ship no modules.dep, so dependencies come from each
# module's own "depends=" modinfo; built-in ones are skipped, so the same
# list serves 6.1 (virtio as modules) and 6.12 (virtio built in).
WANT_MODS=(virtio_pci 9pnet_virtio 9p)

declare -A MOD_PATH=() MOD_SEEN=()
MOD_ORDER=()

# modules.order names every loadable module, without compression suffix.
index_modules() {
	local p name
	while IFS= read -r p; do
		name=$(basename "$p" .ko)
		MOD_PATH[${name//-/_}]=$p
	done <"$MODDIR/modules.order"
}

mod_file() {
	local f=$MODDIR/$1 ext
	for ext in "" .xz .zst .gz; do
		[ -f "$f$ext" ] && { echo "$f$ext"; return 0; }
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

mod_depends() {
	mod_cat "$1" | tr '\0' '\n' | grep -a -m1 '^depends=' | cut -d= -f2 | tr ',' ' '
}

# Depth-first, dependencies first: the order insmod needs.
resolve_mod() {
	local name=${1//-/_} f d
	[ -n "${MOD_SEEN[$name]:-}" ] && return 0
	MOD_SEEN[$name]=1
	if [ -z "${MOD_PATH[$name]:-}" ]; then
		grep -qE "/${name//_/[-_]}\.ko" "$MODDIR/modules.builtin" && return 0
		die "module $name is neither in modules.order nor built into $KVER"
	fi
	f=$(mod_file "${MOD_PATH[$name]}") || die "module file ${MOD_PATH[$name]} missing in $MODDIR"
	for d in $(mod_depends "$f"); do
		resolve_mod "$d"
	done
	MOD_ORDER+=("$name")
}

# The initramfs depends only on the kernel, busybox and /init; its name
# carries a hash of all three so any change rebuilds it.
build_initramfs() {
	local hash out stage m f
	hash=$(cat "$HERE/init" /bin/busybox "$MODDIR/modules.order" | sha256sum | cut -c1-16)
	out=$CACHE/initramfs/$KVER-$hash.cpio.gz
	if [ -f "$out" ]; then
		echo "$out"
		return 0
	fi
	# The initramfs has no libc: busybox must be the static build.
	[ -x /bin/busybox ] && ! readelf -l /bin/busybox 2>/dev/null | grep -q INTERP ||
		die "/bin/busybox is not a static busybox; install busybox-static"
	index_modules
	for m in "${WANT_MODS[@]}"; do
		resolve_mod "$m"
	done
	stage=$(mktemp -d /tmp/ksnoop-initramfs.XXXXXX) || die "mktemp failed"
	mkdir -p "$stage"/{bin,dev,proc,sys,root,tmp,modules}
	cp /bin/busybox "$stage/bin/busybox"
	cp "$HERE/init" "$stage/init"
	chmod 755 "$stage/init"
	: >"$stage/modules.order"
	for m in "${MOD_ORDER[@]}"; do
		f=$(mod_file "${MOD_PATH[$m]}")
		# busybox insmod cannot read compressed modules (6.12 ships .ko.xz).
		mod_cat "$f" >"$stage/modules/$m.ko" || die "cannot unpack module $f"
		echo "$m.ko" >>"$stage/modules.order"
	done
	mkdir -p "$CACHE/initramfs"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp.$$" &&
		mv "$out.tmp.$$" "$out" || die "cannot write $out"
	rm -rf "$stage"
	echo "$out"
}

INITRD=$(build_initramfs) || exit 125

WORK=$(mktemp -d /tmp/ksnoop-vm.XXXXXX) || die "mktemp failed"
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

# The job script runs under the host's bash inside the chroot.
{
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root TERM=dumb LC_ALL=C"
	printf 'export KSNOOP_VM=1 KSNOOP_VM_KERNEL=%q KSNOOP_VM_KVER=%q KSNOOP_VM_CONFIG=%q\n' \
		"$KERNEL" "$KVER" "$KROOT/boot/config-$KVER"
	for e in "${ENVS[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	printf 'cd %q || exit 125\n' "$PWD"
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$WORK/job.sh"

# The guest mounts a fresh /tmp; a cwd below the host's /tmp (a CI clone)
# is bind-mounted back in by /init.
KEEP_TMP_ARG=
case $PWD in
/tmp/*/* | /tmp/*)
	keep=${PWD#/tmp/}
	keep=${keep%%/*}
	[[ $keep =~ ^[A-Za-z0-9._-]+$ ]] || die "cannot run from '$PWD': unusual directory name under /tmp"
	KEEP_TMP_ARG=" ksnoop.keeptmp=$keep"
	;;
esac

# A TCG guest very rarely hangs early in boot (RCU stall, timer interrupts
# lost while the host is overloaded). That is no test result: when /init
# has not started the job within BOOT_TIMEOUT, kill QEMU and boot again.
BOOT_TIMEOUT=${KSNOOP_VM_BOOT_TIMEOUT:-90}

started() {
	grep -aqE "^$M (start|fail)" "$WORK/console.log"
}

# 6.12 under multi-threaded TCG sometimes oopses on an int3 left by its
# own text patching (jump labels, ftrace call sites) while the other vCPU
# runs the patched code: seen twice in a day on an overloaded host, in the
# middle of unrelated cases, never on real hardware or on 6.1. One TCG
# thread for both vCPUs serialises them and ends that race.
ACCEL=tcg
case $KVER in
6.1.*) ;;
*) ACCEL=tcg,thread=single ;;
esac
# KSNOOP_VM_ICOUNT=1: the guest clock counts instructions (1 ns each), so
# timings are instruction counts, free of host load (make bench uses it).
ICOUNT=()
SMP=2
if [ "${KSNOOP_VM_ICOUNT:-0}" = 1 ]; then
	ACCEL=tcg,thread=single
	SMP=1 # a second vCPU never comes up under icount
	ICOUNT=(-icount "${KSNOOP_VM_ICOUNT_OPTS:-shift=0,sleep=off}")
fi

# One QEMU run. Returns 1 when the boot hung, 0 otherwise; sets qrc and
# boot_wall (seconds from QEMU start to the job's start, host clock).
boot_once() {
	local t0 now t_out t_err t_con=
	: >"$WORK/console.log"
	: >"$WORK/stdout"
	: >"$WORK/stderr"
	t0=$(date +%s%N)
	timeout -k 5 "$TIMEOUT" qemu-system-x86_64 \
		-accel "$ACCEL" "${ICOUNT[@]}" -cpu max -smp "$SMP" -m 2048 -nographic -no-reboot \
		-nodefaults -nic none \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append "console=ttyS0 mitigations=off panic=-1 oops=panic quiet loglevel=4 rdinit=/init ksnoop.nonce=$NONCE ksnoop.job=$WORK/job.sh$KEEP_TMP_ARG$APPEND" \
		-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
		-serial "file:$WORK/console.log" \
		-serial "file:$WORK/stdout" \
		-serial "file:$WORK/stderr" \
		</dev/null >"$WORK/qemu.log" 2>&1 &
	QPID=$!

	# tail --pid exits after its last read once QEMU is gone.
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
	echo "vm-exec: [$KERNEL] the guest did not start the job within ${BOOT_TIMEOUT}s; booting again" >&2
	cp "$WORK/console.log" "$WORK/console-hung.log"
	if ! boot_once; then
		keep_work=1
		echo "Error: [$KERNEL] the guest hung while booting, twice (console log: $WORK/console.log)" >&2
		exit 125
	fi
fi
end=$(date +%s.%N)

fail() {
	keep_work=1
	echo "Error: [$KERNEL] $1 (console log: $WORK/console.log)" >&2
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
		awk -v k="$KERNEL" -v b="$boot" -v w="$boot_wall" -v g="$4" -v s="$start" -v e="$end" 'BEGIN {
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
panic=$(tr -d '\r' <"$WORK/console.log" | grep -a -m1 -E 'Kernel panic|BUG:|Oops|general protection fault' || true)
[ -n "$panic" ] && fail "guest kernel crashed: $panic"
if [ $qrc != 0 ]; then
	fail "qemu failed (exit $qrc): $(tail -n 1 "$WORK/qemu.log")"
fi
if [ -z "$(marker boot)" ]; then
	fail "the guest never reached /init"
fi
fail "the VM stopped without reporting an exit status"
