#!/bin/bash
# targets.sh: evalgate's memory and CPU targets on the bench's exec workload
# (bench/README.md, "Targets"), measured by BenchmarkTargets
# (bench/targets); exits 1 when one is missed.
#
#   bench/targets.sh              medians of 3 alternated runs at 1,000 tasks
#   bench/targets.sh --runs 5     of 5
#
# It builds evalgate as it is released, bench/gen and bench/spawnfloor,
# writes the exec workload at 1,000 and 10,000 tasks, and measures
# `evalgate version` (5 runs), 1,000 tasks (evalgate alternated with the
# spawn floor) and 10,000 tasks (one run). Every figure is printed with
# the load average before and after: peak RSS does not depend on the load,
# the CPU ratio mostly does not, wall times do.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) RUNS=$2; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "targets.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

cd "$ROOT"
EVALGATE_BENCH_TARGETS=1 EVALGATE_BENCH_RUNS=$RUNS \
  go test ./bench/targets -run '^$' -bench '^BenchmarkTargets$' -benchtime=1x -timeout 30m -v
