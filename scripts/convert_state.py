"""Convert a floating-base robot's state between contactlab, Pinocchio, MuJoCo and Drake.

contactlab reads a URDF in Pinocchio's coordinates and an MJCF in MuJoCo's (docs/robots.md),
so a state can be pasted between contactlab and the engine the file came from as it is.
Between engines, only the floating base's block and continuous joints differ:

| convention | q (base) | v (base) |
|---|---|---|
| pinocchio, contactlab-urdf | x y z qx qy qz qw | v (body axes), w (body axes) |
| mujoco, contactlab-mjcf | x y z qw qx qy qz | v (world axes), w (body axes) |
| drake (QuaternionFloatingJoint) | qw qx qy qz x y z | w (world axes), v (world axes) |

v is the velocity of the base frame's origin, w its angular velocity. A continuous joint is one
angle in contactlab, MuJoCo and Drake, and (cos, sin) in Pinocchio: name their positions among
the joints' coordinates with --continuous (indices counted after the base, in the target's or
source's joint order). The joints after the base are otherwise copied as they are: each tool
numbers them its own way (Pinocchio: depth first, child joints by name; MuJoCo: file order),
so reorder them by name if the orders differ.

Example:
    python3 scripts/convert_state.py --from mujoco --to pinocchio \\
        --q 0 0 1 1 0 0 0 0.3 --v 0.1 0 0 0 0 0.5 1.2
"""

import argparse
import json
import sys

import numpy as np

CONVENTIONS = ["contactlab-urdf", "pinocchio", "contactlab-mjcf", "mujoco", "drake"]


def rotation(quat_xyzw):
    x, y, z, w = np.asarray(quat_xyzw, dtype=float) / np.linalg.norm(quat_xyzw)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _kind(name):
    if name not in CONVENTIONS:
        raise ValueError(f"unknown convention {name!r}: one of {', '.join(CONVENTIONS)}")
    return {"contactlab-urdf": "pinocchio", "contactlab-mjcf": "mujoco"}.get(name, name)


def to_common(kind, q, v):
    """(position, quaternion xyzw, world linear velocity, world angular velocity, q rest, v rest)."""
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    if kind == "pinocchio":
        p, quat = q[:3], q[3:7]
        r = rotation(quat)
        return p, quat, r @ v[:3], r @ v[3:6], q[7:], v[6:]
    if kind == "mujoco":
        p, quat = q[:3], np.array([q[4], q[5], q[6], q[3]])
        r = rotation(quat)
        return p, quat, v[:3], r @ v[3:6], q[7:], v[6:]
    quat = np.array([q[1], q[2], q[3], q[0]])
    return q[4:7], quat, v[3:6], v[:3], q[7:], v[6:]


def from_common(kind, p, quat, lin, ang, q_rest, v_rest):
    quat = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    r = rotation(quat)
    if kind == "pinocchio":
        return np.concatenate([p, quat, q_rest]), np.concatenate([r.T @ lin, r.T @ ang, v_rest])
    if kind == "mujoco":
        qm = [quat[3], quat[0], quat[1], quat[2]]
        return np.concatenate([p, qm, q_rest]), np.concatenate([lin, r.T @ ang, v_rest])
    qd = [quat[3], quat[0], quat[1], quat[2]]
    return np.concatenate([qd, p, q_rest]), np.concatenate([ang, lin, v_rest])


def _continuous(q_rest, indices, to_pinocchio):
    """Angles at `indices` (of the one-angle layout) to (cos, sin), or back."""
    out, i, k = [], 0, 0
    q_rest = list(q_rest)
    while i < len(q_rest):
        if k in indices:
            if to_pinocchio:
                out += [np.cos(q_rest[i]), np.sin(q_rest[i])]
                i += 1
            else:
                out.append(float(np.arctan2(q_rest[i + 1], q_rest[i])))
                i += 2
        else:
            out.append(q_rest[i])
            i += 1
        k += 1
    return np.array(out, dtype=float)


def convert(source, target, q, v, continuous=()):
    """The state (q, v) of convention `source` in convention `target` (module docs)."""
    a, b = _kind(source), _kind(target)
    if len(q) < 7 or len(v) < 6:
        raise ValueError("a floating-base state has at least 7 + 6 numbers")
    p, quat, lin, ang, q_rest, v_rest = to_common(a, q, v)
    c = set(continuous)
    # Only Pinocchio itself stores a continuous joint as (cos, sin).
    if c and source == "pinocchio" and target != "pinocchio":
        q_rest = _continuous(q_rest, c, to_pinocchio=False)
    if c and target == "pinocchio" and source != "pinocchio":
        q_rest = _continuous(q_rest, c, to_pinocchio=True)
    return from_common(b, p, quat, lin, ang, q_rest, v_rest)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from", dest="source", required=True, choices=CONVENTIONS)
    ap.add_argument("--to", dest="target", required=True, choices=CONVENTIONS)
    ap.add_argument("--q", nargs="+", type=float, required=True)
    ap.add_argument("--v", nargs="+", type=float, required=True)
    ap.add_argument("--continuous", nargs="*", type=int, default=[])
    a = ap.parse_args(argv)
    try:
        q, v = convert(a.source, a.target, a.q, a.v, a.continuous)
    except ValueError as e:
        print(f"convert_state: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"q": list(map(float, q)), "v": list(map(float, v))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
