"""P2 (Or): Painleve's paradox and dynamic jamming in the rimless wheel and the compass biped.

Models are ``kind = "rimless-wheel"`` or ``kind = "compass-biped"`` files (or dicts with the
same keys). Each call returns what ``contactlab walker ... --json`` prints."""

from typing import Optional, Sequence

import numpy as np

from . import _core
from ._results import Model, Result, model_text

# Every default below is the library's (one place: the Rust `Default` impls, as the CLI's).
_D = _core.defaults()


def _floats(option, values):
    """``values`` as a list of floats, or ValueError naming ``option``."""
    try:
        return [float(x) for x in np.asarray(values, dtype=np.float64).reshape(-1)]
    except (TypeError, ValueError) as e:
        raise ValueError(f"{option}: expected a sequence of numbers, got {values!r}") from e


def gait(model: Model, guess: Optional[Sequence[float]] = None, rtol: Optional[float] = None) -> Result:
    """The periodic gait (P2 Sections 3.1 and 4.1) by Newton on the step map of the walker's
    multibody model (exact derivatives) from ``guess`` (rimless wheel: theta_dot after impact;
    compass biped: theta1, theta1_dot, theta2_dot), by default the closed form (27) or P2's gait,
    else the gait search from nothing: ``converged``, ``period``, the states after and before
    impact, Floquet ``multipliers``, ``stable``, ``sticking``, ``mu_stick`` (the friction the
    stance foot needs) and the heel strike's impulse ratio. ``rtol``: the integration tolerance
    (default: the library's)."""
    g = None if guess is None else _floats("guess", guess)
    return Result("Gait", _core.walker_gait(*model_text(model), g, None if rtol is None else float(rtol)))


def painleve(model: Model, mu: Optional[float] = None, sigma: int = _D["walker painleve"]["sigma"]) -> Result:
    """Painleve's paradox (P2 eqs. 21 and 32-34): where B < 0 for slip direction
    ``sigma = sgn(x_dot)`` (+1 or -1) with friction ``mu`` (default the model's), and ``mu_min``,
    the smallest friction coefficient with a paradox (the rimless wheel's closed form is
    2 sqrt(kappa + kappa^2), eq. 33). For the compass biped also ``rho_max`` and,
    beyond the command line's JSON, the grid itself: ``theta`` (the angles of both axes) and
    ``b_negative_grid`` (a boolean array indexed ``[theta2, theta1]``)."""
    summary, grid = _core.walker_painleve(*model_text(model), None if mu is None else float(mu), int(sigma))
    d = dict(summary)
    if grid is not None:
        d["theta"], d["b_negative_grid"] = grid
    return Result("Painleve", d)


def slip(
    model: Model,
    state: Sequence[float],
    jam_threshold: bool = False,
    max_speed: float = _D["walker slip"]["max_speed"],
) -> Result:
    """How a slip of the stance foot ends (P2 Sections 3.3 and 4.2): rimless wheel
    ``theta, theta_dot, x_dot`` (rates in units of 1/tau_c and l/tau_c as in P2); compass biped
    ``theta1, theta2, theta1_dot, theta2_dot, x_dot`` (SI). Returns ``outcome`` ("stick",
    "reversal", "separation", "jam" (the slip reaches P2's corner A = B = 0 still slipping, f_n
    unbounded), "corner" (it reaches the corner with its speed or the force's trend unresolved),
    "impact", ...), ``t_end``, ``fn_max``, the final ``state``, ``A``, ``B`` and ``approach`` (where B
    fell near zero: the evidence of the run in time rescaled by B, Genot and Brogliato's
    regularisation, with its reading, the slip speed at the end and d ln A / d ln B); with
    ``jam_threshold=True`` instead the smallest initial slip speed up to ``max_speed`` that jams
    (dynamic jamming)."""
    s = _floats("state", state)
    return Result("Slip", _core.walker_slip(*model_text(model), s, bool(jam_threshold), float(max_speed)))
