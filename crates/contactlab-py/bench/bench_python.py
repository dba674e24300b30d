"""Benchmarks of the Python package against Rust (issue #13's targets). Not a test: it prints
timings. Build the extension optimised and the command line first:

    cargo build --release
    VIRTUAL_ENV=$PWD/.venv-test PATH=$PWD/.venv-test/bin:$PATH \\
        maturin develop --release -m crates/contactlab-py/Cargo.toml
    .venv-test/bin/python crates/contactlab-py/bench/bench_python.py [--cells 10000] [--samples 201]

1. ``lcp.solve`` at n = 10: the Python call against the same ``Lcp::new`` + ``lcp::solve`` in a
   Rust loop in the same process (target: under 2 us extra per call).
2. R(phi) at 10^4 angles in one call against the Rust loop (simulator built, parallel
   evaluation) on the same model (target: within 1.2x).
3. ``sweep`` of P1 cells on a 2-worker ``LocalCluster`` (cluster started beforehand) against
   ``contactlab equilibrium atlas`` on the same cells (target: within 1.3x).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import contactlab
from contactlab import _core
from contactlab._results import model_text

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "examples" / "two-contact" / "config-B.toml"


def best_of(f, repeat=5):
    return min(f() for _ in range(repeat))


def bench_lcp():
    rng = np.random.default_rng(7)
    a = rng.normal(size=(10, 10))
    M = a @ a.T + np.eye(10)
    q = rng.normal(size=10)
    r = contactlab.lcp.solve(M, q)
    assert r.status == "solved", r
    reps = 20000

    def python():
        t = time.perf_counter()
        for _ in range(reps):
            contactlab.lcp.solve(M, q)
        return (time.perf_counter() - t) / reps

    py = best_of(python)
    rust = best_of(lambda: _core._time_lcp_solve(M, q, reps))
    print(f"lcp.solve n=10: Python {py * 1e6:.2f} us, Rust {rust * 1e6:.2f} us, "
          f"extra {(py - rust) * 1e6:.2f} us per call (target < 2 us)")


def bench_maps():
    phi = np.linspace(-1.5, 1.5, 10_000)
    name, text, is_json = model_text(MODEL)

    def python():
        t = time.perf_counter()
        contactlab.p1.maps(MODEL, phi=phi)
        return time.perf_counter() - t

    py = best_of(python)
    rust = best_of(lambda: _core._time_p1_maps_at(name, text, is_json, phi, 1))
    print(f"R(phi), 10^4 angles in one call: Python {py * 1e3:.2f} ms, Rust loop {rust * 1e3:.2f} ms, "
          f"ratio {py / rust:.3f} (target <= 1.2)")


def bench_sweep(cells, samples):
    from dask.distributed import Client, LocalCluster

    side = int(round(cells ** 0.5))
    lo_x, hi_x, lo_z, hi_z = -0.05, 0.0, 0.1, 0.16
    vary = {"com_x": np.linspace(lo_x, hi_x, side), "com_z": np.linspace(lo_z, hi_z, side)}
    exe = os.environ.get("CONTACTLAB_BIN") or str(ROOT / "target" / "release" / "contactlab")
    # The CLI's atlas on the same cells, printing every cell as JSON (no files written).
    args = [exe, "equilibrium", "atlas", str(MODEL), "--vary", f"com_x={lo_x}:{hi_x}:{side}",
            "--vary", f"com_z={lo_z}:{hi_z}:{side}", "--samples", str(samples), "--json"]

    def cli():
        t = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        return time.perf_counter() - t

    cli_time = best_of(cli, 3)
    t = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    start = time.perf_counter() - t

    def dask():
        t = time.perf_counter()
        df = contactlab.sweep(MODEL, vary, client=client, samples=samples)
        assert len(df) == side * side
        return time.perf_counter() - t

    try:
        cold = dask()  # the workers import numpy and contactlab during the first sweep
        warm = best_of(dask, 3)
    finally:
        client.close()
        cluster.close()
    print(f"sweep of {side * side} cells (samples={samples}) on a 2-worker LocalCluster: {warm:.2f} s "
          f"({cold:.2f} s the first time, + {start:.2f} s to start the cluster); CLI atlas {cli_time:.2f} s; "
          f"ratio {warm / cli_time:.3f} ({cold / cli_time:.3f} the first time; target <= 1.3)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=10_000)
    ap.add_argument("--samples", type=int, default=201)
    ap.add_argument("--skip-sweep", action="store_true")
    a = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    bench_lcp()
    bench_maps()
    if not a.skip_sweep:
        bench_sweep(a.cells, a.samples)


if __name__ == "__main__":
    main()
