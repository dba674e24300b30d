#!/usr/bin/env bash
# The test command of README.md: the Rust tests, then the Python package's tests in a virtual
# environment this script creates (.venv-test, reused when present).
set -euo pipefail
cd "$(dirname "$0")/.."
# One cargo invocation builds the test binaries, the CLI and the Python extension together, so
# they resolve the same features and share one build of contactlab and its dependencies (a
# separate `maturin develop` rebuilt both: about 85 s). The extension is the test profile's
# (contactlab at opt-level 1), which also runs the Python tests about five times faster.
# (The benchmarks' crate is left out: criterion is not needed to test.)
SELECTION=(--workspace --exclude contactlab-bench --features contactlab-py/extension-module)
cargo build --profile test --lib --bins --tests --examples "${SELECTION[@]}"
cargo test "${SELECTION[@]}"
# The library's reference documentation builds without a warning (a link to a private or moved
# item is one).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p contactlab
if [ ! -x .venv-test/bin/python ]; then
    python3 -m venv .venv-test
fi
.venv-test/bin/python -m pip install --quiet --disable-pip-version-check numpy pytest pandas "dask[distributed]" matplotlib xarray
# Installed as `maturin develop` installs a mixed Rust/Python package: the extension beside the
# package's Python sources (git ignores it there), and a .pth file naming the sources' folder.
# (pip install ./crates/contactlab-py, maturin's route, is how users install it; README.)
cp -f target/debug/lib_core.so crates/contactlab-py/python/contactlab/_core.abi3.so
site=$(.venv-test/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/crates/contactlab-py/python" > "$site/contactlab.pth"
# (Bounded: a hung worker must fail the run, not stall it.)
CONTACTLAB_BIN="$PWD/target/debug/contactlab" timeout 900 .venv-test/bin/python -m pytest -q crates/contactlab-py/tests
