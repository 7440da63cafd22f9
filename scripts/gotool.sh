#!/usr/bin/env bash
# Sourced by the scripts that need a Go tool: need_go_tool NAME PACKAGE VERSION
# puts GOBIN on PATH and installs PACKAGE@VERSION with `go install` unless
# the NAME found there was built from that version.

gobin="$(go env GOBIN)"
[[ -n "$gobin" ]] || gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"

need_go_tool() {
	local name=$1 pkg=$2 version=$3 have
	have="$(command -v "$name" 2>/dev/null)" || have=""
	if [[ -z "$have" ]] || ! go version -m "$have" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]].*[[:space:]]$version([[:space:]]|$)"; then
		echo "installing $name $version"
		go install "$pkg@$version"
	fi
}
