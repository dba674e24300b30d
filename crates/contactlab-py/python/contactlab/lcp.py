"""Linear complementarity problems: find z with 0 <= z ⟂ w = M z + q >= 0."""

import json

import numpy as np

from . import _core
from ._results import Result


def solve(M, q, max_pivots=None) -> Result:
    """Solve the LCP (Lemke's method; on a secondary ray a feasibility LP and, for n <= 12,
    exhaustive enumeration, so that "no-solution" is certified whenever possible).

    Returns a Result with ``status`` ("solved", "no-solution", "iteration-limit",
    "numerical-error"), ``z`` and ``w`` (numpy arrays), ``residual``, ``pivots``, ``method``,
    ``reason``, ``certified`` and ``n``: the keys of ``contactlab lcp solve --json``.
    """
    M = np.require(M, dtype=np.float64, requirements=["C", "A"])
    q = np.require(np.reshape(q, -1), dtype=np.float64, requirements=["C", "A"])
    if M.ndim != 2:
        raise ValueError(f"M: expected a 2-D array, got {M.ndim} dimension(s)")
    return Result("LcpSolution", _core.lcp_solve(M, q, max_pivots))


def solve_all(M, q) -> Result:
    """Every solution of the LCP as polyhedral pieces (n <= 20): ``status``, ``count``,
    ``bounded``, ``complete``, ``nodes`` and ``pieces`` (each with ``alpha``, ``z``, ``w``,
    ``residual``, ``bounded``), the keys of ``contactlab lcp solve --all --json``."""
    M = np.require(M, dtype=np.float64, requirements=["C", "A"])
    q = np.require(np.reshape(q, -1), dtype=np.float64, requirements=["C", "A"])
    if M.ndim != 2:
        raise ValueError(f"M: expected a 2-D array, got {M.ndim} dimension(s)")
    return Result("LcpSolutionSet", json.loads(_core.lcp_solve_all(M, q)))


def classes(M) -> Result:
    """Matrix classes of M: ``p_matrix``, ``column_adequate``, ``column_quasi_adequate`` (each
    with ``holds`` and a violating ``witness_set``) and ``positive_semidefinite``."""
    M = np.require(M, dtype=np.float64, requirements=["C", "A"])
    if M.ndim != 2:
        raise ValueError(f"M: expected a 2-D array, got {M.ndim} dimension(s)")
    return Result("MatrixClasses", json.loads(_core.lcp_classes(M)))
