"""Parameter studies that scale out on Dask: a grid of model parameters cut into chunks, each
chunk evaluated in Rust (in parallel inside the chunk), the chunks spread over a Dask cluster."""

import json

import numpy as np

from . import _core
from ._results import Model, model_text

DEFAULT_SAMPLES = 2001


def _evaluate_chunk(name, text, is_json, keys, points, samples):
    """One chunk's cells (runs on a worker)."""
    from contactlab import _core as core

    # (An array unpickled on a worker can be unaligned; the extension needs aligned C order.)
    points = np.require(points, dtype=np.float64, requirements=["C", "A"])
    cells = core.p1_atlas_cells(name, text, is_json, list(keys), points, samples)
    return json.loads(cells)


def _evaluate_chunk_args(args):
    return _evaluate_chunk(*args)


def grid_points(vary):
    """The cells of the grid spanned by ``vary`` ({key: values}, one or two keys), the first key
    varying fastest (the order of ``contactlab equilibrium atlas``): an array (cells x keys)."""
    keys = list(vary)
    if not 1 <= len(keys) <= 2:
        raise ValueError(f"vary: give one or two parameters, got {len(keys)}")
    axes = [np.asarray(vary[k], dtype=np.float64).reshape(-1) for k in keys]
    if any(a.size == 0 for a in axes):
        raise ValueError("vary: every parameter needs at least one value")
    if len(axes) == 1:
        return keys, axes[0].reshape(-1, 1)
    x, y = np.meshgrid(axes[0], axes[1], indexing="xy")
    return keys, np.column_stack([x.reshape(-1), y.reshape(-1)])


def sweep(
    model: Model, vary, analysis="classify", client=None, chunk_size=None, samples=DEFAULT_SAMPLES, output="pandas"
):
    """P1's verdict over a grid of parameters (P1 Fig. 6 atlas), as a pandas DataFrame with one
    row per cell: the varied keys, ``verdict``, ``theorem`` and ``g_star`` (``output="xarray"``:
    an ``xarray.Dataset`` with one dimension per varied key and those three variables).

    ``vary`` maps model keys (or ``com_x``/``com_z``, the centre of mass with the contacts fixed)
    to arrays of values. The grid is cut into chunks of ``chunk_size`` cells, each evaluated in
    Rust (in parallel inside the chunk); by default four chunks per worker thread of the cluster
    (a task costs milliseconds of scheduling; fewer, larger chunks keep that small beside the
    work), and one chunk in this process. ``client=None`` runs the chunks on a ``dask.distributed.LocalCluster`` with two worker
    processes on this machine; a ``dask.distributed.Client`` runs them on its cluster; and
    ``client=False`` evaluates them here, one after the other. The result does not depend on the
    chunking or the workers.
    """
    if output not in ("pandas", "xarray"):
        raise ValueError(f"output: 'pandas' or 'xarray', got {output!r}")
    if analysis != "classify":
        raise ValueError(f"analysis: only 'classify' (P1's verdicts) is available, got {analysis!r}")
    if chunk_size is not None and int(chunk_size) < 1:
        raise ValueError(f"chunk_size: must be >= 1, got {chunk_size}")
    name, text, is_json = model_text(model)
    keys, points = grid_points(vary)

    def run(c):
        threads = 1 if c is False else sum(w.get("nthreads", 1) for w in c.scheduler_info()["workers"].values())
        size = int(chunk_size) if chunk_size is not None else -(-len(points) // (4 * max(threads, 1)))
        if chunk_size is None and c is False:
            size = len(points)
        chunks = [points[i : i + size] for i in range(0, len(points), size)]
        args = [(name, text, is_json, keys, ch, int(samples)) for ch in chunks]
        if c is False:
            return [_evaluate_chunk(*a) for a in args]
        return c.gather(c.map(_evaluate_chunk_args, args, pure=False))

    if client is None:
        from dask.distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as local:
                parts = run(local)
    else:
        parts = run(client)
    import pandas as pd

    cells = [c for part in parts for c in part]
    frame = {k: [c["values"][d] for c in cells] for d, k in enumerate(keys)}
    frame["verdict"] = [c["verdict"] for c in cells]
    frame["theorem"] = [c["theorem"] for c in cells]
    frame["g_star"] = [np.nan if c["g_star"] is None else c["g_star"] for c in cells]
    df = pd.DataFrame(frame)
    if output == "pandas":
        return df
    import xarray as xr

    # The first key varies fastest: cells reshape to (second key, first key).
    axes = [np.asarray(vary[k], dtype=np.float64).reshape(-1) for k in keys]
    dims = keys[::-1]
    shape = tuple(a.size for a in axes[::-1])
    coords = {k: a for k, a in zip(keys, axes)}
    data = {v: (dims, np.asarray(df[v]).reshape(shape)) for v in ("verdict", "theorem", "g_star")}
    return xr.Dataset(data, coords=coords)
