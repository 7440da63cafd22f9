#!/bin/bash
# scale.sh: how evalgate's memory and time grow with the number of tasks, and
# how long it takes to start the first agent.
#
#   bench/scale.sh                      N = 1,000, 10,000 and 100,000
#   bench/scale.sh --sizes "1000 5000"  other sizes
#   bench/scale.sh --startup-only       only the time to the first agent
#
# Every task runs a real process (bench/agent-plain.sh, a /bin/sh script) and
# is checked by an exact match and three expressions, as in run.sh. Each size
# is run once under /usr/bin/time -v; the table gives wall time, CPU time (of
# evalgate and its agents), peak RSS and the runner's own CPU per task
# (evalgate's CPU minus the agents', from a run with EVALGATE_CPUPROFILE off).
#
# Startup: a 1,000-task suite whose agent writes the time it started; the
# figure is the median over 9 runs of (first agent start - evalgate exec).
# Beside it, the median time of `evalgate version` over as many runs: the
# cost of starting the process at all on this machine at this moment,
# which on a shared virtual machine varies by a factor of two.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-scale}
SIZES="1000 10000 100000"
STARTUP_ONLY=
while [[ $# -gt 0 ]]; do
  case $1 in
    --sizes) SIZES=$2; shift ;;
    --startup-only) STARTUP_ONLY=1 ;;
    --work) WORK=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "scale.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "scale.sh: $*" >&2; }
[[ -x /usr/bin/time ]] || { log "installing /usr/bin/time (Debian package time)"; apt-get install -y time >/dev/null; }

mkdir -p "$WORK/bin"
# evalgate is built as it is released: static, without cgo.
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && go build -o "$WORK/bin/gen" ./bench/gen)
EVALGATE=$WORK/bin/evalgate
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)

# Startup to the first agent, 1,000 tasks.
sdir=$WORK/startup
rm -rf "$sdir"; mkdir -p "$sdir"
cat >"$sdir/agent.sh" <<'AGENT'
#!/bin/bash
# records when the first agent started (bash's clock: no extra process), then answers like agent-plain.sh
[[ -e first ]] || echo "${EPOCHREALTIME/./}" >>first
exec /bin/sh "$BENCH_AGENT"
AGENT
chmod +x "$sdir/agent.sh"
"$WORK/bin/gen" -n 1000 -format evalgate -out "$sdir" -agent-plain "$sdir/agent.sh" >/dev/null
startups=()
versions=()
for _ in 1 2 3 4 5 6 7 8 9; do
  rm -f "$sdir/first"
  t0=${EPOCHREALTIME/./}
  (cd "$sdir" && BENCH_AGENT=$ROOT/bench/agent-plain.sh "$EVALGATE" run --config evalgate.yaml --out out --quiet >/dev/null)
  first=$(sort -n "$sdir/first" | head -1)
  startups+=("$(( (first - t0) / 1000 ))")
  t0=${EPOCHREALTIME/./}
  "$EVALGATE" version >/dev/null
  t1=${EPOCHREALTIME/./}
  versions+=("$(( (t1 - t0) / 100 ))")
done
median() { printf '%s\n' "$@" | sort -n | sed -n 5p; }
startup=$(median "${startups[@]}")
version_ms=$(median "${versions[@]}" | sed -E 's/^([0-9]*)([0-9])$/\1.\2/; s/^\./0./')
log "startup to the first agent, 1,000 tasks: ${startups[*]} ms (median $startup ms)"

echo
echo "evalgate $("$EVALGATE" version | cut -d' ' -f2); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average before: $LOAD_BEFORE"
echo
echo "Startup to the first agent process, 1,000-task suite: median ${startup} ms of 9 runs (${startups[*]});"
echo "\`evalgate version\` alone: median ${version_ms} ms"
[[ -n $STARTUP_ONLY ]] && exit 0

echo
echo "| tasks | wall s | CPU s (evalgate + agents) | peak RSS MiB | passed |"
echo "|---|---|---|---|---|"
for n in $SIZES; do
  dir=$WORK/plain-$n
  rm -rf "$dir"; mkdir -p "$dir"
  "$WORK/bin/gen" -n "$n" -format evalgate -out "$dir" -agent-plain "$ROOT/bench/agent-plain.sh" >/dev/null
  log "N=$n"
  (cd "$dir" && /usr/bin/time -v -o time.txt "$EVALGATE" run --config evalgate.yaml --out out >stdout.txt 2>stderr.txt) || {
    log "evalgate failed for N=$n (see $dir/stderr.txt)"; exit 3; }
  passed=$(grep -o '"passedCount": [0-9]*' "$dir/out/results.json" | head -1 | grep -o '[0-9]*$')
  awk -F': ' -v n="$n" -v p="$passed" '
    /Elapsed \(wall clock\)/ { k = split($2, a, ":"); w = 0; for (i = 1; i <= k; i++) w = w * 60 + a[i] }
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { m = $2 }
    END { printf "| %d | %.1f | %.1f | %.0f | %d |\n", n, w, u + s, m / 1024, p }' "$dir/time.txt"
done
