# Sourced by tests/vm/demo.sh (and tested by tests/host/vm-harness.sh): the
# demo's pass-through of ksnoop's output and its closing line.

# demo_tally FILE: stdin to stdout, line by line as it comes, and into FILE
# "EVENTS FUNCTIONS": trace's and graph's event lines ("TIME CPU PID
# name(...") and how many functions they name.
demo_tally() {
	awk -v out="$1" '
		{ print; fflush() }
		/^ *[0-9][0-9:.]* +[0-9]+ +[0-9]+ [^ (]+\(/ {
			n++
			f = $4
			sub(/\(.*/, "", f)
			if (!(f in seen)) {
				seen[f] = 1
				m++
			}
		}
		END { printf "%d %d\n", n, m > out }'
}

# demo_summary RC EVENTS FUNCTIONS SECONDS: the demo's last line.
demo_summary() {
	local rc=$1 n=$2 m=$3 s=$4 what=
	[ "$n" -gt 0 ] && what="$n event$([ "$n" = 1 ] || echo s) from $m function$([ "$m" = 1 ] || echo s) in ${s}s; "
	if [ "$rc" = 0 ]; then
		echo "demo: ${what:-ran ${s}s; }ksnoop stopped cleanly"
	else
		echo "demo: ${what}ksnoop failed (exit $rc); its error is above"
	fi
}
