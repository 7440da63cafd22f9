#!/usr/bin/env bash
# Installs the evalgate binary for the action. action.yml calls it twice:
#
#   install.sh        step "install": decides how evalgate is installed and
#                     says which in a notice. A release binary is downloaded
#                     and checked here; a build is left to step "build",
#                     which runs after actions/setup-go when the runner's Go
#                     is missing or older than the action's go.mod needs.
#   install.sh build  step "build": builds the action's checkout with the Go
#                     on PATH.
#
#   INPUT_INSTALL_MODE    auto (default): the release binary when the
#                         action's ref or INPUT_VERSION is a release listed in
#                         action/checksums.txt, else a build of the action's
#                         checkout;
#                         release: the release binary of INPUT_VERSION, else
#                         of the action's ref when it is a release, else of
#                         the newest listed release;
#                         source: a build of the action's checkout with the
#                         runner's Go.
#   INPUT_VERSION         the release to install, e.g. v1.2.0.
#   EVALGATE_ACTION_PATH  the action's checkout.
#   EVALGATE_ACTION_REF   the action's ref, e.g. v1.2.0 or main. action.yml
#                         passes github.action_ref through env: because
#                         GITHUB_ACTION_REF is empty in a composite action's
#                         steps; GITHUB_ACTION_REF is the fallback.
#   EVALGATE_BIN          build: where to write the binary.
#   EVALGATE_GO_CACHE     build: a folder for Go's module and build caches
#                         (the action's cache step restores it); empty uses
#                         Go's own.
#
# A release archive's SHA-256 must match its line in action/checksums.txt.
# Outputs of step "install": path (the binary) when a release is installed;
# otherwise build=true, bin (where step "build" writes the binary),
# setup-go (true when Go must be set up first), go-mod, go-cache and
# cache-key for the setup and cache steps. Both steps add the binary's
# folder to GITHUB_PATH and write its path to the output "path".
set -euo pipefail

# annotate NAME MESSAGE prints a workflow command, its message escaped so
# that no value (a ref, a version) can end it early or start another.
annotate() {
	local msg="$2"
	msg="${msg//'%'/%25}"
	msg="${msg//$'\r'/%0D}"
	msg="${msg//$'\n'/%0A}"
	echo "::$1 title=evalgate install::$msg"
}

fail() {
	annotate error "$*"
	exit 1
}

output() {
	echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"
}

action_path="${EVALGATE_ACTION_PATH:?EVALGATE_ACTION_PATH is not set}"
sums="$action_path/action/checksums.txt"
gomod="$action_path/go.mod"

exe=""
case "${RUNNER_OS:-$(uname -s)}" in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows | MINGW* | MSYS*) os=windows exe=.exe ;;
*) fail "unsupported runner OS ${RUNNER_OS:-$(uname -s)}" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | arm64 | aarch64) arch=arm64 ;;
*) fail "unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac
ext=tar.gz
[[ "$os" == windows ]] && ext=zip

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | awk '{print $1}'
	else
		shasum -a 256 "$1" | awk '{print $1}'
	fi
}

# asset VERSION is the archive name of VERSION for this runner.
asset() {
	echo "evalgate_${1#v}_${os}_${arch}.${ext}"
}

# listed_sum VERSION prints the SHA-256 that action/checksums.txt lists for
# this runner's archive of VERSION; empty when it lists none.
listed_sum() {
	[[ -f "$sums" ]] || return 0
	awk -v a="$(asset "$1")" '!/^[[:space:]]*(#|$)/ && $2 == a {print $1; exit}' "$sums"
}

# newest_listed prints the newest release listed in action/checksums.txt.
newest_listed() {
	[[ -f "$sums" ]] || return 0
	awk '!/^[[:space:]]*(#|$)/ {print $2}' "$sums" |
		sed -n 's/^evalgate_\([0-9][0-9.]*\)_.*/v\1/p' | sort -V | tail -n 1
}

