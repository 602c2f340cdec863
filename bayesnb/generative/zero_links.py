"""Zero links: a column that is 0 wherever another is 0, recorded at fit and kept by imputation.

``fit`` records, among the numeric columns of its (dense) training table, every ordered pair
``(target, source)`` such that ``target`` is exactly 0 on every row where ``source`` is 0 (at least
:data:`MIN_ZERO_ROWS` such rows, both cells observed) while ``target`` is 0 on at most half of the
rows where ``source`` is not (a zero tenure means zero charges, and not every customer has zero
charges): the model's ``zero_links_``, saved in model files. A model whose features are
independent given the class cannot keep such a link; ``impute`` then writes 0 into a missing
``target`` cell wherever the row's ``source`` is 0, observed or imputed (:func:`keep_zero_links`).
:func:`bayesnb.criticism.checks.deterministic_relations` reports the same links (with a ``share``
below 1 if asked) and the sums and products that no imputation keeps yet.

Like the value records (:mod:`bayesnb.generative.values`), nothing is recorded under ``privacy=``
or for sparse or Dask data; a ``partial_fit`` batch keeps the links that it does not contradict.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._utils import is_frame, is_numeric_column, missing_mask

__all__ = ["MIN_ZERO_ROWS", "check_zero_links", "keep_zero_links", "numeric_columns", "zero_links"]

#: fewest rows where the source is 0 (and the target observed) for a link to be recorded
MIN_ZERO_ROWS = 10


def _object_floats(col):
    """An object column's values as float64 (None, ``pd.NA`` and NaN missing), or None when a cell is not a number."""
    try:
        return pd.Series(col, copy=False).to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        return None


def numeric_columns(X):
    """``(positions, get)``: the numeric, non-boolean columns of a dense table and ``get(j, rows=None)``,
    column ``j``'s values as float64 (NaN missing), of the rows ``rows`` (indices) only when given, read
    one column at a time (never a whole copy of ``X``).

    Numeric columns: those of a numeric, non-boolean dtype, and object columns whose every cell is a
    number or missing (None, ``pd.NA``, NaN), as the estimators read them.
    """
    if is_frame(X):
        cols = [X.iloc[:, j] for j in range(X.shape[1])]
    else:
        A = np.asarray(X)
        if A.ndim != 2 or (A.dtype.kind not in "iuf" and A.dtype != object):
            return [], None
        cols = [A[:, j] for j in range(A.shape[1])]

    def get(j, rows=None):
        c = cols[j]
        if rows is not None:
            c = c.iloc[rows] if is_frame(X) else c[rows]
        if getattr(c, "dtype", None) == object:
            return _object_floats(c)
        if is_frame(X) and c.dtype == np.float64:  # NaN marks missing already: the column itself, read-only
            v = c.to_numpy().view()
            v.flags.writeable = False
            return v
        return c.to_numpy(dtype=float, na_value=np.nan) if is_frame(X) else c.astype(float)

    pos = [j for j, c in enumerate(cols)
           if (is_numeric_column(c) if c.dtype != object else _object_floats(c) is not None)]
    return pos, get


