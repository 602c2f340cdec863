"""Saving and loading fitted models in a safe, versioned format (no pickle).

``model.save(path)`` writes one NumPy ``.npz`` archive: ``__meta__`` (JSON: format version,
estimator, hyperparameters, summary, the posterior as a tree of JSON values and array
references with each array's SHA-256), the arrays ``a0``, ``a1``, ... as raw bytes with their
memory layout, and ``__hmac__`` when saved with a key. :func:`load` treats the file as hostile:
no code executed, sizes bounded before decompressing, only allow-listed classes, the content
validated; any problem is one :class:`ModelFileError`. A loaded model predicts bit for bit as
the saved one. See docs/cli.md, "The model file format" (what each safeguard protects).

Object arrays are written element by element in the JSON (``int``/``float``/``bool``/``str``
kept apart); ``feature_dtypes_`` by name (``{"__dtype__": "Int64"}``, a ``category`` dtype
with its categories), read back with :func:`pandas.api.types.pandas_dtype`. Files of format
version 1 (before the HMAC) still load and are validated the same way.

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

import contextlib
import io
import json
import os
import sys

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ..inference import nb_posterior as _post
from .loadcheck import check_extras, check_model, check_naive_bayes_only
from .tree import Decoder, Encoder, registry
from .archive import DEFAULT_MAX_BYTES, DEFAULT_MAX_RATIO, ModelFileError, check_key, digest, read_model, sign
from .._version import __version__
from ..generative.support_records import support_from_dict, support_to_dict
from ..privacy import DP

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_RATIO", "FORMAT_NAME", "FORMAT_VERSION", "ModelFileError",
           "decode_estimator", "encode_estimator", "load", "read_model_file", "composite", "register_composite",
           "save"]

#: Name written into every model file.
FORMAT_NAME = "bayesnb-model"
#: Version of the layout; files with a larger version are refused with a clear message.
#: Version 2 added memory layouts (bit-exact round trips), load-time validation and the HMAC.
FORMAT_VERSION = 2
_META, _MAC = "__meta__", "__hmac__"


def _summary(model) -> dict:
    """Readable description of the model (documentation only; not used to load)."""
    post = model.posterior_
    blocks = []
    for b in post.blocks:
        entry = {"family": type(b.family).__name__, "columns": [str(n) for n in b.names],
                 "params": repr(b.family)}
        cats = b.family.value_labels(b.state)
        if cats is not None:
            entry["categories"] = {str(n): [str(v) for v in c] for n, c in zip(b.names, cats)}
        blocks.append(entry)
    out = {"classes": [str(c) for c in post.classes], "n_features": int(model.n_features_in_), "blocks": blocks}
    spent = getattr(model, "privacy_spent_", None)
    if spent is not None:
        out["differential_privacy"] = (f"({spent['epsilon']:g}, {spent['delta']:g})-DP, "
                                       f"{spent['mechanism']} mechanism")
    return out


# ------------------------------------------------------------------------------- API
#: fitted attributes beyond the posterior that a model file keeps
_EXTRA_FITTED = ("offset_", "contamination_", "em_objective_", "n_iter_", "converged_", "transduction_",
                 "feature_dtypes_", "family_scores_", "target_name_", "structure_kind_", "structure_hierarchical_",
                 "structure_parents_", "structure_stats_", "structure_scores_", "structure_bin_edges_",
                 "structure_priors_", "privacy_spent_", "target_index_", "value_support_", "zero_links_",
                 "sample_support_")
#: fitted DataFrames, stored as a dict of lists (column name -> values, in column order)
_FRAMES = ("family_scores_", "structure_scores_")


def _params_to_file(params):
    """The estimator's parameters as the file stores them: a ``DP`` setting as its plain values."""
    privacy = params.get("privacy")
    return {**params, "privacy": privacy.as_dict()} if isinstance(privacy, DP) else params


def _params_from_file(params):
    """The parameters read from a file, a stored ``DP`` setting rebuilt (checked by ``DP`` itself)."""
    privacy = params.get("privacy")
    if privacy is None:
        return params
    try:
        return {**params, "privacy": DP(**privacy)}
    except (TypeError, ValueError) as e:
        raise ModelFileError(f"params.privacy is not a valid DP setting ({e})") from None