# version_fields prints a Go version (go1.26.8, 1.26.0, go1.27rc1,
# "devel go1.27-abc…") as "major minor patch". A release candidate or beta
# counts as older than the release it leads to.
version_fields() {
	local v="${1#devel }"
	v="${v#go}"
	if [[ "$v" =~ ^([0-9]+)(\.([0-9]+))?(\.([0-9]+))?(.*)$ ]]; then
		local major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[3]:-0}" patch="${BASH_REMATCH[5]:-0}" rest="${BASH_REMATCH[6]}"
		[[ "$rest" =~ ^(rc|beta) ]] && patch=-1
		echo "$major $minor $patch"
	else
		echo "0 0 0"
	fi
}

# at_least HAVE NEED: Go version HAVE is NEED or newer.
at_least() {
	local have need i
	read -r -a have <<<"$(version_fields "$1")"
	read -r -a need <<<"$(version_fields "$2")"
	for i in 0 1 2; do
		((have[i] > need[i])) && return 0
		((have[i] < need[i])) && return 1
	done
	return 0
}

# needed_go prints the oldest Go that builds the action's checkout: its
# go.mod's go directive, or its toolchain directive when that is newer.
needed_go() {
	local need toolchain
	need="$(awk '$1 == "go" {print $2; exit}' "$gomod")"
	toolchain="$(awk '$1 == "toolchain" && $2 != "default" {print $2; exit}' "$gomod")"
	toolchain="${toolchain#go}"
	if [[ -n "$toolchain" ]] && ! at_least "$need" "$toolchain"; then
		need="$toolchain"
	fi
	echo "$need"
}

# runner_go prints the version of the Go on PATH (go1.26.8), or nothing. It
# asks outside any module, with GOTOOLCHAIN=local, so that no go.mod makes Go
# switch to (and download) another toolchain.
runner_go() {
	command -v go >/dev/null 2>&1 || return 0
	(cd / && GOTOOLCHAIN=local GOFLAGS='' GOWORK=off go env GOVERSION 2>/dev/null) || true
}

# finish BIN checks that BIN runs and hands it to the next steps.
finish() {
	"$1" version || fail "the installed evalgate does not run"
	dirname "$1" >>"${GITHUB_PATH:-/dev/null}"
	output path "$1"
}

# install_release VERSION SUM downloads this runner's archive of VERSION,
# checks it against SUM and unpacks the binary.
install_release() {
	local version="$1" want="$2" asset url got found bindir tmp
	asset="$(asset "$version")"
	url="${GITHUB_SERVER_URL:-https://github.com}/evalgate/evalgate/releases/download/${version}/${asset}"
	tmp="$(mktemp -d)"
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	echo "Downloading $url"
	curl --fail --silent --show-error --location --retry 3 --output "$tmp/$asset" "$url" ||
		fail "could not download $url"
	got="$(sha256 "$tmp/$asset")"
	[[ "$got" == "$want" ]] || fail "checksum mismatch for $asset: got $got, action/checksums.txt lists $want"
	mkdir -p "$tmp/x"
	if [[ "$ext" == zip ]]; then
		unzip -q -o "$tmp/$asset" -d "$tmp/x"
	else
		tar -xzf "$tmp/$asset" -C "$tmp/x"
	fi
	found="$(find "$tmp/x" -type f -name "evalgate$exe" | head -n 1)"
	[[ -n "$found" ]] || fail "$asset holds no evalgate$exe"
	bindir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/evalgate-bin-$$"
	mkdir -p "$bindir"
	install -m 0755 "$found" "$bindir/evalgate$exe"
	annotate notice "installed the evalgate $version release binary for $os/$arch, its SHA-256 checked against action/checksums.txt"
	finish "$bindir/evalgate$exe"
}

