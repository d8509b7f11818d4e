# shellcheck shell=bash
# shellcheck disable=SC2034,SC2054 # the table is read by the sourcing scripts
# The one table of what differs between the VM harness's guest
# architectures, in the manner of the kernel selftests' vmtest.sh. Sourced
# by vm-exec.sh and run.sh; everything else in the harness is shared.
#
# ARCH takes the Makefile's names: x86 (the default) or arm64; x86_64 and
# aarch64 are accepted too. vm_arch sets:
#   ARCH            normalised name
#   KSNOOP_ARCH     scripts/kernels.sh's package set (exported for it)
#   QEMU            emulator binary; QEMU_DEPS what installs it
#   QEMU_MACHINE    machine, CPU and memory flags
#   MTTCG_KVERS     glob of kernel releases that may run multi-threaded
#                   TCG (the others get -accel tcg,thread=single)
#   CONSOLE_TTY     kernel console and marker lines
#   QEMU_IO         the console, stdout and stderr channels; @W is the
#                   run's work directory
#   OUT_PORTS       the guest's devices for the job's stdout and stderr
#   GUEST_ROOT      9p: the host's root over virtio-9p; initramfs: all in
#                   the initramfs (the guest cannot run host binaries)
#   WANT_MODS       modules /init loads (built-in ones are skipped)
#   LABEL_PREFIX    TAP label prefix: "[6.1]", "[arm64 6.1]"
#   VM_KERNELS      kernels the runner boots (KERNELS, ARM64_KERNELS;
#                   default all of scripts/kernels.sh list, the longest
#                   run first so that the last boot to start is short)
#   VM_CASES        default case files, relative to the repo
#   VM_TIMEOUT_DEFAULT   seconds one boot may take (VM_TIMEOUT overrides)
#   VM_TIMEOUT_SCALE     multiplies every case's TIMEOUT
#   VM_JOBS_DEFAULT      boots at once: one per host thread a guest keeps busy
#   VM_BUILD        the build step before the boots (empty: the caller's)
#   VM_BINS         what the guest runs: ksnoop, then the workload
# The order boots start in (tests/vm/run.sh), the longest first so that
# the last to start is short. Two at once on 2 CPUs, in CI (December 2026):
# x86-64 6.12 1181 s, 7.3 969, 6.1 922, 5.10 662; arm64 6.12 862, 6.1 625,
# 5.10 470. The first runs beside the host suites (tests/run.sh).
VM_ORDER="x86:6.12 x86:7.3 x86:6.1 arm64:6.12 x86:5.10 arm64:6.1 arm64:5.10"

vm_arch() {
	case ${ARCH:-x86} in
	x86 | x86_64)
		ARCH=x86
		KSNOOP_ARCH=x86
		QEMU=qemu-system-x86_64
		QEMU_DEPS="run scripts/deps.sh"
		QEMU_MACHINE=(-cpu max -m 2048)
		# Multi-threaded TCG and the kernel's own text patching do not
		# mix: 6.12 oopsed on an int3 left by jump-label or ftrace
		# patching while the other vCPU ran the patched code (twice in a
		# day), and 6.1 locked up in kpe-compare.sh's tracefs kprobe
		# registration (soft lockup of the test's shell, the rcu_preempt
		# kthread starved on the other vCPU), before any ksnoop program
		# of that case was loaded. One TCG thread for both vCPUs
		# serialises them; the lockup watch stays as the backstop.
		MTTCG_KVERS=
		CONSOLE_TTY=ttyS0
		QEMU_IO=(-serial file:@W/console.log -serial file:@W/stdout -serial file:@W/stderr)
		OUT_PORTS="ttyS1 ttyS2"
		GUEST_ROOT=9p
		# loop: a block device for the span cases (block I/O latency)
		WANT_MODS=(virtio_pci 9pnet_virtio 9p loop)
		LABEL_PREFIX=
		VM_KERNELS=${KERNELS:-7.3 6.12 6.1 5.10}
		VM_CASES=(tests/vm/cases/*.case)
		# 7.3 runs its cases in 16 minutes alone, and shares the CPUs
		VM_TIMEOUT_DEFAULT=2400
		VM_TIMEOUT_SCALE=1
		VM_BUILD=()
		VM_BINS=(ksnoop build/tests/workload)
		VM_JOBS_DEFAULT=$(nproc)
		;;
	arm64 | aarch64)
		ARCH=arm64
		KSNOOP_ARCH=arm64
		QEMU=qemu-system-aarch64
		QEMU_DEPS="run scripts/arm64.sh deps"
		QEMU_MACHINE=(-M virt -cpu max,pauth-impdef=on -m 1024)
		# One TCG thread here too. Multi-threaded, an arm64 5.10 guest
		# lost every event of a case about once in 120 runs (CI, then a
		# loop of 120 under host load): ksnoop attached its raw
		# tracepoint, the workload made its system calls, and the
		# program never ran (-d: 0 delivered, 0 lost, 0 malformed), as
		# if the vCPU running the workload kept executing the
		# tracepoint's branch from before attach patched it. None in 240
		# runs single-threaded. CI's three arm64 guests took 2,012 s
		# so, against 2,106 s multi-threaded: no loss of speed.
		MTTCG_KVERS=
		CONSOLE_TTY=ttyAMA0
		# The virt machine has one UART: stdout and stderr travel on two
		# virtio console ports.
		QEMU_IO=(-serial file:@W/console.log -device virtio-serial-device
			-chardev file,id=out,path=@W/stdout -device virtconsole,chardev=out
			-chardev file,id=err,path=@W/stderr -device virtconsole,chardev=err)
		OUT_PORTS="hvc0 hvc1"
		GUEST_ROOT=initramfs
		# loop: as x86-64's
		WANT_MODS=(virtio_mmio virtio_console loop)
		LABEL_PREFIX="arm64 "
		VM_KERNELS=${ARM64_KERNELS:-6.12 5.10 6.1}
		if [ -n "${ARM64_CASES:-}" ]; then
			read -r -a VM_CASES <<<"$ARM64_CASES"
		else
			VM_CASES=(tests/vm/cases/*.case tests/arm64/cases/*.case)
		fi
		VM_TIMEOUT_DEFAULT=2400
		# Emulating arm64 on x86-64 runs ksnoop 2-3 times slower than the
		# x86-64 guest does.
		VM_TIMEOUT_SCALE=${ARM64_TIMEOUT_SCALE:-3}
		VM_BUILD=(make -s -j"$(nproc)" ARCH=arm64 all workload ktrace-target)
		local out=${ARM64_OUT:-build/arm64}
		VM_BINS=("$out/ksnoop" "$out/tests/workload")
		VM_JOBS_DEFAULT=$(nproc)
		;;
	*)
		echo "Error: unknown ARCH '$ARCH': use x86 or arm64" >&2
		return 1
		;;
	esac
	export KSNOOP_ARCH
}
