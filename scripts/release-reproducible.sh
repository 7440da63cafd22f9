#!/usr/bin/env bash
# Checks that the release build is reproducible, the way a release is made:
# the first build writes its sums into a copy of action/checksums.txt (the
# maintainer's --write); the second, from a copy of the source at another
# path and with an empty Go build cache, must match them (the release
# workflow's --check, then scripts/release-verify.sh). Called by .ci/run
# and CI.
#
#   scripts/release-reproducible.sh [VERSION] [--targets os/arch,…]
set -euo pipefail
cd "$(dirname "$0")/.."

version=v0.0.0
if [[ $# -gt 0 && "$1" != -* ]]; then
	version="$1"
	shift
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cp action/checksums.txt "$work/checksums.txt"
echo "== first build, in $PWD"
bash scripts/release-build.sh "$version" --out "$work/first" --write --checksums "$work/checksums.txt" "$@"

# The README's check of a downloaded archive, against the committed file.
(cd "$work/first" && sha256sum --check --ignore-missing "$work/checksums.txt")

echo "== second build, in $work/src with an empty build cache"
mkdir "$work/src"
# The files git would commit, as they are now (changes not yet committed included).
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do if [[ -e "$f" ]]; then printf '%s\0' "$f"; fi; done |
	tar --null -T - -cf - | tar -xf - -C "$work/src"
GOCACHE="$work/gocache" bash "$work/src/scripts/release-build.sh" "$version" \
	--out "$work/second" --check --checksums "$work/checksums.txt" "$@"
# What the release workflow's publish job runs on the archives it is handed.
bash scripts/release-verify.sh "$version" "$work/second" "$work/checksums.txt"
echo "the release build is reproducible"
