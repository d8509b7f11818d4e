#!/bin/bash
# The main job, shown live: ksnoop ARGS for a bounded time while a loopback
# workload runs. Where this machine can trace kernel functions ("ksnoop
# feature" exits 0) it runs here; otherwise inside the bundled VM.
#
#   tests/vm/demo.sh [--kernel 6.1|6.12] [--duration S] [KSNOOP ARGS...]
#   make vm ARGS='trace ip_send_skb' [KERNEL=6.12] [DURATION=10]
#
# Default ARGS: trace ip_send_skb. make passes ARGS through KSNOOP_ARGS,
# split on blanks (write specs without spaces, or call this script).
# The last line says how it went: "demo: N events from M functions in S s;
# ksnoop stopped cleanly", or ksnoop's exit status when it failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/demo-lib.sh

KERNEL=${KERNEL:-6.1}
DURATION=${DURATION:-10}
HERE=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--here) HERE=1; shift ;;
	--) shift; break ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	read -r -a words <<<"${KSNOOP_ARGS:-trace ip_send_skb}"
	set -- "${words[@]}"
fi
[[ $DURATION =~ ^[0-9]+$ ]] || { echo "Error: invalid duration '$DURATION'" >&2; exit 2; }

# UDP and TCP over loopback, a few times a second: ip_send_skb, tcp_sendmsg,
# ip_rcv and friends all fire.
workload_loop() {
	while :; do
		build/tests/workload udp-send 150 3 >/dev/null
		build/tests/workload tcp-send 1000 >/dev/null
		sleep 0.3
	done
}

run_here() {
	local wl rc n m counts
	counts=$(mktemp /tmp/ksnoop-demo.XXXXXX)
	workload_loop &
	wl=$!
	echo "demo: ksnoop $* for ${DURATION}s on $(uname -r), loopback workload running" >&2
	SECONDS=0
	# timeout's SIGINT is the normal end of a demo: ksnoop drains, reports
	# and exits 0; its own status is kept (--preserve-status).
	timeout --preserve-status -s INT -k 5 "$DURATION" ./ksnoop "$@" | demo_tally "$counts"
	rc=${PIPESTATUS[0]}
	kill $wl 2>/dev/null
	wait $wl 2>/dev/null
	read -r n m <"$counts" || n=0 m=0
	rm -f "$counts"
	demo_summary "$rc" "${n:-0}" "${m:-0}" "$SECONDS" >&2
	return $rc
}

if [ $HERE = 1 ]; then
	ip link set lo up 2>/dev/null
	run_here "$@"
	exit
fi

if ./ksnoop feature >/dev/null 2>&1; then
	run_here "$@"
	exit
fi
echo "demo: this machine cannot trace kernel functions (see ./ksnoop feature); using the $KERNEL VM" >&2
exec tests/vm/vm-exec.sh --kernel "$KERNEL" --timeout $((DURATION + 180)) -- \
	tests/vm/demo.sh --here --duration "$DURATION" -- "$@"