def _to_file(name, value):
    if name == "value_support_":
        return support_to_dict(value)
    if name == "zero_links_":
        return [[int(t), int(s)] for t, s in value]
    if name in _FRAMES and value is not None:
        return {c: value[c].tolist() for c in value.columns}
    if name == "structure_bin_edges_":
        return [[float(e) for e in v] for v in value]
    if name in ("structure_parents_", "structure_stats_", "structure_priors_"):
        return [list(v) if name == "structure_parents_" else v for v in value]
    return value


def _from_file(name, value):
    if name == "value_support_":  # checked by check_extras
        return support_from_dict(value)
    if name == "zero_links_":
        return [tuple(int(v) for v in link) for link in value]
    if name in _FRAMES and value is not None:
        return pd.DataFrame(value)
    if name == "structure_bin_edges_":
        return tuple(np.asarray(v, dtype=float).reshape(-1) for v in value)
    if name in ("structure_parents_", "structure_stats_", "structure_priors_"):
        return tuple(tuple(int(p) for p in v) if name == "structure_parents_" else v for v in value)
    return value


#: composite models a file may hold (name -> (class, to_file, from_file)); see :func:`register_composite`
_COMPOSITES: dict = {}


def register_composite(cls, to_file, from_file):
    """Let :func:`save` and :func:`load` handle ``cls``, a model made of bayesnb estimators (an ``Imputer``,
    a ``Synthesizer``).

    Parameters
    ----------
    cls : type
        The class; a file names it by ``cls.__name__`` in its ``estimator`` field.
    to_file : callable
        ``to_file(model, encoder) -> dict``: the file's ``estimator`` field and the rest of the metadata
        (estimators inside encoded with :func:`encode_estimator`).
    from_file : callable
        ``from_file(cls, meta, decoder) -> model``: the model from the metadata, raising
        :class:`ModelFileError` on anything it does not accept (estimators read with :func:`decode_estimator`).
    """
    _COMPOSITES[cls.__name__] = (cls, to_file, from_file)


def composite(name):
    """The registered composite ``(cls, to_file, from_file)`` named ``name``, or None.

    A composite class is a public name of :mod:`bayesnb` whose module registers it when it is
    imported; ``import bayesnb`` loads such modules lazily, so a name not registered yet is
    fetched from the package first (which imports its module).

    Parameters
    ----------
    name : object
        A file's ``estimator`` field (anything other than a string is no composite).

    Returns
    -------
    tuple or None
    """
    if not isinstance(name, str):
        return None
    if name not in _COMPOSITES:
        _import_public(name)
    return _COMPOSITES.get(name)


def _import_public(name: str) -> None:
    """Import the module of ``name`` if it is a public name of :mod:`bayesnb` (a class registers when imported).

    ``import bayesnb`` loads its estimators and wings lazily (PEP 562), so a model file may name a
    class whose module no one has imported yet; nothing is imported for any other name.
    """
    package = sys.modules["bayesnb"]
    if name in getattr(package, "__all__", ()):
        getattr(package, name)


def encode_estimator(model, enc):
    """A fitted bayesnb estimator as the model file's JSON tree (arrays into ``enc``).

    Parameters
    ----------
    model : BaseNB
        Fitted.
    enc : Encoder

    Returns
    -------
    dict
        ``estimator`` (its class name), ``params``, ``summary`` and ``fitted``.
    """
    if registry()[0].get(type(model).__name__) is not type(model):
        raise TypeError(f"save: {type(model).__name__} is not a bayesnb estimator.")
    check_is_fitted(model, "posterior_")
    fitted = {
        "posterior": enc(model.posterior_, "posterior_"),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": enc(getattr(model, "feature_names_in_", None), "feature_names_in_"),
        # state set after fit (outlier threshold), by semi-supervised EM, or the training frame's dtypes
        "extra": {a: enc(_to_file(a, getattr(model, a)), a) for a in _EXTRA_FITTED if hasattr(model, a)},
    }
    imputer = getattr(model, "imputer_", None)  # fit(X, y, impute=...): the Imputer's own file layout
    if imputer is not None:
        fitted["imputer"] = _COMPOSITES[type(imputer).__name__][1](imputer, enc)
    return {"estimator": type(model).__name__, "params": enc(_params_to_file(model.get_params(deep=False)), "params"),
            "summary": _summary(model), "fitted": fitted}