# plan_build MODE WHY decides which Go builds the action's checkout and
# hands the decision to the setup, cache and build steps.
plan_build() {
	local mode="$1" why="$2" need have key
	[[ -f "$gomod" ]] || fail "go.mod is missing from the action's checkout at $action_path"
	need="$(needed_go)"
	have="$(runner_go)"
	if [[ -n "$have" ]] && at_least "$have" "$need"; then
		annotate notice "building evalgate from source (the action's checkout) with the runner's Go, $have, because $why"
		output setup-go false
	elif [[ "$mode" == source ]]; then
		fail "install-mode source builds with the runner's Go, which must be $need or newer (the action's go.mod), but the runner has ${have:-no Go}: add actions/setup-go before this step, or leave install-mode out (auto sets Go up itself)"
	else
		annotate notice "building evalgate from source (the action's checkout) with Go $need from actions/setup-go, since the runner has ${have:-no Go} and the action's go.mod needs $need or newer, because $why"
		output setup-go true
		key="evalgate-go-$os-$arch-$need-$(sha256 "$action_path/go.sum")"
		output go-cache "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/evalgate-go"
		output cache-key "$key"
	fi
	output build true
	output bin "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/evalgate-bin-$$/evalgate$exe"
	output go-mod "$gomod"
}

resolve() {
	local mode="${INPUT_INSTALL_MODE:-auto}" version="${INPUT_VERSION:-}" want ref
	ref="${EVALGATE_ACTION_REF:-${GITHUB_ACTION_REF:-}}"
	case "$mode" in
	auto | release | source) ;;
	*) fail "install-mode \"$mode\" is not one of auto, release, source" ;;
	esac
	if [[ -n "$version" ]]; then
		[[ "$version" =~ ^v?[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]] ||
			fail "version \"$version\" is not a release version like v1.2.0"
		version="v${version#v}"
	elif [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		version="$ref"
	fi

	case "$mode" in
	source)
		plan_build source "install-mode is source"
		;;
	release)
		if [[ -z "$version" ]]; then
			version="$(newest_listed)"
			[[ -n "$version" ]] || fail "no evalgate release is listed in action/checksums.txt yet; leave install-mode out (auto builds the action's checkout) or set install-mode: source"
		fi
		want="$(listed_sum "$version")"
		[[ -n "$want" ]] || fail "evalgate $version for $os/$arch ($(asset "$version")) is not listed in action/checksums.txt; pick a listed version or set install-mode: source"
		install_release "$version" "$want"
		;;
	auto)
		want=""
		[[ -n "$version" ]] && want="$(listed_sum "$version")"
		if [[ -n "$want" ]]; then
			install_release "$version" "$want"
		elif [[ -n "${INPUT_VERSION:-}" ]]; then
			fail "evalgate $version for $os/$arch ($(asset "$version")) is not listed in action/checksums.txt; pick a listed version, or leave version out to build the action's checkout"
		elif [[ -n "$ref" ]]; then
			plan_build auto "the action's ref \"$ref\" is not a release listed in action/checksums.txt for $os/$arch"
		else
			plan_build auto "the action is used from a path, not from a release listed in action/checksums.txt"
		fi
		;;
	esac
}

build() {
	local bin="${EVALGATE_BIN:?EVALGATE_BIN is not set}" need have
	[[ -f "$gomod" ]] || fail "go.mod is missing from the action's checkout at $action_path"
	need="$(needed_go)"
	have="$(runner_go)"
	if [[ -z "$have" ]] || ! at_least "$have" "$need"; then
		fail "building evalgate needs Go $need or newer (the action's go.mod), but the Go on PATH is ${have:-missing}"
	fi
	if [[ -n "${EVALGATE_GO_CACHE:-}" ]]; then
		export GOMODCACHE="$EVALGATE_GO_CACHE/mod" GOCACHE="$EVALGATE_GO_CACHE/build"
	fi
	mkdir -p "$(dirname "$bin")"
	echo "::group::Building evalgate from $action_path with $have"
	if ! (cd "$action_path" && GOWORK=off GOFLAGS='' CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$bin" .); then
		echo "::endgroup::"
		fail "could not build evalgate from $action_path with $have; the log above says why"
	fi
	echo "::endgroup::"
	finish "$bin"
}

case "${1:-}" in
"") resolve ;;
build) build ;;
*) fail "unknown step \"$1\"; expected no argument or build" ;;
esac
