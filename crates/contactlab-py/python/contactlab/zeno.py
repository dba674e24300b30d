"""P3 (Or & Ames): completed Lagrangian hybrid systems, Zeno executions and Zeno periodic orbits.

Models are ``kind = "double-pendulum-stop"`` or ``kind = "bouncing-ball"`` files (or dicts with
the same keys). Each call returns what ``contactlab zeno ... --json`` prints."""

from typing import Optional

from . import _core
from ._results import Model, Result, model_text

# Every default below is the library's (one place: contactlab::api::defaults, as the CLI's).
_D = _core.defaults()


def simulate(
    model: Model,
    t_max: float = _D["zeno simulate"]["t_max"],
    e: Optional[float] = None,
    max_events: int = _D["zeno simulate"]["max_events"],
) -> Result:
    """The completed execution (P3 Definition 3: impacts, the Zeno point located, then the
    constrained motion with the multiplier of eq. 5 until lift-off) up to ``t_max`` s, with restitution ``e`` (default the
    model's): ``termination``, ``impacts``, ``zeno_points``, ``first_zeno_time``,
    ``constrained_time``; and the time history as arrays: ``t``, ``q`` and ``v`` (one row per
    sample, one column per name in ``coordinates``), ``constrained``, ``lambda`` (the constraint
    force, NaN while free), ``event_times`` and ``event_kinds``."""
    summary, arrays = _core.zeno_simulate(
        *model_text(model), float(t_max), None if e is None else float(e), int(max_events)
    )
    d = dict(summary)
    d.update(arrays)
    return Result("ZenoSimulation", d)


def orbit(model: Model, e: Optional[float] = None) -> Result:
    """The periodic orbit reached from the model's initial state (the return map iterated,
    then Newton): simple for e = 0, Zeno for e > 0 (P3's example); ``period``, ``fixed_point``, ``multipliers``, the contraction rate
    ``gamma`` and ``stable``, ``constrained_duration``, ``impacts_per_cycle``. When there is no
    orbit (the motion never enters a constrained phase, as for a large ``e``, or Newton fails),
    ``converged`` is False, ``reason`` says why and the other numbers are None: a result, not an
    error."""
    return Result("ZenoOrbit", _core.zeno_orbit(*model_text(model), None if e is None else float(e)))


def bound(model: Model, eps1: float, eps2: float, eps3: float, grid: int = _D["zeno bound"]["grid"]) -> Result:
    """P3's Theorem 1 about the stable simple orbit (e = 0): with the neighbourhood bounds
    ``eps1`` (rad), ``eps2`` (rad/s), ``eps3`` (rad), the scalars of (10), the constants of
    Assumption 1 (kappa on a ``grid`` x ``grid`` sample of Omega_2), condition (11) and the
    restitution limits (12)-(15)
    below which a Zeno periodic orbit persists (``e_max``)."""
    return Result(
        "ZenoBound", _core.zeno_bound(*model_text(model), float(eps1), float(eps2), float(eps3), int(grid))
    )


def continuation(
    model: Model,
    e_max: float = _D["zeno continue"]["e_max"],
    step: float = _D["zeno continue"]["step"],
    max_step: float = _D["zeno continue"]["max_step"],
    max_points: int = _D["zeno continue"]["max_points"],
) -> Result:
    """The branch of Zeno periodic orbits from e = 0 as restitution grows (the general
    pseudo-arclength continuation in e, as ``continuation``, with the end of the constrained
    phase located as a special point): ``e_critical`` (the largest e with a Zeno periodic
    orbit), ``zeno_end`` and ``zeno_end_bracket`` (where the constrained phase vanishes, if
    reached), ``end`` (why the branch ended), ``points``; and the branch as arrays ``e``,
    ``period``, ``constrained_duration``, ``gamma``, ``impacts_per_cycle``, ``zeno`` (under
    ``branch``). ``step`` and ``max_step`` are fractions of the range of e (scaled arclength)."""
    summary, branch = _core.zeno_continuation(
        *model_text(model), float(e_max), float(step), float(max_step), int(max_points)
    )
    d = dict(summary)
    d["branch"] = branch
    return Result("ZenoContinuation", d)
