#!/bin/bash
# VERSION is the one version: ksnoop -V, every man page's .TH line and
# debian/changelog carry the same. TAP output.
set -uo pipefail
cd "$(dirname "$0")/../.."

version=$(cat VERSION)
if [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "ok - version: VERSION is $version"
else
	echo "not ok - version: VERSION is not X.Y.Z: '$version'"
fi
if [ "$(./ksnoop -V)" = "ksnoop v$version" ]; then
	echo "ok - version: ksnoop -V prints $version"
else
	echo "not ok - version: ksnoop -V prints '$(./ksnoop -V)', VERSION has $version"
fi
for page in doc/*.[158]; do
	th=$(grep -m1 '^\.TH' "$page")
	if grep -qF "\"ksnoop $version\"" <<<"$th"; then
		echo "ok - version: $page .TH shows ksnoop $version"
	else
		echo "not ok - version: $page .TH does not show ksnoop $version: $th"
	fi
done
deb=$(dpkg-parsechangelog -S Version 2>/dev/null ||
	sed -n '1s/^ksnoop (\([^)]*\)).*/\1/p' debian/changelog)
if [ "$deb" = "$version" ]; then
	echo "ok - version: debian/changelog is $version"
else
	echo "not ok - version: debian/changelog is '$deb', VERSION has $version"
fi
