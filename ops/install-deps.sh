#!/usr/bin/env bash
# Installs what building and testing Tally needs on Debian or Ubuntu, and nothing when it is
# already there: libzmq (ZeroMQ) with pkg-config, PostgreSQL's server programs (initdb, pg_ctl:
# the PostgreSQL engine's tests start a throwaway cluster of their own), Python's jsonschema for
# the contract tests, pyzmq for the tests that run examples/python, and check-jsonschema (the
# Compose Specification's schema, vendored) for ops/check-deploy.sh.
# Swift itself (6.0 or later) is expected to be installed already.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! { command -v pkg-config >/dev/null && pkg-config --exists libzmq; }; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libzmq3-dev pkg-config
fi
echo "libzmq $(pkg-config --modversion libzmq)"

# The tests find initdb on PATH or in /usr/lib/postgresql/<version>/bin (Debian's place).
find_initdb() { command -v initdb 2>/dev/null || ls -1d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1; }
if [ -z "$(find_initdb)" ]; then
    # Only the programs are wanted: no "main" cluster made and started on port 5432 by the package.
    as_root mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.d/tally-no-main.conf >/dev/null
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
echo "$("$(find_initdb)" --version) at $(find_initdb)"

if ! python3 -c 'import jsonschema, referencing' 2>/dev/null; then
    python3 -m pip install --quiet jsonschema || as_root apt-get install -y -qq python3-jsonschema
fi
echo "jsonschema $(python3 -c 'import jsonschema; print(jsonschema.__version__)' 2>/dev/null || python3 -c 'from importlib.metadata import version; print(version("jsonschema"))')"

if ! python3 -c 'import zmq' 2>/dev/null; then
    python3 -m pip install --quiet pyzmq || as_root apt-get install -y -qq python3-zmq
fi
echo "pyzmq $(python3 -c 'import zmq; print(zmq.__version__)')"

if ! python3 -m check_jsonschema --version >/dev/null 2>&1; then
    python3 -m pip install --quiet check-jsonschema
fi
python3 -m check_jsonschema --version
