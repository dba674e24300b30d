#!/usr/bin/env python3
"""Cross-check of contactlab's multibody dynamics of URDF models against Drake's MultibodyPlant.

Not part of the tests or CI. Needs pydrake (pip install drake; Python 3.11 wheels stop at
drake 1.51.1) and a release build of contactlab (cargo build --release). Run from the
repository root:

    python3 -m venv /tmp/drakeenv && /tmp/drakeenv/bin/pip install drake
    /tmp/drakeenv/bin/python scripts/drake_multibody.py

For each model (Drake's own CompassGait.urdf and the small planar URDFs of
examples/multibody/urdf/, in the planes xz, yz and xy) and each of N_STATES random states
(numpy seed SEED; angles and rates in [-1, 1], translations and their rates in [-2, 2]), it
compares, from `contactlab model inspect MODEL --state q,v --json` and from a continuous
MultibodyPlant (time_step 0) built by Drake's URDF parser:

    M      mass_matrix        against  CalcMassMatrix
    g      gravity_force      against  CalcGravityGeneralizedForces
    Cv     velocity_products  against  -CalcBiasTerm                 (Drake's C(q, v) v, negated)
    h      bias               against  CalcGravityGeneralizedForces - CalcBiasTerm
                                       (no joint springs or damping in these URDFs)

Each difference is relative to the largest entry (in absolute value) of Drake's quantity at
that state; the table gives the largest over the states. It exits non-zero if any exceeds TOL.

Nothing about the coordinates is assumed: each contactlab coordinate (a joint's name, or
JOINT.x / JOINT.y / JOINT.theta for a planar joint) is mapped to Drake's position and velocity
index by Drake's Joint.position_start() / velocity_start(), so a joint order that differs
between the two tools would show up as a permutation, not as a disagreement. A URDF whose root
link is not `world` is welded to Drake's world frame at the identity, as contactlab welds it.
For the plane xy, contactlab's gravity acts along -y of the URDF world; Drake's gravity field
is set to (0, -9.81, 0).
"""

import importlib.metadata
import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
from pydrake.multibody.parsing import Parser
from pydrake.multibody.plant import MultibodyPlant

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "contactlab"
EXAMPLES = ROOT / "examples" / "multibody"
SEED = 2026
N_STATES = 25
TOL = 1e-10
GRAVITY = 9.81

# (label, model given to contactlab, URDF given to Drake, plane)
MODELS = [
    ("CompassGait.urdf (Drake)", "drake/CompassGait.urdf", "drake/CompassGait.urdf", "xz"),
    ("five-link-biped.urdf", "urdf/five-link-biped.urdf", "urdf/five-link-biped.urdf", "xz"),
    ("arm-prismatic.urdf", "urdf/arm-prismatic.urdf", "urdf/arm-prismatic.urdf", "xz"),
    ("yz-hopper.toml", "urdf/yz-hopper.toml", "urdf/yz-hopper.urdf", "yz"),
    ("xy-cart-pendulum.toml", "urdf/xy-cart-pendulum.toml", "urdf/xy-cart-pendulum.urdf", "xy"),
]

QUANTITIES = ("M", "g", "Cv", "h")


def root_link(urdf):
    """The URDF's root link: the one link that is no joint's child."""
    robot = ET.parse(urdf).getroot()
    # Tags without their namespace (Drake's CompassGait.urdf declares a default one).
    tag = lambda e: e.tag.rpartition("}")[2]
    joints = [e for e in robot if tag(e) == "joint"]
    children = {c.get("link") for j in joints for c in j if tag(c) == "child"}
    roots = [l.get("name") for l in robot if tag(l) == "link" and l.get("name") not in children]
    assert len(roots) == 1, roots
    return roots[0]


def drake_plant(urdf, plane):
    plant = MultibodyPlant(time_step=0.0)
    Parser(plant).AddModels(str(urdf))
    root = root_link(urdf)
    if root != "world":
        plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(root))
    if plane == "xy":
        plant.mutable_gravity_field().set_gravity_vector([0.0, -GRAVITY, 0.0])
    plant.Finalize()
    return plant


def contactlab(model, q=None, v=None):
    args = [str(BIN), "model", "inspect", str(model), "--json"]
    if q is not None:
        # One argument with "=": a state starting with a minus sign is not an option.
        args.append("--state=" + ",".join(repr(float(x)) for x in list(q) + list(v)))
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"contactlab failed: {' '.join(args)}\n{run.stderr}")
    return json.loads(run.stdout)


