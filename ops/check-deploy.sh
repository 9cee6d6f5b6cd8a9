#!/usr/bin/env bash
# Checks the deployment files against the tools that read them, so a typo fails CI rather than a
# deployment: every systemd unit (the worker template instantiated for each service) with
# `systemd-analyze verify` and its hardening with `systemd-analyze security` (exposure at most
# $max_exposure of 10), and compose/compose.yaml against the Compose Specification's JSON Schema
# (check-jsonschema's vendored copy; ops/install-deps.sh installs it). The units' ExecStart is
# pointed at the built `tally`, whose subcommands must exist.
#
# Usage: ops/check-deploy.sh [PATH-TO-TALLY]   (default: the debug build, `swift build --show-bin-path`)
# Where systemd-analyze is missing the unit checks are skipped with a message; the compose check
# always runs.
set -euo pipefail
cd "$(dirname "$0")/.."

services=(calc currency accounts shopping roster identity)
max_exposure=2.0
tally="${1:-$(swift build --show-bin-path)/tally}"
[ -x "$tally" ] || { echo "no tally binary at $tally (build first, or pass its path)" >&2; exit 2; }
failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== systemd units (ops/systemd)"
if command -v systemd-analyze >/dev/null; then
    units=()
    for file in ops/systemd/*.service; do
        name="$(basename "$file")"
        sed "s#/usr/local/bin/tally#$tally#g" "$file" >"$work/$name"
        if [[ "$name" == *@.service ]]; then
            for service in "${services[@]}"; do
                cp "$work/$name" "$work/${name/@/@$service}"
                units+=("$work/${name/@/@$service}")
            done
        else
            units+=("$work/$name")
        fi
    done
    # verify exits 0 on unknown keys and bad values (it only warns), so any output is a failure.
    if output="$(systemd-analyze verify --man=no "${units[@]}" 2>&1)" && [ -z "$output" ]; then
        echo "verify: ${#units[@]} units clean"
    else
        echo "$output" | sed "s#$work/##g"
        echo "verify: FAILED"
        failed=1
    fi
    for unit in "${units[@]}"; do
        exposure="$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1 | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')"
        if [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= $max_exposure) }"; then
            echo "security: $(basename "$unit") exposure $exposure"
        else
            echo "security: $(basename "$unit") exposure ${exposure:-unknown}, more than $max_exposure: FAILED"
            failed=1
        fi
    done
    # The commands the units start must exist in this build.
    for command in $(sed -n 's#^ExecStart=/usr/local/bin/tally \([a-z-]*\).*#\1#p' ops/systemd/*.service | sort -u); do
        "$tally" "$command" --help >/dev/null 2>&1 || { echo "ExecStart: tally $command does not exist: FAILED"; failed=1; }
    done
else
    echo "systemd-analyze not found: unit checks skipped"
fi

echo "== compose (compose/compose.yaml)"
if python3 -m check_jsonschema --builtin-schema vendor.compose-spec compose/compose.yaml; then
    :
else
    failed=1
fi

[ "$failed" -eq 0 ] && echo "== deployment files: OK" || { echo "== deployment files: FAILED"; exit 1; }
