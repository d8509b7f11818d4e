#!/bin/bash
# Run one command inside a Debian kernel under QEMU (TCG) and return its exit
# status.
#
#   tests/vm/vm-exec.sh [--arch x86|arm64] [--kernel NAME] [--timeout S]
#                       [--env NAME=VALUE]... [--append KERNEL_ARGS]
#                       [--console] [--timing] -- CMD [ARGS...]
#
# --kernel (default 6.1) is one of scripts/kernels.sh's names: 5.10, 6.1,
# 6.12 or 7.3 on x86, 5.10, 6.1 or 6.12 on arm64.
# --arch (default $ARCH, else x86; the Makefile's names) picks the guest,
# from the table in tests/vm/arch.sh:
#   x86    the guest sees the host's root file system read-only (virtio-9p)
#          and runs CMD with cwd = the caller's cwd.
#   arm64  the guest cannot run the host's binaries, so the initramfs
#          carries everything: a base archive cached per kernel (static
#          arm64 busybox and bash, the virtio modules, the kernel config,
#          tests/vm/init) and a payload built per run, /ksnoop, laid out
#          like the repo (ksnoop and build/tests/workload from ARM64_OUT,
#          default build/arm64, build/tests/ktrace_target if built, and
#          tests/vm, tests/arm64); CMD runs in /ksnoop.
# Either way CMD runs as root with fresh proc, sys, dev, tmpfs /tmp,
# tracefs, debugfs and bpffs, and lo up. CMD's stdout and stderr stream
# back to ours.
#
# Protocol. Three channels keep the streams apart, so kernel messages never
# mix with CMD's output: the kernel console (ttyS0, ttyAMA0) with marker
# lines "KSNOOP-VM-<nonce> boot|start|exit N|fail WHY", and CMD's stdout and
# stderr (ttyS1 and ttyS2; on arm64 two virtio console ports, hvc0 and
# hvc1). Each is a file on the host; stdout and stderr are followed live.
# Exit status: CMD's own when the guest reported "exit N". Otherwise one
# "Error: [K] ..." line on stderr naming the cause, and the kept console
# log: 124 timeout, 123 guest lockup, 125 crash and anything else.
#
# Lockups. The guest boots with softlockup_panic=1 and panic_on_rcu_stall=1
# at a console loglevel that lets backtraces through. While CMD runs, the
# console is watched: on the first soft-lockup, RCU-stall or hung-task line
# the guest gets LOCKUP_GRACE (5) seconds to print its backtrace, QEMU is
# stopped, and "Error: [K] guest locked up: LINE" is followed by the
# console from that line on, as "console| ..." lines, exit status 123.
#
# --console streams the guest console to stderr (boot debugging);
# --timing prints "vm-timing: ..." to stderr (boot and run seconds).
# A boot that has not started CMD after KSNOOP_VM_BOOT_TIMEOUT seconds
# (default 90) is an emulator hang: QEMU is killed and the VM booted again,
# once. KSNOOP_CACHE (default /var/cache/ksnoop) holds kernels and
# initramfs (arm64's, and its userland, under arm64/).
# KSNOOP_VM_ICOUNT=1: the guest clock counts instructions (make bench).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
. "$HERE/arch.sh"
. "$HERE/console.sh"
KERNEL=6.1
TIMEOUT=300
CONSOLE=0
TIMING=0
ENVS=()
APPEND=
LOCKUP_RC=123
LOCKUP_GRACE=5

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
	--arch) ARCH=${2:?}; shift 2 ;;
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
vm_arch || exit 2
[[ $TIMEOUT =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || die "invalid --timeout '$TIMEOUT'"
for e in "${ENVS[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "invalid --env '$e': use NAME=VALUE"
done
command -v "$QEMU" >/dev/null || die "$QEMU missing; $QEMU_DEPS"
K="$LABEL_PREFIX$KERNEL"
CACHE=${KSNOOP_CACHE:-/var/cache/ksnoop}
[ "$ARCH" = x86 ] || CACHE=$CACHE/$ARCH

KROOT=$("$REPO/scripts/kernels.sh" dir "$KERNEL") || exit 125
KVER=$("$REPO/scripts/kernels.sh" kver "$KERNEL")
MODDIR=$KROOT/lib/modules/$KVER
# The uncompressed ELF (PVH entry) boots an x86 guest seconds faster than
# the bzImage; arm64's package ships a raw Image as vmlinuz. kernels.sh
# gives 7.3's merged-/usr package the same paths (boot/, lib/modules/).
IMAGE=$KROOT/boot/vmlinux-$KVER
[ -f "$IMAGE" ] || IMAGE=$KROOT/boot/vmlinuz-$KVER

# ---- the base initramfs: busybox, /init, modules --------------------------
# Debian's packages ship no modules.dep, so dependencies come from each
# module's own "depends=" modinfo; built-in ones are skipped, so one list
# serves 5.10 and 6.1 (virtio as modules), 6.12 (much of it built in) and
# 7.3 (virtio built in; 9p needs netfs, found through depends=). 5.10 and
# 6.1 ship plain .ko files, 6.12 and 7.3 .ko.xz.
declare -A MOD_PATH=() MOD_SEEN=()
MOD_ORDER=()

# modules.order names every loadable module, without compression suffix.
index_modules() {
	local p name
	while IFS= read -r p; do
		name=${p##*/}
		name=${name%.ko}
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

# What goes into the base archive besides /init and the modules, as
# "SOURCE:PATH" pairs. The initramfs has no libc: busybox must be static.
base_files() {
	local userland
	case $GUEST_ROOT in
	9p)
		[ -x /bin/busybox ] && ! readelf -l /bin/busybox 2>/dev/null | grep INTERP >/dev/null ||
			die "/bin/busybox is not a static busybox; install busybox-static"
		BASE_FILES=(/bin/busybox:bin/busybox)
		;;
	initramfs)
		userland=$("$REPO/scripts/$ARCH.sh" userland) || exit 125
		# guest.sh reads the config to decide which features the kernel has.
		BASE_FILES=("$userland/bin/busybox:bin/busybox" "$userland/bin/bash-static:bin/bash"
			"$KROOT/boot/config-$KVER:boot/config-$KVER")
		;;
	esac
}

# The name carries a hash of every input, so any change rebuilds it.
build_base() {
	local hash out stage m f
	base_files
	# the modules /init loads are part of what the archive is
	hash=$( (cat "$HERE/init" "${BASE_FILES[@]%%:*}" "$MODDIR/modules.order"
		echo "${WANT_MODS[*]}") | sha256sum | cut -c1-16)
	out=$CACHE/initramfs/$KVER-$hash.cpio.gz
	[ -f "$out" ] && { echo "$out"; return 0; }
	index_modules
	for m in "${WANT_MODS[@]}"; do
		resolve_mod "$m"
	done
	stage=$(mktemp -d /tmp/ksnoop-initramfs.XXXXXX) || die "mktemp failed"
	mkdir -p "$stage"/{bin,boot,dev,proc,sys,root,tmp,modules}
	for f in "${BASE_FILES[@]}"; do
		cp "${f%%:*}" "$stage/${f#*:}" || die "cannot copy ${f%%:*}"
	done
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
	(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out.tmp.$$" &&
		mv "$out.tmp.$$" "$out" || die "cannot write $out"
	rm -rf "$stage"
	echo "$out"
}

BASE=$(build_base) || exit 125

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

# ---- the job ---------------------------------------------------------------

# write_job PATH CONFIG DIR CMD...: the script the guest's bash runs.
write_job() {
	local out=$1 config=$2 dir=$3 e
	shift 3
	{
		echo "export PATH=$JOB_PATH"
		echo "export HOME=/root TERM=dumb LC_ALL=C"
		printf 'export KSNOOP_VM=1 KSNOOP_VM_ARCH=%q KSNOOP_VM_KERNEL=%q KSNOOP_VM_KVER=%q KSNOOP_VM_CONFIG=%q\n' \
			"$ARCH" "$KERNEL" "$KVER" "$config"
		for e in "${ENVS[@]}"; do
			printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
		done
		printf 'cd %q || exit 125\n' "$dir"
		printf 'exec'
		printf ' %q' "$@"
		echo
	} >"$out"
}

# The x86 guest runs the host's tools on the host's root. It mounts a fresh
# /tmp; a cwd below the host's /tmp (a CI clone) is bind-mounted back in by
# /init.
job_9p() {
	local keep
	JOB_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	write_job "$WORK/job.sh" "$KROOT/boot/config-$KVER" "$PWD" "$@"
	INITRD=$BASE
	QEMU_9P=(-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap)
	JOB_ARGS=" ksnoop.job=$WORK/job.sh"
	case $PWD in
	/tmp/*/* | /tmp/*)
		keep=${PWD#/tmp/}
		keep=${keep%%/*}
		[[ $keep =~ ^[A-Za-z0-9._-]+$ ]] || die "cannot run from '$PWD': unusual directory name under /tmp"
		JOB_ARGS+=" ksnoop.keeptmp=$keep"
		;;
	esac
}

# strip_to SRC DST: the guest binaries without their debug info, which
# would only cost initramfs bytes.
strip_to() {
	mkdir -p "${2%/*}"
	aarch64-linux-gnu-strip -o "$2" "$1" 2>/dev/null || cp "$1" "$2"
}

# Debian's own arm64 libc (libc6:arm64, which scripts/arm64.sh's
# libc6-dev:arm64 brings) where Debian puts it, with the dynamic workload:
# user-function cases probe libc.so.6 as they do on x86-64, where the
# guest sees the host's root.
ARM64_LIBC=/usr/lib/aarch64-linux-gnu
arm64_libc() {
	local out=$1 lib=$WORK/payload/lib
	[ -x "$out/tests/workload-dyn" ] && [ -r "$ARM64_LIBC/libc.so.6" ] || return 0
	mkdir -p "$lib/aarch64-linux-gnu"
	cp "$ARM64_LIBC/ld-linux-aarch64.so.1" "$ARM64_LIBC/libc.so.6" "$lib/aarch64-linux-gnu/"
	ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$lib/ld-linux-aarch64.so.1"
	# getaddrinfo's answer for localhost, from the file alone: there is no network
	mkdir -p "$WORK/payload/etc"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$WORK/payload/etc/hosts"
	printf 'hosts: files\n' >"$WORK/payload/etc/nsswitch.conf"
	cp "$out/tests/workload-dyn" "$WORK/payload/ksnoop/build/tests/"
	arm64_userland_tools "$lib/aarch64-linux-gnu"
}

# Debian's dynamic bash (readline) and openssl (libssl), where x86-64's
# guests see the host's: bashreadline's and sslsnoop's cases probe them.
arm64_userland_tools() {
	local lib=$1 bin=$WORK/payload/usr/bin u
	u=$("$REPO/scripts/$ARCH.sh" userland) || exit 125
	[ -x "$u/bin/bash" ] && [ -x "$u/usr/bin/openssl" ] || return 0
	mkdir -p "$bin"
	cp "$u/bin/bash" "$u/usr/bin/openssl" "$bin/"
	# openssl req reads its configuration, or fails
	mkdir -p "$WORK/payload/usr/lib/ssl"
	cp "$u/etc/ssl/openssl.cnf" "$WORK/payload/usr/lib/ssl/"
	cp "$u/lib/aarch64-linux-gnu/libtinfo.so.6" "$u/usr/lib/aarch64-linux-gnu/libssl.so.3" \
		"$u/usr/lib/aarch64-linux-gnu/libcrypto.so.3" "$lib/"
}

# The arm64 guest gets this run's binaries, scripts and job as a second
# archive; the kernel unpacks concatenated archives in order.
job_initramfs() {
	local p=$WORK/payload/ksnoop bin out=${ARM64_OUT:-$REPO/build/arm64}
	for bin in "${VM_BINS[@]}"; do
		[[ $bin == /* ]] || bin=$REPO/$bin
		[ -x "$bin" ] || die "$bin missing; run make ARCH=$ARCH"
	done
	strip_to "$out/ksnoop" "$p/ksnoop"
	# whole: user-function cases read its symbols and DWARF (a few hundred KiB)
	mkdir -p "$p/build/tests" && cp "$out/tests/workload" "$p/build/tests/workload"
	[ -x "$out/tests/workload-nofp" ] && cp "$out/tests/workload-nofp" "$p/build/tests/"
	arm64_libc "$out"
	# ktrace's traced program, when built (make ARCH=arm64 ktrace-target).
	[ -x "$out/ktrace_target" ] && strip_to "$out/ktrace_target" "$p/build/tests/ktrace_target"
	mkdir -p "$p/tests"
	cp -r "$REPO/tests/vm" "$REPO/tests/arm64" "$p/tests/"
	JOB_PATH=/ksnoop:/ksnoop/build/tests:/bin:/usr/bin
	write_job "$p/.job.sh" "/boot/config-$KVER" /ksnoop "$@"
	(cd "$WORK/payload" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$WORK/payload.cpio.gz" ||
		die "cannot pack the payload"
	cat "$BASE" "$WORK/payload.cpio.gz" >"$WORK/initrd.gz"
	INITRD=$WORK/initrd.gz
	QEMU_9P=()
	JOB_ARGS=
}

"job_$GUEST_ROOT" "$@"

# ---- the boot --------------------------------------------------------------

# A TCG guest very rarely hangs early in boot (RCU stall, timer interrupts
# lost while the host is overloaded). That is no test result: when /init
# has not started the job within BOOT_TIMEOUT, kill QEMU and boot again.
BOOT_TIMEOUT=${KSNOOP_VM_BOOT_TIMEOUT:-90}

ACCEL=tcg
# shellcheck disable=SC2053 # MTTCG_KVERS is a glob
[[ $KVER == $MTTCG_KVERS ]] || ACCEL=tcg,thread=single
# KSNOOP_VM_ICOUNT=1: the guest clock counts instructions (1 ns each), so
# timings are instruction counts, free of host load (make bench uses it).
ICOUNT=()
SMP=2
if [ "${KSNOOP_VM_ICOUNT:-0}" = 1 ]; then
	ACCEL=tcg,thread=single
	SMP=1 # a second vCPU never comes up under icount
	ICOUNT=(-icount "${KSNOOP_VM_ICOUNT_OPTS:-shift=0,sleep=off}")
fi

# loglevel=5 lets through what the kernel prints at the default level 4,
# which is where backtraces go; a lockup or an RCU stall then ends the
# guest with its backtrace in the log.
KARGS="console=$CONSOLE_TTY mitigations=off panic=-1 oops=panic loglevel=5"
KARGS+=" softlockup_panic=1 sysctl.kernel.panic_on_rcu_stall=1 rdinit=/init"
KARGS+=" ksnoop.nonce=$NONCE ksnoop.root=$GUEST_ROOT ksnoop.out=${OUT_PORTS// /,}$JOB_ARGS$APPEND"

started() {
	grep -aqE "^$M (start|fail)" "$WORK/console.log"
}

# One QEMU run. Returns 1 when the boot hung, 0 otherwise; sets qrc,
# boot_wall (milliseconds from QEMU start to the job's start, host clock)
# and lockup (the console's first lockup line, if any).
boot_once() {
	local t0 now t_out t_err t_con= tick=0 seen=
	: >"$WORK/console.log"
	: >"$WORK/stdout"
	: >"$WORK/stderr"
	t0=$(date +%s%N)
	timeout -k 5 "$TIMEOUT" "$QEMU" \
		-accel "$ACCEL" "${ICOUNT[@]}" "${QEMU_MACHINE[@]}" -smp "$SMP" \
		-nographic -no-reboot -nodefaults -nic none \
		-kernel "$IMAGE" -initrd "$INITRD" -append "$KARGS" \
		"${QEMU_9P[@]}" "${QEMU_IO[@]//@W/$WORK}" \
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
	lockup=
	while kill -0 $QPID 2>/dev/null; do
		now=$(date +%s%N)
		if [ -z "$boot_wall" ]; then
			if started; then
				boot_wall=$(((now - t0) / 1000000))
				[ -t 2 ] && printf '\r\033[K' >&2
			elif [ -t 2 ] && [ $((tick % 5)) = 0 ]; then
				# A TCG boot takes seconds: say so on a terminal.
				printf '\r\033[Kvm-exec: [%s] booting %s: %ds' "$K" "$KVER" \
					$(((now - t0) / 1000000000)) >&2
			fi
			if [ -z "$boot_wall" ] && [ $(((now - t0) / 1000000000)) -ge "$BOOT_TIMEOUT" ]; then
				[ -t 2 ] && printf '\r\033[K' >&2
				hung=1
				kill $QPID 2>/dev/null
				break
			fi
		fi
		# Once a second: has the guest locked up? Then give it the grace
		# to print the backtrace (or panic by itself) and stop it.
		tick=$((tick + 1))
		if [ -z "$seen" ] && [ $((tick % 5)) = 0 ] && trouble=$(console_trouble "$WORK/console.log") &&
			[ "${trouble%% *}" = lockup ]; then
			seen=$now
			lockup=${trouble#lockup }
		fi
		if [ -n "$seen" ] && [ $(((now - seen) / 1000000000)) -ge $LOCKUP_GRACE ]; then
			kill $QPID 2>/dev/null
			break
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
	echo "vm-exec: [$K] the guest did not start the job within ${BOOT_TIMEOUT}s; booting again" >&2
	cp "$WORK/console.log" "$WORK/console-hung.log"
	if ! boot_once; then
		keep_work=1
		echo "Error: [$K] the guest hung while booting, twice (console log: $WORK/console.log)" >&2
		exit 125
	fi
fi
end=$(date +%s.%N)

# ---- the verdict -----------------------------------------------------------

fail() {
	keep_work=1
	echo "Error: [$K] $1 (console log: $WORK/console.log)" >&2
	exit "${2:-125}"
}

marker() {
	tr -d '\r' <"$WORK/console.log" | grep -a "^$M $1" | tail -n 1
}

line=$(marker exit)
if [ -n "$line" ]; then
	[ -n "$lockup" ] && echo "vm-exec: [$K] the job finished, but the console shows a lockup: $lockup (console log: $WORK/console.log)" >&2 &&
		keep_work=1
	set -- $line
	rc=$3
	if [ $TIMING = 1 ]; then
		boot=$(marker start | awk '{print $3}')
		awk -v k="$K" -v b="$boot" -v w="$boot_wall" -v g="$4" -v s="$start" -v e="$end" 'BEGIN {
			printf "vm-timing: [%s] boot %.1fs (guest uptime %.1fs), command %.1fs, wall %.1fs\n",
				k, w / 1000, b, g - b, e - s
		}' >&2
	fi
	exit "$rc"
fi

line=$(marker fail)
[ -n "$line" ] && fail "VM setup failed: ${line#* fail }"
# A lockup the watch missed because the guest panicked first
# (softlockup_panic) is still a lockup.
if [ -z "$lockup" ] && trouble=$(console_trouble "$WORK/console.log") && [ "${trouble%% *}" = lockup ]; then
	lockup=${trouble#lockup }
fi
if [ -n "$lockup" ]; then
	keep_work=1
	echo "Error: [$K] guest locked up: $lockup (console log: $WORK/console.log)" >&2
	console_excerpt "$WORK/console.log" "$lockup" >&2
	exit $LOCKUP_RC
fi
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	if [ -n "$(marker start)" ]; then
		fail "timed out after ${TIMEOUT}s while running '$*'" 124
	fi
	fail "timed out after ${TIMEOUT}s while booting" 124
fi
if trouble=$(console_trouble "$WORK/console.log"); then
	fail "guest kernel crashed: ${trouble#crash }"
fi
# A signal from outside the test (timeout forwards what it receives).
killed=$(grep -m1 'terminating on signal' "$WORK/qemu.log" || true)
[ -n "$killed" ] && fail "QEMU was stopped from outside the test: $killed"
if [ $qrc != 0 ]; then
	fail "qemu failed (exit $qrc): $(tail -n 1 "$WORK/qemu.log")"
fi
if [ -z "$(marker boot)" ]; then
	fail "the guest never reached /init"
fi
fail "the VM stopped without reporting an exit status"
