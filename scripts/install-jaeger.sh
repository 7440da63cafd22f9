#!/usr/bin/env bash
# Builds Jaeger (the all-in-one `jaeger` command: an OTLP receiver, an
# in-memory store and the query API) from its Go module, for the export
# test of OpenTelemetry (`go test ./cli -run TestExportToJaeger`,
# docs/otel.md). It prints the binary's path; the test finds it in
# EVALGATE_JAEGER. Jaeger's module carries a replace directive, which
# `go install pkg@version` refuses, so it is built from a module of its own
# holding the same directive. A binary built from this version is reused.
#
#   JAEGER_VERSION  the module version (default below)
#   JAEGER_DIR      where the build module and the binary live
#                   (default: $(go env GOCACHE)/evalgate-jaeger)
set -euo pipefail

version="${JAEGER_VERSION:-v1.76.0}"
dir="${JAEGER_DIR:-$(go env GOCACHE)/evalgate-jaeger}"
bin="$dir/jaeger-$version"

if [[ -x "$bin" ]] && go version -m "$bin" 2>/dev/null | grep -Eq "^[[:space:]]+dep[[:space:]]+github.com/jaegertracing/jaeger[[:space:]]+$version([[:space:]]|$)"; then
	echo "$bin"
	exit 0
fi

mkdir -p "$dir/build"
cd "$dir/build"
cat >go.mod <<EOF
module evalgate.local/jaeger

go 1.24

require github.com/jaegertracing/jaeger $version

replace github.com/Shopify/sarama => github.com/Shopify/sarama v1.33.0
EOF
cat >tools.go <<'EOF'
//go:build tools

package tools

import _ "github.com/jaegertracing/jaeger/cmd/jaeger"
EOF
echo "building jaeger $version in $dir (several minutes the first time)" >&2
start=$SECONDS
go mod tidy >&2
go build -trimpath -o "$bin.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >&2
mv "$bin.tmp" "$bin"
echo "built jaeger $version in $((SECONDS - start)) s" >&2
echo "$bin"
