#!/usr/bin/env python3
"""contactlab's Lemke solver against Drake's UnrevisedLemkeSolver, on the same problems.

Not part of the tests or CI (issue #20 asks for it; the table it prints is in docs/validation.md).
Needs pydrake (pip install drake; Python 3.11 wheels stop at drake 1.51.1) and contactlab's
Python package built optimised into the same environment. From the repository root:

    python3 -m venv /tmp/drakeenv
    /tmp/drakeenv/bin/pip install drake==1.51.1 "maturin>=1.5,<2"
    /tmp/drakeenv/bin/maturin build --release -m crates/contactlab-py/Cargo.toml -o /tmp/wheels
    /tmp/drakeenv/bin/pip install --force-reinstall /tmp/wheels/contactlab-*.whl
    /tmp/drakeenv/bin/python scripts/drake_lcp.py [--rounds 7]

Problems: for n = 10, 50, 200, a fixed set of random problems per family (numpy, seed 2026),
  pd:      M = A Aᵀ + I,                 q ~ N(0, 1)     (A ~ N(0, 1) entries)
  nonsym:  M = A Aᵀ + I + (B − Bᵀ),      q ~ N(0, 1)     (positive definite, not symmetric)
Every problem has one solution; both solvers must find it (checked, on every problem).

Timing. Drake's solver keeps the basis of its last solve and tries it first, so solving one
problem over and over measures warm starts: each timed pass therefore solves every problem of
the set once, in turn (cold), and gives the mean time per problem. Drake is only reachable
through Python (`Solve` of a MathematicalProgram holding one LCP constraint, built beforehand);
contactlab is timed twice: in process (`_core._time_lcp_solve_each`: `lcp::solve` in a Rust
loop through the same set, the problems built beforehand like Drake's programs, no Python) and
through its Python call (`contactlab.lcp.solve(M, q)`), the same harness as Drake's. Rounds
interleave the three; the table gives medians over rounds. The "Python floor" line is Drake's
`Solve` on a problem with q ≥ 0 (no pivot): what a call costs before any work.
"""

import argparse
import statistics
import time

import numpy as np
from pydrake.solvers import MathematicalProgram, UnrevisedLemkeSolver

import contactlab
from contactlab import _core

SIZES = {10: 200, 50: 100, 200: 12}  # n: problems per family


def problems(family, n, count, seed=2026):
    rng = np.random.default_rng([seed, n, 0 if family == "pd" else 1])
    out = []
    for _ in range(count):
        a = rng.normal(size=(n, n))
        m = a @ a.T + np.eye(n)
        if family == "nonsym":
            b = rng.normal(size=(n, n))
            m = m + (b - b.T)
        q = rng.normal(size=n)
        out.append((np.ascontiguousarray(m), q))
    return out


def drake_program(m, q):
    prog = MathematicalProgram()
    x = prog.NewContinuousVariables(len(q))
    prog.AddLinearComplementarityConstraint(m, q, x)
    return prog, x


def check(probs, progs, solver):
    """Both solvers solve every problem, to the same point."""
    worst = 0.0
    for (m, q), (prog, x) in zip(probs, progs):
        r = solver.Solve(prog, None, None)
        assert r.is_success(), "Drake did not solve a problem"
        zd = r.GetSolution(x)
        c = contactlab.lcp.solve(m, q)
        assert c.status == "solved", c
        worst = max(worst, np.abs(zd - c.z).max() / max(1.0, np.abs(zd).max()))
    return worst


def pass_drake(progs, solver):
    t = time.perf_counter()
    for prog, _ in progs:
        solver.Solve(prog, None, None)
    return (time.perf_counter() - t) / len(progs)


def pass_ours_python(probs):
    t = time.perf_counter()
    for m, q in probs:
        contactlab.lcp.solve(m, q)
    return (time.perf_counter() - t) / len(probs)


def pass_ours_rust(probs):
    # One pass through the set in a Rust loop, each solve on a different problem (as Drake's).
    return _core._time_lcp_solve_each(probs, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    solver = UnrevisedLemkeSolver()
    floor_prog, _ = drake_program(np.eye(10), np.ones(10))
    rows = []
    floor = []
    for family in ("pd", "nonsym"):
        for n, count in SIZES.items():
            probs = problems(family, n, count)
            progs = [drake_program(m, q) for m, q in probs]
            diff = check(probs, progs, solver)
            d, r, p = [], [], []
            for _ in range(args.rounds):
                d.append(pass_drake(progs, solver))
                r.append(pass_ours_rust(probs))
                p.append(pass_ours_python(probs))
                t = time.perf_counter()
                for _ in range(1000):
                    solver.Solve(floor_prog, None, None)
                floor.append((time.perf_counter() - t) / 1000)
            row = (family, n, count, *(statistics.median(v) for v in (d, r, p)), diff)
            rows.append(row)
            print(f"{family:7s} n={n:3d}: Drake {row[3] * 1e6:9.2f} µs, contactlab {row[4] * 1e6:9.2f} µs in process, "
                  f"{row[5] * 1e6:9.2f} µs from Python; ratio {row[3] / row[4]:5.1f}× / {row[3] / row[5]:5.1f}×; "
                  f"largest |Δz| {diff:.1e}", flush=True)
    print()
    print("| family | n | problems | Drake UnrevisedLemke (Python) | contactlab in process | contactlab from Python "
          "| Drake ÷ contactlab (in process / from Python) | largest relative difference in z |")
    print("|---|---|---|---|---|---|---|---|")
    unit = lambda s: f"{s * 1e6:.2f} µs" if s < 1e-3 else f"{s * 1e3:.3f} ms"
    for family, n, count, d, r, p, diff in rows:
        print(f"| {family} | {n} | {count} | {unit(d)} | {unit(r)} | {unit(p)} | {d / r:.1f}× / {d / p:.1f}× | {diff:.0e} |")
    print(f"\nPython floor (Drake's Solve with q ≥ 0, n = 10): {statistics.median(floor) * 1e6:.2f} µs per call")


if __name__ == "__main__":
    main()