def save(model, path, *, key=None, overwrite=False) -> None:
    """Write a fitted bayesnb estimator to ``path`` (see the module docstring for the format).

    Parameters
    ----------
    model : BaseNB
        A fitted bayesnb estimator.
    path : str or os.PathLike
        Destination; written exactly there (no extension is added), atomically.
    key : bytes or str, optional
        Secret key: the file then carries an HMAC-SHA256 of its content, and
        :func:`load` refuses it unless given the same key. The per-array SHA-256
        checksums only catch accidents (anyone can recompute them after an edit); the HMAC
        also catches deliberate changes by anyone without the key. Neither encrypts: the
        file stays readable by anyone.
    overwrite : bool, default False
        Replace ``path`` if it exists. By default an existing file is never replaced.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is false.
    """
    key = check_key(key)
    name = type(model).__name__
    found = composite(name)
    if found is not None and found[0] is type(model):
        check_is_fitted(model)
    else:
        found = None
        if registry()[0].get(name) is not type(model):
            raise TypeError(f"save: {name} is not a bayesnb estimator.")
        check_is_fitted(model, "posterior_")
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"save: {os.fspath(path)} exists; pass overwrite=True to replace it, or choose "
                              f"another path")
    enc = Encoder()
    body = encode_estimator(model, enc) if found is None else found[1](model, enc)
    meta = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "bayesnb_version": __version__,
            "estimator": body.pop("estimator"), "keyed": key is not None, **body,
            "checksums": {k: digest(a) for k, a in enc.arrays.items()}}
    text = json.dumps(meta, allow_nan=False).encode("utf-8")
    entries = {_META: np.frombuffer(text, dtype=np.uint8)}
    if key is not None:
        entries[_MAC] = np.frombuffer(sign(key, text).encode("ascii"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **entries, **enc.arrays)
    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(buf.getvalue())
        os.replace(tmp, path)
    except BaseException:  # a full disk, an interrupt: never leave the temporary file behind
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def read_model_file(path, key=None, max_bytes=DEFAULT_MAX_BYTES, max_ratio=DEFAULT_MAX_RATIO):
    """Metadata (dict) and arrays of a model file, authenticated with ``key`` if given."""
    return read_model(path, FORMAT_NAME, key, max_bytes, max_ratio)


def _set(model, name, value):
    """Set a fitted attribute unless the class computes it (a property)."""
    if isinstance(getattr(type(model), name, None), property):
        return
    setattr(model, name, value)


def load(path, *, key=None, max_bytes=DEFAULT_MAX_BYTES, max_ratio=DEFAULT_MAX_RATIO):
    """Load a model written by :meth:`save` (never executes code from the file).

    Sizes, checksums, the HMAC (with a ``key``) and the content are all checked first
    (see the module docstring and :mod:`bayesnb.io.loadcheck`).

    Parameters
    ----------
    path : str or os.PathLike
    key : bytes or str, optional
        The key the file was saved with. With a key, a file changed by anyone without the
        key is refused; without one, the checksums catch only accidental damage (anyone can
        edit a file and recompute them). A file saved with a key needs it, and a key given
        for a file saved without one is refused too. Neither keeps the content secret.
    max_bytes : int, default=DEFAULT_MAX_BYTES (1 GiB)
        Budget for the file's size and the sum of its declared decompressed sizes (and of
        the arrays it broadcasts, and of the objects its metadata would make), checked before
        reading them: a zip bomb or a header that claims terabytes is refused at once.
    max_ratio : float, default=DEFAULT_MAX_RATIO (200)
        Most times the file's size that its arrays and parsed metadata may take, beyond
        16 MiB. A file that would make more is refused before it is decompressed; raise it
        (or pass ``math.inf``) for a trusted model whose arrays are almost all zeros.

    Returns
    -------
    BaseNB, Imputer, Synthesizer or NBOutlierDetector
        The fitted estimator, predicting bit for bit as the saved one; for a composite file
        (:func:`register_composite`) the model it holds: an :class:`~bayesnb.Imputer`, a
        :class:`~bayesnb.Synthesizer` whose chosen model is a latent-class one (a Synthesizer
        that chose a structure saves the plain estimator, which this returns), or an
        :class:`~bayesnb.NBOutlierDetector` (its model, threshold and range tails).

    Raises
    ------
    ModelFileError
        The file is missing, truncated, corrupted, modified, over the budget, signed
        differently, from a newer format version, or not a bayesnb model. Nothing else
        is raised for any file content.
    """
    path = os.fspath(path)
    try:
        return _load(path, key, max_bytes, max_ratio)
    except MemoryError:  # the package's error, never MemoryError itself
        raise ModelFileError(f"{path}: loading the model needs more memory than is available.") from None


def _load(path, key, max_bytes, max_ratio):
    meta, arrays = read_model_file(path, key, max_bytes, max_ratio)
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(f"{path}: invalid format version {version!r}.")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: written with model format version {version} (bayesnb {meta.get('bayesnb_version')}); "
            f"this bayesnb reads up to version {FORMAT_VERSION}: upgrade bayesnb."
        )
    sums = meta["checksums"]  # read_model checked that it lists exactly the file's arrays
    for k, a in arrays.items():
        if digest(a) != sums[k]:
            raise ModelFileError(f"{path}: corrupted model file (checksum mismatch in array {k}).")
    name = meta.get("estimator")
    found = composite(name)
    dec = Decoder(arrays, max_bytes)
    try:
        model = found[2](found[0], meta, dec) if found is not None else decode_estimator(meta, dec)
    except ModelFileError as e:
        if str(e).startswith("unknown estimator"):
            raise ModelFileError(f"{path}: {e}.") from None
        raise ModelFileError(f"{path}: invalid model file ({e}).") from None
    except MemoryError:
        raise  # load says so in its own words
    except Exception as e:  # noqa: BLE001 - a hostile file must raise nothing but ModelFileError
        raise ModelFileError(
            f"{path}: invalid model file for this bayesnb ({type(e).__name__}: {str(e)[:200]})."
        ) from None
    return model


