#!/usr/bin/env bash
# The action's evalgate steps (action.yml). Every input arrives as an
# environment variable and is passed on as one argument, never through the
# shell's parser. The first argument says which step:
#
#   fetch    `evalgate baseline fetch`: downloads a github-artifact: baseline
#            while this step holds the token; its step output `baseline` is
#            the file, or "none" when there is no artifact yet
#   run      `evalgate run --no-publish` (the default): runs the agents, in a
#            step with no token; its step output `exit-code` is evalgate's
#            exit code, which is also this script's (1 when a gate fails).
#            With INPUT_SHARD it runs that shard only, gating nothing and
#            balanced by the baseline when there is one; with INPUT_MERGE it
#            runs `evalgate merge --no-publish` over the shards' results
#            instead, and gates as a whole run does
#   publish  `evalgate publish`: the job summary, annotations, step outputs
#            and the pull request comment, with the token
#
#   INPUT_CONFIG         --config (all steps)
#   INPUT_OUT            --out (all steps)
#   INPUT_BASELINE       --baseline (fetch, run)
#   INPUT_SUITES         suite files or folders, one a line (run)
#   INPUT_AGENT_COMMAND  --agent-cmd (run)
#   INPUT_GATES          --gate, one expression a line (run)
#   INPUT_SHARD          --shard i/n (run)
#   INPUT_MERGE          the shards' results for merge: folders, files or
#                        globs, one a line (run)
#   INPUT_EXPLAIN        "true" or "false": --explain=… (run, not merge): what
#                        each failing check expected and got, in the log only
#   INPUT_HISTORY        the history store (docs/history.md): "" for
#                        git:evalgate-history, "off" for none. The run reads
#                        it (--history-store); publish records the run in it
#                        first (`evalgate history record`) on a push or
#                        schedule of the default branch, never for a pull
#                        request or a shard; fetch fetches a git: store's
#                        branch with the token, for the run to read
#   EVALGATE_DEFAULT_BRANCH  the repository's default branch (publish)
#   EVALGATE_BIN         the binary from the install step
#
# The binary itself reads INPUT_COMMENT and INPUT_GITHUB_TOKEN in the fetch
# and publish steps.
set -euo pipefail

trim() {
	local s="$1"
	s="${s#"${s%%[![:space:]]*}"}"
	s="${s%"${s##*[![:space:]]}"}"
	printf '%s' "$s"
}

step="${1:-run}"
common=()
[[ -n "${INPUT_CONFIG:-}" ]] && common+=(--config "$INPUT_CONFIG")
[[ -n "${INPUT_OUT:-}" ]] && common+=(--out "$INPUT_OUT")

# The history store: the input, git:evalgate-history by default, none when
# "off".
history="$(trim "${INPUT_HISTORY:-}")"
case "$history" in
"") history="git:evalgate-history" ;;
off) history="" ;;
esac

# git_auth runs a git command with the token as GitHub's checkout passes
# it (an HTTP header for the server's URLs, in git's environment, never on
# its command line), for a git: store in the steps that hold the token.
git_auth() {
	local token="${INPUT_GITHUB_TOKEN:-}" server="${GITHUB_SERVER_URL:-https://github.com}"
	if [[ -z "$token" ]]; then
		"$@"
		return
	fi
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http.$server/.extraheader" \
		GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $(printf 'x-access-token:%s' "$token" | base64 -w0)" "$@"
}

case "$step" in
fetch)
	# A git: store's branch, fetched with the token into the ref the run
	# reads when it cannot fetch it itself (a private repository: the run
	# step holds no credentials).
	if [[ "$history" == git:* ]]; then
		branch="${history#git:}"
		branch="${branch:-evalgate-history}"
		git_auth git -c credential.interactive=false fetch --quiet --no-tags --depth=1 -- origin \
			"+refs/heads/$branch:refs/evalgate/history/$branch" 2>/dev/null ||
			echo "::notice title=evalgate history::no history branch $branch to read yet (the first push of the default branch records one)"
	fi
	args=(baseline fetch "${common[@]}")
	[[ -n "${INPUT_BASELINE:-}" ]] && args+=(--baseline "$INPUT_BASELINE")
	exec "${EVALGATE_BIN:-evalgate}" "${args[@]}"
	;;
