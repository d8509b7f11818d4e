# shellcheck shell=bash
# What went wrong in a guest, read from its kernel console log. Sourced by
# vm-exec.sh; tests/host/vm-harness.sh checks it on recorded excerpts.

# A guest that stopped making progress: the soft-lockup watchdog, an RCU
# stall (a CPU that no longer passes through a quiescent state) and the
# hung-task detector. A hard lockup needs an NMI watchdog TCG lacks, but
# its line is the same kind of news.
LOCKUP_ERE='watchdog: BUG: soft lockup|INFO: rcu_[a-z]+ (self-)?detected stall|INFO: task .* blocked for more than [0-9]+ seconds|[Ww]atchdog detected hard LOCKUP'
# A kernel that crashed: an oops, a BUG(), a panic of its own.
CRASH_ERE='Kernel panic|BUG:|Oops|general protection fault|Internal error'

# console_trouble LOG: prints "lockup LINE" or "crash LINE" for the first
# line of either kind (a lockup's own "BUG: soft lockup" and the panic that
# softlockup_panic makes of it come after the line that names it), nothing
# when the log has neither. Returns 0 when it printed.
console_trouble() {
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ $LOCKUP_ERE ]]; then
			echo "lockup ${line#\[*\] }"
			return 0
		fi
		if [[ $line =~ $CRASH_ERE ]]; then
			echo "crash ${line#\[*\] }"
			return 0
		fi
	done < <(grep -a -E "$LOCKUP_ERE|$CRASH_ERE" "$1")
	return 1
}

# console_excerpt LOG LINE [N]: LINE and the N (default 60) lines after
# it, each as "console| ...": the backtrace that follows a lockup report.
console_excerpt() {
	tr -d '\r' <"$1" | grep -a -F -A "${3:-60}" -m 1 -- "$2" | sed 's/^/console| /'
}
