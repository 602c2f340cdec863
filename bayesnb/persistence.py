"""Saving and loading fitted models in a safe, versioned format (no pickle).

``model.save(path)`` writes one file (by convention ``*.bnb``): a NumPy ``.npz`` zip archive
holding

- ``__meta__``: UTF-8 JSON (stored as a ``uint8`` array) with the format name and version,
  the bayesnb version that wrote it, the estimator class and its hyperparameters, a readable
  summary (classes, blocks with their family, parameters, columns and category values), and
  the full posterior as a tree whose leaves are JSON scalars or references to arrays;
- ``a0``, ``a1``, ...: the numeric (and fixed-width string) arrays of that tree, each with
  its SHA-256 recorded in the metadata.

:func:`load` reads it back with ``allow_pickle=False`` and only ever instantiates classes
from a fixed allow-list (the bayesnb estimators, families and posterior NamedTuples), so
loading a file never executes code from it. Predictions of the loaded model are exactly
those of the saved one. A truncated, corrupted, tampered-with or incompatible file raises
:class:`ModelFileError` (a ``ValueError``) with a one-line explanation.

Object arrays (e.g. category values that mix Python ints and strings, or feature names)
are written element by element in the JSON, keeping ``int``/``float``/``bool``/``str``
apart. The training frame's column dtypes (``feature_dtypes_``) are written by name
(``{"__dtype__": "Int64"}``; a ``category`` dtype with its categories and order) and read
back with :func:`pandas.api.types.pandas_dtype`. Pickling (``pickle.dumps(model)``) keeps
working too.

Examples
--------
>>> import os, tempfile
>>> import bayesnb
>>> from bayesnb.datasets import load_play_tennis
>>> df = load_play_tennis()
>>> clf = bayesnb.CategoricalNB().fit(df.drop(columns="PlayTennis"), df["PlayTennis"])
>>> path = os.path.join(tempfile.mkdtemp(), "tennis.bnb")
>>> clf.save(path)
>>> again = bayesnb.load(path)
>>> bool((again.predict_proba(df.drop(columns="PlayTennis")) == clf.predict_proba(df.drop(columns="PlayTennis"))).all())
True
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import zipfile

import numpy as np

__all__ = ["PersistenceMixin", "ModelFileError", "load", "save", "FORMAT_NAME", "FORMAT_VERSION"]

#: Name written into every model file.
FORMAT_NAME = "bayesnb-model"
#: Version of the layout; files with a larger version are refused with a clear message.
FORMAT_VERSION = 1
_META = "__meta__"


class ModelFileError(ValueError):
    """A model file is missing, truncated, corrupted, tampered with or incompatible."""


# ------------------------------------------------------------------------ allow-list
def _registry():
    """Classes a model file may name: estimators, families and posterior NamedTuples."""
    from . import estimators, posterior
    from .families import bernoulli, categorical, gaussian, multinomial
    from .families._base import Family

    estimators_ = {c.__name__: c for c in vars(estimators).values()
                   if isinstance(c, type) and issubclass(c, estimators.BaseNB)
                   and c.__name__ not in ("BaseNB", "_SingleFamilyNB")}
    families_, tuples_ = {}, {}
    for mod in (posterior, bernoulli, categorical, gaussian, multinomial):
        for name, c in vars(mod).items():
            if not isinstance(c, type) or c.__module__ != mod.__name__:
                continue
            if issubclass(c, Family):
                families_[name] = c
            elif issubclass(c, tuple) and hasattr(c, "_fields"):
                tuples_[name] = c
    return estimators_, families_, tuples_


# ------------------------------------------------------------------------- encoding
_SAFE_DTYPE_KINDS = "biufcUS"


def _enc_float(x: float):
    x = float(x)
    if math.isfinite(x):
        return x
    return {"__float__": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def _dec_float(v):
    if isinstance(v, dict):
        return float(v["__float__"])
    return float(v)


try:  # lazily-built column names of a block (bayesnb._utils)
    from ._utils import ColumnNames as _ColumnNames
except ImportError:  # pragma: no cover - older core
    _ColumnNames = None


class _Encoder:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        _, self.families, self.tuples = _registry()

    def __call__(self, obj, where="model"):  # noqa: C901 - a flat type switch
        from .families._base import Family

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
        if _is_dtype(obj):
            import pandas as pd

            if isinstance(obj, pd.CategoricalDtype):
                return {"__dtype__": "category", "categories": self(np.asarray(obj.categories), where),
                        "ordered": bool(obj.ordered)}
            return {"__dtype__": str(obj)}
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind in _SAFE_DTYPE_KINDS:
                key = f"a{len(self.arrays)}"
                self.arrays[key] = np.ascontiguousarray(obj)
                return {"__array__": key}
            if obj.dtype == object:
                return {"__objarray__": [self(v, where) for v in obj.ravel().tolist()],
                        "shape": list(obj.shape)}
            raise TypeError(f"cannot save {where}: arrays of dtype {obj.dtype} are not supported.")
        if _ColumnNames is not None and isinstance(obj, _ColumnNames):
            return {"__colnames__": self(obj.columns, where), "names": self(obj.names, where)}
        if isinstance(obj, Family):
            name = type(obj).__name__
            if self.families.get(name) is not type(obj):
                raise TypeError(f"cannot save {where}: family {name} is not a bayesnb family.")
            return {"__family__": name, "params": self(obj.get_params(), f"{where}.{name}")}
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            name = type(obj).__name__
            if self.tuples.get(name) is not type(obj):
                raise TypeError(f"cannot save {where}: {name} is not a bayesnb posterior type.")
            return {"__nt__": name, "fields": [self(v, f"{where}.{f}") for f, v in zip(obj._fields, obj)]}
        if isinstance(obj, tuple):
            return {"__tuple__": [self(v, where) for v in obj]}
        if isinstance(obj, list):
            return [self(v, where) for v in obj]
        if isinstance(obj, dict):
            return {"__dict__": [[self(k, where), self(v, f"{where}[{k!r}]")] for k, v in obj.items()]}
        raise TypeError(
            f"cannot save {where}: values of type {type(obj).__name__} are not supported by the "
            "bayesnb model format (use pickle for arbitrary objects)."
        )


class _Decoder:
    def __init__(self, arrays):
        self.arrays = arrays
        _, self.families, self.tuples = _registry()

    def __call__(self, node):  # noqa: C901
        if node is None or isinstance(node, (bool, int, str)):
            return node
        if isinstance(node, float):
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
        if "__objarray__" in node:
            items = [self(v) for v in node["__objarray__"]]
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(tuple(node["shape"]))
        if "__dtype__" in node:
            return _dec_dtype(node["__dtype__"], node, self)
        if "__colnames__" in node and _ColumnNames is not None:
            return _ColumnNames(self(node["__colnames__"]), self(node["names"]))
        if "__family__" in node:
            cls = self.families.get(node["__family__"])
            if cls is None:
                raise ModelFileError(f"unknown family {node['__family__']!r}")
            return cls(**self(node["params"]))
        if "__nt__" in node:
            cls = self.tuples.get(node["__nt__"])
            if cls is None:
                raise ModelFileError(f"unknown posterior type {node['__nt__']!r}")
            fields = [self(v) for v in node["fields"]]
            if len(fields) != len(cls._fields):
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


def _is_dtype(obj) -> bool:
    if isinstance(obj, np.dtype):
        return True
    try:
        from pandas.api.extensions import ExtensionDtype
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(obj, ExtensionDtype)


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


def _digest(a: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _summary(model) -> dict:
    """Readable description of the model (documentation only; not used to load)."""
    post = model.posterior_
    blocks = []
    for b in post.blocks:
        entry = {"family": type(b.family).__name__, "columns": [str(n) for n in b.names],
                 "params": repr(b.family)}
        cats = getattr(b.state, "categories", None)
        if cats is not None:
            entry["categories"] = {str(n): [str(v) for v in c] for n, c in zip(b.names, cats)}
        blocks.append(entry)
    return {"classes": [str(c) for c in post.classes], "n_features": int(model.n_features_in_),
            "blocks": blocks}


# ------------------------------------------------------------------------------- API
#: fitted attributes beyond the posterior that a model file keeps
_EXTRA_FITTED = ("offset_", "contamination_", "em_objective_", "n_iter_", "converged_", "transduction_",
                 "feature_dtypes_")


def save(model, path) -> None:
    """Write a fitted bayesnb estimator to ``path`` (see the module docstring for the format).

    Parameters
    ----------
    model : BaseNB
        A fitted bayesnb estimator.
    path : str or os.PathLike
        Destination; written exactly there (no extension is added), atomically.
    """
    from sklearn.utils.validation import check_is_fitted

    from . import __version__

    estimators_, _, _ = _registry()
    name = type(model).__name__
    if estimators_.get(name) is not type(model):
        raise TypeError(f"save: {name} is not a bayesnb estimator.")
    check_is_fitted(model, "posterior_")
    enc = _Encoder()
    fitted = {
        "posterior": enc(model.posterior_, "posterior_"),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": enc(getattr(model, "feature_names_in_", None), "feature_names_in_"),
        "log_evidence": enc(model.log_evidence_, "log_evidence_"),
        # state set after fit (outlier threshold), by semi-supervised EM, or the training frame's dtypes
        "extra": {a: enc(getattr(model, a), a) for a in _EXTRA_FITTED if hasattr(model, a)},
    }
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "bayesnb_version": __version__,
        "estimator": name,
        "params": enc(model.get_params(deep=False), "params"),
        "summary": _summary(model),
        "fitted": fitted,
        "checksums": {k: _digest(a) for k, a in enc.arrays.items()},
    }
    blob = np.frombuffer(json.dumps(meta, allow_nan=False).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **{_META: blob}, **enc.arrays)
    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, path)


def _read(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelFileError(f"{path}: no such model file.")
    if os.path.isdir(path):
        raise ModelFileError(f"{path}: is a directory, not a model file.")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"PK\x03\x04":  # every model file is a zip archive; never let NumPy guess
        raise ModelFileError(f"{path}: not a bayesnb model file (not a zip archive).")
    try:
        with np.load(path, allow_pickle=False) as npz:
            if not hasattr(npz, "files"):
                raise ModelFileError(f"{path}: not a bayesnb model file (a single array, not an archive).")
            if _META not in npz.files:
                raise ModelFileError(f"{path}: not a bayesnb model file (no {_META} entry).")
            meta = json.loads(bytes(npz[_META]).decode("utf-8"))
            arrays = {k: npz[k] for k in npz.files if k != _META}
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, UnicodeDecodeError,
            zipfile.LargeZipFile, NotImplementedError) as e:
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ModelFileError(f"{path}: not a readable bayesnb model file (truncated or corrupted: {why}).") from None
    return meta, arrays


def _set(model, name, value):
    """Set a fitted attribute unless the class computes it (a property)."""
    if isinstance(getattr(type(model), name, None), property):
        return
    setattr(model, name, value)


def load(path):
    """Load a model written by :meth:`save` (never executes code from the file).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    BaseNB
        The fitted estimator, predicting exactly as the saved one.

    Raises
    ------
    ModelFileError
        The file is missing, truncated, corrupted, modified, from a newer format version,
        or not a bayesnb model.
    """
    from . import posterior as _post

    path = os.fspath(path)
    meta, arrays = _read(path)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path}: not a bayesnb model file (format {meta.get('format') if isinstance(meta, dict) else None!r}).")
    version = meta.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ModelFileError(f"{path}: invalid format version {version!r}.")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: written with model format version {version} (bayesnb {meta.get('bayesnb_version')}); "
            f"this bayesnb reads up to version {FORMAT_VERSION}: upgrade bayesnb."
        )
    sums = meta.get("checksums", {})
    if set(sums) != set(arrays):
        raise ModelFileError(f"{path}: corrupted model file (its arrays do not match its metadata).")
    for k, a in arrays.items():
        if _digest(a) != sums[k]:
            raise ModelFileError(f"{path}: corrupted model file (checksum mismatch in array {k}).")
    estimators_, _, _ = _registry()
    cls = estimators_.get(meta.get("estimator"))
    if cls is None:
        raise ModelFileError(f"{path}: unknown estimator {meta.get('estimator')!r} in this bayesnb version.")
    dec = _Decoder(arrays)
    try:
        params = dec(meta["params"])
        fitted = meta["fitted"]
        post = dec(fitted["posterior"])
        if not isinstance(post, _post.NBPosterior):
            raise ModelFileError("the posterior is not an NBPosterior")
        model = cls(**params)
        _set(model, "posterior_", post)
        _set(model, "_specs", [(np.asarray(b.columns), b.family) for b in post.blocks])
        _set(model, "classes_", post.classes)
        _set(model, "class_count_", post.class_count)
        _set(model, "class_log_prior_", post.class_log_prior)
        _set(model, "log_evidence_", dec(fitted["log_evidence"]))
        _set(model, "n_features_in_", int(fitted["n_features_in"]))
        names = dec(fitted["feature_names_in"])
        if names is not None:
            _set(model, "feature_names_in_", names)
        model._set_attributes()
        for a, v in fitted.get("extra", {}).items():
            if a not in _EXTRA_FITTED:
                raise ModelFileError(f"unknown fitted attribute {a!r}")
            _set(model, a, dec(v))
    except ModelFileError as e:
        raise ModelFileError(f"{path}: incompatible model file ({e}).") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise ModelFileError(
            f"{path}: incompatible model file for this bayesnb ({type(e).__name__}: {e})."
        ) from None
    return model


class PersistenceMixin:
    """``save(path)`` for every bayesnb estimator (load with :func:`bayesnb.load`)."""

    def save(self, path) -> None:
        """Write the fitted model to ``path`` in bayesnb's safe, versioned format.

        Parameters
        ----------
        path : str or os.PathLike
            Destination (conventionally ``*.bnb``). Load with :func:`bayesnb.load`.
        """
        save(self, path)

