"""Basins of attraction of a mechanism's gaits (``contactlab basin``), on Dask for large grids."""

import json
from collections import Counter
from typing import Mapping, Optional, Sequence, Tuple

from . import _core
from ._results import Model, Result
from .model import _walking, model_text
from .sweep import _require, map_chunks

# Every default below is the library's (one place: the Rust `Default` impls, as the CLI's).
_D = _core.defaults()


def _basin_chunk(args):
    """One chunk's cells (runs on a worker)."""
    from contactlab import _core as core

    name, text, is_json, plan, points = args
    return core.basin_cells(name, text, is_json, plan, points)


def _label(outcome):
    o = outcome["outcome"]
    if o == "gait":
        return f"gait {outcome['index']}"
    if o == "period":
        return f"period-{outcome['index']}"
    return o


def basin(
    model: Model,
    vary: Mapping[str, Tuple[float, float, int]],
    steps: int = _D["basin"]["steps"],
    state: Optional[Sequence[float]] = None,
    before_strike: bool = False,
    capture_tol: float = _D["basin"]["capture_tol"],
    fall_height: float = _D["basin"]["fall_height"],
    rtol: float = _D["basin"]["rtol"],
    max_step_time: float = _D["basin"]["max_step_time"],
    client=None,
    chunk_size: Optional[int] = None,
    base: Optional[str] = None,
) -> Result:
    """The basin of attraction of a mechanism's gaits, as ``contactlab basin --json``.

    ``vary`` maps one or two section coordinates (``"stance.theta"``, ``"stance.theta_dot"``)
    to ``(lo, hi, n)``: the grid of ``contactlab basin --vary NAME=lo:hi:n`` (the first varies
    fastest). Each cell runs up to ``steps`` strikes and gets an outcome (``cells[i]["outcome"]``:
    gait k, period p, walking, fell, slipped, stopped, painleve, jammed, zeno, failed, no-state).
    ``state`` is the base state (``q`` then ``q'``; default: the most stable gait found);
    ``before_strike`` lays the grid just before the strike (each cell starts with it); a run
    with no strike for ``max_step_time`` (in the model's time unit) has stopped walking.

    The base state and the gaits are found once here; the cells are cut into chunks of
    ``chunk_size`` evaluated in Rust (in parallel inside a chunk) and spread over a Dask cluster
    as :func:`contactlab.sweep` does: ``client=None`` starts a two-process
    ``dask.distributed.LocalCluster`` on this machine, a ``dask.distributed.Client`` uses its
    cluster, ``client=False`` evaluates here without Dask. The result does not depend on the
    chunking. Fields: ``axes``, ``plan``, ``gaits``, ``fractions`` (``[label, fraction]``,
    largest first) and ``cells`` (``values``, ``outcome``, ``strikes``, ``t``). A bare URDF or
    MJCF path is a robot in 3-D with no ``[gait]`` table (``ValueError``); ``base="planar"``
    reads a URDF as a planar mechanism."""
    _walking(model, base, "basin")
    if not isinstance(vary, Mapping) or not 1 <= len(vary) <= 2:
        raise ValueError("vary: give one or two section coordinates as {name: (lo, hi, n)}")
    axes = []
    for name, spec in vary.items():
        try:
            lo, hi, n = spec
        except (TypeError, ValueError):
            raise ValueError(f"vary {name}: expected (lo, hi, n), got {spec!r}") from None
        axes.append((str(name), float(lo), float(hi), int(n)))
    points = _core.basin_grid(axes)
    name, text, is_json = model_text(model)
    s = None if state is None else [float(x) for x in state]
    plan = _core.basin_plan(
        name,
        text,
        is_json,
        [a[0] for a in axes],
        s,
        int(steps),
        float(capture_tol),
        float(fall_height),
        float(rtol),
        bool(before_strike),
        float(max_step_time),
    )
    if chunk_size is not None and int(chunk_size) < 1:
        raise ValueError(f"chunk_size: must be >= 1, got {chunk_size}")
    if client is None:
        _require("dask.distributed", "dask[distributed]", "dask")
    plan_text = json.dumps(plan)

    def args(chunk):
        return (name, text, is_json, plan_text, chunk)

    parts = map_chunks(_basin_chunk, points, args, client, chunk_size)
    cells = [c for part in parts for c in part]
    counts = Counter(_label(c["outcome"]) for c in cells)
    total = max(len(cells), 1)
    fractions = [[k, v / total] for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return Result(
        "Basin",
        {
            "axes": [{"name": a[0], "lo": a[1], "hi": a[2], "n": a[3]} for a in axes],
            "plan": plan,
            "fractions": fractions,
            "cells": cells,
        },
    )
