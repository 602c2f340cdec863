"""Range tails of an outlier score: what leaving a numeric column's training range costs.

A model's density can be generous beyond the values it was fitted on (a LogNormal fitted to a column
with a long right tail puts a value 10% of the range past the largest at a fraction of a nat below it).
:class:`~bayesnb.NBOutlierDetector` adds to each row's ``log p(x)`` the log survival of an exponential
fitted to the most extreme training values of each column its model scores with an ordered numeric
family (:func:`ordered_columns`: ``Family.ordered_support``) (the peaks-over-threshold limit, as a
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

from ..io import dask_data as _dask
from .._utils import is_numeric_column

__all__ = ["RangeTails", "fit_range_tails", "numeric_columns", "ordered_columns", "range_tail_costs"]


class RangeTails(NamedTuple):
    """The numeric columns' training ranges and tail scales, one entry per column of ``X``.

    Attributes
    ----------
    lo, hi : ndarray of shape (d,)
        The smallest and largest training value (NaN for a column without a range: not chosen, or
        fewer than two distinct values).
    below, above : ndarray of shape (d,)
        The exponential tails' scales beyond ``lo`` and ``hi`` (> 0; NaN where ``lo`` is).
    """

    lo: np.ndarray
    hi: np.ndarray
    below: np.ndarray
    above: np.ndarray


def numeric_columns(X) -> np.ndarray:
    """Which columns of ``X`` hold numbers by their dtype (a DataFrame's numeric, non-boolean columns;
    every column of a numeric array), as a boolean mask."""
    if isinstance(X, pd.DataFrame):
        return np.array([is_numeric_column(X[c]) for c in X.columns], dtype=bool)
    A = np.asarray(X)
    return np.full(A.shape[1] if A.ndim == 2 else 0, A.dtype.kind in "iuf")


def ordered_columns(model, n_features: int) -> np.ndarray:
    """Which columns the fitted ``model`` scores with a family of ordered numeric support.

    Parameters
    ----------
    model : fitted bayesnb estimator
        Its ``posterior_.blocks`` say each column's family (``Family.ordered_support``).
    n_features : int

    Returns
    -------
    ndarray of shape (n_features,) of bool
        True for a column of a Gaussian, LogNormal, Histogram or Poisson block (or a hurdle on
        one); False for categories, binary values and token counts, even when numerically coded.
    """
    ordered = [c for b in model.posterior_.blocks if b.family.ordered_support for c in b.columns]
    return np.isin(np.arange(n_features), ordered)


def _scoring_column(X, j: int, who: str) -> np.ndarray:
    """Column ``j`` of ``X`` as float64, whatever its dtype (a column that gets or got a range)."""
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
        raise ValueError(f"{who}: column {name!r} is scored with range tails (numeric at fit) and must hold "
                         f"numbers (or missing cells); received dtype {col.dtype} ({err}).") from None
    return pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan)


def fit_range_tails(X, sample_weight=None, columns=None) -> RangeTails | None:
    """The :class:`RangeTails` of the training rows ``X`` (rows of weight 0 left out).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        The training rows; sparse input gets no tails.
    sample_weight : array-like of shape (n_samples,), optional
    columns : array-like of shape (n_features,) of bool, optional
        The columns that get a range (:func:`ordered_columns` of the fitted model: the detector's
        choice), read as numbers whatever their dtype; None: the columns numeric by their dtype
        (:func:`numeric_columns`).

    Returns
    -------
    RangeTails, or None when no column gets a range (or ``X`` is sparse or a Dask collection).

    Raises
    ------
    ValueError
        A column of ``columns`` holding a value that is not a number.

    Notes
    -----
    The values are distinct, so each side's excesses are positive and its scale too. A column with
    fewer than two distinct values gets no range (its values say nothing of a scale in any units):
    its cells are costed by the model's density alone.
    """
    if sp.issparse(X) or _dask.is_dask(X):
        return None
    chosen = numeric_columns(X) if columns is None else np.asarray(columns, dtype=bool)
    if not chosen.any():
        return None
    keep = None if sample_weight is None else np.asarray(sample_weight, dtype=float) > 0
    lo, hi, below, above = (np.full(chosen.size, np.nan) for _ in range(4))
    for j in np.flatnonzero(chosen):
        col = _scoring_column(X, int(j), "NBOutlierDetector.fit")
        v = col if keep is None else col[keep]
        v = np.unique(v[np.isfinite(v)])
        if v.size < 2:
            continue
        k = min(v.size, max(2, int(np.ceil(np.sqrt(v.size)))))
        lo[j], hi[j] = v[0], v[-1]
        below[j], above[j] = np.mean(v[k - 1] - v[:k - 1]), np.mean(v[-(k - 1):] - v[-k])
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
        0 inside the range, for a missing cell and for a column without a range, ``inf`` for an infinite
        value; None when ``tails`` is None or ``X`` is sparse or a Dask collection (scored by the model
        alone).

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
        t = t_lo + t_hi
        out[:, j] = np.where(np.isnan(t), 0.0, t)  # missing: 0; an infinite value: an infinite cost
    return out
