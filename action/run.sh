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
#            exit code, which is also this script's (1 when a gate fails)
#   publish  `evalgate publish`: the job summary, annotations, step outputs
#            and the pull request comment, with the token
#
#   INPUT_CONFIG         --config (all steps)
#   INPUT_OUT            --out (all steps)
#   INPUT_BASELINE       --baseline (fetch, run)
#   INPUT_SUITES         suite files or folders, one a line (run)
#   INPUT_AGENT_COMMAND  --agent-cmd (run)
#   INPUT_GATES          --gate, one expression a line (run)
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

case "$step" in
fetch)
	args=(baseline fetch "${common[@]}")
	[[ -n "${INPUT_BASELINE:-}" ]] && args+=(--baseline "$INPUT_BASELINE")
	exec "${EVALGATE_BIN:-evalgate}" "${args[@]}"
	;;
publish)
	exec "${EVALGATE_BIN:-evalgate}" publish "${common[@]}"
	;;
run) ;;
*)
	echo "run.sh: unknown step '$step' (fetch, run or publish)" >&2
	exit 2
	;;
esac

args=(run --no-publish "${common[@]}")
[[ -n "${INPUT_AGENT_COMMAND:-}" ]] && args+=(--agent-cmd "$INPUT_AGENT_COMMAND")
[[ -n "${INPUT_BASELINE:-}" ]] && args+=(--baseline "$INPUT_BASELINE")
while IFS= read -r line || [[ -n "$line" ]]; do
	line="$(trim "$line")"
	[[ -n "$line" ]] && args+=(--gate "$line")
done <<<"${INPUT_GATES:-}"

suites=()
while IFS= read -r line || [[ -n "$line" ]]; do
	line="$(trim "$line")"
	[[ -n "$line" ]] && suites+=("$line")
done <<<"${INPUT_SUITES:-}"
if ((${#suites[@]} > 0)); then
	args+=(-- "${suites[@]}")
fi

code=0
"${EVALGATE_BIN:-evalgate}" "${args[@]}" || code=$?
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
	echo "exit-code=$code" >>"$GITHUB_OUTPUT"
fi
exit "$code"
