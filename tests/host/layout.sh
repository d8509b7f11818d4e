#!/bin/bash
# README's Layout table names every source module and nothing that is gone:
# for each folder row, each src/DIR/NAME.c is `NAME` (or `cmd_*.c`), and each
# backticked word of the row is a file there. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

row() { # DIR: the second column of README's row for DIR/
	grep -F "| \`$1/\` |" README.md | awk -F'|' '{ print $3 }'
}

for d in src/lib src/trace src/agg src/serve src/kpe src/ktr bpf/abi bpf/lib bpf/trace bpf/agg; do
	r=$(row "$d")
	if [ -z "$r" ]; then
		echo "not ok - layout: README has no row for $d/"
		continue
	fi
	missing= gone=
	for f in "$d"/*.c "$d"/*.h; do
		[ -e "$f" ] || continue
		b=$(basename "$f")
		case $b in
		cmd_*.c) want=$b ;;
		*.c) want=${b%.c} ;;
		*.h) [ -e "${f%.h}.c" ] && continue; want=$b
			[[ $d == src/* ]] && want=${b%.h} ;;
		esac
		grep -qF "\`$want\`" <<<"$r" || missing="$missing $want"
	done
	for w in $(grep -oE '`[a-z_][a-z0-9_.]*`' <<<"$r" | tr -d '`'); do
		case $w in
		*.c | *.h) [ -e "$d/$w" ] || gone="$gone $w" ;;
		*) [ -e "$d/$w.c" ] || [ -e "$d/$w.h" ] || gone="$gone $w" ;;
		esac
	done
	if [ -z "$missing$gone" ]; then
		echo "ok - layout: README's row for $d/ names its files, and only them"
	else
		echo "not ok - layout: README's row for $d/: not named:${missing:- none}; named but absent:${gone:- none}"
	fi
done
for f in bpf/*.bpf.c; do
	if grep -qF "| \`$f\` |" README.md; then
		echo "ok - layout: README has a row for $f"
	else
		echo "not ok - layout: README has no row for $f"
	fi
done
