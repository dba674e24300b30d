"""Compare `contactlab model inspect` with MuJoCo's M and bias on any MJCF file, at random states.

    python3 -m venv /tmp/mj && /tmp/mj/bin/pip install mujoco==4.0.0
    /tmp/mj/bin/python scripts/mujoco_dynamics.py data/robots/mujoco/humanoid.xml

For each of `--states` pseudo-random states (qpos0 plus uniform noise, quaternions normalised;
MuJoCo's qpos and qvel, which contactlab reads an MJCF file in) it runs
`contactlab model inspect FILE --state q,v --json` (the binary from `--contactlab`, default
target/release/contactlab) and compares its `mass_matrix` with MuJoCo's `mj_fullM` (armature
included), its `bias` with `-qfrc_bias` and its `passive_force` with `qfrc_passive`, relative to
the largest entry of each. It prints one line per state and exits with 1 if any error exceeds
`--tol` (default 1e-9, issue #42's bar).
"""

import argparse
import json
import os
import subprocess
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mujoco_reference import ROOT, random_state  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mjcf")
    ap.add_argument("--states", type=int, default=5)
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--contactlab", default=os.path.join(ROOT, "target", "release", "contactlab"))
    a = ap.parse_args()
    m = mujoco.MjModel.from_xml_path(a.mjcf)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(a.seed)
    worst = 0.0
    for k in range(a.states):
        q, v = random_state(m, rng)
        d.qpos[:], d.qvel[:] = q, v
        mujoco.mj_forward(m, d)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        state = ",".join(repr(float(x)) for x in list(q) + list(v))
        out = subprocess.run(
            [a.contactlab, "model", "inspect", a.mjcf, f"--state={state}", "--json"], capture_output=True, text=True
        )
        if out.returncode != 0:
            raise SystemExit(f"contactlab failed: {out.stderr.strip()}")
        r = json.loads(out.stdout)

        def rel(x, y):
            return np.abs(np.asarray(x) - y).max() / max(np.abs(y).max(), 1e-300)

        em, eb = rel(r["mass_matrix"], full), rel(-np.asarray(r["bias"]), d.qfrc_bias)
        ep = rel(r["passive_force"], d.qfrc_passive) if np.abs(d.qfrc_passive).max() > 0 else 0.0
        worst = max(worst, em, eb, ep)
        print(f"state {k}: M {em:.1e}, bias {eb:.1e}, passive {ep:.1e} (relative errors)")
    print(f"{a.mjcf} (nq = {m.nq}, nv = {m.nv}), MuJoCo {mujoco.__version__}: largest relative error {worst:.1e}")
    sys.exit(0 if worst <= a.tol else 1)


if __name__ == "__main__":
    main()
