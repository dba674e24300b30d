"""Parameter studies that scale out on Dask: a grid (or a list) of parameter values cut into
chunks, each chunk evaluated in Rust (in parallel inside the chunk), the chunks spread over a Dask
cluster."""


import numpy as np

from . import _core
from ._results import Model, model_text

DEFAULT_SAMPLES = 2001


def _evaluate_chunk(name, text, is_json, keys, points, samples):
    """One chunk's cells (runs on a worker)."""
    from contactlab import _core as core

    return core.sweep_cells(name, text, is_json, list(keys), points, samples)


def _require(module, package, extra):
    """Imports ``module`` or raises ImportError saying how to install it."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"sweep needs {package}: pip install {package!r} (or contactlab[{extra}])"
        ) from e


def _evaluate_chunk_args(args):
    return _evaluate_chunk(*args)


def map_chunks(func, points, args, client, chunk_size=None):
    """Cuts ``points`` into chunks, calls ``func(args(chunk))`` on each (on the Dask ``client``;
    on a two-process ``LocalCluster`` when ``client`` is None; here when it is False) and returns
    the results in order. By default four chunks per worker thread (a task costs milliseconds of
    scheduling: fewer, larger chunks keep that small beside the work), one chunk here."""

    def run(c):
        threads = 1 if c is False else sum(w.get("nthreads", 1) for w in c.scheduler_info()["workers"].values())
        size = int(chunk_size) if chunk_size is not None else -(-len(points) // (4 * max(threads, 1)))
        if chunk_size is None and c is False:
            size = len(points)
        size = max(size, 1)
        chunks = [points[i : i + size] for i in range(0, len(points), size)]
        if c is False:
            return [func(args(ch)) for ch in chunks]
        return c.gather(c.map(func, [args(ch) for ch in chunks], pure=False))

    if client is None:
        from dask.distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            with Client(cluster) as local:
                return run(local)
    return run(client)


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


def list_points(cells):
    """The cells given as ``{key: values}`` with one value per cell for every key (a
    Monte-Carlo sample, a path through parameter space): an array (cells x keys)."""
    keys = list(cells)
    if not keys:
        raise ValueError("cells: give at least one parameter")
    cols = [np.asarray(cells[k], dtype=np.float64).reshape(-1) for k in keys]
    if len({c.size for c in cols}) != 1 or cols[0].size == 0:
        raise ValueError(f"cells: every parameter needs the same number (> 0) of values, got {[c.size for c in cols]}")
    return keys, np.column_stack(cols)


def sweep(
    model: Model,
    vary=None,
    analysis="classify",
    client=None,
    chunk_size=None,
    samples=DEFAULT_SAMPLES,
    output="pandas",
    cells=None,
):
    """A parameter study: the model's classification at every cell, as a pandas DataFrame with
    one row per cell (the parameters, then the analysis's columns), or with ``output="xarray"``
    an ``xarray.Dataset`` (one dimension per varied key for a grid; a ``cell`` dimension for a
    list of cells).

    The cells are either the grid spanned by ``vary`` ({key: values}, one or two keys, the first
    varying fastest, as ``contactlab equilibrium atlas --vary``) or the list ``cells`` ({key:
    values} with one value per cell: Monte-Carlo samples, say). By the model's kind:

    * ``planar-two-contact`` (P1, the Fig. 6 atlas): keys are model keys or ``com_x``/``com_z``
      (the centre of mass with the contacts fixed); columns ``verdict``, ``theorem`` (Theorems
      1-5), ``g_star`` and ``proof`` (``"interval"`` where the verdict is proved for every phi
      in interval arithmetic, ``"none"`` where it is sampled only); ``samples`` values of phi
      per cell.
    * ``fixture`` (P4): keys ``load[i]`` (a component of the external load), ``mu[i]`` (a
      contact's friction coefficient, from 0) and ``mu_scale`` (all coefficients scaled);
      columns ``classification``, ``weakly_stable``, ``strongly_stable`` and ``critical_mu``
      (Theorem 2).

    The cells are cut into chunks of ``chunk_size``, each evaluated in Rust (in parallel inside
    the chunk); by default four chunks per worker thread of the cluster (a task costs
    milliseconds of scheduling: fewer, larger chunks keep that small beside the work), and one
    chunk in this process. ``client=None`` runs the chunks on a ``dask.distributed.LocalCluster``
    with two worker processes on this machine; a ``dask.distributed.Client`` runs them on its
    cluster (dask-jobqueue on Slurm, Kubernetes, ...); ``client=False`` evaluates them here. The
    result does not depend on the chunking or the workers.
    """
    if output not in ("pandas", "xarray"):
        raise ValueError(f"output: 'pandas' or 'xarray', got {output!r}")
    if analysis != "classify":
        raise ValueError(f"analysis: only 'classify' is available, got {analysis!r}")
    if chunk_size is not None and int(chunk_size) < 1:
        raise ValueError(f"chunk_size: must be >= 1, got {chunk_size}")
    if (vary is None) == (cells is None):
        raise ValueError("give the cells either as a grid (vary=...) or as a list (cells=...)")
    name, text, is_json = model_text(model)
    kind = _core.model_kind(name, text, is_json)
    columns = _core.sweep_columns(kind)
    if columns is None:
        raise ValueError(f"{name}: kind: {kind!r} models have no parameter studies (see the model registry)")
    keys, points = grid_points(vary) if vary is not None else list_points(cells)
    # Everything that can be refused is refused before any work: the values (each against its
    # key's range, naming both), then the optional packages the call needs.
    _core.check_cells(name, text, is_json, list(keys), points)
    _require("pandas", "pandas", "dask")
    if output == "xarray":
        _require("xarray", "xarray", "xarray")
    if client is None:
        _require("dask.distributed", "dask[distributed]", "dask")

    def args(chunk):
        return (name, text, is_json, keys, chunk, int(samples))

    parts = map_chunks(_evaluate_chunk_args, points, args, client, chunk_size)
    import pandas as pd

    rows = [c for part in parts for c in part]
    frame = {k: [c["values"][d] for c in rows] for d, k in enumerate(keys)}
    for col in columns:
        values = [c.get(col) for c in rows]
        if col in ("g_star", "critical_mu"):
            values = [np.nan if v is None else v for v in values]
        frame[col] = values
    df = pd.DataFrame(frame)
    if output == "pandas":
        return df
    import xarray as xr

    if cells is not None:
        data = {col: ("cell", np.asarray(df[col])) for col in columns}
        coords = {k: ("cell", np.asarray(df[k])) for k in keys}
        return xr.Dataset(data, coords=coords)
    # The first key varies fastest: cells reshape to (second key, first key).
    axes = [np.asarray(vary[k], dtype=np.float64).reshape(-1) for k in keys]
    dims = keys[::-1]
    shape = tuple(a.size for a in axes[::-1])
    coords = {k: a for k, a in zip(keys, axes)}
    data = {col: (dims, np.asarray(df[col]).reshape(shape)) for col in columns}
    return xr.Dataset(data, coords=coords)
