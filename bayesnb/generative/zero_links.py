"""Zero links: a column that is 0 wherever another is 0, recorded at fit and kept by imputation.

``fit`` records, among the numeric columns of its (dense) training table, every ordered pair
``(target, source)`` such that ``target`` is exactly 0 on every row where ``source`` is 0 (at least
:data:`MIN_ZERO_ROWS` such rows, both cells observed) while ``target`` is 0 on at most half of the
rows where ``source`` is not (a zero tenure means zero charges, and not every customer has zero
charges): the model's ``zero_links_``, saved in model files. A model whose features are
independent given the class cannot keep such a link; ``impute`` then writes 0 into a missing
``target`` cell wherever the row's ``source`` is 0, observed or imputed (:func:`keep_zero_links`).
:func:`bayesnb.criticism.deterministic_relations` reports the same links (with a ``share``
below 1 if asked) and the sums and products that no imputation keeps yet.

Like the value records (:mod:`bayesnb.generative.values`), nothing is recorded under ``privacy=``
or for sparse or Dask data; a ``partial_fit`` batch keeps the links that it does not contradict.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._utils import is_frame, is_numeric_column, missing_mask

__all__ = ["MIN_ZERO_ROWS", "check_zero_links", "keep_zero_links", "zero_links"]

#: fewest rows where the source is 0 (and the target observed) for a link to be recorded
MIN_ZERO_ROWS = 10


def _numeric(X):
    """``(positions, (n, d) float array)`` of the numeric, non-boolean columns of ``X``."""
    if is_frame(X):
        pos = [j for j in range(X.shape[1]) if is_numeric_column(X.iloc[:, j])]
        cols = [X.iloc[:, j].to_numpy(dtype=float, na_value=np.nan) for j in pos]
        return pos, (np.column_stack(cols) if cols else np.zeros((X.shape[0], 0)))
    A = np.asarray(X)
    if A.ndim != 2 or A.dtype.kind not in "iuf":
        return [], np.zeros((A.shape[0] if A.ndim else 0, 0))
    return list(range(A.shape[1])), A.astype(float)


def zero_links(X, min_rows=MIN_ZERO_ROWS):
    """The zero links of a table: a list of ``(target, source)`` column positions (see the module docstring).

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
        Missing cells NaN/None/``pd.NA``; non-numeric and boolean columns are ignored.
    min_rows : int, default=MIN_ZERO_ROWS

    Returns
    -------
    list of (int, int)
    """
    pos, A = _numeric(X)
    obs, zero = ~np.isnan(A), A == 0
    out = []
    for s in range(A.shape[1]):
        for t in range(A.shape[1]):
            both = obs[:, s] & obs[:, t]
            at, rest = both & zero[:, s], both & ~zero[:, s]
            if (s != t and at.sum() >= min_rows and zero[at, t].all()
                    and (not rest.any() or zero[rest, t].mean() <= 0.5)):
                out.append((pos[t], pos[s]))
    return out


def _contradicted(X, links):
    """The links of ``links`` that a row of ``X`` breaks (its source 0, its target observed and not 0)."""
    A = np.full(X.shape, np.nan)
    pos, B = _numeric(X)
    A[:, pos] = B
    return {(t, s) for t, s in links if np.any((A[:, s] == 0) & ~np.isnan(A[:, t]) & (A[:, t] != 0))}


def record_zero_links(est, X, partial):
    """Set ``est.zero_links_`` from the training rows ``X`` (``partial``: keep the old links ``X`` does not break)."""
    if partial:
        if hasattr(est, "zero_links_"):
            est.zero_links_ = [link for link in est.zero_links_ if link not in _contradicted(X, est.zero_links_)]
        return
    est.zero_links_ = zero_links(X)


def keep_zero_links(table, X, links):
    """``table`` (a completed copy of ``X``) with 0 in each imputed target cell whose row's source is 0.

    Parameters
    ----------
    table : ndarray or DataFrame
        The completed table (a new object: it is changed in place).
    X : ndarray or DataFrame
        The table before imputation (its missing cells are the imputed ones).
    links : list of (int, int) or None
        ``(target, source)`` column positions (the model's ``zero_links_``); None or empty: unchanged.

    Returns
    -------
    table
    """
    if not links or not hasattr(table, "shape") or len(getattr(table, "shape", ())) != 2 or not hasattr(X, "shape"):
        return table
    miss = missing_mask(X) if not sp.issparse(X) else None
    if miss is None or miss.shape != tuple(table.shape):
        return table
    for t, s in links:
        src = table.iloc[:, s] if is_frame(table) else table[:, s]
        rows = miss[:, t] & (np.asarray(src == 0, dtype=bool))
        if rows.any():
            if is_frame(table):
                table.iloc[np.flatnonzero(rows), t] = 0
            else:
                table[rows, t] = 0
    return table


def check_zero_links(value, n_features):
    """The links read from a model file, checked: a list of distinct ``(target, source)`` positions."""
    if not isinstance(value, list | tuple):
        raise ValueError("zero_links_ must be a list")
    out = []
    for link in value:
        if (not isinstance(link, list | tuple) or len(link) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n_features for v in link)
                or link[0] == link[1]):
            raise ValueError(f"zero_links_ holds a bad link {str(link)[:40]}")
        out.append((int(link[0]), int(link[1])))
    return out
