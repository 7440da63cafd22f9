#!/usr/bin/env bash
# Builds evalgate's release archives reproducibly (scripts/release/main.go
# says how) with the Go pinned below: an archive's bytes depend on the Go
# that built it, so the maintainer's build, CI's and the release workflow's
# must use the same one. Go fetches that toolchain when the local Go differs.
#
#   scripts/release-build.sh VERSION [--out dist] [--write | --check]
#       [--checksums action/checksums.txt] [--targets os/arch,…]
#
#   --write  puts the archives' sums into action/checksums.txt (the
#            maintainer, in the commit that is tagged);
#   --check  fails unless action/checksums.txt lists exactly those sums (the
#            release workflow, before it publishes anything).
#
# docs/github-action.md ("Cutting a release") has the whole procedure.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Go that builds releases. Raise it in its own commit, before a release.
RELEASE_GO=go1.26.8

export GOTOOLCHAIN="$RELEASE_GO"
exec go run ./scripts/release -go "$RELEASE_GO" "$@"
