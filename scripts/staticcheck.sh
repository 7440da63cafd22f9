#!/usr/bin/env bash
# Runs staticcheck over the module: bugs, dead code and simplifications go
# vet does not catch. Installs the pinned staticcheck with `go install`
# when that version is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION="${STATICCHECK_VERSION:-v0.8.2}"
# shellcheck source=scripts/gotool.sh
source scripts/gotool.sh
need_go_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"
staticcheck ./...
