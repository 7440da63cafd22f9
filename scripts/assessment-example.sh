#!/usr/bin/env bash
# Regenerates docs/assessment-example.svg, the badge the README shows: the
# example support-desk agent run on the assessment-ready example
# (examples/assessment/evalgate.yaml), then assessed with a fixed id and
# date so the file only changes when the assessment does.
# cli/assess_test.go checks that the committed file is what this produces.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agent" ./examples/agent
go run . run --config examples/assessment/evalgate.yaml --agent-cmd "$tmp/agent" --out "$tmp/out" --quiet
go run . assess "$tmp/out" --config examples/assessment/evalgate.yaml \
  --id acme-support-desk-example --now 2026-11-26T00:00:00Z --format svg
cp "$tmp/out/assessment.svg" docs/assessment-example.svg
echo "wrote docs/assessment-example.svg"
