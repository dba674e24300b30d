"""Reference values from MuJoCo for contactlab's MJCF reader and spatial dynamics.

The Rust test `tests/integration/spatial.rs` reads the files this writes, so the test needs
neither Python nor MuJoCo. To regenerate them (MuJoCo 4.0.0 from PyPI's `mujoco`):

    python3 -m venv /tmp/mj && /tmp/mj/bin/pip install mujoco==4.0.0
    /tmp/mj/bin/python scripts/mujoco_reference.py

For each model of data/robots/mujoco/ it writes crates/contactlab/tests/data/mujoco/<model>.json
with qpos0, the joint names, and at a few pseudo-random states (qpos with unit quaternions, qvel):
the joint-space inertia M (mj_fullM, armature included), qfrc_bias (C v + g; contactlab's
bias is its negative), qfrc_passive, and one geom's world position and the Jacobian of its
centre's world velocity (mj_jacGeom).
"""

import json
import os
import sys

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = [("zoo", "sole"), ("ant", "third_ankle_geom"), ("humanoid", "left_hand"), ("hopper", "foot_geom"), ("half_cheetah", "ffoot")]


def random_state(m, rng):
    """A pseudo-random state: qpos0 plus uniform noise in [-0.4, 0.4] (free joints' and balls'
    quaternions normalised) and qvel uniform in [-1, 1]."""
    q = m.qpos0.copy() + rng.uniform(-0.4, 0.4, size=m.nq)
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            q[a + 3 : a + 7] /= np.linalg.norm(q[a + 3 : a + 7])
        elif m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            q[a : a + 4] /= np.linalg.norm(q[a : a + 4])
    return q, rng.uniform(-1.0, 1.0, size=m.nv)


def main():
    out_dir = os.path.join(ROOT, "crates", "contactlab", "tests", "data", "mujoco")
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(20261129)
    for name, geom in MODELS:
        path = os.path.join(ROOT, "data", "robots", "mujoco", name + ".xml")
        m = mujoco.MjModel.from_xml_path(path)
        d = mujoco.MjData(m)
        g = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, geom)
        if g < 0:
            raise SystemExit(f"{name}: no geom {geom}")
        records = []
        for _ in range(3):
            q, v = random_state(m, rng)
            d.qpos[:] = q
            d.qvel[:] = v
            mujoco.mj_forward(m, d)
            full = np.zeros((m.nv, m.nv))
            mujoco.mj_fullM(m, d, full)
            jacp = np.zeros((3, m.nv))
            mujoco.mj_jacGeom(m, d, jacp, None, g)
            records.append(
                {
                    "q": list(q),
                    "v": list(v),
                    "mass_matrix": full.tolist(),
                    "qfrc_bias": list(d.qfrc_bias),
                    "qfrc_passive": list(d.qfrc_passive),
                    "geom_world": list(d.geom_xpos[g]),
                    "geom_jacobian": jacp.tolist(),
                }
            )
        doc = {
            "source": f"MuJoCo {mujoco.__version__}, scripts/mujoco_reference.py",
            "mjcf": f"data/robots/mujoco/{name}.xml",
            "nq": m.nq,
            "nv": m.nv,
            "qpos0": list(m.qpos0),
            "joints": [m.joint(j).name for j in range(m.njnt)],
            "geom": geom,
            "states": records,
        }
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
        print(f"{name}: nq {m.nq}, nv {m.nv}", file=sys.stderr)


if __name__ == "__main__":
    main()
