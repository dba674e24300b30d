"""P1 (Or & Varkonyi): a planar rigid body on two frictional contacts.

Models are ``kind = "planar-two-contact"`` files (or dicts with the same keys). Lengths in m,
times in s, angles in rad. Each call parses the model, runs the analysis in Rust with the GIL
released and returns what ``contactlab equilibrium ... --json`` prints."""

from typing import Mapping, Optional, Union

import numpy as np

from . import _core
from ._results import Model, Result, model_text

# Every default below is the library's (one place: contactlab::api::defaults, as the CLI's).
_D = _core.defaults()

#: Samples of phi over (-pi/2, pi/2) used by default, as by the command line.
DEFAULT_SAMPLES = _D["equilibrium maps"]["samples"]

_COLUMNS = ("t", "z1", "z2", "x1", "x2")


def modes(model: Model) -> Result:
    """Contact modes at the equilibrium under the zero-order dynamics (P1 Section III-B):
    ``analysis`` (equilibrium, ambiguity, Painleve-freeness, persistence), ``k`` (with
    xdot1 = k xdot2 while both contacts are held) and ``modes`` (every mode consistent at rest,
    with its forces and accelerations): the keys of ``contactlab equilibrium modes --json``."""
    return Result("ContactModes", _core.p1_modes(*model_text(model)))


def classify(model: Model, samples: int = DEFAULT_SAMPLES) -> Result:
    """The verdict of P1's Theorems 1-5 (``verdict``, ``theorem``, ``evidence``, fixed points of
    R with G*, ..., and ``proof``: the verdict proved in interval arithmetic, or why not): the
    keys of ``contactlab equilibrium classify --json``."""
    return Result("Classification", _core.p1_classify(*model_text(model), samples))


def maps(model: Model, samples: int = DEFAULT_SAMPLES, phi=None):
    """The reduced Poincare map R(phi) and the growth map G(phi) (P1 Section III-D, the maps of
    Theorems 3-5) as numpy arrays ``(phi, R, G)``; NaN where a map is undefined (the motion
    comes to rest before it returns to the section).

    By default ``samples`` impact angles evenly spread over (-pi/2, pi/2), as the command line's
    ``equilibrium maps``; with ``phi`` (an array of angles in that interval) the maps at exactly
    those angles, evaluated in parallel in one call."""
    if phi is None:
        return _core.p1_maps(*model_text(model), samples)
    phi = np.require(np.reshape(phi, -1), dtype=np.float64, requirements=["C", "A"])
    R, G, _ = _core.p1_maps_at(*model_text(model), phi)
    return phi, R, G


def _perturbation(perturb: Union[str, Mapping[str, float]]) -> str:
    if isinstance(perturb, str):
        return perturb
    return ",".join(f"{k}={float(v)!r}" for k, v in dict(perturb).items())


def simulate(
    model: Model,
    perturb: Union[str, Mapping[str, float]] = "z2=1e-4",
    t_max: float = _D["equilibrium simulate"]["t_max"],
    max_events: int = _D["equilibrium simulate"]["max_events"],
) -> Result:
    """Event-driven simulation of the zero-order dynamics (P1 Section III) after a
    perturbation, and of the full nonlinear model from the same perturbation.

    ``perturb`` maps keys ``z1``, ``z2``, ``x2`` (m) and ``zd1``, ``zd2``, ``xd2`` (m/s) to values
    (unspecified ones are 0; a point with zero gap and gap rate starts in sustained contact), or
    is the command line's ``"KEY=VALUE,..."`` string.

    Returns the keys of ``contactlab equilibrium simulate --json`` (``outcome``, ``t_end``,
    ``events``, ``impacts``, ``zeno_times``, and ``nonlinear`` with the same keys) and the time
    histories: ``trajectory`` and ``nonlinear["trajectory"]``, dicts of arrays ``t``, ``z1``,
    ``z2``, ``x1``, ``x2`` (the ones written to trajectory.csv and trajectory_nonlinear.csv).
    """
    summary, zod, nonlinear = _core.p1_simulate(*model_text(model), _perturbation(perturb), float(t_max), int(max_events))
    d = dict(summary)
    d["trajectory"] = {c: zod[:, k].copy() for k, c in enumerate(_COLUMNS)}
    d["nonlinear"]["trajectory"] = {c: nonlinear[:, k].copy() for k, c in enumerate(_COLUMNS)}
    return Result("Simulation", d)


def atlas(model: Model, vary, samples: int = DEFAULT_SAMPLES, output: str = "pandas", client: Optional[object] = False):
    """P1's stability atlas (Fig. 6): the verdict of every cell of a grid of one or two
    parameters, in parallel in this process (``client=False``; pass ``None`` or a Dask
    ``Client`` to spread it, see :func:`contactlab.sweep`). ``vary`` maps model keys (or
    ``com_x``/``com_z``) to arrays of values. A pandas DataFrame with one row per cell, or an
    ``xarray.Dataset`` with ``output="xarray"``."""
    from .sweep import sweep

    return sweep(model, vary, analysis="classify", client=client, samples=samples, output=output)
