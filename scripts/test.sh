#!/usr/bin/env bash
# The test command of README.md: the Rust tests, then the Python package's tests in a virtual
# environment this script creates (.venv-test, reused when present).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --exclude contactlab-py
if [ ! -x .venv-test/bin/python ]; then
    python3 -m venv .venv-test
fi
.venv-test/bin/python -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" numpy pytest pandas "dask[distributed]" matplotlib xarray
# maturin develop builds the extension (debug) and installs the package into the environment.
VIRTUAL_ENV="$PWD/.venv-test" PATH="$PWD/.venv-test/bin:$PATH" \
    maturin develop --quiet -m crates/contactlab-py/Cargo.toml
# (Bounded: a hung worker must fail the run, not stall it.)
CONTACTLAB_BIN="$PWD/target/debug/contactlab" timeout 900 .venv-test/bin/python -m pytest -q crates/contactlab-py/tests
