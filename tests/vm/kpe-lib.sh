# shellcheck shell=bash
# Helpers of the kprobe_events comparisons (kpe-compare.sh, kpe-gen-compare.sh):
# tracefs events in and out, and comparing two streams of trace lines.

TRACEFS=${TRACEFS:-/sys/kernel/tracing}
KPE_ADDED=()

# The definitions of a verdicts table (kpe-verdicts.txt) in KPE_DEFS, and
# for each: KPE_WANT, its section (accepted, refused, or either: as the
# kernel's limits decide), and KPE_SINCE, its "[X.Y] " mark or "".
kpe_table_read() {
	local line want=either mark='^\[([0-9]+\.[0-9]+)\] (.*)$'
	KPE_DEFS=() KPE_WANT=() KPE_SINCE=()
	while IFS= read -r line; do
		case $line in
		'# accepted') want=accepted ;;
		'# refused') want=refused ;;
		'# accepted or refused'*) want=either ;;
		'' | \#*) ;;
		*)
			KPE_SINCE+=("")
			if [[ $line =~ $mark ]]; then
				KPE_SINCE[-1]=${BASH_REMATCH[1]}
				line=${BASH_REMATCH[2]}
			fi
			KPE_DEFS+=("$line")
			KPE_WANT+=("$want")
			;;
		esac
	done <"$1"
}

# Whether the running kernel is older than X.Y ("" is older than none).
kpe_kernel_before() {
	[ -n "$1" ] && ! version_ge "$KPE_KREL" "$1"
}
read -r KPE_KREL </proc/sys/kernel/osrelease

# Whether the kernel has fprobe events: tracefs's README gives their syntax.
kpe_have_fprobes() {
	grep -qF 'f[:[<group>/][<event>]]' "$TRACEFS/README" 2>/dev/null
}

# Whether the kernel has event probes (5.15): the same.
kpe_have_eprobes() {
	grep -qE '^[[:space:]]*e\[:\[<group>/' "$TRACEFS/README" 2>/dev/null
}

# "p:GRP/EVENT SYM ..." -> KPE_GROUP, KPE_EVENT, KPE_FILE (the tracefs file
# the definition goes to), KPE_EVDIR and KPE_RETURN (1 for return probes).
kpe_event_of() {
	local head=${1%% *} name
	name=${head#*:}
	if [[ $head != *:* || $name != */* ]]; then
		echo "kpe: '$1' must name its event as GRP/EVENT" >&2
		return 1
	fi
	KPE_GROUP=${name%%/*}
	KPE_EVENT=${name#*/}
	KPE_FILE=$TRACEFS/kprobe_events
	[[ $head == [fte]* ]] && KPE_FILE=$TRACEFS/dynamic_events
	KPE_RETURN=0
	[[ $head == r* || $1 == *%return* ]] && KPE_RETURN=1
	KPE_EVDIR=$TRACEFS/events/$KPE_GROUP/$KPE_EVENT
	return 0
}

# Adds a definition; a rejection prints the kernel's error_log entry.
kpe_tracefs_add() {
	kpe_event_of "$1" || return 1
	echo >"$TRACEFS/error_log"
	if ! echo "$1" >>"$KPE_FILE" 2>/dev/null; then
		echo "kpe: the kernel rejected '$1':"
		sed 's/^/kpe:   /' "$TRACEFS/error_log"
		return 1
	fi
	KPE_ADDED+=("$KPE_FILE" "$KPE_GROUP/$KPE_EVENT")
	return 0
}

kpe_tracefs_enable_all() {
	local i
	for ((i = 0; i < ${#KPE_ADDED[@]}; i += 2)); do
		echo 1 >"$TRACEFS/events/${KPE_ADDED[i + 1]}/enable" || return 1
	done
}

kpe_tracefs_disable_all() {
	local i
	for ((i = 0; i < ${#KPE_ADDED[@]}; i += 2)); do
		echo 0 >"$TRACEFS/events/${KPE_ADDED[i + 1]}/enable" 2>/dev/null
	done
}

kpe_tracefs_remove() {
	local i
	for ((i = 0; i < ${#KPE_ADDED[@]}; i += 2)); do
		echo 0 >"$TRACEFS/events/${KPE_ADDED[i + 1]}/enable" 2>/dev/null
		echo "-:${KPE_ADDED[i + 1]}" >>"${KPE_ADDED[i]}" 2>/dev/null
	done
	KPE_ADDED=()
}

# Trace lines -> "EVENT: (location) name=value..." per event, in order;
# return probes lose the location (see kpe-compare.sh). A string holding a
# newline continues on the next line: it is joined back with "\n".
kpe_fields() {
	awk '/^ *[^ ].*-[0-9]+ +\[[0-9][0-9][0-9]\] .*[0-9]\.[0-9][0-9][0-9][0-9][0-9][0-9]: / {
		if (rec != "") print rec; rec = $0; next }
		rec != "" { rec = rec "\\n" $0 }
		END { if (rec != "") print rec }' "$1" |
		sed -n -E 's/^.*[0-9]+\.[0-9]{6}: ([A-Za-z_][A-Za-z0-9_]*): (\([^)]*\))(.*)$/\1: \2\3/p' |
		sed -E 's/^([^:]*): \([^)]*<- [^)]*\)/\1: (return)/'
}

# kpe_compare LABEL KERNEL_FIELDS KSNOOP_FIELDS MIN: prints the verdict.
kpe_compare() {
	local n
	n=$(grep -c . "$2")
	if cmp -s "$2" "$3" && [ "$n" -ge "$4" ]; then
		echo "compare: $1: $n events equal"
		sed 's/^/#   /' "$2"
		return 0
	fi
	echo "compare: $1: MISMATCH (kernel $n events, ksnoop $(grep -c . "$3") events, want >= $4)"
	echo "# kernel tracefs:"
	sed 's/^/#   /' "$2"
	echo "# ksnoop:"
	sed 's/^/#   /' "$3"
	return 1
}
