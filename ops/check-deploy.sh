#!/usr/bin/env bash
# Checks the deployment files against the tools that read them, so a typo fails CI rather than a
# deployment: every systemd unit (the worker template instantiated for each service) with
# `systemd-analyze verify` and its hardening with `systemd-analyze security` (exposure at most
# $max_exposure of 10), and compose/compose.yaml against the Compose Specification's JSON Schema
# (check-jsonschema's vendored copy; ops/install-deps.sh installs it). The units' ExecStart is
# pointed at the built `tally`, whose subcommands must exist. The compose file's profiles are
# checked too: a service may depend only on services that run whenever it runs (one without a
# profile must not need one of the `postgres` profile's), `service_healthy` only on a service with
# a health check; and with `docker compose` present, `docker compose config` loads the file with no
# profile and with each profile it declares.
#
# Usage: ops/check-deploy.sh [PATH-TO-TALLY]
# Default: the release build (`swift build -c release`, what operators install) when there is one,
# else the debug build (what CI has built); it says which it checks.
# Where systemd-analyze or docker compose is missing, those checks are skipped with a message; the
# schema and profile checks always run.
set -euo pipefail
cd "$(dirname "$0")/.."

services=(calc currency accounts shopping roster identity)
max_exposure=2.0
if [ $# -ge 1 ]; then
    tally="$1"
else
    release="$(swift build -c release --show-bin-path)/tally"
    debug="$(swift build --show-bin-path)/tally"
    if [ -x "$release" ]; then
        tally="$release"
        if [ "$debug" -nt "$release" ]; then echo "note: the debug build is newer than the release build checked here" >&2; fi
    else
        tally="$debug"
    fi
fi
[ -x "$tally" ] || { echo "no tally binary at $tally (build first: swift build -c release --product tally; or pass its path)" >&2; exit 2; }
echo "== checking with $tally"
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

# ruamel.yaml comes with check-jsonschema. Writes the profiles declared, one a line, to
# $work/profiles for the `docker compose config` runs below.
if python3 - compose/compose.yaml "$work/profiles" <<'PYTHON'; then
import sys
from ruamel.yaml import YAML

services = YAML(typ="safe", pure=True).load(open(sys.argv[1]))["services"]
problems = []
declared = set()
for name, service in services.items():
    mine = set(service.get("profiles") or [])
    declared |= mine
    needs = service.get("depends_on") or []
    conditions = needs if isinstance(needs, dict) else {need: {} for need in needs}
    for need, how in conditions.items():
        if need not in services:
            problems.append(f"{name} depends on {need}, which is not a service")
            continue
        theirs = set(services[need].get("profiles") or [])
        # Runs whenever `name` does: no profile, or every profile of `name` is one of its own.
        if theirs and not (mine and mine <= theirs):
            problems.append(f"{name} ({', '.join(sorted(mine)) or 'no profile'}) depends on {need}, "
                            f"which runs only with --profile {', '.join(sorted(theirs))}")
        if (how or {}).get("condition") == "service_healthy" and "healthcheck" not in services[need]:
            problems.append(f"{name} waits for {need} to be healthy, which has no health check")
for problem in problems:
    print(f"profiles: {problem}: FAILED")
default = sorted(name for name, service in services.items() if not service.get("profiles"))
print(f"profiles: no profile runs {len(default)} services")
for profile in sorted(declared):
    extra = sorted(name for name, service in services.items() if profile in (service.get("profiles") or []))
    print(f"profiles: --profile {profile} adds {len(extra)}: {' '.join(extra)}")
open(sys.argv[2], "w").write("".join(f"{profile}\n" for profile in sorted(declared)))
sys.exit(1 if problems else 0)
PYTHON
    :
else
    failed=1
fi

if docker compose version >/dev/null 2>&1; then
    for profile in "" $(cat "$work/profiles" 2>/dev/null); do
        # Without compose/.env the postgres profile's password is empty, which config accepts.
        if docker compose -f compose/compose.yaml ${profile:+--profile "$profile"} config --quiet; then
            echo "docker compose config${profile:+ --profile $profile}: ok"
        else
            echo "docker compose config${profile:+ --profile $profile}: FAILED"
            failed=1
        fi
    done
else
    echo "docker compose not found: docker compose config skipped"
fi

[ "$failed" -eq 0 ] && echo "== deployment files: OK" || { echo "== deployment files: FAILED"; exit 1; }
