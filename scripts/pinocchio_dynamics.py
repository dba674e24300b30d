"""Compare `contactlab model inspect` with Pinocchio's M and bias on any URDF, at random states.

    python3 -m venv /tmp/pin && /tmp/pin/bin/pip install pin==4.1.0
    /tmp/pin/bin/python scripts/pinocchio_dynamics.py data/robots/a1.urdf --base floating

For each of `--states` pseudo-random states (unit quaternions, angles in [-pi, pi]) it runs
`contactlab model inspect FILE --base BASE --state q,v --json` (the binary from `--contactlab`,
default target/release/contactlab) and compares its `mass_matrix` with Pinocchio's `crba` and
its `bias` with `-nonLinearEffects`, relative to the largest entry of each. It prints one line
per state and exits with 1 if any error exceeds `--tol` (default 1e-9, issue #42's bar).
Coordinates: contactlab's (Pinocchio's, except that a continuous joint is one angle where
Pinocchio stores its cos and sin; docs/robots.md).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import pinocchio as pin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pinocchio_reference import ROOT, states  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("urdf")
    ap.add_argument("--base", choices=["fixed", "floating"], default="fixed")
    ap.add_argument("--states", type=int, default=5)
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--contactlab", default=os.path.join(ROOT, "target", "release", "contactlab"))
    a = ap.parse_args()
    if a.base == "floating":
        model = pin.buildModelFromUrdf(a.urdf, pin.JointModelFreeFlyer())
    else:
        model = pin.buildModelFromUrdf(a.urdf)
    data = model.createData()
    worst = 0.0
    for k, (qp, qc, v) in enumerate(states(model, np.random.default_rng(a.seed), a.states)):
        state = ",".join(repr(float(x)) for x in list(qc) + list(v))
        out = subprocess.run(
            [a.contactlab, "model", "inspect", a.urdf, "--base", a.base, f"--state={state}", "--json"],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise SystemExit(f"contactlab failed: {out.stderr.strip()}")
        r = json.loads(out.stdout)
        m = pin.crba(model, data, qp)
        m = np.triu(m) + np.triu(m, 1).T
        nle = pin.nonLinearEffects(model, data, qp, v)
        em = np.abs(np.array(r["mass_matrix"]) - m).max() / np.abs(m).max()
        eb = np.abs(np.array(r["bias"]) + nle).max() / max(np.abs(nle).max(), 1e-300)
        worst = max(worst, em, eb)
        print(f"state {k}: M relative error {em:.1e}, bias relative error {eb:.1e}")
    print(f"{a.urdf} ({a.base}, nv = {model.nv}), Pinocchio {pin.__version__}: largest relative error {worst:.1e}")
    sys.exit(0 if worst <= a.tol else 1)


if __name__ == "__main__":
    main()
