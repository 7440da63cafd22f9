#!/bin/bash
# limits.sh: how long and how much memory evalgate takes to load the worst
# suites a pull request may commit. bench/limits writes one suite just
# inside each of the loader's limits (docs/suites.md, "Limits"):
#
#   values.json   16 tasks of almost 1,000,000 JSON values each (32 MB)
#   exprs.json    990 distinct 4 KB expressions, the suite's node budget
#   schemas.json  ten distinct output schemas of almost 10,000 values each
#   regexes.json  100,000 distinct 1 KB regular expressions of 1,000
#                 instructions, 63 MB
#   aliases.yaml  a 4 MB YAML suite whose aliases expand to 1,000,000 values
#
# and `evalgate validate` loads each under /usr/bin/time. The bar (issue 17)
# is 10 s and 1 GB for each; the script exits 1 when one goes past it.
#
#   bench/limits.sh [--work DIR]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/evalgate-limits}
while [[ $# -gt 0 ]]; do
  case $1 in
    --work) WORK=$2; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "limits.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "limits.sh: $*" >&2; }
[[ -x /usr/bin/time ]] || { log "installing /usr/bin/time (Debian package time)"; apt-get install -y time >/dev/null; }

mkdir -p "$WORK/bin"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/evalgate" . && go run ./bench/limits -out "$WORK/suites")

over=0
printf '%-14s %9s %9s %9s %10s\n' suite wall_s user_s sys_s peak_MiB
for f in "$WORK"/suites/*; do
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$WORK/bin/evalgate" validate "$f" >/dev/null
  read -r wall user sys rss <"$WORK/time"
  printf '%-14s %9s %9s %9s %10d\n' "$(basename "$f")" "$wall" "$user" "$sys" $((rss / 1024))
  if awk -v w="$wall" -v r="$rss" 'BEGIN { exit !(w > 10 || r > 1048576) }'; then
    log "$(basename "$f") is over 10 s or 1 GB"
    over=1
  fi
done
exit $over
