#!/usr/bin/env python3
"""Cross-check of contactlab's compass-biped gait against Drake's CompassGait example.

Not part of the tests or CI. Needs pydrake (pip install drake; Python 3.11 wheels stop at
drake 1.51.1) and a release build of contactlab (cargo build --release). Run from the
repository root:

    python3 -m venv /tmp/drakeenv && /tmp/drakeenv/bin/pip install drake
    /tmp/drakeenv/bin/python scripts/drake_compass_gait.py

Coordinates. Drake measures both leg angles clockwise from the world vertical, each as the
direction from the leg's foot to the hip; P2 (and contactlab) measure them from the slope
normal, the swing leg from the hip to its foot. With slope alpha:

    stance = theta1 + alpha,  swing = alpha - theta2,  stancedot = theta1',  swingdot = -theta2'

Heel strike is theta1 = theta2 in P2, 2 alpha = stance + swing in Drake. Drake relabels the
legs by swapping, P2 by swapping and negating; both describe the same motion. Drake's legs
have length l_D with their mass at distance b = center_of_mass_leg from the hip; P2's have
length 2 l with the mass at the middle, so l_D = 2 l and b = l (point masses, I_c = 0).
"""

import json
import math
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
from pydrake.examples import CompassGait, CompassGaitParams
from pydrake.systems.analysis import Simulator
from pydrake.systems.framework import EventStatus

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "contactlab"


def drake_steps(params, x0, steps, accuracy=1e-10):
    """Simulates `steps` steps from the post-impact state x0 = (stance, swing, stancedot,
    swingdot); returns the heel strikes as (time, pre-impact state) and the wall time per step."""
    cg = CompassGait()
    ctx = cg.CreateDefaultContext()
    p = cg.get_parameters(ctx) if hasattr(cg, "get_parameters") else ctx.get_mutable_numeric_parameter(0)
    for name in ("mass_hip", "mass_leg", "length_leg", "center_of_mass_leg", "gravity", "slope"):
        getattr(p, "set_" + name)(params[name])
    ctx.SetContinuousState(np.array(x0, dtype=float))
    sim = Simulator(cg, ctx)
    sim.get_mutable_context().SetAccuracy(accuracy)
    sim.get_mutable_integrator().set_target_accuracy(accuracy)
    toe = [ctx.get_discrete_state_vector().GetAtIndex(0)]
    hits = []
    last = [(0.0, np.array(x0, dtype=float))]

    # The monitor runs after each integration step; a heel strike is applied at the start of the
    # step after the one that ended on it, so when the toe has moved, the previous call saw the
    # state just before the impact, at the impact time.
    def monitor(c):
        t = c.get_discrete_state_vector().GetAtIndex(0)
        if t != toe[-1]:
            toe.append(t)
            hits.append(last[-1])
        last.append((c.get_time(), c.get_continuous_state_vector().CopyToVector()))
        return EventStatus.Succeeded()

    sim.set_monitor(monitor)
    sim.Initialize()
    start = time.perf_counter()
    t = 0.0
    while len(hits) < steps and t < 10.0 * steps:
        t += 0.05
        sim.AdvanceTo(t)
    wall = (time.perf_counter() - start) / max(len(hits), 1)
    return hits, wall


def to_drake(alpha, th1, th1d, th2d):
    return [th1 + alpha, alpha - th1, th1d, -th2d]


def ours(model, guess):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write("\n".join(f"{k} = {v}" if not isinstance(v, str) else f'{k} = "{v}"' for k, v in model.items()))
        path = f.name
    args = [str(BIN), "walker", "gait", path, "--json", "--guess", ",".join(str(g) for g in guess)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def compare(label, l, m, mh, alpha, g, guess, drake_start=None):
    params = dict(mass_hip=mh, mass_leg=m, length_leg=2 * l, center_of_mass_leg=l, gravity=g, slope=alpha)
    model = dict(kind="compass-biped", l=l, mass=m, hip_mass=mh, inertia=0.0, slope=alpha, gravity=g, mu=10.0)
    # Drake's own gait: iterate its step map until the pre-impact state settles.
    hits, wall = drake_steps(params, drake_start or to_drake(alpha, *guess), 80)
    (t_prev, _), (t_last, x_last) = hits[-2], hits[-1]
    drake_pre = x_last
    drake_period = t_last - t_prev
    # contactlab's gait, Newton from a post-impact guess near Drake's (the first strike is far
    # from the fixed point only if Drake had not settled).
    g_guess = guess or (-x_last[0] + alpha, 1.0, -0.5)
    g_ours = ours(model, g_guess)
    pre = g_ours["pre_impact_state"]  # (theta1, theta2, x, y, rates...)
    ours_pre = to_drake_full(alpha, pre[0], pre[1], pre[4], pre[5])
    diff = max(abs(a - b) for a, b in zip(ours_pre, drake_pre))
    print(f"== {label}")
    print(f"   contactlab: period {g_ours['period']:.9f} s, pre-impact (stance, swing, rates) {np.round(ours_pre, 9)}")
    print(f"   Drake:      period {drake_period:.9f} s, pre-impact (stance, swing, rates) {np.round(drake_pre, 9)}")
    print(f"   period difference {abs(g_ours['period'] - drake_period):.2e} s, largest state difference {diff:.2e}")
    print(f"   Drake: {1e3 * wall:.1f} ms per step at accuracy 1e-10")
    return wall


def to_drake_full(alpha, th1, th2, th1d, th2d):
    return [th1 + alpha, alpha - th2, th1d, -th2d]


def contactlab_step_time():
    """contactlab's time for one compass-biped step at rtol 1e-10, from its criterion benchmark."""
    out = subprocess.run(
        ["cargo", "bench", "-p", "contactlab", "--bench", "walker", "--", "compass_one_step"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for line in out.splitlines():
        if "time:" in line:
            mid = line.split("[")[1].split()[2:4]  # value and unit of the estimate
            scale = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}[mid[1]]
            return float(mid[0]) * scale
    return float("nan")


if __name__ == "__main__":
    if not BIN.exists():
        sys.exit("build contactlab first: cargo build --release")
    # P2 Section 4.1 and Drake's default parameters.
    wall_p2 = compare("P2: l = 0.8, m = 4, m_h = 2, alpha = 1 deg, g = 9.8", 0.8, 4.0, 2.0, math.radians(1.0), 9.8, [-0.148, 0.733, -0.501])
    # Drake's default, started as in its simulate.cc (stance = swing = 0, rates 0.4 and -2).
    wall = compare("Drake default: l_D = 1, m = 5, m_h = 10, alpha = 0.0525, g = 9.81", 0.5, 5.0, 10.0, 0.0525, 9.81, [-0.27, 1.09, -0.38], [0.0, 0.0, 0.4, -2.0])
    ours_step = contactlab_step_time()
    print(f"== speed: contactlab {1e6 * ours_step:.0f} µs per step (criterion), Drake {1e3 * wall_p2:.1f} ms "
          f"(P2 parameters): ratio {wall_p2 / ours_step:.0f}")
