#!/usr/bin/env bash
# Runs the action end to end under act in host mode (no Docker): the
# repository's own action.yml on a pull_request event against a fake GitHub
# API on loopback (action/e2e_act_test.go), in one job and then sharded, the
# shards passing their results to the merge job through act's artifact
# server, and with a history store over three pushes and a pull request. Installs act with `go install` when it is missing. Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

ACT_VERSION="${ACT_VERSION:-v0.2.89}"
# shellcheck source=scripts/gotool.sh
source scripts/gotool.sh
need_go_tool act github.com/nektos/act "$ACT_VERSION"
act --version

export EVALGATE_E2E_ACT=1
go test -count=1 -run '^(TestActEndToEnd|TestActSharded|TestActHistory)$' -v -timeout 40m ./action/
