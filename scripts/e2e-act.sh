#!/usr/bin/env bash
# Runs the action end to end under act in host mode (no Docker): the
# repository's own action.yml on a pull_request event against a fake GitHub
# API on loopback (action/e2e_act_test.go). Installs act with `go install`
# when it is missing. Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

ACT_VERSION="${ACT_VERSION:-v0.2.89}"
gobin="$(go env GOBIN)"
[[ -n "$gobin" ]] || gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"

if ! command -v act >/dev/null 2>&1 || ! act --version 2>/dev/null | grep -q "${ACT_VERSION#v}"; then
	echo "installing act $ACT_VERSION"
	go install "github.com/nektos/act@$ACT_VERSION"
fi
act --version

export EVALGATE_E2E_ACT=1
go test -count=1 -run '^TestActEndToEnd$' -v -timeout 40m ./action/
