"""P4 (Pang & Trinkle): weak, strong and frictionless stability of fixtured bodies.

Models are ``kind = "fixture"`` files (or dicts with the same keys)."""


from . import _core
from ._results import Model, Result, model_text

# Every default below is the library's (one place: contactlab::api::defaults, as the CLI's).
_D = _core.defaults()


def classify(model: Model) -> Result:
    """Weak stability (system 7), strong stability (LCP 25), frictionless stability (Theorem 1)
    and the classification with witnesses: the keys of ``contactlab fixture classify --json``."""
    return Result("FixtureClassification", _core.fixture_classify(*model_text(model)))


def theorem4(model: Model) -> Result:
    """P4's Theorem 4: whether strong and weak stability coincide for every load (SS(mu) =
    WS(mu)), decided over all systems (32)-(35) by branch and bound with LPs; ``ss_equals_ws``
    (None when undecided), ``systems``, ``lps``, ``per_sigma``, ``undecided``, and
    ``proposition5`` (a load of Proposition 5 built from a consistent system, with its
    classification): the keys of ``contactlab fixture theorem4 --json``."""
    return Result("Theorem4", _core.fixture_theorem4(*model_text(model)))


def mu_sweep(model: Model, max_scale: float = _D["fixture mu-sweep"]["max_scale"], steps: int = _D["fixture mu-sweep"]["steps"]) -> Result:
    """The classification as every friction coefficient is scaled by ``steps`` factors evenly
    spaced in [0, max_scale]: ``points``, the ``transitions`` between classes located by
    bisection and ``lps`` (LPs the strong-stability searches solved): the keys of
    ``contactlab fixture mu-sweep --json``."""
    return Result("MuSweep", _core.fixture_mu_sweep(*model_text(model), float(max_scale), int(steps)))
