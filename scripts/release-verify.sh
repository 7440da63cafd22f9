#!/usr/bin/env bash
# Checks release archives before they are published: DIR must hold exactly
# the archives that the checksums file lists for VERSION, each with its
# listed SHA-256, and a checksums.txt of those same lines; nothing else.
# Needs no Go. Run by the release workflow's publish job on the archives
# the build job made, and by scripts/release-reproducible.sh.
#
#   scripts/release-verify.sh VERSION DIR [CHECKSUMS]   (default: action/checksums.txt)
set -euo pipefail

fail() {
	echo "release-verify: $*" >&2
	exit 1
}

[[ $# -ge 2 && $# -le 3 ]] || fail "usage: scripts/release-verify.sh VERSION DIR [CHECKSUMS]"
version="$1" dir="$2" sums="${3:-$(dirname "$0")/../action/checksums.txt}"
[[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "version \"$version\" is not a release version like v1.2.3"
[[ -d "$dir" ]] || fail "$dir is not a folder"
[[ -f "$sums" ]] || fail "$sums does not exist"

listed="$(awk -v p="evalgate_${version#v}_" '!/^[[:space:]]*(#|$)/ && index($2, p) == 1' "$sums")"
[[ -n "$listed" ]] || fail "$sums lists no archive of $version: write them with scripts/release-build.sh $version --write and tag that commit"

(cd "$dir" && sha256sum --check --strict <<<"$listed") || fail "the archives in $dir do not match the sums of $version in $sums"
for f in "$dir"/*; do
	name="$(basename "$f")"
	[[ "$name" == checksums.txt ]] && continue
	awk -v n="$name" '$2 == n {found = 1} END {exit !found}' <<<"$listed" || fail "$f is not listed in $sums"
done
[[ -f "$dir/checksums.txt" ]] || fail "$dir/checksums.txt is missing"
diff <(sort "$dir/checksums.txt") <(sort <<<"$listed") >&2 ||
	fail "$dir/checksums.txt differs from the lines of $version in $sums"
echo "the $(wc -l <<<"$listed" | tr -d ' ') archives of $version in $dir match $sums"
