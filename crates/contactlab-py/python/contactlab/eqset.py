"""P5 (van de Wouw & Leine): equilibrium sets under set-valued friction.

Models are ``kind = "rod-two-sliders"`` or ``kind = "friction-oscillator"`` files (or dicts)."""

import json

from . import _core
from ._results import Model, Result, model_text


def analyze(model: Model, grid: int = 4000) -> Result:
    """The equilibrium sets (5) with Theorem 1 (five conditions, c* computed numerically) and
    Theorem 2 (with V of eq. 24) for each: ``sets``, ``c_star``, ``conditions``, the keys of
    ``contactlab eqset analyze --json`` (without its ``closed_form``)."""
    return Result("EquilibriumSets", json.loads(_core.eqset_analyze(*model_text(model), grid)))
