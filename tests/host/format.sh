#!/bin/bash
# The tree follows .clang-format (kernel style): every C file the Makefile's
# FORMAT_SRCS lists is as clang-format would write it. TAP output; the
# first lines clang-format would change are shown. "make format" fixes it.
set -uo pipefail
cd "$(dirname "$0")/../.."

if ! command -v clang-format >/dev/null; then
	echo "ok - format: the tree follows .clang-format # SKIP needs clang-format (scripts/deps.sh)"
	exit 0
fi
files=$(make -s --no-print-directory print-format-srcs)
bad=()
for f in $files; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
n=$(echo "$files" | wc -w)
if [ ${#bad[@]} -eq 0 ]; then
	echo "ok - format: $n files follow .clang-format"
else
	echo "not ok - format: ${#bad[@]} of $n files differ from .clang-format (make format fixes them)"
	for f in "${bad[@]:0:5}"; do
		clang-format "$f" | diff -u "$f" - | sed -n '1,12s/^/#   /p'
	done
fi
