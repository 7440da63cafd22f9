#!/bin/bash
# run.sh: evalgate and promptfoo 0.123.1 side by side on the same workload.
#
#   bench/run.sh                 exec/plain agent N=1000 and 5000, OpenAI-compatible mock N=5000,
#                                LLM-judged rubric N=1000; 3 runs each
#   bench/run.sh --quick         N=100 for every workload, 1 run each
#   bench/run.sh --exec "1000" --openai "" --rubric "" --runs 5
#   bench/run.sh --exec "" --openai ""        the rubric workload alone
#
# For every workload and size it alternates the two tools (evalgate first on
# odd runs, promptfoo first on even ones), measures each run with
# /usr/bin/time -v (wall, user+sys CPU of the tool and its agents, peak RSS),
# checks that both tools counted the same passes, and prints the medians and
# the ratios promptfoo / evalgate as a Markdown table. The rubric workload
# also re-runs evalgate with its judge cache warm and checks, with the mock
# LLM's request counts, that the re-run asked the judge nothing.
#
# Needs: go, npm (Node 22 and promptfoo come from the npm registry into
# $PF_HOME, /tmp/evalgate-bench-pf by default), /usr/bin/time (Debian
# package "time"; installed with apt-get when missing and run as root).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-bench}
RUNS=3
EXEC_SIZES="1000 5000"
OPENAI_SIZES="5000"
RUBRIC_SIZES="1000"
# In the rubric workload every FAIL_EVERY-th task's answer criterion names a
# wrong sum: the judge finds it not met and both tools fail that task.
FAIL_EVERY=10
PORT=${PORT:-18080}

while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) EXEC_SIZES=100 OPENAI_SIZES=100 RUBRIC_SIZES=100 RUNS=1 ;;
    --runs) RUNS=$2; shift ;;
    --exec) EXEC_SIZES=$2; shift ;;
    --openai) OPENAI_SIZES=$2; shift ;;
    --rubric) RUBRIC_SIZES=$2; shift ;;
    --work) WORK=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

log() { echo "run.sh: $*" >&2; }
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)

if [[ ! -x /usr/bin/time ]]; then
  log "installing /usr/bin/time (Debian package time)"
  apt-get install -y time >/dev/null
fi

"$ROOT/bench/install-promptfoo.sh"
# shellcheck source=/dev/null
. "${PF_HOME:-/tmp/evalgate-bench-pf}/env.sh"

mkdir -p "$WORK/bin"
log "building evalgate, the generator and the mock LLM"
# evalgate is built as it is released: static, without cgo.
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . &&
  go build -o "$WORK/bin/gen" ./bench/gen && go build -o "$WORK/bin/mockllm" ./bench/mockllm)
EVALGATE=$WORK/bin/evalgate

mock_pid=
stop_mock() { if [[ -n $mock_pid ]]; then kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; mock_pid=; fi; }
trap stop_mock EXIT
start_mock() {
  "$WORK/bin/mockllm" -addr "127.0.0.1:$PORT" 2>"$WORK/mockllm.log" &
  mock_pid=$!
  for _ in $(seq 50); do
    if curl -fsS "http://127.0.0.1:$PORT/stats" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  log "the mock LLM did not start (see $WORK/mockllm.log)"; exit 3
}

# mock_reset zeroes the mock LLM's counts; mock_expect DIR NAME=VALUE...
# checks them (GET /stats: requests, agent, judge, llmRubric, met, unmet).
mock_reset() { curl -fsS -X POST "http://127.0.0.1:$PORT/reset" >/dev/null; }
mock_expect() {
  local dir=$1 stats kv got; shift
  stats=$(curl -fsS "http://127.0.0.1:$PORT/stats")
  echo "$stats" >"$dir/mockllm-stats.json"
  for kv in "$@"; do
    got=$(grep -o "\"${kv%%=*}\":[0-9]*" <<<"$stats" | cut -d: -f2)
    if [[ $got != "${kv#*=}" ]]; then
      log "the mock LLM counted ${kv%%=*}=$got, want ${kv#*=}, in $dir ($stats): the comparison is void"; exit 1
    fi
  done
}

