#!/bin/bash
# mandoc -Tlint -Wwarning has nothing to say about any man page. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

if ! command -v mandoc >/dev/null; then
	echo "ok - manlint: mandoc -Tlint # SKIP mandoc missing (scripts/deps.sh)"
	exit 0
fi
for page in doc/*.[0-9]; do
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	if [ -z "$out" ]; then
		echo "ok - manlint: $page"
	else
		echo "not ok - manlint: $page"
		printf '%s\n' "$out" | head -20 | sed 's/^/#   /'
	fi
done