def index_map(plant, coordinates):
    """Drake's position and velocity index of each contactlab coordinate, and whether it is a
    translation."""
    qi, vi, translation = [], [], []
    for name in coordinates:
        joint, _, part = name.partition(".")
        j = plant.GetJointByName(joint)
        if part:
            # A planar joint's x, y, theta: found by Drake's own names for its coordinates.
            assert j.type_name() == "planar" and j.num_positions() == 3, (name, j.type_name())
            k = [j.position_suffix(i) for i in range(3)].index({"x": "x", "y": "y", "theta": "qz"}[part])
            assert j.velocity_suffix(k) == {"x": "vx", "y": "vy", "theta": "wz"}[part], (name, j.velocity_suffix(k))
        else:
            assert j.num_positions() == 1 and j.num_velocities() == 1, (name, j.type_name())
            k = 0
        qi.append(j.position_start() + k)
        vi.append(j.velocity_start() + k)
        translation.append(part in ("x", "y") or j.type_name() == "prismatic")
    assert sorted(qi) == list(range(plant.num_positions())), (coordinates, qi)
    assert sorted(vi) == list(range(plant.num_velocities())), (coordinates, vi)
    return np.array(qi, dtype=int), np.array(vi, dtype=int), np.array(translation)


def rel(ours, theirs):
    scale = np.max(np.abs(theirs))
    diff = np.max(np.abs(np.asarray(ours) - theirs))
    return diff / scale if scale > 0 else diff


def compare(label, model, urdf, plane, rng):
    plant = drake_plant(EXAMPLES / urdf, plane)
    ctx = plant.CreateDefaultContext()
    coordinates = contactlab(EXAMPLES / model)["model"]["coordinates"]
    n = len(coordinates)
    assert plant.num_positions() == n == plant.num_velocities(), (plant.num_positions(), n)
    qi, vi, translation = index_map(plant, coordinates)
    span = np.where(translation, 2.0, 1.0)
    worst = dict.fromkeys(QUANTITIES, 0.0)
    for _ in range(N_STATES):
        q = rng.uniform(-1.0, 1.0, n) * span
        v = rng.uniform(-1.0, 1.0, n) * span
        out = contactlab(EXAMPLES / model, q, v)
        assert out["model"]["coordinates"] == coordinates
        qd, vd = np.zeros(n), np.zeros(n)
        qd[qi], vd[vi] = q, v
        plant.SetPositions(ctx, qd)
        plant.SetVelocities(ctx, vd)
        # Drake's quantities, permuted into contactlab's coordinate order.
        M = plant.CalcMassMatrix(ctx)[np.ix_(vi, vi)]
        Cv = plant.CalcBiasTerm(ctx)[vi]
        g = plant.CalcGravityGeneralizedForces(ctx)[vi]
        diffs = {
            "M": rel(out["mass_matrix"], M),
            "g": rel(out["gravity_force"], g),
            "Cv": rel(out["velocity_products"], -Cv),
            "h": rel(out["bias"], g - Cv),
        }
        for k in QUANTITIES:
            worst[k] = max(worst[k], diffs[k])
    order = "same as" if list(qi) == list(range(n)) else "differs from"
    return dict(label=label, plane=plane, n=n, coordinates=coordinates, drake_q=[int(i) for i in qi], order=order, **worst)


if __name__ == "__main__":
    if not BIN.exists():
        sys.exit("build contactlab first: cargo build --release")
    rng = np.random.default_rng(SEED)
    print(f"pydrake {importlib.metadata.version('drake')}, {N_STATES} random states per model, "
          f"numpy seed {SEED}, tolerance {TOL:g}")
    rows = []
    for m in MODELS:
        r = compare(*m, rng)
        rows.append(r)
        print(f"== {r['label']} (plane {r['plane']}, {r['n']} coordinates)")
        print(f"   contactlab's coordinates {r['coordinates']}")
        print(f"   their indices in Drake's q and v {r['drake_q']} (file order {r['order']} Drake's)")
    print()
    print("| model | plane | dof | M | gravity force | velocity products | h |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r['plane']} | {r['n']} | " + " | ".join(f"{r[k]:.1e}" for k in QUANTITIES) + " |")
    bad = [(r["label"], k, r[k]) for r in rows for k in QUANTITIES if not r[k] <= TOL]
    if bad:
        print("\nabove the tolerance:", bad)
        sys.exit(1)
    print(f"\nall within {TOL:g}")