# measure DIR OUTFILE EXIT CMD...: runs CMD in DIR under /usr/bin/time -v,
# checks that it exits with status EXIT, and appends "wall cpu rss_kib" to
# OUTFILE.
measure() {
  local dir=$1 out=$2 want=$3 rc=0; shift 3
  local tv=$dir/time.txt
  (cd "$dir" && /usr/bin/time -v -o "$tv" "$@" >"$dir/stdout.txt" 2>"$dir/stderr.txt") || rc=$?
  if [[ $rc != "$want" ]]; then
    log "failed in $dir: $* (exit $rc, want $want); see $dir/stderr.txt"; tail -5 "$dir/stderr.txt" >&2; exit 3
  fi
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
    END { printf "%.3f %.3f %d\n", w, u + s, m }' "$tv" >>"$out"
}

# passed_evalgate DIR / passed_promptfoo DIR: the pass count each tool wrote.
passed_evalgate() { node -e 'console.log(require(process.argv[1]).passedCount)' "$1/eg/results.json"; }
passed_promptfoo() { node -e 'console.log(require(process.argv[1]).results.stats.successes)' "$1/pf.json"; }

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# medians FILE: the medians of its wall, CPU and peak RSS columns.
medians() { local i; for i in 1 2 3; do cut -d' ' -f"$i" "$1" | median; done | paste -sd' '; }

# check_passed TOOL DIR GOT WANT: void the comparison when a tool counted
# other passes than the workload has.
check_passed() {
  if [[ $3 != "$4" ]]; then
    log "$1 passed $3 of the cases in $2, want $4: the comparison is void"; exit 1
  fi
}

ROWS=()
# row LABEL N DIR: the table row of DIR's eg.txt and pf.txt.
row() {
  local ew ec em pw pc pm
  read -r ew ec em < <(medians "$3/eg.txt")
  read -r pw pc pm < <(medians "$3/pf.txt")
  ROWS+=("$(awk -v l="$1" -v n="$2" -v ew="$ew" -v ec="$ec" -v em="$em" -v pw="$pw" -v pc="$pc" -v pm="$pm" 'BEGIN {
    printf "| %s | %d | %.2f | %.2f | %.1f× | %.2f | %.2f | %.1f× | %.0f | %.0f | %.1f× |",
      l, n, pw, ew, pw / ew, pc, ec, pc / ec, pm / 1024, em / 1024, pm / em }')")
}

bench() {
  local provider=$1 n=$2 label=$3
  local dir=$WORK/$provider-$n
  rm -rf "$dir"
  "$WORK/bin/gen" -n "$n" -provider "$provider" -port "$PORT" -out "$dir" \
    -agent "$ROOT/bench/agent.sh" -agent-plain "$ROOT/bench/agent-plain.sh" >/dev/null
  : >"$dir/eg.txt"; : >"$dir/pf.txt"
  for r in $(seq "$RUNS"); do
    local order="eg pf"
    (( r % 2 == 0 )) && order="pf eg"
    for tool in $order; do
      local rd=$dir/run$r-$tool
      mkdir -p "$rd"
      cp "$dir"/promptfooconfig.yaml "$dir"/evalgate.suite.json "$dir"/evalgate.yaml "$rd"/
      log "$label N=$n run $r/$RUNS: $tool"
      if [[ $tool == eg ]]; then
        measure "$rd" "$dir/eg.txt" 0 "$EVALGATE" run --config evalgate.yaml --out eg
        check_passed evalgate "$rd" "$(passed_evalgate "$rd")" "$n"
      else
        measure "$rd" "$dir/pf.txt" 0 "${PROMPTFOO[@]}"
        check_passed promptfoo "$rd" "$(passed_promptfoo "$rd")" "$n"
      fi
    done
  done
  row "$label" "$n" "$dir"
}

PROMPTFOO=(promptfoo eval --no-cache --no-progress-bar --no-table --no-share -c promptfooconfig.yaml -o pf.json)

