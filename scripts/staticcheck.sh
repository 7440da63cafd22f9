#!/usr/bin/env bash
# Runs staticcheck over the module: bugs, dead code and simplifications go
# vet does not catch. Installs the pinned staticcheck with `go install`
# when that version is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_VERSION="${STATICCHECK_VERSION:-v0.8.2}"
gobin="$(go env GOBIN)"
[[ -n "$gobin" ]] || gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"

if ! go version -m "$gobin/staticcheck" 2>/dev/null | grep -q "honnef.co/go/tools[[:space:]]*$STATICCHECK_VERSION"; then
	echo "installing staticcheck $STATICCHECK_VERSION"
	go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
staticcheck ./...
