#!/usr/bin/env bash
# Renders the badge golden files to PNG so a person can look at them.
# Needs rsvg-convert (Debian: apt-get install -y librsvg2-bin). Not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${TMPDIR:-/tmp}/evalgate-badges}"
mkdir -p "$out"
for svg in report/testdata/badge-*.golden.svg; do
	name="$(basename "$svg" .golden.svg)"
	rsvg-convert --zoom 4 "$svg" --output "$out/$name.png"
	echo "$out/$name.png"
done
