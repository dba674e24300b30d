"""P5 (van de Wouw & Leine): equilibrium sets under set-valued friction.

Models are ``kind = "rod-two-sliders"`` or ``kind = "friction-oscillator"`` files (or dicts)."""

from typing import Optional

from . import _core
from ._results import Model, Result, model_text

# Every default below is the library's (one place: contactlab::api::defaults, as the CLI's).
_D = _core.defaults()


def analyze(model: Model, grid: int = _D["eqset analyze"]["grid"]) -> Result:
    """The equilibrium sets (5) with Theorem 1 (five conditions, c* computed numerically) and
    Theorem 2 (with V of eq. 24) for each: ``sets``, ``c_star``, ``conditions`` and
    ``closed_form`` (P5's closed forms: theta_hat, c* of eq. 23 as printed and corrected), the
    keys of ``contactlab eqset analyze --json``."""
    return Result("EquilibriumSets", _core.eqset_analyze(*model_text(model), grid))


def simulate(model: Model, t_max: float = _D["eqset simulate"]["t_max"], h: Optional[float] = None) -> Result:
    """Moreau-Jean time-stepping from the model's initial state (``q0``, ``v0``) up to ``t_max``
    s with step ``h`` (default 1/400 of the model's time scale), the set-valued friction of
    P5's eqs. (2)-(4) resolved exactly at every step (a sliding state stops exactly: no creep): ``h``,
    ``steps``, ``t_end``, ``q_end``, ``q_dot_end``, ``at_rest``, ``energy_start``,
    ``energy_end``, the keys of ``contactlab eqset simulate --json``; and the recorded states
    as arrays ``t``, ``q``, ``q_dot`` and ``V`` (the energy T + U), with ``coordinate`` naming q
    (at most about 5000 states are recorded)."""
    summary, arrays = _core.eqset_simulate(*model_text(model), float(t_max), None if h is None else float(h))
    d = dict(summary)
    d.update(arrays)
    return Result("EquilibriumSetSimulation", d)
