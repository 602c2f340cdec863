"""The model file's JSON tree: what a file may name, and how values become JSON and arrays.

:class:`Encoder` turns a fitted posterior (NamedTuples, families, arrays, dtypes, column
names) into a JSON tree whose array leaves are references into a list of arrays;
:class:`Decoder` turns such a tree back, instantiating only the allow-listed classes of
:func:`registry` and refusing anything else with :class:`~bayesnb.io.archive.ModelFileError`.
:mod:`bayesnb.io.persistence` writes and reads the file around them.
"""

from __future__ import annotations

import math

import numpy as np

from ..inference import nb_posterior as _post
from .archive import ModelFileError
from .._utils import ColumnNames as _ColumnNames
from .._utils import DataError, is_dtype
from ..families import Family
from .names import ESTIMATORS, type_key

__all__ = ["Decoder", "Encoder", "registry"]


# ------------------------------------------------------------------------ allow-list


def registry():
    """Classes a model file may name: estimators, families and posterior NamedTuples.

    Families are every subclass of :class:`~bayesnb.families._contract.Family` defined so far
    (a user's own family included, once its module is imported), named by class name for
    bayesnb's own and by ``module:qualname`` for the others; the NamedTuples are the
    posterior's and those each family declares (``stats_type``, ``params_type``,
    ``state_types``). Nothing is imported by a name read from a file.
    """
    estimators_ = dict(ESTIMATORS)
    tuples_ = {type_key(c): c for c in vars(_post).values()
               if isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields")
               and c.__module__ == _post.__name__}
    families_ = {}
    todo = list(Family.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        families_[type_key(cls)] = cls
        for t in (cls.stats_type, cls.params_type, *cls.state_types):
            if t is not None:  # a family that declares no NamedTuple (docs/families/custom.md) names none
                tuples_[type_key(t)] = t
    return estimators_, families_, tuples_


# ------------------------------------------------------------------------- encoding
_SAFE_DTYPE_KINDS = "biufcUS"


def _enc_float(x: float):
    x = float(x)
    if math.isfinite(x):
        return x
    return {"__float__": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def _dec_float(v):
    return float(v["__float__"] if isinstance(v, dict) else v)


class Encoder:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        _, self.families, self.tuples = registry()

    def __call__(self, obj, where="model"):  # noqa: C901 - a flat type switch
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.str_):
            return str(obj)
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            return _enc_float(obj)
        if isinstance(obj, np.integer):
            return {"__np__": obj.dtype.str, "v": int(obj)}
        if isinstance(obj, np.floating):
            return {"__np__": obj.dtype.str, "v": _enc_float(obj)}
        if is_dtype(obj):
            import pandas as pd

            if isinstance(obj, pd.CategoricalDtype):
                return {"__dtype__": "category", "categories": self(np.asarray(obj.categories), where),
                        "ordered": bool(obj.ordered)}
            return {"__dtype__": str(obj)}
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind in _SAFE_DTYPE_KINDS:
                return self._array(obj)
            if obj.dtype == object:
                return {"__objarray__": [self(v, where) for v in obj.ravel().tolist()],
                        "shape": list(obj.shape)}
            raise TypeError(f"cannot save {where}: arrays of dtype {obj.dtype} are not supported.")
        if isinstance(obj, _ColumnNames):
            return {"__colnames__": self(obj.columns, where), "names": self(obj.names, where)}
        if isinstance(obj, Family):
            name = type_key(type(obj))
            if self.families.get(name) is not type(obj):
                raise TypeError(f"cannot save {where}: family {name} cannot be found again by its "
                                "name (defined twice, or inside a function).")
            return {"__family__": name, "params": self(obj.get_params(), f"{where}.{name}")}
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            name = type_key(type(obj))
            if self.tuples.get(name) is not type(obj):
                raise TypeError(f"cannot save {where}: {name} is not a type a family declares "
                                "(stats_type, params_type, state_types) or a posterior type.")
            return {"__nt__": name, "fields": [self(v, f"{where}.{f}") for f, v in zip(obj._fields, obj)]}
        if isinstance(obj, tuple):
            return {"__tuple__": [self(v, where) for v in obj]}
        if isinstance(obj, list):
            return [self(v, where) for v in obj]
        if isinstance(obj, dict):
            return {"__dict__": [[self(k, where), self(v, f"{where}[{k!r}]")] for k, v in obj.items()]}
        raise DataError(  # e.g. a category of the user's data (a Timestamp): a TypeError too
            f"cannot save {where}: values of type {type(obj).__name__} are not supported by the "
            "bayesnb model format (use pickle for arbitrary objects)."
        )

    def _array(self, obj):
        """A reference to ``obj``'s data that restores its memory layout on load.

        Layout matters for bit-exactness: NumPy sums a C- and an F-ordered array in different
        orders, so a table derived on load from an F-ordered array would differ in the last bits.
        A broadcast view (zero strides) is stored once and broadcast again; an F-ordered array is
        stored transposed and transposed back.
        """
        flat = [st == 0 and n > 1 for st, n in zip(obj.strides, obj.shape)]
        if any(flat):
            base = obj[tuple(slice(0, 1) if f else slice(None) for f in flat)]
            return {"__broadcast__": self._array(base), "shape": list(obj.shape)}
        if obj.ndim > 1 and obj.flags.f_contiguous and not obj.flags.c_contiguous:
            return {"__transpose__": self._array(obj.T)}
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(obj)
        return {"__array__": key}


class Decoder:
    def __init__(self, arrays, max_bytes):
        self.arrays = arrays
        self.max_bytes, self.broadcast_bytes = max_bytes, 0
        _, self.families, self.tuples = registry()

    def __call__(self, node):  # noqa: C901
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self(v) for v in node]
        if not isinstance(node, dict):
            raise ModelFileError(f"unexpected JSON value of type {type(node).__name__}")
        if "__float__" in node:
            return _dec_float(node)
        if "__np__" in node:
            dt = np.dtype(node["__np__"])
            if dt.kind not in "biuf":
                raise ModelFileError(f"unexpected scalar dtype {dt}")
            return dt.type(_dec_float(node["v"]) if dt.kind == "f" else node["v"])
        if "__array__" in node:
            key = node["__array__"]
            if key not in self.arrays:
                raise ModelFileError(f"array {key!r} is missing from the file")
            return self.arrays[key]
        if "__transpose__" in node:
            a = self(node["__transpose__"])
            if not isinstance(a, np.ndarray):
                raise ModelFileError("a transposed array does not refer to an array")
            return a.T
        if "__broadcast__" in node:
            return self._broadcast(node)
        if "__objarray__" in node:
            items = [self(v) for v in node["__objarray__"]]
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(tuple(node["shape"]))
        if "__dtype__" in node:
            return _dec_dtype(node["__dtype__"], node, self)
        if "__colnames__" in node:
            return _ColumnNames(self(node["__colnames__"]), self(node["names"]))
        if "__family__" in node:
            cls = self.families.get(node["__family__"])
            if cls is None:
                raise ModelFileError(f"unknown family {str(node['__family__'])[:80]!r} (a family of your "
                                     "own must be imported before load)")
            return cls(**self(node["params"]))
        if "__nt__" in node:
            cls = self.tuples.get(node["__nt__"])
            if cls is None:
                raise ModelFileError(f"unknown posterior type {node['__nt__']!r}")
            fields = [self(v) for v in node["fields"]]
            # a file written before a field with a default existed: that field takes its default
            if not len(cls._fields) - len(cls._field_defaults) <= len(fields) <= len(cls._fields):
                raise ModelFileError(f"{cls.__name__} has {len(fields)} fields; expected {len(cls._fields)}")
            return cls(*fields)
        if "__tuple__" in node:
            return tuple(self(v) for v in node["__tuple__"])
        if "__dict__" in node:
            out = {}
            for k, v in node["__dict__"]:
                k = self(k)
                out[tuple(k) if isinstance(k, list) else k] = self(v)
            return out
        raise ModelFileError(f"unexpected JSON object with keys {sorted(node)[:3]}")

    def _broadcast(self, node):
        base, shape = self(node["__broadcast__"]), node["shape"]
        if (not isinstance(base, np.ndarray) or not isinstance(shape, list) or len(shape) != base.ndim
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)):
            raise ModelFileError(f"invalid broadcast of an array to shape {str(shape)[:60]}")
        self.broadcast_bytes += math.prod(shape) * base.dtype.itemsize
        if self.broadcast_bytes > self.max_bytes:  # derived tables would be that large
            raise ModelFileError(f"broadcast arrays of {self.broadcast_bytes} bytes exceed the budget "
                                 f"max_bytes={self.max_bytes}")
        return np.broadcast_to(base, tuple(shape))


def _dec_dtype(name, node, dec):
    """A column dtype from its name (no code runs: pandas/NumPy look the name up)."""
    import pandas as pd

    if not isinstance(name, str):
        raise ModelFileError(f"unexpected dtype name {name!r}")
    try:
        if name == "category":
            cats = dec(node["categories"])
            return pd.CategoricalDtype(categories=list(cats), ordered=bool(dec(node["ordered"])))
        return pd.api.types.pandas_dtype(name)
    except (TypeError, ValueError, KeyError) as e:
        raise ModelFileError(f"unknown column dtype {name!r} ({e})") from None
