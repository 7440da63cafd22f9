#!/usr/bin/env bash
# Lints the repository's workflows, the example workflows, the workflow
# `evalgate init` writes and the act test's workflow with actionlint (shellcheck is used for run: scripts when it is
# installed). Installs actionlint with `go install` when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"
# shellcheck source=scripts/gotool.sh
source scripts/gotool.sh
need_go_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION"

files=()
while IFS= read -r f; do files+=("$f"); done < <(
	{
		find .github/workflows examples/workflows action/testdata/e2e -name '*.yml' -o -name '*.yaml' 2>/dev/null
		echo scaffold/files/workflow.yml
	} | grep -v '/suites/' | sort
)
echo "actionlint: ${#files[@]} workflow files"
actionlint -no-color "${files[@]}"

# The action's own scripts: bash -n always, shellcheck when present.
for s in action/*.sh scripts/*.sh; do
	bash -n "$s"
done
if command -v shellcheck >/dev/null 2>&1; then
	shellcheck action/*.sh scripts/*.sh
fi
echo "workflows and scripts lint clean"
