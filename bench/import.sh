#!/bin/bash
# import.sh: a promptfoo config imported with `evalgate import promptfoo`, then run by
# both tools (issue 18).
#
#   bench/import.sh                 N = 1000 tests, 3 runs each, tools alternating
#   bench/import.sh --n 5000 --runs 1
#
# The config is bench/gen's exec workload with its JSON check as a JavaScript
# assertion (-json-check js) and every 7th case failing, so the imported suite runs
# program checks and both tools must fail the same tests. It prints the import's
# time, each tool's wall, CPU (user + sys of the tool and its children) and peak
# RSS, the medians, and whether every test got the same verdict from both. A second
# config, a 5,000-row CSV of tests, is imported to time the import alone.
#
# Needs: go, node, python3, bc, npm (promptfoo from the npm registry via
# bench/install-promptfoo.sh into $PF_HOME), /usr/bin/time.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-import-bench}
N=1000
RUNS=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --n) N=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "import.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
"$ROOT/bench/install-promptfoo.sh" >/dev/null
# shellcheck source=/dev/null
. "${PF_HOME:-/tmp/evalgate-bench-pf}/env.sh"

mkdir -p "$WORK/bin"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && go build -o "$WORK/bin/gen" ./bench/gen)
EG=$WORK/bin/evalgate

dir=$WORK/exec-$N
rm -rf "$dir" && mkdir -p "$dir"
"$WORK/bin/gen" -n "$N" -provider exec -json-check js -fail-every 7 -format promptfoo -out "$dir" >/dev/null
cd "$dir"
/usr/bin/time -f "%e %U %S %M" -o import.time "$EG" import promptfoo promptfooconfig.yaml --out eg >/dev/null
read -r w u s m < import.time
echo "import of $N inline tests: ${w}s wall, $(echo "$u + $s" | bc)s CPU, $((m / 1024)) MiB"

measure() { # name, command...
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$name.time" "$@" >"$name.log" 2>&1 || true
  read -r w u s m < <(tail -1 "$name.time")
  echo "$name $w $(echo "$u + $s" | bc) $((m / 1024))" | tee -a "$dir/runs.txt"
}
: > "$dir/runs.txt"
for ((r = 1; r <= RUNS; r++)); do
  order=(evalgate promptfoo)
  ((r % 2 == 0)) && order=(promptfoo evalgate)
  for tool in "${order[@]}"; do
    if [[ $tool == evalgate ]]; then
      (cd eg && rm -rf out && measure evalgate "$EG" run --out out --gate true)
    else
      measure promptfoo promptfoo eval --no-cache --no-progress-bar --no-table --no-share -c promptfooconfig.yaml -o pf.json
    fi
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for tool in promptfoo evalgate; do
  for col in 2 3 4; do
    printf '%s ' "$(awk -v t=$tool -v c=$col '$1==t {print $c}' runs.txt | median)"
  done > "$tool.median"
  echo >> "$tool.median"
  echo "$tool median: wall s, CPU s, peak RSS MiB: $(cat "$tool.median")"
done
read -r pw pc pm < promptfoo.median
read -r ew ec em < evalgate.median
echo "ratios promptfoo/evalgate: wall $(echo "scale=1; $pw / $ew" | bc)x, CPU $(echo "scale=1; $pc / $ec" | bc)x, RSS $(echo "scale=1; $pm / $em" | bc)x"

python3 - <<'PY'
import json
pf = json.load(open("pf.json"))["results"]["results"]
want = {(r["testIdx"], r["promptIdx"]): r["success"] for r in pf}
rep = json.load(open("eg/import-report.json"))["tasks"]
res = {t["taskId"]: t["passed"] for t in json.load(open("eg/out/results.json"))["suites"][0]["tasks"]}
got = {(t["testIdx"], t["promptIdx"]): res[t["taskId"]] for t in rep}
same = sum(got.get(k) == v for k, v in want.items())
print(f"verdicts: {same} of {len(want)} tests the same; promptfoo passed {sum(want.values())}, evalgate {sum(got.values())}")
PY

csv=$WORK/csv-5000
rm -rf "$csv" && mkdir -p "$csv" && cd "$csv"
python3 - <<'PY'
import csv
with open("tests.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["a", "b", "__expected", "__description"])
    for i in range(5000):
        w.writerow([i % 1000, i % 77, f"contains: {i % 1000 + i % 77}", f"case {i}"])
open("promptfooconfig.yaml", "w").write('prompts: ["task: add {{a}} {{b}}"]\nproviders: ["exec: ./agent.sh"]\n'
    'defaultTest:\n  assert:\n    - {type: javascript, value: "output.length > 0"}\ntests: file://tests.csv\n')
PY
/usr/bin/time -f "%e %U %S %M" -o import.time "$EG" import promptfoo promptfooconfig.yaml --out eg >/dev/null
read -r w u s m < import.time
echo "import of a 5,000-row CSV config: ${w}s wall, $(echo "$u + $s" | bc)s CPU, $((m / 1024)) MiB"
