"""P4 (Pang & Trinkle): weak, strong and frictionless stability of fixtured bodies.

Models are ``kind = "fixture"`` files (or dicts with the same keys)."""

import json

from . import _core
from ._results import Model, Result, model_text


def classify(model: Model) -> Result:
    """Weak stability (system 7), strong stability (LCP 25), frictionless stability (Theorem 1)
    and the classification with witnesses: the keys of ``contactlab fixture classify --json``."""
    return Result("FixtureClassification", json.loads(_core.fixture_classify(*model_text(model))))
