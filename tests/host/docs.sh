#!/bin/bash
# The help text and the man page describe the same options and commands.
# TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

help_opts=$(./ksnoop --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
# Long options in the man page: roff writes "\-\-name".
man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH COUNT AND HIST OPTIONS/p' doc/ksnoop.8 |
	grep -oE -- '\\-\\-[a-z]([a-z]|\\-)+' | sed 's/\\//g' | sort -u)

missing_in_man=$(comm -23 <(echo "$help_opts") <(echo "$man_opts"))
missing_in_help=$(comm -13 <(echo "$help_opts") <(echo "$man_opts"))
if [ -z "$missing_in_man" ] && [ -n "$help_opts" ]; then
	echo "ok - docs: every option in --help is in ksnoop(8)"
else
	echo "not ok - docs: options in --help but not in ksnoop(8): $missing_in_man"
fi
if [ -z "$missing_in_help" ]; then
	echo "ok - docs: every option in ksnoop(8) is in --help"
else
	echo "not ok - docs: options in ksnoop(8) but not in --help: $missing_in_help"
fi

cmds=$(./ksnoop --help | sed -n 's/^COMMAND := { \(.*\) }$/\1/p' | tr -d '|' | xargs -n1)
bad=
for c in $cmds; do
	# roff spells a hyphen in a name as \-
	m=${c//-/\\\\-}
	grep -q "^\.B.* $m\b\|^\.BI* $m\b\|^\.B $m" doc/ksnoop.8 || bad="$bad $c"
done
if [ -n "$cmds" ] && [ -z "$bad" ]; then
	echo "ok - docs: every command in --help has a section in ksnoop(8)"
else
	echo "not ok - docs: commands without a man page entry:${bad:- (no commands parsed)}"
fi

# same_opts WHAT HELP-LIST MAN-LIST: one TAP line, the lists must be equal.
same_opts() {
	local what=$1 help=$2 man=$3 d
	d=$(diff <(echo "$help") <(echo "$man") | grep '^[<>]' | tr '\n' ' ')
	if [ -n "$help" ] && [ -z "$d" ]; then
		echo "ok - docs: $what name the same options"
	else
		echo "not ok - docs: $what differ (< help, > man page): ${d:-no options parsed}"
	fi
}

# count and hist: their own options, in their own section.
agg_help=$(./ksnoop count --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
agg_man=$(sed -n '/^\.SH COUNT AND HIST OPTIONS/,/^\.SH COUNT AND HIST JSON/p' doc/ksnoop.8 |
	grep -oE -- '\\-\\-[a-z]([a-z]|\\-)+' | sed 's/\\//g' | sort -u)
same_opts "count --help and ksnoop(8)'s COUNT AND HIST OPTIONS" "$agg_help" "$agg_man"

# ksnoop probe --help and ksnoop-probe(8)'s OPTIONS name the same options.
probe_help=$(./ksnoop probe --help | sed -n '/^OPTIONS:/,$p' | grep -oE -- '--[a-z][a-z-]+' | grep -vx -- --help | sort -u)
probe_man=$(sed -n '/^\.SH OPTIONS/,/^\.SH KPROBE-EVENTS/p' doc/ksnoop-probe.8 |
	grep -E '^\.(B|BI|BR) ' | sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z-]+' | sort -u)
same_opts "probe --help and ksnoop-probe(8)'s OPTIONS" "$probe_help" "$probe_man"

# kdump: the options of its -h synopsis are those kdump(1) describes.
kdump_help=$(./ksnoop kdump -h | sed 's/^usage: kdump //' | grep -oE -- '--?[a-zA-Z][a-zA-Z-]*' |
	while read -r o; do
		case $o in
		--*) echo "$o" ;;
		*) echo "${o#-}" | grep -o . | sed 's/^/-/' ;;
		esac
	done | sort -u)
kdump_man=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' doc/kdump.1 |
	grep -oE -- '^\.B[IR]? \\-(\\-[a-z][a-z-]*|[a-zA-Z])' | sed 's/^\.B[IR]* //; s/\\//g' | sort -u)
same_opts "kdump -h and kdump(1)'s OPTIONS" "$kdump_help" "$kdump_man"
