"""P1 (Or & Varkonyi): a planar rigid body on two frictional contacts.

Models are ``kind = "planar-two-contact"`` files (or dicts with the same keys)."""

import json

from . import _core
from ._results import Model, Result, model_text

#: Samples of phi over (-pi/2, pi/2) used by default, as by the command line.
DEFAULT_SAMPLES = 2001


def classify(model: Model, samples: int = DEFAULT_SAMPLES) -> Result:
    """The verdict of P1's Theorems 1-5 (``verdict``, ``theorem``, ``evidence``, fixed points of
    R with G*, ...): the keys of ``contactlab equilibrium classify --json``."""
    return Result("Classification", json.loads(_core.p1_classify(*model_text(model), samples)))


def maps(model: Model, samples: int = DEFAULT_SAMPLES):
    """The reduced Poincare map R(phi) and the growth map G(phi) (P1 Section III-D) as numpy
    arrays ``(phi, R, G)``; NaN where a map is undefined."""
    return _core.p1_maps(*model_text(model), samples)
