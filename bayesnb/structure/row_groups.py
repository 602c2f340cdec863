"""Grouping the rows of an imputation or a draw: each distinct row once, and pieces of bounded size.

:func:`~bayesnb.structure.exact_impute.draw_rows` draws repeated rows (the conditional median's
draws) from one set of factors per distinct row, and :func:`~bayesnb.structure.exact_impute.impute_nodes`
draws a large table in pieces of at most a chunk of distinct rows, copies of a row in one piece.
"""

from __future__ import annotations

import numpy as np

from ._logdraw import _row_hash, distinct_rows, float_bits
from .columns import _rows

__all__ = ["distinct_data_rows", "draw_windows", "row_key"]


def row_key(data, logw):
    """One float row per data row (its values, missing mask, states and class weights), or None when a
    node's block is not one array."""
    cols, miss, states = data
    n = miss.shape[0]
    if any(isinstance(c, tuple) or np.ndim(c) not in (1, 2) or np.shape(c)[0] != n for c in cols):
        return None
    with np.errstate(invalid="ignore"):
        vals = [np.nan_to_num(np.asarray(c, dtype=float).reshape(n, -1), nan=0.0) for c in cols]
    return np.column_stack([miss, states.astype(float), np.nan_to_num(logw, neginf=-np.finfo(float).max), *vals])


def distinct_data_rows(data, logw):
    """``(first, inverse)``: one index per distinct row of ``data`` and ``logw`` (its values, missing mask,
    states and class weights alike) and each row's distinct row; None when a node's block is not one
    array (nothing merged)."""
    key = row_key(data, logw)
    if key is None:
        return None
    return distinct_rows(key)


def draw_windows(data, logw, chunk, key_rows):
    """Row indices of the pieces a large ``"draw"`` is drawn in: copies of a row in one piece, at most
    ``chunk`` distinct rows (and about ``16 * chunk`` rows) a piece; None when a block is not one
    array. Rows are grouped by a hash of their key, built ``key_rows`` rows at a time (bounded memory);
    a collision only joins two rows' groups (each piece merges its exact repeats,
    :func:`~bayesnb.structure.exact_impute.draw_rows`)."""
    n = data[1].shape[0]
    h = np.zeros(n, dtype=np.uint64)
    for a in range(0, n, key_rows):
        part = slice(a, a + key_rows)
        key = row_key((tuple(_rows(c, part) for c in data[0]), data[1][part], data[2][part]), logw[part])
        if key is None:
            return None
        h[part] = _row_hash(float_bits(key))
    order = np.argsort(h, kind="stable")
    hs = h[order]
    starts = np.flatnonzero(np.r_[True, hs[1:] != hs[:-1]])  # each group's first position in ``order``
    g = np.arange(starts.size)
    block = starts // (16 * chunk)
    cut = starts[(g % chunk == 0) | np.r_[True, block[1:] != block[:-1]]]
    return np.split(order, cut[1:])