def decode_estimator(node, dec):
    """The fitted estimator of a model file's JSON tree (:func:`encode_estimator`'s), checked.

    Parameters
    ----------
    node : dict
        ``estimator``, ``params`` and ``fitted``.
    dec : Decoder

    Returns
    -------
    BaseNB

    Raises
    ------
    ModelFileError
        Anything the loader does not accept (other errors may escape: :func:`load` turns them into one).
    """
    if not isinstance(node, dict):
        raise ModelFileError("an estimator must be a JSON object")
    name = node.get("estimator")
    if isinstance(name, str):
        _import_public(name)
    cls = registry()[0].get(name) if isinstance(name, str) else None
    if cls is None:
        raise ModelFileError(f"unknown estimator {str(name)[:80]!r} in this bayesnb version")
    fitted = node["fitted"]
    params = dec(node["params"])
    if not isinstance(params, dict) or not isinstance(fitted, dict):
        raise ModelFileError("params and fitted must be JSON objects")
    post = dec(fitted["posterior"])
    if not isinstance(post, _post.NBPosterior):
        raise ModelFileError("the posterior is not an NBPosterior")
    model = cls(**_params_from_file(params))
    n_features = fitted["n_features_in"]
    names = dec(fitted["feature_names_in"])
    check_model(model, post, n_features, names)
    _set(model, "posterior_", post)
    _set(model, "_specs", [(np.asarray(b.columns), b.family) for b in post.blocks])
    _set(model, "classes_", post.classes)
    _set(model, "class_count_", post.class_count)
    _set(model, "class_log_prior_", post.class_log_prior)
    _set(model, "n_features_in_", n_features)
    if names is not None:
        _set(model, "feature_names_in_", names)
    extra = fitted.get("extra", {})
    if not isinstance(extra, dict) or not set(extra) <= set(_EXTRA_FITTED):
        raise ModelFileError(f"unknown fitted attributes {sorted(set(extra) - set(_EXTRA_FITTED))[:3]}")
    extra = {a: dec(v) for a, v in extra.items()}
    check_naive_bayes_only(model, [*extra, *(["imputer_"] if fitted.get("imputer") is not None else [])])
    check_extras(model, post, n_features, extra)
    model._set_attributes()
    for a, v in extra.items():
        _set(model, a, _from_file(a, v))
    restore = getattr(model, "_restore_fitted", None)  # state rebuilt from the extras (a structure's tables)
    if restore is not None:
        restore()
    if fitted.get("imputer") is not None:
        _set(model, "imputer_", _imputer_from_file(model, fitted["imputer"], dec))
    return model


def _imputer_from_file(model, node, dec):
    """The ``imputer_`` of a model fitted with ``fit(X, y, impute=...)``, read as an Imputer's file and checked."""
    found = composite("Imputer")
    if found is None or not isinstance(node, dict) or node.get("estimator") != "Imputer":
        raise ModelFileError("the model's imputer must be an Imputer")
    imp = found[2](found[0], node, dec)
    names = getattr(model, "feature_names_in_", None)
    if names is None or [str(c) for c in imp.columns_] != [str(c) for c in names]:
        raise ModelFileError("the model's imputer must have the model's feature columns")
    return imp
