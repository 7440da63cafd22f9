#!/bin/bash
# run.sh: evalgate and promptfoo 0.123.1 side by side on the same workload.
#
#   bench/run.sh                 exec/plain agent N=1000 and 5000, OpenAI-compatible mock N=5000, 3 runs each
#   bench/run.sh --quick         N=100 for every workload, 1 run each
#   bench/run.sh --exec "1000" --openai "" --runs 5
#
# For every workload and size it alternates the two tools (evalgate first on
# odd runs, promptfoo first on even ones), measures each run with
# /usr/bin/time -v (wall, user+sys CPU of the tool and its agents, peak RSS),
# checks that both tools counted every case as passed, and prints the
# medians and the ratios promptfoo / evalgate as a Markdown table.
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
PORT=${PORT:-18080}

while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) EXEC_SIZES=100 OPENAI_SIZES=100 RUNS=1 ;;
    --runs) RUNS=$2; shift ;;
    --exec) EXEC_SIZES=$2; shift ;;
    --openai) OPENAI_SIZES=$2; shift ;;
    --work) WORK=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
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
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && go build -o "$WORK/bin/gen" ./bench/gen)
# The shared harness's mock LLM when it sits beside the repository, else ours: same answers.
if [[ -f $ROOT/../shared/bench/mockllm/main.go ]]; then
  (cd "$ROOT/../shared/bench/mockllm" && go build -o "$WORK/bin/mockllm" .)
else
  (cd "$ROOT" && go build -o "$WORK/bin/mockllm" ./bench/mockllm)
fi
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

# measure TOOL DIR OUTFILE CMD...: runs CMD in DIR under /usr/bin/time -v and
# appends "wall cpu rss_kib" to OUTFILE.
measure() {
  local dir=$1 out=$2; shift 2
  local tv=$dir/time.txt
  (cd "$dir" && /usr/bin/time -v -o "$tv" "$@" >"$dir/stdout.txt" 2>"$dir/stderr.txt") || {
    log "failed in $dir: $* (exit $?); see $dir/stderr.txt"; tail -5 "$dir/stderr.txt" >&2; exit 3; }
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
    END { printf "%.3f %.3f %d\n", w, u + s, m }' "$tv" >>"$out"
}

# passed_evalgate DIR / passed_promptfoo DIR: the pass count each tool wrote.
passed_evalgate() { node -e 'console.log(require(process.argv[1]).passedCount)' "$1/eg/results.json"; }
passed_promptfoo() { node -e 'console.log(require(process.argv[1]).results.stats.successes)' "$1/pf.json"; }

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

ROWS=()
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
        measure "$rd" "$dir/eg.txt" "$EVALGATE" run --config evalgate.yaml --out eg
        got=$(passed_evalgate "$rd")
      else
        measure "$rd" "$dir/pf.txt" promptfoo eval --no-cache --no-progress-bar --no-table --no-share -c promptfooconfig.yaml -o pf.json
        got=$(passed_promptfoo "$rd")
      fi
      if [[ $got != "$n" ]]; then
        log "$tool passed $got of $n cases in $rd: the comparison is void"; exit 1
      fi
    done
  done
  local ew ec em pw pc pm
  ew=$(cut -d' ' -f1 "$dir/eg.txt" | median); ec=$(cut -d' ' -f2 "$dir/eg.txt" | median); em=$(cut -d' ' -f3 "$dir/eg.txt" | median)
  pw=$(cut -d' ' -f1 "$dir/pf.txt" | median); pc=$(cut -d' ' -f2 "$dir/pf.txt" | median); pm=$(cut -d' ' -f3 "$dir/pf.txt" | median)
  ROWS+=("$(awk -v l="$label" -v n="$n" -v ew="$ew" -v ec="$ec" -v em="$em" -v pw="$pw" -v pc="$pc" -v pm="$pm" 'BEGIN {
    printf "| %s | %d | %.2f | %.2f | %.1f× | %.2f | %.2f | %.1f× | %.0f | %.0f | %.1f× |",
      l, n, pw, ew, pw / ew, pc, ec, pc / ec, pm / 1024, em / 1024, pm / em }')")
}

for n in $EXEC_SIZES; do bench exec "$n" "exec/plain agent"; done
if [[ -n $OPENAI_SIZES ]]; then
  start_mock
  for n in $OPENAI_SIZES; do bench openai "$n" "OpenAI-compatible mock"; done
  stop_mock
fi

echo
echo "evalgate $("$EVALGATE" version | cut -d' ' -f2) vs promptfoo $(promptfoo --version 2>/dev/null | tail -1) on node $(node --version); median of $RUNS run(s), passes checked"
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, load average before: $LOAD_BEFORE"
echo
echo "| workload | N | promptfoo wall s | evalgate wall s | wall ratio | promptfoo CPU s | evalgate CPU s | CPU ratio | promptfoo peak RSS MiB | evalgate peak RSS MiB | RSS ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
