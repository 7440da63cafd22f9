#!/usr/bin/env bash
# Runs the README's test command, go test -race ./..., RUNS times in a row
# (default 3) beside 4 busy processes, as on a busy 2-core machine, and
# prints how long each run and each package took (its longest of the runs).
# Stops at the first failing run and prints what failed. Packages after
# RUNS test only those. With KEEP=DIR, each run's go test -json output is
# kept in DIR (run-N.json). docs/testing.md says why and what the figures
# should be.
#
#   bash scripts/test-under-load.sh [RUNS [PACKAGE...]]
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-3}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: scripts/test-under-load.sh [RUNS [PACKAGE...]], RUNS a whole number from 1, got \"$runs\"" >&2
	exit 2
fi
shift $(($# > 0 ? 1 : 0))
packages=("${@:-./...}")

if [[ -n "${KEEP:-}" ]]; then
	mkdir -p "$KEEP"
	out=$KEEP
else
	out=$(mktemp -d)
fi
busy=()
cleanup() {
	if ((${#busy[@]})); then
		kill "${busy[@]}" 2>/dev/null || true
	fi
	if [[ -z "${KEEP:-}" ]]; then
		rm -rf "$out"
	fi
}
trap cleanup EXIT
for _ in 1 2 3 4; do
	sh -c 'while :; do :; done' &
	busy+=("$!")
done

load() {
	if [[ -r /proc/loadavg ]]; then
		echo ", load average $(cut -d' ' -f1-3 /proc/loadavg)"
	fi
}

echo "go test -race ${packages[*]} beside 4 busy processes, runs: $runs$(load)"
for i in $(seq "$runs"); do
	start=$SECONDS
	status=0
	go test -race -count=1 -json "${packages[@]}" >"$out/run-$i.json" 2>"$out/run-$i.err" || status=$?
	echo "run $i: $((SECONDS - start))s, exit $status$(load)"
	if ((status != 0)); then
		break
	fi
done

/usr/bin/python3 - "$out" <<'EOF'
import glob, json, os, sys

longest, times, failed = {}, {}, []
paths = sorted(glob.glob(os.path.join(sys.argv[1], "run-*.json")), key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
for n, path in enumerate(paths):
    output = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        pkg, test = e.get("Package", ""), e.get("Test")
        if e.get("Action") == "output":
            output.setdefault((pkg, test), []).append(e.get("Output", ""))
        elif e.get("Action") in ("pass", "fail") and not test and "Elapsed" in e:
            longest[pkg] = max(longest.get(pkg, 0), e["Elapsed"])
            times.setdefault(pkg, [None] * len(paths))[n] = e["Elapsed"]
        if e.get("Action") == "fail":
            failed.append((os.path.basename(path), pkg, test, "".join(output.get((pkg, test), []))))
print("each package's time in each run, longest first (seconds):")
for pkg, secs in sorted(longest.items(), key=lambda kv: -kv[1]):
    runs = "  ".join("    -  " if s is None else f"{s:7.1f}" for s in times[pkg])
    print(f"  {runs}  {pkg}")
for run, pkg, test, text in failed:
    if test:
        print(f"\nFAIL {run}: {pkg} {test}\n{text}")
    elif not any(f[1] == pkg and f[2] for f in failed):
        print(f"\nFAIL {run}: {pkg} (no test failed: the package did not build, or its binary ended)\n{text}")
EOF
for err in "$out"/run-*.err; do
	if [[ -s "$err" ]]; then
		echo "stderr of ${err##*/}:"
		cat "$err"
	fi
done
if ((status != 0)); then
	exit "$status"
fi
