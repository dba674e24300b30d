"""contactlab: stability analysis and simulation of mechanical systems with unilateral,
frictional contacts, from Python.

The analyses run in Rust (the ``contactlab._core`` extension) with the GIL released; results
come back as numpy arrays and small frozen result objects whose fields and ``to_dict()`` keys are
those of the command line's ``--json`` output.

Modules:
    lcp      linear complementarity: ``solve``, ``solve_all``, ``classes``
    p1       P1, Or & Varkonyi, a planar body on two frictional contacts: ``modes``, ``maps``,
             ``classify``, ``simulate``, ``atlas``
    walker   P2, Or, Painleve's paradox in walkers: ``gait``, ``painleve``, ``slip``
    zeno     P3, Or & Ames, Zeno executions and orbits: ``simulate``, ``orbit``, ``bound``,
             ``continuation``
    fixture  P4, Pang & Trinkle, fixtured bodies: ``classify``, ``theorem4``, ``mu_sweep``
    eqset    P5, van de Wouw & Leine, equilibrium sets under set-valued friction: ``analyze``,
             ``simulate``
    model    your own mechanism (kind = "multibody", or a URDF): ``inspect``, ``simulate``, ``gait``
    sweep    parameter studies on Dask: ``sweep(model, vary={...}, client=None)``
    continuation(model, param, to, ...)  a periodic orbit followed in any model parameter, with
             its folds, period doublings and nonsmooth points (``contactlab continue``)
    basin(model, vary={...}, steps=60, client=None)  the basin of attraction of a mechanism's
             gaits over one or two section coordinates, on Dask (``contactlab basin``)

Errors: ``ValueError`` for bad input (naming the file or dict, the key and the allowed range),
``contactlab.NumericalError`` when a solver could not conclude, ``OSError`` for files.
"""

from ._core import NumericalError, __version__
from . import lcp, p1, walker, zeno, fixture, eqset, model
from ._results import Result
from .sweep import sweep
from ._continuation import continuation
from ._basin import basin

__all__ = ["__version__", "NumericalError", "Result", "lcp", "p1", "walker", "zeno", "fixture", "eqset", "model", "sweep", "continuation", "basin"]
