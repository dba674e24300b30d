"""Side-by-side timing of M and the bias: contactlab against Pinocchio, both through Python.

    python3 -m venv /tmp/pin && /tmp/pin/bin/pip install pin==4.1.0 numpy
    maturin develop --release -m crates/contactlab-py/Cargo.toml   # or: pip install the wheel
    /tmp/pin/bin/python scripts/pinocchio_speed.py

For Unitree A1 (floating base, nv = 18) and the G1 humanoid (floating, nv = 35) from
data/robots/, it times `contactlab.model.Robot.mass_matrix(q)` against `pinocchio.crba` and
`Robot.bias(q, v)` against `pinocchio.nonLinearEffects`, each called from Python with numpy
arrays at the same random states (so that each side pays one binding call's overhead), and
prints the mean time per call and the ratio contactlab / Pinocchio. Issue #42's target: at most
1.5. Pure-Rust figures without the Python overhead: `cargo bench -p contactlab-bench --bench
spatial` (README, "Benchmarks").
"""

import os
import sys
import timeit

import numpy as np
import pinocchio as pin

import contactlab.model

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pinocchio_reference import states  # noqa: E402


def best_mean(fn, number):
    """The best of five runs of `number` calls, per call (s)."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def main():
    rng = np.random.default_rng(7)
    print(f"Pinocchio {pin.__version__}; times per call through Python, best of 5")
    print(f"{'robot':<8} {'nv':>3} {'quantity':<5} {'contactlab':>11} {'Pinocchio':>10} {'ratio':>6}")
    for name in ["a1", "g1_29dof_rev_1_0"]:
        path = os.path.join(ROOT, "data", "robots", name + ".urdf")
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        data = model.createData()
        robot = contactlab.model.Robot(path, base="floating")
        (qp, qc, v), = states(model, rng, 1)
        qc = np.asarray(qc, dtype=float)
        # The same numbers on both sides first.
        m = pin.crba(model, data, qp)
        m = np.triu(m) + np.triu(m, 1).T
        assert np.abs(robot.mass_matrix(qc) - m).max() <= 1e-9 * np.abs(m).max()
        assert np.abs(robot.bias(qc, v) + pin.nonLinearEffects(model, data, qp, v)).max() <= 1e-9
        n = 20000
        rows = [
            ("M", best_mean(lambda: robot.mass_matrix(qc), n), best_mean(lambda: pin.crba(model, data, qp), n)),
            (
                "bias",
                best_mean(lambda: robot.bias(qc, v), n),
                best_mean(lambda: pin.nonLinearEffects(model, data, qp, v), n),
            ),
        ]
        short = "A1" if name == "a1" else "G1"
        for what, ours, theirs in rows:
            print(f"{short:<8} {model.nv:>3} {what:<5} {ours * 1e6:>9.2f}us {theirs * 1e6:>8.2f}us {ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
