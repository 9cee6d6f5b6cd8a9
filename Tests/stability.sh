#!/usr/bin/env bash
# Proves the test suite is green every time, not just once: clones the repository fresh, then runs
# the README's test command (`swift test`) RUNS times in a row (20 by default). The first half runs
# on a quiet machine, the second half with every core kept busy by another process; each half
# starts right after a clean build, the case that used to fail. Prints one line per run and a
# verdict, keeps the logs of failed runs, and exits 0 only if every run passed.
#
# Usage: Tests/stability.sh [--runs N] [--source PATH-OR-URL] [--workdir DIR]
#   --source   what to clone (default: this checkout's repository, at its HEAD)
#   --workdir  where to clone and keep logs (default: a new temporary directory)
set -euo pipefail

runs=20
source_repo="$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)"
workdir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --source) source_repo="$2"; shift 2 ;;
        --workdir) workdir="$2"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ "$runs" -ge 2 ] || { echo "--runs must be at least 2" >&2; exit 2; }
workdir="${workdir:-$(mktemp -d "${TMPDIR:-/tmp}/tally-stability-XXXXXX")}"
mkdir -p "$workdir"
clone="$workdir/tally"
logs="$workdir/logs"
mkdir -p "$logs"

echo "== cloning $source_repo into $clone"
rm -rf "$clone"
git clone --quiet "$source_repo" "$clone"
cd "$clone"
echo "== commit $(git rev-parse --short HEAD): $(git log -1 --format=%s)"
ops/install-deps.sh >/dev/null

load_pids=()
start_load() {
    local cores
    cores=$(nproc)
    if command -v stress-ng >/dev/null; then
        stress-ng --cpu "$cores" --quiet >/dev/null 2>&1 &
        load_pids+=($!)
    else
        for _ in $(seq "$cores"); do
            sh -c 'while :; do :; done' &
            load_pids+=($!)
        done
    fi
}
stop_load() {
    for pid in "${load_pids[@]:-}"; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    load_pids=()
}
trap stop_load EXIT

clean_build() {
    echo "== clean build"
    rm -rf .build
    swift build --build-tests >"$logs/build-$1.log" 2>&1 || { echo "build failed; see $logs/build-$1.log"; exit 1; }
}

half=$(( (runs + 1) / 2 ))
failed=0
printf '%-4s %-7s %-6s %-9s %s\n' run load result seconds note
for run in $(seq "$runs"); do
    note=""
    if [ "$run" -eq 1 ] || [ "$run" -eq $((half + 1)) ]; then
        clean_build "$run"
        note="first run after a clean build"
    fi
    load="quiet"
    if [ "$run" -gt "$half" ]; then
        load="loaded"
        start_load
    fi
    started=$(date +%s)
    if timeout --kill-after=30 2400 swift test >"$logs/run-$run.log" 2>&1; then
        result="pass"
        rm -f "$logs/run-$run.log"
    else
        result="FAIL"
        failed=$((failed + 1))
        note="${note:+$note; }log: $logs/run-$run.log"
    fi
    stop_load
    printf '%-4s %-7s %-6s %-9s %s\n' "$run" "$load" "$result" "$(( $(date +%s) - started ))" "$note"
    if [ "$result" = "FAIL" ]; then
        grep -E '^✘ Test .*(recorded an issue|failed after)' "$logs/run-$run.log" | cut -c1-300 | sed 's/^/     /' | head -20 || true
    fi
done

if [ "$failed" -eq 0 ]; then
    echo "== stable: all $runs runs passed ($half quiet, $((runs - half)) with every core loaded)"
    exit 0
fi
echo "== NOT stable: $failed of $runs runs failed; logs in $logs"
exit 1
