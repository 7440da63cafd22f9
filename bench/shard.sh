#!/bin/bash
# shard.sh: what balancing buys a sharded run, and what merging costs.
#
#   bench/shard.sh [--work DIR] [--seed N] [--merge-only] [--runs N]
#
# Balance: 400 tasks whose latencies are skewed (most 20 ms, one in twenty
# 2 s, drawn from the seed; bench/shardgen) run once whole to have a
# history, then as 4 shards at once, first assigned by hash, then balanced
# by that history (--balance). Each shard runs one task at a time, so its
# wall time is the sum of its tasks'. The figure is the slowest shard's wall
# time over the mean shard's, from the merged results (shards[].wallMs):
# the merge waits for the slowest.
#
# Merge: 4 shards of 50,000 tasks each (bench/shardgen), merged by
# `evalgate merge` under /usr/bin/time, --runs times (default 3): the
# median wall time, the CPU time of that run and the largest peak RSS.
# --merge-only skips the balance part.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-shard}
SEED=1
MERGE_ONLY=
RUNS=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --work) WORK=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --merge-only) MERGE_ONLY=1 ;;
    --runs) RUNS=$2; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "shard.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "shard.sh: $*" >&2; }
[[ -x /usr/bin/time ]] || { log "installing /usr/bin/time (Debian package time)"; apt-get install -y time >/dev/null; }

rm -rf "$WORK"
mkdir -p "$WORK/bin"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && go build -o "$WORK/bin/shardgen" ./bench/shardgen)
EG="$WORK/bin/evalgate"

# shards MODE [FLAGS...]: the 4 shards at once, one task at a time each,
# then their merge; prints the slowest shard over the mean shard.
shards() {
  local mode=$1; shift
  local pids=()
  for i in 1 2 3 4; do
    "$EG" run --quiet --concurrency 1 --shard "$i/4" --gate true --out "$mode-$i" "$@" >/dev/null &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  "$EG" merge --quiet --out "$mode-merged" --gate true "$mode"-[1-4] >/dev/null
  python3 - "$mode-merged/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = [s["wallMs"] for s in r["shards"]]
planned = [s.get("plannedMs", 0) for s in r["shards"]]
mean = sum(wall) / len(wall)
print(f'{max(wall) / mean:.3f} {" ".join(str(w) for w in wall)} {" ".join(str(p) for p in planned)}')
PY
}

if [[ -z $MERGE_ONLY ]]; then
  "$WORK/bin/shardgen" -suite "$WORK/skew" -n 400 -seed "$SEED"
  cd "$WORK/skew"
  log "the whole run, for the history"
  "$EG" run --quiet --out history --concurrency 8 >/dev/null
  log "4 shards by hash"
  read -r hash_ratio hash_walls <<<"$(shards hash)"
  log "4 shards balanced by the history"
  read -r bal_ratio bal_walls <<<"$(shards balanced --balance history)"
fi

cd "$WORK"
log "4 x 50,000 task results, merged"
"$WORK/bin/shardgen" -results "$WORK/big" -shards 4 -tasks 50000
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
: >"$WORK/times"
for ((r = 1; r <= RUNS; r++)); do
  rm -rf "$WORK/big/merged"
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$EG" merge --quiet --out "$WORK/big/merged" --gate true "$WORK"/big/shard-* >/dev/null
  cat "$WORK/time" >>"$WORK/times"
  log "merge $r: $(cat "$WORK/time") (wall s, user s, sys s, peak RSS KiB)"
done
read -r merge_wall merge_user merge_sys _ <<<"$(sort -n "$WORK/times" | sed -n "$(((RUNS + 1) / 2))p")"
merge_rss=$(awk 'm < $4 {m = $4} END {print m}' "$WORK/times")

if [[ -z $MERGE_ONLY ]]; then
  printf '\n%-34s %s\n' "assignment (seed $SEED)" "slowest shard / mean shard   (wall ms of shards 1-4, then planned ms)"
  printf '%-34s %s   (%s)\n' "hash" "$hash_ratio" "$hash_walls"
  printf '%-34s %s   (%s)\n' "balanced by the whole run's latency" "$bal_ratio" "$bal_walls"
fi
printf '\nmerge of 4 x 50,000 tasks, median of %d: %s s wall, %s s CPU (user + sys), largest peak RSS %d MiB; load average before: %s\n' \
  "$RUNS" "$merge_wall" "$(bc -l <<<"$merge_user + $merge_sys")" $((merge_rss / 1024)) "$LOAD_BEFORE"
