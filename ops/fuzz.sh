#!/usr/bin/env bash
# Fuzzes every reader of bytes from the network with libFuzzer, AddressSanitizer and
# LeakSanitizer: builds the targets of Fuzz/ (a package of its own) into .build-fuzz, runs each
# from the corpus kept in Fuzz/Corpus/<target>/ plus seeds made afresh from docs/protocol.md and
# schemas/ (Fuzz/seed.py), and prints one line per target: inputs run, time, result, and how many
# new inputs would join the corpus. A single input that runs longer than --timeout is a hang.
#
# Usage: ops/fuzz.sh [--runs N | --seconds N] [--target NAME]... [options]
#   --runs N          inputs per target, after the corpus (default 1000000)
#   --seconds N       run each target for N seconds instead
#   --target NAME     only this target (repeatable); --list prints them
#   --timeout S       seconds one input may take before it counts as a hang (default 10)
#   --seed N          libFuzzer's random seed, for a run that explores the same inputs every time
#                     (CI's smoke run); by default each run picks its own, to explore further
#   --update-corpus   merge what the run found (and new seeds) into Fuzz/Corpus, minimized (-merge=1)
#                     by the edges they reach
#   --minimize        first rewrite Fuzz/Corpus/<target> as its smallest subset of equal coverage
#   --configuration C release (default) or debug
#   --no-build        run the last build
#   --jobs N          build with N parallel jobs (default: as many as cores)
# Exits 0 when every target ran clean, 1 on any crash, leak, hang or out-of-memory: the input
# that caused it is kept in .build-fuzz/artifacts/<target>/, and `.build-fuzz/<C>/<target> FILE`
# replays it. Regressions (inputs that once failed) live in Fuzz/Corpus/<target>/regressions/
# and run every time, since libFuzzer reads a corpus folder with its subfolders.
set -euo pipefail

# The targets: one folder each under Fuzz/Targets/ (the package finds them there by itself).
targets=(
    envelope reply json
    worker-frames broker-frames broker
    decimal money-args
    commands currency-search
    events alerts
    token
)

runs=1000000
seconds=""
timeout=10
seed=()
selected=()
update=false
minimize=false
configuration=release
build=true
jobs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; seconds=""; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --target) selected+=("$2"); shift 2 ;;
        --timeout) timeout="$2"; shift 2 ;;
        --seed) seed=(-seed="$2"); shift 2 ;;
        --update-corpus) update=true; shift ;;
        --minimize) minimize=true; shift ;;
        --configuration) configuration="$2"; shift 2 ;;
        --no-build) build=false; shift ;;
        --jobs) jobs=(-j "$2"); shift 2 ;;
        --list) printf '%s\n' "${targets[@]}"; exit 0 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for target in "${selected[@]:-}"; do
    [ -z "$target" ] || [[ " ${targets[*]} " == *" $target "* ]] || { echo "no target $target (see --list)" >&2; exit 2; }
