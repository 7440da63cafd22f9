#!/bin/bash
# mcp.sh: the MCP workload. The same N tasks run twice with the same exec
# agent (bench/mcpagent): once calling its one fixture tool per task as an
# evalgate/1 tool_call line, once over MCP (agent.mcp: true) through the
# official Go SDK's client (by default; see -client). Medians of alternating
# runs; every task must pass.
#
#   bench/mcp.sh                 N = 1000, 3 runs each
#   bench/mcp.sh -n 200 -runs 1  a smoke test
#   bench/mcp.sh -calls 10       each task makes its call 10 times
#   bench/mcp.sh -concurrency 1  one agent at a time (evalgate's default: 8)
#   bench/mcp.sh -client raw     the MCP client is the agent's minimal one on
#                                net/http instead of the SDK's (default: sdk)
#
# Prints the wall time of each protocol, their ratio (MCP ÷ evalgate/1), and
# the tool call's round trip as the agent measures it (p50, p95).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-bench-mcp}
N=1000
RUNS=3
CALLS=1
CONCURRENCY=
CLIENT=sdk
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) N=$2; shift ;;
    -runs) RUNS=$2; shift ;;
    -calls) CALLS=$2; shift ;;
    -concurrency) CONCURRENCY=$2; shift ;;
    -client) CLIENT=$2; shift ;;
    --work) WORK=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "mcp.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "mcp.sh: $*" >&2; }
case $CLIENT in sdk|raw) ;; *) echo "mcp.sh: -client is sdk or raw, not $CLIENT" >&2; exit 2 ;; esac

rm -rf "$WORK"; mkdir -p "$WORK/bin" "$WORK/evals"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/mcpagent" ./bench/mcpagent)

# The suite: task i adds a and b (deterministic); its fixture answers
# exactly those arguments; the output must be the sum.
awk -v n="$N" 'BEGIN {
  print "suiteId: bench.mcp.evals.add\nversion: 1.0.0\nmodes: [golden]"
  print "tools:\n  - {name: calc.add, inputSchema: {type: object, properties: {a: {type: integer}, b: {type: integer}}}}"
  print "tasks:"
  for (i = 0; i < n; i++) {
    a = (i * 7919) % 1000; b = (i * 104729) % 1000
    printf "  - taskId: t%d\n    input: {a: %d, b: %d}\n    expected: {kind: golden, match: {strategy: exact, value: %d}}\n", i, a, b, a + b
    printf "    fixtures: {toolResponses: [{tool: calc.add, args: {a: %d, b: %d}, response: {sum: %d}}]}\n", a, b, a + b
  }
}' >"$WORK/evals/add.yaml"
printf 'suites: [evals/]\nagent:\n  exec: [%s, -calls, "%d"]\n' "$WORK/bin/mcpagent" "$CALLS" >"$WORK/evalgate1.yaml"
printf 'suites: [evals/]\nagent:\n  exec: [%s, -mcp, -mcp-client, %s, -calls, "%d"]\n  mcp: true\n' "$WORK/bin/mcpagent" "$CLIENT" "$CALLS" >"$WORK/mcp.yaml"

declare -A walls
run() { # protocol config
  local rtt=$WORK/rtt-$1 t0 t1
  t0=${EPOCHREALTIME/./}
  if ! BENCH_RTT_FILE=$rtt "$WORK/bin/evalgate" run --config "$WORK/$2" ${CONCURRENCY:+--concurrency "$CONCURRENCY"} --out "$WORK/out-$1" --quiet >/dev/null 2>"$WORK/stderr-$1"; then
    log "the $1 run did not pass every task:"; cat "$WORK/stderr-$1" >&2; exit 1
  fi
  t1=${EPOCHREALTIME/./}
  walls[$1]+="$(( (t1 - t0) / 1000 )) "
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
pct() { sort -n "$1" | awk -v p="$2" '{v[NR]=$1} END {i=int(NR*p/100); if (i < 1) i = 1; print v[i]}'; }

LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
rm -f "$WORK"/rtt-*
for ((r = 1; r <= RUNS; r++)); do
  if ((r % 2)); then run evalgate1 evalgate1.yaml; run mcp mcp.yaml; else run mcp mcp.yaml; run evalgate1 evalgate1.yaml; fi
  log "run $r: evalgate/1 ${walls[evalgate1]}ms, MCP ${walls[mcp]}ms"
done
w1=$(echo "${walls[evalgate1]}" | median)
wm=$(echo "${walls[mcp]}" | median)
echo "N=$N, $CALLS call(s) a task, concurrency ${CONCURRENCY:-8}, MCP client $CLIENT, medians of $RUNS alternating runs, load average before: $LOAD_BEFORE"
echo
echo "| protocol | N | wall s | tool round trip p50 µs | p95 µs |"
echo "|---|---|---|---|---|"
printf '| evalgate/1 (tool_call line) | %d | %.2f | %s | %s |\n' "$N" "$(bc -l <<<"$w1/1000")" "$(pct "$WORK/rtt-evalgate1" 50)" "$(pct "$WORK/rtt-evalgate1" 95)"
printf '| MCP (streamable HTTP, %s client) | %d | %.2f | %s | %s |\n' "$CLIENT" "$N" "$(bc -l <<<"$wm/1000")" "$(pct "$WORK/rtt-mcp" 50)" "$(pct "$WORK/rtt-mcp" 95)"
echo
printf 'MCP ÷ evalgate/1 wall time: %.2f×\n' "$(bc -l <<<"$wm/$w1")"
