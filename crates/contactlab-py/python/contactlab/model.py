"""Your own mechanism (``kind = "multibody"`` files or dicts with the same keys; see
docs/models.md): its dynamics at a state, and the event-driven simulation."""

from typing import Optional, Sequence

from . import _core
from ._results import Model, Result, model_text


def _state(state: Optional[Sequence[float]]):
    return None if state is None else [float(x) for x in state]


def inspect(model: Model, state: Optional[Sequence[float]] = None, t: float = 0.0) -> Result:
    """The model at a state (``n`` numbers q, or ``2n`` numbers q then q'; default the model's
    ``[initial]``), as ``contactlab model inspect --json``: ``mass_matrix``,
    ``mass_matrix_eigenvalues``, ``bias`` (h), ``gravity_force``, ``joint_forces``,
    ``velocity_products``, ``free_acceleration``, ``contacts`` (gap, Jacobians, J'q', armed),
    ``energy`` and ``check`` (disagreements with finite differences; empty when all agree)."""
    return Result("Inspection", _core.model_inspect(*model_text(model), _state(state), float(t)))


def simulate(
    model: Model,
    state: Optional[Sequence[float]] = None,
    t_max: float = 5.0,
    max_events: int = 10_000,
    rtol: float = 1e-10,
    per_step: int = 4,
) -> Result:
    """The event-driven simulation (contact modes, impacts, Zeno completion, walking rules) up
    to ``t_max`` s, as ``contactlab simulate --json``: ``termination``, ``t_end``, ``impacts``,
    ``zeno_points``, ``slip_events``, ``lift_offs``, ``energy`` (start, end), ``events``; and
    the time history as arrays ``t``, ``q``, ``v`` (one row per sample, one column per name in
    ``coordinates``), ``modes``, ``kinetic``, ``potential``."""
    summary, arrays = _core.mechanism_simulate(
        *model_text(model), _state(state), float(t_max), int(max_events), float(rtol), int(per_step)
    )
    d = dict(summary)
    d.update(arrays)
    return Result("Simulation", d)
