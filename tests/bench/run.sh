#!/bin/bash
# make bench: boot each kernel once, run tests/bench/guest.sh there (every
# competitor side by side in the same boot), print the tables and write
# the same numbers to build/bench.json. See doc/bench.md.
#
#   KERNELS="6.1 6.12"   kernels to run, one VM boot each
#   BENCH_SECTIONS, BENCH_CALLS, BENCH_ROUNDS, BENCH_ATTACH, BENCH_BEFORE,
#   BENCH_KTRACE_COUNT:  see guest.sh
#   VM_EXEC              the VM runner (default tests/vm/vm-exec.sh)
#   BENCH_OUT            output directory (default build)
#
# The guest uses the TSC clocksource (clocksource=tsc tsc=reliable): under
# TCG the kernel otherwise falls back to the HPET, whose every read is an
# emulated MMIO access, and each tracer timestamp would cost microseconds
# that no real machine pays.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO" || exit 1
KERNELS=${KERNELS:-6.1 6.12}
OUT=${BENCH_OUT:-build}
VM_EXEC=${VM_EXEC:-$REPO/tests/vm/vm-exec.sh}
ENVS=()
for v in BENCH_SECTIONS BENCH_CALLS BENCH_ROUNDS BENCH_ATTACH BENCH_BEFORE BENCH_KTRACE_COUNT; do
	[ -n "${!v:-}" ] && ENVS+=(--env "$v=${!v}")
done

[ -x "$VM_EXEC" ] || { echo "Error: $VM_EXEC not found; set VM_EXEC" >&2; exit 1; }
for f in ksnoop build/bench/bench build/bench/floor; do
	[ -x "$f" ] || { echo "Error: $f missing; run 'make bench'" >&2; exit 1; }
done
mkdir -p "$OUT"

rc=0
for k in $KERNELS; do
	echo "bench: kernel $k" >&2
	"$VM_EXEC" --kernel "$k" --timeout 10800 --timing \
		--append "clocksource=tsc tsc=reliable" "${ENVS[@]}" -- \
		tests/bench/guest.sh >"$OUT/bench-$k.txt" || {
		echo "Error: the benchmark failed on $k" >&2
		rc=1
	}
done

for k in $KERNELS; do
	[ -s "$OUT/bench-$k.txt" ] && "$HERE/report.sh" table "$k" "$OUT/bench-$k.txt"
done
args=()
for k in $KERNELS; do
	[ -s "$OUT/bench-$k.txt" ] && args+=("$k" "$OUT/bench-$k.txt")
done
if [ ${#args[@]} -gt 0 ]; then
	"$HERE/report.sh" json "${args[@]}" >"$OUT/bench.json.tmp" &&
		mv "$OUT/bench.json.tmp" "$OUT/bench.json" &&
		echo "bench: wrote $OUT/bench.json" >&2
fi
exit $rc
