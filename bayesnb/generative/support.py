"""Cells outside their family's support: scored as impossible, not refused.

``predict`` and ``predict_proba`` refuse a row with a value its family cannot produce (a
negative count under Poisson, a value <= 0 under LogNormal, 34 in a 0/1 Bernoulli column),
naming the rows and the column: the class posterior of an impossible row is undefined. An
outlier score has an answer for it: ``log p(x) = -inf``. :func:`blank_impossible` asks each
block's family (:meth:`~bayesnb.families._contract.Family.out_of_support`) which cells those are
and makes them missing, so the other rows are scored as before; :func:`impossible_rows` and
:func:`impossible_cells` then mark the rows and cells ``-inf``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ..io import dask_data as _dask
from .._utils import is_frame

__all__ = ["blank_impossible", "impossible_cells", "impossible_rows"]


def blank_impossible(model, X):
    """``(X', mask)``: ``X`` with the cells outside their family's support made missing.

    Parameters
    ----------
    model : BaseNB
        A fitted estimator.
    X : array-like or DataFrame of shape (n_samples, n_features)

    Returns
    -------
    X : the checked ``X`` (a copy with those cells missing), or ``X`` itself when there are none
    mask : ndarray of bool, shape (n_samples, n_features), or None
        The cells outside their family's support; None when there are none (or for sparse
        and Dask input, whose families check nothing here).
    """
    if _dask.is_dask(X) or sp.issparse(X):
        return X, None
    check_is_fitted(model, "posterior_")
    checked = model._check_X(X, reset=False)
    if sp.issparse(checked):
        return X, None
    mask = None
    for b in model.posterior_.blocks:
        try:
            bad = b.family.out_of_support(model._take(checked, b.columns, b.family), b.state)
        except (TypeError, ValueError):  # malformed input: the scoring call raises with its own message
            return X, None
        if bad is not None and bad.any():
            mask = np.zeros(checked.shape, dtype=bool) if mask is None else mask
            mask[:, np.asarray(b.columns)] |= bad
    if mask is None:
        return X, None
    if is_frame(checked):
        out = checked.copy()
        for j in np.flatnonzero(mask.any(axis=0)):
            out.isetitem(int(j), out.iloc[:, j].mask(mask[:, j]))
        return out, mask
    out = checked.astype(float if checked.dtype.kind in "biuf" else object)  # a copy
    out[mask] = np.nan if out.dtype.kind == "f" else None
    return out, mask


def impossible_rows(scores, mask):
    """``scores`` (n,) with ``-inf`` on the rows that hold a cell of ``mask`` (None: unchanged)."""
    return scores if mask is None else np.where(mask.any(axis=1), -np.inf, scores)


def impossible_cells(contributions, mask, like=None):
    """Per-feature contributions (n, d) with ``-inf`` on the cells of ``mask`` (None: unchanged);
    a DataFrame with the columns and index of ``like`` when it is one (the rows scored)."""
    out = contributions if mask is None else np.where(mask, -np.inf, contributions)
    return pd.DataFrame(out, columns=like.columns, index=like.index) if is_frame(like) else out
