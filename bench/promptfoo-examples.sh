#!/bin/bash
# promptfoo-examples.sh: how often `evalgate import promptfoo` gives promptfoo's own
# verdict on the configs of promptfoo's examples folder (docs/migrating-from-promptfoo.md
# has the figures).
#
#   bench/promptfoo-examples.sh PROMPTFOO_CHECKOUT [--only REGEX] [--out report.md] [--baseline BIN]
#
# PROMPTFOO_CHECKOUT is a clone of promptfoo's repository (its examples/ folder is
# read, never changed). Each config is copied into $WORK, made deterministic and offline
# (every provider becomes promptfoo's echo provider, keeping its label; model-graded
# assertions are removed and counted: see bench/pfexamples), run by promptfoo 0.123.1
# (bench/install-promptfoo.sh), imported and run by evalgate, and every row promptfoo
# wrote is compared. Configs promptfoo itself cannot run offline are left out and listed.
# --baseline BIN measures another evalgate binary (an earlier build) on the same rows.
#
# Needs: go, npm (promptfoo and Node 22 from the npm registry via
# bench/install-promptfoo.sh into $PF_HOME), python3 for the examples' Python assertions.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-pfexamples}
[[ $# -ge 1 && $1 != -* ]] || { sed -n '2,18p' "$0"; exit 2; }
checkout=$1
shift
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) args+=(-only "$2"); shift ;;
    --out) args+=(-out "$2"); shift ;;
    --baseline) args+=(-baseline "$2"); shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "promptfoo-examples.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ -d $checkout/examples ]] || { echo "promptfoo-examples.sh: $checkout/examples is not a folder; expected a clone of promptfoo's repository" >&2; exit 2; }
"$ROOT/bench/install-promptfoo.sh" >/dev/null
# shellcheck source=/dev/null
. "${PF_HOME:-/tmp/evalgate-bench-pf}/env.sh"
mkdir -p "$WORK/bin"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && go build -o "$WORK/bin/pfexamples" ./bench/pfexamples)
"$WORK/bin/pfexamples" -examples "$checkout/examples" -evalgate "$WORK/bin/evalgate" -work "$WORK/configs" "${args[@]}"
