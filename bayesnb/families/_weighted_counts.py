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

__all__ = ["code_counts"]


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
