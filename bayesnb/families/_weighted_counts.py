"""Weighted counts of codes per state: the soft-responsibility statistics of the code-based families.

``np.bincount(codes, weights=resp[:, k])`` once per state ``k`` reads a strided column of
``resp`` each time; EM with many latent states (a latent-class model of C components per
class has ``n_classes * C``) spends most of its M-step there. :func:`code_counts` does the same
sums as one sparse-times-dense product: a (V, n) indicator matrix of the codes times
``resp``, which reads ``resp`` row by row. Each output entry is the sum of the same weights in
the same row order as the bincount's, multiplied by 1.0, so the results are equal.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["code_counts", "code_counts_columns"]


def code_counts(codes, resp, V):
    """The (K, V) weighted count of each code: ``out[k, v] = sum(resp[i, k] for i with codes[i] == v)``.

    Parameters
    ----------
    codes : ndarray of int, shape (n,)
        Codes; those outside ``[0, V)`` (missing, unseen) are left out.
    resp : ndarray of shape (n, K)
        Weight of each row per state.
    V : int
        Number of codes.

    Returns
    -------
    ndarray of shape (K, V)
    """
    n, K = resp.shape
    if n == 0 or K == 0 or V == 0:
        return np.zeros((K, V))
    ok = (codes >= 0) & (codes < V)
    indptr = np.concatenate([[0], np.cumsum(ok, dtype=np.intp)])
    keep = codes[ok].astype(np.intp, copy=False)
    indicator = sp.csr_matrix((np.ones(keep.size), keep, indptr), shape=(n, V))
    return np.ascontiguousarray((indicator.T.tocsr() @ np.ascontiguousarray(resp, dtype=float)).T)


def code_counts_columns(codes, resp, sizes):
    """:func:`code_counts` of every column of ``codes`` at once: one sparse product for all columns.

    The (sum V_j, n) indicator has code ``v`` of column ``j`` as row ``offset_j + v``, its rows'
    entries in increasing row order ``i`` (a stable conversion from coordinates listed column by
    column, rows increasing), as :func:`code_counts`' transposed indicator has them; each output entry
    is therefore the same sum in the same order, and equal to :func:`code_counts`' bit for bit.

    Parameters
    ----------
    codes : ndarray of int, shape (n, d)
        Codes per column; those outside ``[0, V_j)`` are left out.
    resp : ndarray of shape (n, K)
        Weight of each row per state.
    sizes : sequence of int
        ``V_j``, the number of codes of each column.

    Returns
    -------
    tuple of ndarray
        Per column, the (K, V_j) weighted count of each code.
    """
    n, K = resp.shape
    sizes = [int(v) for v in sizes]
    if n == 0 or K == 0 or not sizes or min(sizes) == 0:
        return tuple(code_counts(codes[:, j], resp, V) for j, V in enumerate(sizes))
    offset = np.concatenate([[0], np.cumsum(sizes)])
    rows, cols = [], []
    for j, V in enumerate(sizes):
        c = codes[:, j]
        keep = np.flatnonzero((c >= 0) & (c < V))
        rows.append(c[keep].astype(np.intp) + offset[j])
        cols.append(keep)
    rows, cols = np.concatenate(rows), np.concatenate(cols).astype(np.intp, copy=False)
    indicator = sp.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(int(offset[-1]), n)).tocsr()
    out = np.ascontiguousarray((indicator @ np.ascontiguousarray(resp, dtype=float)).T)
    return tuple(np.ascontiguousarray(out[:, offset[j]:offset[j + 1]]) for j in range(len(sizes)))
