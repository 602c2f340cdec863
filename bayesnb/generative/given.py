"""The ``given`` of conditional sampling as raw tables: which columns, a partial table, encoding, writing back.

:meth:`~bayesnb.generative.methods.GenerativeMixin.sample` with ``given=`` validates the
given values here (:func:`given_columns`), encodes them through the estimator as a table
with every other cell missing (:func:`partial_table`, :func:`encode_given`) and writes them
into the generated columns (:func:`write_given`); the draw itself is in
:mod:`bayesnb.generative.conditional`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils import is_frame, missing_mask
from .tables import dense_columns

__all__ = ["encode_given", "given_columns", "partial_table", "write_given"]


def _given_position(key, names, n_features, who) -> int:
    """Position of a ``given`` column: its name (fitted on a DataFrame) or its index (an array)."""
    if names is not None:
        if isinstance(key, str) and key in names:
            return names.index(key)
        raise ValueError(f"{who}: given has column {key!r}, which is not a feature of the model "
                         f"(its features: {names[:20]}{' ...' if len(names) > 20 else ''}).")
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)) and 0 <= key < n_features:
        return int(key)
    raise ValueError(f"{who}: given has column {key!r}; the model was fitted on an array, so a column is "
                     f"its position, an int in [0, {n_features}).")


def given_columns(given, n, n_fixed, feature_names, n_features, who):
    """Read the ``given`` of :meth:`~bayesnb.generative.GenerativeMixin.sample`.

    Parameters
    ----------
    given : dict or DataFrame
        ``{column: scalar or array-like of shape (n,)}``, or a DataFrame whose columns
        are some of the features (its rows are the rows to draw).
    n : int
        The number of rows asked for (``n_samples``, or the length of an array ``y``).
    n_fixed : bool
        Whether ``n`` is the length of an array ``y`` (then given arrays must match it).
    feature_names : array-like of str or None
        ``feature_names_in_`` (columns are named) or None (columns are positions).
    n_features : int
    who : str
        Estimator name for messages.

    Returns
    -------
    values : dict of int to Series
        Per conditioned column (its position), one value per row (missing: not conditioned).
    labels : dict of int to object
        The column as the caller named it, for messages.
    n : int
        The number of rows: the length of the array-like values, else ``n``.
    """
    if is_frame(given):
        if given.columns.duplicated().any():
            raise ValueError(f"{who}: given has duplicated columns {list(given.columns[given.columns.duplicated()])}.")
        items = [(c, given[c].reset_index(drop=True)) for c in given.columns]
    elif isinstance(given, dict):
        items = list(given.items())
    else:
        raise TypeError(f"{who}: given must be a dict {{column: value or values}} or a DataFrame; "
                        f"received {type(given).__name__}.")
    names = None if feature_names is None else [str(c) for c in feature_names]
    lengths, cols = {}, {}
    for key, v in items:
        j = _given_position(key, names, n_features, who)
        if j in cols:
            raise ValueError(f"{who}: given names column {key!r} twice.")
        if np.ndim(v) > 1:
            raise ValueError(f"{who}: given[{key!r}] must be a scalar or 1-D; received shape {np.shape(v)}.")
        if np.ndim(v) == 1:
            lengths[key] = len(v)
        cols[j] = (key, v)
    sizes = set(lengths.values())
    if len(sizes) > 1 or (sizes and n_fixed and sizes != {n}):
        raise ValueError(f"{who}: the array-like values of given must have one length (that of y when y is an "
                         f"array, {n}); received lengths {lengths}." if n_fixed else
                         f"{who}: the array-like values of given must have one length; received {lengths}.")
    if sizes and not n_fixed:
        m = sizes.pop()
        if n not in (1, m):
            raise ValueError(f"{who}: n_samples={n}, but given has {m} values per column ({lengths}): the "
                             "array-like values of given set the number of rows (leave n_samples at 1).")
        n = m
    values = {j: (v if isinstance(v, pd.Series) else pd.Series([v] * n if np.ndim(v) == 0 else list(v)))
              for j, (_, v) in cols.items()}
    return values, {j: key for j, (key, _) in cols.items()}, n


def partial_table(values, n, feature_names, n_features):
    """The table to encode: the given values in their columns, missing cells elsewhere.

    A DataFrame with the training columns when ``feature_names`` is given (each given
    column as the caller gave it, the others all None), else an (n, n_features) array:
    float when every cell is a number or missing, object otherwise.
    """
    if feature_names is not None:
        data = {name: values[j].to_numpy() if j in values and isinstance(values[j].dtype, np.dtype)
                else values[j].array if j in values else np.full(n, None, dtype=object)
                for j, name in enumerate(feature_names)}
        return pd.DataFrame(data, index=pd.RangeIndex(n))
    out = np.full((n, n_features), None, dtype=object)
    for j, v in values.items():
        out[:, j] = v.to_numpy(dtype=object)
    miss = missing_mask(out)
    if pd.api.types.infer_dtype(out[~miss], skipna=True) in ("integer", "floating", "mixed-integer-float", "empty"):
        return np.where(miss, np.nan, out).astype(float)
    out[miss] = None
    return out


def encode_given(encode, values, labels, n, feature_names, n_features, who):
    """Encode the partial table of ``given`` with the estimator's ``encode`` (that of predict).

    On an encoding error, find the first given column and value that alone fail, and
    raise the same error type naming them (with the estimator's message).
    """
    try:
        return encode(partial_table(values, n, feature_names, n_features))[1]
    except (TypeError, ValueError) as e:
        for j, v in values.items():
            for val in pd.unique(v.to_numpy(dtype=object)[~missing_mask(v.to_numpy(dtype=object))]):
                try:
                    encode(partial_table({j: pd.Series([val], dtype=v.dtype)}, 1, feature_names, n_features))
                except (TypeError, ValueError) as one:
                    raise type(e)(f"{who}: given value {val!r} of column {labels[j]!r} is not valid for it: "
                                  f"{one}") from None
        raise


def write_given(columns, values):
    """Generated raw columns with the given (non-missing) values written into their cells.

    Each value goes in as given, in the generated column's dtype where it holds the
    value exactly (else the column becomes object).
    """
    out = dense_columns(columns)
    for j, v in values.items():
        raw = v.to_numpy(dtype=object)
        keep = ~missing_mask(raw)
        if not keep.any():
            continue
        col = np.array(out[j], copy=True)
        try:
            cast = np.asarray(raw[keep].tolist(), dtype=col.dtype)
            exact = col.dtype != object and bool(np.all(cast == raw[keep]))
        except (TypeError, ValueError, OverflowError):
            exact = False
        if not exact:
            col, cast = col.astype(object), raw[keep]
        col[keep] = cast
        out[j] = col
    return out
