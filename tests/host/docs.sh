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

# count and hist: their own options, in their own section.
agg_help=$(./ksnoop count --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
agg_man=$(sed -n '/^\.SH COUNT AND HIST OPTIONS/,/^\.SH COUNT AND HIST JSON/p' doc/ksnoop.8 |
	grep -oE -- '\\-\\-[a-z]([a-z]|\\-)+' | sed 's/\\//g' | sort -u)
diff_agg=$(diff <(echo "$agg_help") <(echo "$agg_man") | grep '^[<>]' | tr '\n' ' ')
if [ -n "$agg_help" ] && [ -z "$diff_agg" ]; then
	echo "ok - docs: count --help and ksnoop(8)'s COUNT AND HIST OPTIONS name the same options"
else
	echo "not ok - docs: count --help (<) and ksnoop(8) (>) differ: ${diff_agg:-no options parsed}"
fi

# ksnoop probe --help and ksnoop-probe(8)'s OPTIONS name the same options.
probe_help=$(./ksnoop probe --help | sed -n '/^OPTIONS:/,$p' | grep -oE -- '--[a-z][a-z-]+' | grep -vx -- --help | sort -u)
probe_man=$(sed -n '/^\.SH OPTIONS/,/^\.SH KPROBE-EVENTS/p' doc/ksnoop-probe.8 |
	grep -E '^\.(B|BI|BR) ' | sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z-]+' | sort -u)
diff_probe=$(diff <(echo "$probe_help") <(echo "$probe_man") | grep '^[<>]' | tr '\n' ' ')
if [ -n "$probe_help" ] && [ -z "$diff_probe" ]; then
	echo "ok - docs: probe --help and ksnoop-probe(8)'s OPTIONS name the same options"
else
	echo "not ok - docs: probe --help (<) and ksnoop-probe(8) (>) differ: ${diff_probe:-no options parsed}"
fi