done
[ ${#selected[@]} -gt 0 ] || selected=("${targets[@]}")

cd "$(dirname "$0")/.."
root="$(pwd -P)"
# SwiftPM names a package after its folder, so a checkout in a folder called fuzz and its Fuzz/
# package would be the same package to it.
if [ "$(basename "$root" | tr '[:upper:]' '[:lower:]')" = fuzz ]; then
    echo "SwiftPM cannot tell this checkout ($root) from its Fuzz/ package: clone it into a folder not named fuzz" >&2
    exit 2
fi
scratch="$root/.build-fuzz"
bin="$scratch/$configuration"
# Each run works in a folder of its own, so that two runs (of different targets) can share a
# build and a corpus, one per core.
work="$scratch/run/$$"
artifacts="$scratch/artifacts"

if $build; then
    echo "== building the fuzz targets ($configuration, -sanitize=fuzzer,address)"
    # (ld.gold warns that it cannot export the sanitizers' local symbols, once per target: harmless.)
    # -enable-testing lets the broker target reach the gateway's internal Broker (@testable import).
    set +e
    swift build --package-path Fuzz --scratch-path "$scratch" -c "$configuration" "${jobs[@]}" \
        --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing 2>&1 | grep -v "Cannot export local symbol"
    status=${PIPESTATUS[0]}
    set -e
    [ "$status" -eq 0 ] || { echo "the fuzz build failed" >&2; exit 1; }
fi

rm -rf "$work"
mkdir -p "$work/tmp" "$artifacts"
trap 'rm -rf "$work"' EXIT
python3 Fuzz/seed.py "$root" "$work"

# LeakSanitizer on (less the reports in Fuzz/lsan-suppressions.txt, each shown there not to be a
# leak); a failed property or a trap is libFuzzer's to catch and record, not Swift's
# backtracer's (which symbolicates at length before letting go); the services' stores live in a
# temporary folder of this run.
# (Allocation stacks of 12 frames rather than 30, and 32 MB of freed memory held back to catch a
# use after free rather than 256, spare time and page faults; the stacks still reach the caller
# in Tally's code.)
export ASAN_OPTIONS="detect_leaks=1:malloc_context_size=12:quarantine_size_mb=32${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/Fuzz/lsan-suppressions.txt:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export SWIFT_BACKTRACE=enable=no
export TMPDIR="$work/tmp"

count_files() { find "$1" -maxdepth 1 -type f | wc -l; }

# The corpus kept in the repository is merged by the code it reaches, not by how often: an input
# joins it when it reaches an edge no other input does (-use_counters=0), not when it runs a loop
# a new number of times. That keeps every target's corpus to a few hundred inputs at most, and
# all of them to a few hundred KB; a run finds the counts again within seconds.
merge=(-merge=1 -use_counters=0)

# Rewrites a target's corpus (not its regressions) as the smallest subset with the same coverage.
minimize_corpus() {
    # The inputs wait outside the corpus, in the artifacts (not this run's folder, so that a
    # failed merge loses nothing), and go back through the merge.
    local target="$1" corpus="Fuzz/Corpus/$1" old="$artifacts/$1/before-minimize"
    mkdir -p "$old"
    find "$corpus" -maxdepth 1 -type f -exec mv {} "$old/" \;
    if ! "$bin/$target" "${merge[@]}" "$corpus" "$old" >"$artifacts/$target/minimize.log" 2>&1; then
        echo "minimizing $target failed (log $artifacts/$target/minimize.log); its corpus waits in $old" >&2
        exit 1
    fi
    rm -rf "$old"
}

if [ -n "$seconds" ]; then amount=(-max_total_time="$seconds"); what="$seconds s"; else amount=(-runs="$runs"); what="$runs inputs"; fi
echo "== fuzzing ${#selected[@]} target(s), $what each, $timeout s per input at most"
failed=0
rows=()
for target in "${selected[@]}"; do
    corpus="Fuzz/Corpus/$target"
    new="$work/new/$target"
    mkdir -p "$corpus" "$new" "$artifacts/$target" "$work/seeds/$target"
    if $minimize; then minimize_corpus "$target"; fi
    dict=()
    [ -f "$work/dicts/$target.dict" ] && dict=(-dict="$work/dicts/$target.dict")
    log="$artifacts/$target/fuzz.log"
    start=$(date +%s)
    set +e
    # New inputs go to the first folder; the kept corpus and the seeds are only read.
    "$bin/$target" "${amount[@]}" "${seed[@]}" -timeout="$timeout" -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$artifacts/$target/" "${dict[@]}" "$new" "$corpus" "$work/seeds/$target" >"$log" 2>&1
    status=$?
    set -e
    elapsed=$(($(date +%s) - start))
    inputs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
    if [ "$status" -eq 0 ]; then
        result="clean"
    else
        failed=1
        if grep -q "ERROR: libFuzzer: timeout" "$log"; then result="HANG"
        elif grep -q "ERROR: LeakSanitizer" "$log"; then result="LEAK"
        elif grep -q "ERROR: libFuzzer: out-of-memory" "$log"; then result="OUT OF MEMORY"
        else result="CRASH"; fi
        reproducer=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //' || true)
        echo "!! $target: $result; log $log${reproducer:+; reproducer $reproducer}"
        echo "   replay: $bin/$target ${reproducer:-FILE}"
        grep -m1 -E "Fatal error|ERROR: " "$log" | sed 's/^/   /' || true
    fi
    # How many of this run's finds add coverage to the kept corpus: merged into it with
    # --update-corpus, otherwise into a copy.
    before=$(count_files "$corpus")
    if $update; then
        merge_into="$corpus"
        sources=("$new" "$work/seeds/$target")
    else
        merge_into="$work/merged/$target"
        mkdir -p "$merge_into"
        cp -R "$corpus/." "$merge_into/"
        sources=("$new")
    fi
    added="?"
    if [ "$status" -eq 0 ] && "$bin/$target" "${merge[@]}" "$merge_into" "${sources[@]}" >"$artifacts/$target/merge.log" 2>&1; then
        added=$(($(count_files "$merge_into") - before))
    fi
    rows+=("$(printf '%-16s %12s %9s  %-14s %s' "$target" "${inputs:-?}" "${elapsed}s" "$result" "$added")")
done

echo
printf '%-16s %12s %9s  %-14s %s\n' target inputs time result "new corpus entries"
printf '%s\n' "${rows[@]}"
if [ "$failed" -ne 0 ]; then
    echo "FAILED: see the reproducers above (kept in $artifacts)"
    exit 1
fi
echo "all ${#selected[@]} target(s) clean"
