"""Linear complementarity problems: find z with 0 <= z ⟂ w = M z + q >= 0."""


from . import _core
from ._results import Result


#: solve(M, q, max_pivots=None) -> LcpSolution (compiled: the call is the Rust call, see its
#: docstring).
solve = _core.lcp_solve
LcpSolution = _core.LcpSolution


def solve_all(M, q) -> Result:
    """Every solution of the LCP as polyhedral pieces (n <= 20): ``status``, ``count``,
    ``bounded``, ``complete``, ``nodes`` and ``pieces`` (each with ``alpha``, ``z``, ``w``,
    ``residual``, ``bounded``), the keys of ``contactlab lcp solve --all --json``."""
    return Result("LcpSolutionSet", _core.lcp_solve_all(M, q))


def classes(M) -> Result:
    """Matrix classes of M: ``p_matrix``, ``column_adequate``, ``column_quasi_adequate`` (each
    with ``holds`` and a violating ``witness_set``) and ``positive_semidefinite``."""
    return Result("MatrixClasses", _core.lcp_classes(M))
