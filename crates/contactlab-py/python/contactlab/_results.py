"""Result objects and model input shared by the submodules."""

import json
import os
from types import MappingProxyType
from typing import Any, Mapping, Tuple, Union

import numpy as np

Model = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class Result:
    """A frozen result: its fields are the keys of the command line's ``--json`` object.

    Access fields as attributes (``r.verdict``) or keys (``r["verdict"]``); ``to_dict()``
    returns a plain dict (arrays as numpy arrays).
    """

    __slots__ = ("_kind", "_data")

    def __init__(self, kind: str, data: Mapping[str, Any]):
        data = dict(data)
        _freeze_arrays(data)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_data", MappingProxyType(data))

    def __reduce__(self):
        # (pickle and copy: results travel back from Dask workers and processes)
        return (Result, (self._kind, dict(self._data)))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"{self._kind} has no field {name!r}; fields: {', '.join(self._data)}") from None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._kind} is frozen")

    def __dir__(self):
        return list(self._data) + ["to_dict"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._kind == other._kind and _equal(dict(self._data), dict(other._data))

    __hash__ = None

    def __repr__(self) -> str:
        def short(v: Any) -> str:
            r = repr(v)
            return r if len(r) <= 60 else r[:57] + "..."

        first = [k for k in ("status", "verdict", "classification", "theorem") if k in self._data]
        keys = first + [k for k in self._data if k not in first]
        body = ", ".join(f"{k}={short(self._data[k])}" for k in keys)
        return f"{self._kind}({body})"

    def to_dict(self) -> dict:
        """The fields as a plain dict."""
        return dict(self._data)


def _freeze_arrays(value: Any) -> None:
    """Makes the numpy arrays in a result (also inside nested dicts and lists) read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, dict):
        for v in value.values():
            _freeze_arrays(v)
    elif isinstance(value, list):
        for v in value:
            _freeze_arrays(v)


def _equal(a: Any, b: Any) -> bool:
    """Equality of result fields, arrays compared element-wise (NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _check_finite(value: Any, path: str) -> None:
    """A NaN or infinity in a dict model, named by its key (JSON has no spelling for them)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, (list, tuple, np.ndarray)):
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")
    elif isinstance(value, (float, np.floating)) and not np.isfinite(value):
        raise ValueError(f"<dict>: {path}: must be a finite number (got {value})")


def _json_default(o: Any) -> Any:
    if hasattr(o, "tolist"):  # numpy arrays and scalars
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not a number, string, list or table")


def model_text(model: Model) -> Tuple[str, str, bool]:
    """``(name, text, is_json)`` of a model given as a file path or as a dict with the same keys as
    the TOML files (numpy arrays and numbers allowed as values)."""
    if isinstance(model, Mapping):
        _check_finite(model, "")
        try:
            return "<dict>", json.dumps(dict(model), default=_json_default, allow_nan=True), True
        except TypeError as e:
            raise ValueError(f"<dict>: {e}") from None
    path = os.fspath(model)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return path, text, path.lower().endswith(".json")
