#!/usr/bin/env bash
# Runs `evalgate run` for the action (action.yml, step "run"). Every input
# arrives as an environment variable and is passed on as one argument, never
# through the shell's parser:
#
#   INPUT_CONFIG         --config
#   INPUT_SUITES         suite files or folders, one a line
#   INPUT_AGENT_COMMAND  --agent-cmd
#   INPUT_BASELINE       --baseline
#   INPUT_GATES          --gate, one expression a line
#   INPUT_OUT            --out
#   EVALGATE_BIN         the binary from the install step
#
# The binary itself reads INPUT_COMMENT, INPUT_GITHUB_TOKEN and INPUT_CONFIG
# when it publishes to GitHub (GITHUB_ACTIONS=true), and writes the step
# outputs. The exit code is evalgate's: 1 when a gate fails.
set -euo pipefail

trim() {
	local s="$1"
	s="${s#"${s%%[![:space:]]*}"}"
	s="${s%"${s##*[![:space:]]}"}"
	printf '%s' "$s"
}

args=(run)
[[ -n "${INPUT_CONFIG:-}" ]] && args+=(--config "$INPUT_CONFIG")
[[ -n "${INPUT_AGENT_COMMAND:-}" ]] && args+=(--agent-cmd "$INPUT_AGENT_COMMAND")
[[ -n "${INPUT_BASELINE:-}" ]] && args+=(--baseline "$INPUT_BASELINE")
[[ -n "${INPUT_OUT:-}" ]] && args+=(--out "$INPUT_OUT")
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

exec "${EVALGATE_BIN:-evalgate}" "${args[@]}"