# bench_rubric N: the LLM-judged workload, the mock LLM as both the agent
# and the judge. evalgate asks the judge once a task for its three criteria
# (judge.openai, samples 1, --no-cache), promptfoo once a criterion
# (llm-rubric, --no-cache); the mock's counts check both. Then evalgate runs
# again with its cache on: a first run fills it, and the measured second run
# must ask the judge nothing.
RUBRIC_ROWS=()
bench_rubric() {
  local n=$1 label="LLM-judged rubric, 3 criteria"
  local dir=$WORK/rubric-$n
  local fails=$((n / FAIL_EVERY))
  local passes=$((n - fails)) met=$((3 * n - fails))
  # A failed task fails a gate (evalgate exits 1) and a test (promptfoo 100).
  local eg_exit=$((fails > 0 ? 1 : 0)) pf_exit=$((fails > 0 ? 100 : 0))
  rm -rf "$dir"
  "$WORK/bin/gen" -workload rubric -n "$n" -provider openai -port "$PORT" -fail-every "$FAIL_EVERY" -out "$dir" >/dev/null
  : >"$dir/eg.txt"; : >"$dir/pf.txt"; : >"$dir/warm.txt"
  for r in $(seq "$RUNS"); do
    local order="eg pf"
    (( r % 2 == 0 )) && order="pf eg"
    for tool in $order warm; do
      local rd=$dir/run$r-$tool
      mkdir -p "$rd"
      cp "$dir"/promptfooconfig.yaml "$dir"/evalgate.suite.json "$dir"/evalgate.yaml "$rd"/
      log "rubric N=$n run $r/$RUNS: $tool"
      case $tool in
        eg)
          mock_reset
          measure "$rd" "$dir/eg.txt" "$eg_exit" "$EVALGATE" run --config evalgate.yaml --out eg --no-cache
          check_passed evalgate "$rd" "$(passed_evalgate "$rd")" "$passes"
          mock_expect "$rd" agent="$n" judge="$n" llmRubric=0 met="$met" unmet="$fails" ;;
        pf)
          mock_reset
          measure "$rd" "$dir/pf.txt" "$pf_exit" "${PROMPTFOO[@]}"
          check_passed promptfoo "$rd" "$(passed_promptfoo "$rd")" "$passes"
          mock_expect "$rd" agent="$n" judge=0 llmRubric=$((3 * n)) met="$met" unmet="$fails" ;;
        warm)
          mock_reset
          mkdir -p "$rd/fill"
          measure "$rd/fill" /dev/null "$eg_exit" "$EVALGATE" run --config ../evalgate.yaml --out ../fill-out
          mock_expect "$rd" agent="$n" judge="$n" llmRubric=0
          mock_reset
          measure "$rd" "$dir/warm.txt" "$eg_exit" "$EVALGATE" run --config evalgate.yaml --out eg
          check_passed "evalgate (warm cache)" "$rd" "$(passed_evalgate "$rd")" "$passes"
          mock_expect "$rd" agent="$n" judge=0 llmRubric=0 met=0 unmet=0 ;;
      esac
    done
  done
  row "$label" "$n" "$dir"
  local w c m run what
  for run in "pf promptfoo, --no-cache|$((3 * n))" "eg evalgate, --no-cache|$n" "warm evalgate, warm cache (second run)|0"; do
    read -r w c m < <(medians "$dir/${run%% *}.txt")
    what=${run#* }
    RUBRIC_ROWS+=("$(awk -v l="${what%|*}" -v n="$n" -v w="$w" -v c="$c" -v m="$m" -v j="${what#*|}" -v p="$passes" 'BEGIN {
      printf "| %s | %d | %.2f | %.2f | %.0f | %d | %d | %d |", l, n, w, c, m / 1024, n, j, p }')")
  done
}

for n in $EXEC_SIZES; do bench exec "$n" "exec/plain agent"; done
if [[ -n $OPENAI_SIZES || -n $RUBRIC_SIZES ]]; then
  start_mock
  for n in $OPENAI_SIZES; do bench openai "$n" "OpenAI-compatible mock"; done
  for n in $RUBRIC_SIZES; do bench_rubric "$n"; done
  stop_mock
fi

echo
echo "evalgate $("$EVALGATE" version | cut -d' ' -f2) vs promptfoo $(promptfoo --version 2>/dev/null | tail -1) on node $(node --version); median of $RUNS run(s), passes checked"
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, load average before: $LOAD_BEFORE"
echo
echo "| workload | N | promptfoo wall s | evalgate wall s | wall ratio | promptfoo CPU s | evalgate CPU s | CPU ratio | promptfoo peak RSS MiB | evalgate peak RSS MiB | RSS ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
if [[ ${#RUBRIC_ROWS[@]} -gt 0 ]]; then
  echo
  echo "LLM-judged rubric: requests to the mock LLM per run, counted by it; 1 task in $FAIL_EVERY fails one criterion"
  echo
  echo "| run | N | wall s | CPU s | peak RSS MiB | agent requests | judge requests | tasks passed |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${RUBRIC_ROWS[@]}"
fi
