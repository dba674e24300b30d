"""Result objects and model input shared by the submodules."""

import json
import os
from types import MappingProxyType
from typing import Any, Mapping, Tuple, Union

Model = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class Result:
    """A frozen result: its fields are the keys of the command line's ``--json`` object.

    Access fields as attributes (``r.verdict``) or keys (``r["verdict"]``); ``to_dict()``
    returns a plain dict (arrays as numpy arrays).
    """

    __slots__ = ("_kind", "_data")

    def __init__(self, kind: str, data: Mapping[str, Any]):
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_data", MappingProxyType(dict(data)))

    def __getattr__(self, name: str) -> Any:
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
        return isinstance(other, Result) and self._kind == other._kind and dict(self._data) == dict(other._data)

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


def model_text(model: Model) -> Tuple[str, str, bool]:
    """``(name, text, is_json)`` of a model given as a file path or as a dict with the same keys as
    the TOML files."""
    if isinstance(model, Mapping):
        return "<dict>", json.dumps(dict(model)), True
    path = os.fspath(model)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return path, text, path.lower().endswith(".json")
