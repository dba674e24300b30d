"""scripts/convert_state.py: floating-base states between contactlab, Pinocchio, MuJoCo, Drake."""

import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[3] / "scripts" / "convert_state.py"
spec = importlib.util.spec_from_file_location("convert_state", SCRIPT)
cs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cs)


def state(rng):
    quat = rng.normal(size=4)
    quat /= np.linalg.norm(quat)  # x y z w
    p = rng.normal(size=3)
    lin_w, ang_w = rng.normal(size=3), rng.normal(size=3)
    joints = rng.normal(size=2)
    rates = rng.normal(size=2)
    return quat, p, lin_w, ang_w, joints, rates


def test_each_convention_holds_the_same_motion():
    rng = np.random.default_rng(3)
    quat, p, lin_w, ang_w, joints, rates = state(rng)
    r = cs.rotation(quat)
    w, x, y, z = quat[3], quat[0], quat[1], quat[2]
    # Built by hand from each tool's documented layout.
    pin_q = np.concatenate([p, quat, joints])
    pin_v = np.concatenate([r.T @ lin_w, r.T @ ang_w, rates])
    mj_q = np.concatenate([p, [w, x, y, z], joints])
    mj_v = np.concatenate([lin_w, r.T @ ang_w, rates])
    dr_q = np.concatenate([[w, x, y, z], p, joints])
    dr_v = np.concatenate([ang_w, lin_w, rates])
    states = {"pinocchio": (pin_q, pin_v), "mujoco": (mj_q, mj_v), "drake": (dr_q, dr_v)}
    for a, (qa, va) in states.items():
        for b, (qb, vb) in states.items():
            q, v = cs.convert(a, b, qa, va)
            assert np.allclose(q, qb, atol=1e-12) and np.allclose(v, vb, atol=1e-12), (a, b)
    # contactlab's are Pinocchio's (URDF) and MuJoCo's (MJCF).
    q, v = cs.convert("contactlab-mjcf", "contactlab-urdf", mj_q, mj_v)
    assert np.allclose(q, pin_q) and np.allclose(v, pin_v)


def test_continuous_joints_become_cos_sin_for_pinocchio_and_back():
    rng = np.random.default_rng(5)
    quat, p, lin_w, ang_w, joints, rates = state(rng)
    q0 = np.concatenate([p, quat, joints])
    v0 = np.concatenate([lin_w, ang_w, rates])
    q, v = cs.convert("contactlab-urdf", "pinocchio", q0, v0, continuous=[1])
    assert np.allclose(q[7:], [joints[0], np.cos(joints[1]), np.sin(joints[1])])
    back, _ = cs.convert("pinocchio", "contactlab-urdf", q, v, continuous=[1])
    assert np.allclose(back[7:], [joints[0], np.arctan2(np.sin(joints[1]), np.cos(joints[1]))])


def test_the_command_line_prints_json_and_refuses_bad_input():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--from", "mujoco", "--to", "drake", "--q", "0", "0", "1", "1", "0", "0", "0", "--v", "1", "0", "0", "0", "0", "2"],
        capture_output=True, text=True, check=True,
    )
    d = json.loads(out.stdout)
    assert d["q"] == [1, 0, 0, 0, 0, 0, 1] and d["v"] == [0, 0, 2, 1, 0, 0]
    bad = subprocess.run([sys.executable, str(SCRIPT), "--from", "mujoco", "--to", "drake", "--q", "1", "--v", "1"], capture_output=True, text=True)
    assert bad.returncode == 2 and "7 + 6" in bad.stderr
    with pytest.raises(ValueError):
        cs.convert("bullet", "drake", np.zeros(7), np.zeros(6))
