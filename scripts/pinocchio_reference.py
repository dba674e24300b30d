"""Reference values from Pinocchio for contactlab's spatial dynamics.

The Rust test `tests/integration/spatial.rs` reads the files this writes, so the test needs
neither Python nor Pinocchio. To regenerate them (Pinocchio 4.1.0 from PyPI's `pin`):

    python3 -m venv /tmp/pin && /tmp/pin/bin/pip install pin==4.1.0
    /tmp/pin/bin/python scripts/pinocchio_reference.py

For each robot of data/robots/ (see data/robots/README.md) it writes
crates/contactlab/tests/data/pinocchio/<robot>.json with, at a few pseudo-random states:
`q` and `v` in contactlab's coordinates (Pinocchio's, except that a continuous joint is one
angle where Pinocchio stores its cos and sin), the joint-space inertia `M` (crba, made
symmetric), the nonlinear effects `nle = C(q, v) v + g(q)` (contactlab's bias is -nle), and one
point of one link: its world position and the 3 x nv Jacobian of its world velocity.
"""

import json
import math
import os
import sys

import numpy as np
import pinocchio as pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROBOTS = [
    # (file, base, link, point in the link's frame)
    ("zoo", "floating", "hand", [0.02, -0.01, -0.05]),
    ("a1", "floating", "FR_foot", [0.0, 0.0, -0.02]),
    ("ur5_robot", "fixed", "wrist_3_link", [0.0, 0.08, 0.0]),
    ("panda", "fixed", "panda_leftfinger", [0.0, 0.01, 0.04]),
    ("g1_29dof_rev_1_0", "floating", "left_ankle_roll_link", [0.05, 0.0, -0.03]),
]


def states(model, rng, count):
    """(q_pinocchio, q_contactlab, v) at `count` pseudo-random states."""
    out = []
    for _ in range(count):
        qp, qc = [], []
        for j in model.joints[1:]:
            name = j.shortname()
            if j.nq == 7:  # free flyer: x y z, then a random unit quaternion x y z w
                quat = rng.normal(size=4)
                quat /= np.linalg.norm(quat)
                x = list(rng.uniform(-0.5, 0.5, size=3)) + list(quat)
                qp += x
                qc += x
            elif "Planar" in name:  # x, y, then the angle as (cos, sin)
                x, y, th = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-math.pi, math.pi)
                qp += [x, y, math.cos(th), math.sin(th)]
                qc += [x, y, th]
            elif j.nq == 2:  # continuous: (cos, sin)
                th = rng.uniform(-math.pi, math.pi)
                qp += [math.cos(th), math.sin(th)]
                qc += [th]
            elif j.nq == 1:
                x = rng.uniform(-1.0, 1.0) if "Prismatic" not in name else rng.uniform(-0.1, 0.1)
                qp += [x]
                qc += [x]
            else:
                raise SystemExit(f"joint {name}: not handled")
        v = rng.uniform(-1.0, 1.0, size=model.nv)
        out.append((np.array(qp), qc, v))
    return out


def main():
    out_dir = os.path.join(ROOT, "crates", "contactlab", "tests", "data", "pinocchio")
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(20261129)
    for name, base, link, point in ROBOTS:
        path = os.path.join(ROOT, "data", "robots", name + ".urdf")
        if base == "floating":
            model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        else:
            model = pin.buildModelFromUrdf(path)
        data = model.createData()
        frame = model.getFrameId(link, pin.FrameType.BODY)
        if frame >= model.nframes:
            raise SystemExit(f"{name}: no link {link}")
        records = []
        for qp, qc, v in states(model, rng, 3):
            m = pin.crba(model, data, qp)
            m = np.triu(m) + np.triu(m, 1).T
            nle = pin.nonLinearEffects(model, data, qp, v)
            pin.framesForwardKinematics(model, data, qp)
            placement = data.oMf[frame]
            p = np.array(point)
            world = placement.act(p)
            jac = pin.computeFrameJacobian(model, data, qp, frame, pin.ReferenceFrame.LOCAL)
            # The point's world velocity: R (v_frame + w_frame x p).
            jp = placement.rotation @ (jac[:3, :] - pin.skew(p) @ jac[3:, :])
            records.append(
                {
                    "q": list(qc),
                    "v": list(v),
                    "mass_matrix": m.tolist(),
                    "nle": list(nle),
                    "point_world": list(world),
                    "point_jacobian": jp.tolist(),
                }
            )
        doc = {
            "source": f"Pinocchio {pin.__version__}, scripts/pinocchio_reference.py",
            "urdf": f"data/robots/{name}.urdf",
            "base": base,
            "joints": [model.names[i] for i in range(1, model.njoints)],
            "nv": model.nv,
            "link": link,
            "point": point,
            "states": records,
        }
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
        print(f"{name}: nq {model.nq}, nv {model.nv}, {len(records)} states", file=sys.stderr)


if __name__ == "__main__":
    main()
