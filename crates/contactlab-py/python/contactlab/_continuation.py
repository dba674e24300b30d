"""Continuation of periodic orbits in any model parameter (``contactlab continue``)."""

from typing import Optional, Sequence

from . import _core
from ._results import Model, Result
from .model import _walking, model_text

# Every default below is the library's (one place: the Rust `Default` impls, as the CLI's).
_D = _core.defaults()


def continuation(
    model: Model,
    param: str,
    to: float,
    frm: Optional[float] = None,
    state: Optional[Sequence[float]] = None,
    orbit: Optional[str] = None,
    max_doublings: int = _D["continue"]["max_doublings"],
    step: float = _D["continue"]["step"],
    max_step: float = _D["continue"]["max_step"],
    max_points: int = _D["continue"]["max_points"],
    rtol: float = _D["continue"]["rtol"],
    base: Optional[str] = None,
) -> Result:
    """Pseudo-arclength continuation of a gait (a ``kind = "multibody"`` model with a ``[gait]``
    table, planar or a 3-D scene: ``"slope"``, ``"link[left_leg].pos[1]"``...) or of P3's orbit (``orbit="knee stop"``, or a ``double-pendulum-stop`` model) in the
    model key ``param`` (``"slope_deg"``, ``"contact[*].mu"``, ``"body[hip].mass"``, ``"e"``...)
    from ``frm`` (default: the model's value) to ``to``, as ``contactlab continue --json``:
    ``param``, ``branches`` (each with ``period_multiple``, ``parent``, ``points`` (``p``, ``y``,
    ``period``, ``returns``, ``multipliers``, ``stable``, ``state``, ``quantities``, ``events``),
    ``special`` (``kind``: fold, period-doubling, neimark-sacker, branch-point, sticking-lost, strike-slip,
    painleve-onset, grazing, zeno-onset, zeno-end..., located at ``p`` to ``bracket``) and
    ``end``) and ``evaluations``. Period doublings are followed onto the doubled branch
    ``max_doublings`` times. A bare URDF or MJCF path is a robot in 3-D with no ``[gait]`` table
    (``ValueError``); ``base="planar"`` reads a URDF as a planar mechanism."""
    _walking(model, base, "continue")
    s = None if state is None else [float(x) for x in state]
    return Result(
        "Continuation",
        _core.continuation(
            *model_text(model),
            str(param),
            float(to),
            None if frm is None else float(frm),
            s,
            orbit,
            int(max_doublings),
            float(step),
            float(max_step),
            int(max_points),
            float(rtol),
        ),
    )
