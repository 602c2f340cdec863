"""Range tails of an outlier score: what leaving a numeric column's training range costs, whatever the family.

A model's density can be generous beyond the values it was fitted on (a LogNormal fitted to a column
with a long right tail puts a value 10% of the range past the largest at a fraction of a nat below it).
:class:`~bayesnb.NBOutlierDetector` adds to each row's ``log p(x)`` the log survival of an exponential
fitted to each column's most extreme training values (the peaks-over-threshold limit, as a
Histogram's own tails)::

    cost(x_j) = t / s_side     t: how far x_j lies beyond the training minimum or maximum (0 inside)

``s_side`` is the mean excess of the ``k - 1`` most extreme distinct training values of that side over
the ``k``-th, ``k = max(2, ceil(sqrt(m)))`` of the column's ``m`` distinct values (distinct, so that a
row's weight and its repetition give the same tails). The cost is 0 at the edge and grows linearly
with the distance, in the units in which the column thins out towards its extremes: a clean row a
little beyond the range pays little, a value far beyond it a lot. It is a term of the outlier score,
not of a density: the model's ``log p(x)`` is unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import _num_samples

from .. import _dask
from .._utils import is_numeric_column

__all__ = ["RangeTails", "fit_range_tails", "range_tail_costs"]


class RangeTails(NamedTuple):
    """The numeric columns' training ranges and tail scales, one entry per column of ``X``.

    Attributes
    ----------
    lo, hi : ndarray of shape (d,)
        The smallest and largest training value (NaN for a column that is not numeric or has no value).
    below, above : ndarray of shape (d,)
        The exponential tails' scales beyond ``lo`` and ``hi`` (> 0; NaN where ``lo`` is).
    """

    lo: np.ndarray
    hi: np.ndarray
    below: np.ndarray
    above: np.ndarray


def _fit_columns(X) -> list:
    """Per column, its training values as float64, or None when it gets no tail (not numeric: strings,
    categories, booleans)."""
    if isinstance(X, pd.DataFrame):
        return [X[c].to_numpy(dtype=np.float64, na_value=np.nan) if is_numeric_column(X[c]) else None
                for c in X.columns]
    A = np.asarray(X)
    if A.ndim != 2:
        return []
    if A.dtype.kind in "iuf":
        return [A[:, j].astype(np.float64) for j in range(A.shape[1])]
    return [None] * A.shape[1]


def _scoring_column(X, j: int, who: str) -> np.ndarray:
    """Column ``j`` of the scored rows as float64, whatever its dtype (the column got a tail at fit)."""
    if isinstance(X, pd.DataFrame):
        col, name = X.iloc[:, j], X.columns[j]
    else:
        A = np.asarray(X)
        col, name = pd.Series(A[:, j] if A.ndim == 2 else A), j
    if is_numeric_column(col):
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    try:
        values = pd.to_numeric(col.astype(object), errors="raise")
    except (TypeError, ValueError) as err:
        raise ValueError(f"{who}: column {name!r} was numeric at fit (its training range has tails) and must hold "
                         f"numbers (or missing cells) when scored; received dtype {col.dtype} ({err}).") from None
    return pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan)


def _scale(excess: np.ndarray, fallback: float) -> float:
    s = float(np.mean(excess)) if excess.size else 0.0
    return s if s > 0 and np.isfinite(s) else fallback


def fit_range_tails(X, sample_weight=None) -> RangeTails | None:
    """The :class:`RangeTails` of the training rows ``X`` (rows of weight 0 left out).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        Numeric columns (a DataFrame's numeric, non-boolean columns; every column of a numeric array)
        get a range; others, and sparse input, none.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    RangeTails, or None when no column is numeric (or ``X`` is sparse or a Dask collection).

    Notes
    -----
    A column with one distinct value has scale ``max(|value|, 1)`` on both sides; a side whose
    ``k - 1`` most extreme values equal the ``k``-th, the range ``hi - lo``.
    """
    if sp.issparse(X) or _dask.is_dask(X):
        return None
    columns = _fit_columns(X)
    if not any(c is not None for c in columns):
        return None
    keep = None if sample_weight is None else np.asarray(sample_weight, dtype=float) > 0
    d = len(columns)
    lo, hi, below, above = (np.full(d, np.nan) for _ in range(4))
    for j, col in enumerate(columns):
        if col is None:
            continue
        v = col if keep is None else col[keep]
        v = np.unique(v[np.isfinite(v)])
        if v.size == 0:
            continue
        lo[j], hi[j] = v[0], v[-1]
        if v.size == 1:
            below[j] = above[j] = max(abs(float(v[0])), 1.0)
            continue
        k = min(v.size, max(2, int(np.ceil(np.sqrt(v.size)))))
        span = float(v[-1] - v[0])
        below[j] = _scale(v[k - 1] - v[:k - 1], span)
        above[j] = _scale(v[-(k - 1):] - v[-k], span)
    return RangeTails(lo, hi, below, above)


def range_tail_costs(tails: RangeTails | None, X, who: str = "NBOutlierDetector") -> np.ndarray | None:
    """Each cell's cost of lying beyond its column's training range, ``t / s``.

    Parameters
    ----------
    tails : RangeTails or None
        From :func:`fit_range_tails`; the columns with a range there (``lo`` not NaN) are costed, whatever
        their dtype in ``X`` (an object column of numbers is read as numbers).
    X : array-like or DataFrame of shape (n_samples, n_features)
        The scored rows, the training columns in their order.
    who : str
        The caller, named in errors.

    Returns
    -------
    ndarray of shape (n_samples, n_features) or None
        0 inside the range, for a missing cell and for a column without a range; None when ``tails``
        is None or ``X`` is sparse or a Dask collection (scored by the model alone).

    Raises
    ------
    ValueError
        A costed column holding a value that is not a number.
    """
    if tails is None or sp.issparse(X) or _dask.is_dask(X):
        return None
    out = np.zeros((_num_samples(X), len(tails.lo)))
    for j in np.flatnonzero(~np.isnan(tails.lo)):
        col = _scoring_column(X, int(j), who)
        with np.errstate(invalid="ignore"):
            t_lo = np.where(col < tails.lo[j], (tails.lo[j] - col) / tails.below[j], 0.0)
            t_hi = np.where(col > tails.hi[j], (col - tails.hi[j]) / tails.above[j], 0.0)
        out[:, j] = np.nan_to_num(t_lo + t_hi, nan=0.0)
    return out
