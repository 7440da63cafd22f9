#!/bin/bash
# record.sh: record promptfoo's verdicts for the parity configs, with
# promptfoo 0.123.1 installed (offline) by bench/install-promptfoo.sh.
#
#   promptfoo/parity/record.sh                 every folder of testdata/
#   promptfoo/parity/record.sh testdata/scenarios
#
# Each folder's promptfoo-results.json gets one row per test, prompt and
# provider: testIdx as promptfoo numbers its tests, promptIdx the prompt's
# place among the config's prompts, providerIdx the provider's among the
# providers (both in the order promptfoo's results name them first), and
# success, promptfoo's verdict.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/../../bench/install-promptfoo.sh" >/dev/null
# shellcheck source=/dev/null
. "${PF_HOME:-/tmp/evalgate-bench-pf}/env.sh"
dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=("$here"/testdata/*/)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for dir in "${dirs[@]}"; do
  dir=$(cd "$dir" && pwd)
  # promptfoo exits 100 when a test fails, as parity configs' tests do.
  (cd "$dir" && promptfoo eval --no-cache --no-share --no-table --no-progress-bar -c promptfooconfig.yaml -o "$out/pf.json" >"$out/log" 2>&1) || [[ $? == 100 ]] || { cat "$out/log" >&2; exit 1; }
  node - "$out/pf.json" "$dir/promptfoo-results.json" <<'JS'
const fs = require('fs');
const [input, output] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(input, 'utf8')).results;
const providers = [], labels = [];
const cols = r.prompts.map((c) => {
  if (!providers.includes(c.provider)) providers.push(c.provider);
  if (!labels.includes(c.label)) labels.push(c.label);
  return [providers.indexOf(c.provider), labels.indexOf(c.label)];
});
const rows = r.results.map((x) => ({ testIdx: x.testIdx, promptIdx: cols[x.promptIdx][1], providerIdx: cols[x.promptIdx][0], success: x.success }));
rows.sort((a, b) => a.providerIdx - b.providerIdx || a.testIdx - b.testIdx || a.promptIdx - b.promptIdx);
fs.writeFileSync(output, JSON.stringify({ promptfoo: '0.123.1', results: rows }, null, 1) + '\n');
JS
  echo "recorded $(basename "$dir")" >&2
done