def zero_links(X, min_rows=MIN_ZERO_ROWS, zeros=None):
    """The zero links of a table: a list of ``(target, source)`` column positions (see the module docstring).

    Only columns with at least ``min_rows`` zeros can be sources; every other column is first read at
    a source's first zero rows (most pairs fail there), and the pairs left are counted together: the
    table is read a block of rows at a time and the four counts of every pair (source 0 or not,
    target 0 or not) are one matrix product per block. The memory is a few blocks', not the
    table's, and a wide table costs a product, not a pass per pair of columns.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
        Missing cells NaN/None/``pd.NA``; non-numeric and boolean columns are ignored.
    min_rows : int, default=MIN_ZERO_ROWS
    zeros : ndarray of int, shape (n_features,), optional
        Each column's count of zeros, when counted already (a float table's
        :func:`~bayesnb.generative._column_scan.scan_columns`); None: counted here.

    Returns
    -------
    list of (int, int)
        Ordered by source, then target (column order).
    """
    pos, get = numeric_columns(X)
    block, n = _block_reader(X, get), X.shape[0]
    pos = np.asarray(pos, dtype=np.intp)
    held_first = {}  # source -> the other columns that are 0 (or missing) on its first zero rows
    for i in range(pos.size):
        if (np.count_nonzero(get(pos[i]) == 0) if zeros is None else zeros[pos[i]]) < min_rows:
            continue
        first = np.flatnonzero(get(pos[i], np.arange(min(n, _HEAD_ROWS))) == 0)[:64]  # (its head only)
        held = np.flatnonzero(~_nonzero_at(block(pos, first)))
        if (held := held[held != i]).size:  # most pairs fail there: only the others are counted
            held_first[i] = held
    sources = np.fromiter(held_first, dtype=np.intp)
    out = []
    step = max(1, _BLOCK_CELLS // (4 * max(pos.size, 1)))  # (no numeric column: no source)
    for b in range(0, sources.size, step):
        src = sources[b:b + step]
        targets = np.unique(np.concatenate([held_first[i] for i in src]))
        zz, zn, nz, nn = _pair_counts(block, pos[src], pos[targets], n)
        # the target is 0 on >= min_rows of the source's zero rows and observed non-0 on none, and 0 on at
        # most half (nz <= nn) of the rows where both are observed and the source is not 0
        held = (zn == 0) & (zz >= min_rows) & (nz <= nn) & (src[:, None] != targets[None, :])
        out.extend((int(pos[targets[k]]), int(pos[src[a]])) for a, k in zip(*np.nonzero(held)))
    return out


def _pair_counts(block, src, tgt, n):
    """Rows where (source 0, target 0), (0, observed non-0), (observed non-0, 0), (non-0, non-0): four
    int64 arrays of shape ``(len(src), len(tgt))``, from blocks of rows (float32 products are exact
    while a block holds fewer than 2**24 rows)."""
    rows = max(1, _BLOCK_CELLS // (src.size + tgt.size))
    acc = np.zeros((2 * src.size, 2 * tgt.size), dtype=np.int64)
    for r in range(0, n, rows):
        S, T = block(src, slice(r, r + rows)), block(tgt, slice(r, r + rows))
        L = np.hstack([S == 0, ~np.isnan(S) & (S != 0)]).astype(np.float32)
        R = np.hstack([T == 0, ~np.isnan(T) & (T != 0)]).astype(np.float32)
        acc += (L.T @ R).astype(np.int64)
    s, t = src.size, tgt.size
    return acc[:s, :t], acc[:s, t:], acc[s:, :t], acc[s:, t:]


#: rows of a source column searched first for its first zeros
_HEAD_ROWS = 4096
#: cells of a block read at once (float64: 8 MiB)
_BLOCK_CELLS = 1 << 20


def _block_reader(X, get):
    """``block(cols, rows)``: columns ``cols`` (positions) at rows ``rows`` (indices or a slice) as a float64
    array with a column per entry of ``cols``, NaN missing: a numeric ndarray's rows at once, else column by column."""
    if not is_frame(X):
        A = np.asarray(X)
        if A.dtype.kind in "iuf":
            def read(cols, rows):
                B = A[rows]  # a run of columns (all of them, usually) is a slice: faster than picking each
                run = len(cols) and cols[-1] - cols[0] == len(cols) - 1 and np.all(np.diff(cols) == 1)
                return (B[:, cols[0]:cols[-1] + 1] if run else B[:, cols]).astype(float)
            return read
    return lambda cols, rows: (np.column_stack([get(j, rows) for j in cols]) if len(cols)
                               else np.empty((len(np.arange(X.shape[0])[rows]), 0)))


def _nonzero_at(cells):
    """Whether any of ``cells`` is observed and not 0 (per column of a 2-D block)."""
    return np.any(~np.isnan(cells) & (cells != 0), axis=0)


def _contradicted(X, links):
    """The links of ``links`` that a row of ``X`` breaks (its source 0, its target observed and not 0)."""
    pos, get = numeric_columns(X)
    pos = set(pos)
    out = set()
    for t, s in links:
        if t in pos and s in pos:
            xs, xt = get(s), get(t)
            if np.any((xs == 0) & ~np.isnan(xt) & (xt != 0)):
                out.add((t, s))
    return out


def record_zero_links(est, X, partial, zeros=None):
    """Set ``est.zero_links_`` from the training rows ``X``.

    Parameters
    ----------
    est : fitted estimator
        Gets (or updates) ``zero_links_``.
    X : ndarray or DataFrame of shape (n_samples, n_features)
        The training rows of this call.
    partial : bool
        A ``partial_fit`` batch: keep the recorded links that ``X`` does not break (a first batch
        records none, so no link is invented from a later batch alone).
    zeros : optional
        As in :func:`zero_links`.
    """
    if partial:
        if hasattr(est, "zero_links_"):
            est.zero_links_ = [link for link in est.zero_links_ if link not in _contradicted(X, est.zero_links_)]
        return
    est.zero_links_ = zero_links(X, zeros=zeros)


def keep_zero_links(table, X, links, missing=None):
    """``table`` (a completed copy of ``X``) with 0 in each imputed target cell whose row's source is 0.

    Parameters
    ----------
    table : ndarray or DataFrame
        The completed table (a new object: it is changed in place).
    X : ndarray or DataFrame
        The table before imputation (its missing cells are the imputed ones).
    links : list of (int, int) or None
        ``(target, source)`` column positions (the model's ``zero_links_``); None or empty: unchanged.
    missing : ndarray of bool, shape (n, d), optional
        The imputed cells as the caller's encoding found them; None: read from ``X``.

    Returns
    -------
    table
    """
    if not links or not hasattr(table, "shape") or len(getattr(table, "shape", ())) != 2 or not hasattr(X, "shape"):
        return table
    miss = missing if missing is not None else missing_mask(X) if not sp.issparse(X) else None
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
