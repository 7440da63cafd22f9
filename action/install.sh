#!/usr/bin/env bash
# Installs the evalgate binary for the action (action.yml, step "install").
#
#   INPUT_INSTALL_MODE  release (default): download the release archive for
#                       this runner's OS and arch and check its SHA-256
#                       against action/checksums.txt;
#                       source: build from the action's own checkout with
#                       the runner's Go.
#   INPUT_VERSION       the release to install, e.g. v1.2.0; default: the
#                       action's own ref when it is a listed version, else the
#                       newest listed version.
#   EVALGATE_ACTION_PATH  the action's checkout.
#
# Writes the binary's path to the step output "path" and adds its folder to
# GITHUB_PATH.
set -euo pipefail

fail() {
	echo "::error title=evalgate install::$*"
	exit 1
}

action_path="${EVALGATE_ACTION_PATH:?EVALGATE_ACTION_PATH is not set}"
mode="${INPUT_INSTALL_MODE:-release}"
bindir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/evalgate-bin-$$"
mkdir -p "$bindir"

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
bin="$bindir/evalgate$exe"

case "$mode" in
source)
	command -v go >/dev/null 2>&1 || fail "install-mode source needs Go on the runner: add actions/setup-go before this step"
	echo "::group::Building evalgate from $action_path"
	(cd "$action_path" && CGO_ENABLED=0 go build -trimpath -o "$bin" .)
	echo "::endgroup::"
	;;
release)
	sums="$action_path/action/checksums.txt"
	[[ -f "$sums" ]] || fail "action/checksums.txt is missing from the action's checkout"
	# Archive names listed in checksums.txt (comments and blank lines skipped).
	listed() { awk '!/^[[:space:]]*(#|$)/ {print $2}' "$sums"; }
	version="${INPUT_VERSION:-}"
	if [[ -z "$version" && "${GITHUB_ACTION_REF:-}" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		version="$GITHUB_ACTION_REF"
	fi
	if [[ -z "$version" ]]; then
		version="$(listed | sed -n 's/^evalgate_\([0-9][0-9.]*\)_.*/v\1/p' | sort -V | tail -n 1)"
		[[ -n "$version" ]] || fail "no evalgate release is listed in action/checksums.txt yet; set install-mode: source"
	fi
	[[ "$version" =~ ^v?[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]] || fail "version \"$version\" is not a release version like v1.2.0"
	version="v${version#v}"
	ext=tar.gz
	[[ "$os" == windows ]] && ext=zip
	asset="evalgate_${version#v}_${os}_${arch}.${ext}"
	want="$(awk -v a="$asset" '!/^[[:space:]]*(#|$)/ && $2 == a {print $1; exit}' "$sums")"
	[[ -n "$want" ]] || fail "evalgate $version for $os/$arch ($asset) is not listed in action/checksums.txt; pick a listed version or set install-mode: source"
	url="${GITHUB_SERVER_URL:-https://github.com}/evalgate/evalgate/releases/download/${version}/${asset}"
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	echo "Downloading $url"
	curl --fail --silent --show-error --location --retry 3 --output "$tmp/$asset" "$url" ||
		fail "could not download $url"
	if command -v sha256sum >/dev/null 2>&1; then
		got="$(sha256sum "$tmp/$asset" | awk '{print $1}')"
	else
		got="$(shasum -a 256 "$tmp/$asset" | awk '{print $1}')"
	fi
	[[ "$got" == "$want" ]] || fail "checksum mismatch for $asset: got $got, action/checksums.txt lists $want"
	if [[ "$ext" == zip ]]; then
		unzip -q -o "$tmp/$asset" -d "$tmp/x"
	else
		mkdir -p "$tmp/x" && tar -xzf "$tmp/$asset" -C "$tmp/x"
	fi
	found="$(find "$tmp/x" -type f -name "evalgate$exe" | head -n 1)"
	[[ -n "$found" ]] || fail "$asset holds no evalgate$exe"
	install -m 0755 "$found" "$bin"
	;;
*)
	fail "install-mode \"$mode\" is not one of release, source"
	;;
esac

"$bin" version || fail "the installed evalgate does not run"
echo "$bindir" >>"${GITHUB_PATH:-/dev/null}"
echo "path=$bin" >>"${GITHUB_OUTPUT:-/dev/null}"