publish)
	# A whole run of the default branch is recorded before it is published
	# (a shard is not: the merge job records the whole run). A store that
	# cannot be written is a warning; the verdict stands.
	event="${GITHUB_EVENT_NAME:-}"
	if [[ -n "$history" && -z "$(trim "${INPUT_SHARD:-}")" && ("$event" == push || "$event" == schedule) &&
		-n "${EVALGATE_DEFAULT_BRANCH:-}" && "${GITHUB_REF:-}" == "refs/heads/$EVALGATE_DEFAULT_BRANCH" ]]; then
		record=(history record "${INPUT_OUT:-evalgate-out}" --store "$history")
		[[ -n "${INPUT_CONFIG:-}" ]] && record+=(--config "$INPUT_CONFIG")
		git_auth "${EVALGATE_BIN:-evalgate}" "${record[@]}" ||
			echo "::warning title=evalgate history::could not record this run in $history; the verdict stands"
	fi
	exec "${EVALGATE_BIN:-evalgate}" publish "${common[@]}"
	;;
run) ;;
*)
	echo "run.sh: unknown step '$step' (fetch, run or publish)" >&2
	exit 2
	;;
esac

shard="$(trim "${INPUT_SHARD:-}")"
merge="$(trim "${INPUT_MERGE:-}")"
if [[ -n "$shard" && -n "$merge" ]]; then
	echo "::error title=evalgate::the inputs shard and merge exclude each other: the matrix jobs run one shard each, and one job after them merges" >&2
	[[ -n "${GITHUB_OUTPUT:-}" ]] && echo "exit-code=2" >>"$GITHUB_OUTPUT"
	exit 2
fi
baseline="${INPUT_BASELINE:-}"

if [[ -n "$merge" ]]; then
	args=(merge --no-publish "${common[@]}")
	[[ -n "$baseline" ]] && args+=(--baseline "$baseline")
	[[ -n "$history" ]] && args+=(--history-store "$history")
else
	args=(run --no-publish "${common[@]}")
	[[ -n "${INPUT_AGENT_COMMAND:-}" ]] && args+=(--agent-cmd "$INPUT_AGENT_COMMAND")
	# A shard reads no history: the merge job reads it for the whole run.
	[[ -n "$history" && -z "$shard" ]] && args+=(--history-store "$history")
	case "$(trim "${INPUT_EXPLAIN:-}")" in
	"") ;;
	true) args+=(--explain) ;;
	false) args+=(--explain=false) ;;
	*)
		echo "::error title=evalgate::the input explain is true or false, not '${INPUT_EXPLAIN//[$'\n\r:']/ }'" >&2
		[[ -n "${GITHUB_OUTPUT:-}" ]] && echo "exit-code=2" >>"$GITHUB_OUTPUT"
		exit 2
		;;
	esac
	if [[ -n "$shard" ]]; then
		# A shard gates nothing (the merge job gates the whole run) and is
		# not compared with the baseline: it shares the tasks out by it.
		args+=(--shard "$shard" --gate true)
		[[ -n "$baseline" && "$baseline" != none ]] && args+=(--balance "$baseline")
	else
		[[ -n "$baseline" ]] && args+=(--baseline "$baseline")
	fi
fi
if [[ -z "$shard" ]]; then
	while IFS= read -r line || [[ -n "$line" ]]; do
		line="$(trim "$line")"
		[[ -n "$line" ]] && args+=(--gate "$line")
	done <<<"${INPUT_GATES:-}"
fi

# What the command works on: the shards' results to merge, each line a
# folder, a file or a glob (a glob that matches nothing is passed on as it
# is, for evalgate to name); else the suites, one a line.
paths=()
if [[ -n "$merge" ]]; then
	shopt -s nullglob
	while IFS= read -r line || [[ -n "$line" ]]; do
		line="$(trim "$line")"
		[[ -z "$line" ]] && continue
		# Globbed, but split only at line ends, never at a space in a name.
		ifs="$IFS"
		IFS=$'\n'
		# shellcheck disable=SC2206 # the word splitting and globbing are the point here
		matched=($line)
		IFS="$ifs"
		if ((${#matched[@]} == 0)); then
			matched=("$line")
		fi
		paths+=("${matched[@]}")
	done <<<"$merge"
	shopt -u nullglob
else
	while IFS= read -r line || [[ -n "$line" ]]; do
		line="$(trim "$line")"
		[[ -n "$line" ]] && paths+=("$line")
	done <<<"${INPUT_SUITES:-}"
fi
if ((${#paths[@]} > 0)); then
	args+=(-- "${paths[@]}")
fi

code=0
"${EVALGATE_BIN:-evalgate}" "${args[@]}" || code=$?
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
	echo "exit-code=$code" >>"$GITHUB_OUTPUT"
fi
exit "$code"
