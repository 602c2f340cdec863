"""Generation helpers of :class:`~bayesnb.families.multinomial.Multinomial`: token sampling, count filling and document-length rates."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["fill_missing_counts", "length_rate", "sample_tokens"]


def sample_tokens(theta, z, lengths, rng):
    """Counts, a CSR matrix (n, d): row i has ``lengths[i]`` tokens drawn from ``theta[z[i]]``.

    Exactly ``Multinomial(lengths[i], theta[z[i]])``; see :meth:`Multinomial.gen_sample`.

    Parameters
    ----------
    theta : ndarray of shape (K, d)
        Normalised rows (each sums to 1).
    z : ndarray of int, shape (n,)
        Class of each row.
    lengths : array-like of int, shape (n,)
        Tokens per row.
    rng : numpy.random.Generator

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, d)
    """
    n, d = z.shape[0], theta.shape[1]
    lengths = np.asarray(lengths, dtype=np.int64)
    rows_out, cols_out = [], []
    for k in np.unique(z):
        cdf = np.cumsum(theta[k])
        cdf /= cdf[-1]
        rows = np.flatnonzero(z == k)
        ends = np.cumsum(lengths[rows])
        start = 0
        while start < rows.size:
            stop = max(start + 1, int(np.searchsorted(ends, ends[start] - lengths[rows[start]] + 2**22, "right")))
            chunk = rows[start:stop]
            tokens = np.minimum(np.searchsorted(cdf, rng.random(int(lengths[chunk].sum())), side="right"), d - 1)
            rows_out.append(np.repeat(chunk, lengths[chunk]))
            cols_out.append(tokens)
            start = stop
    if not rows_out:
        return sp.csr_matrix((n, d))
    r, c = np.concatenate(rows_out), np.concatenate(cols_out)
    out = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, d))
    out.sum_duplicates()
    return out


def fill_missing_counts(theta, block, resp, strategy, z, rng, rate):
    """The block's counts with its missing cells filled from ``Poisson(rate[k] theta[k, j])``.

    See :meth:`Multinomial.gen_fill`.

    Parameters
    ----------
    theta : ndarray of shape (K, d)
        Normalised rows (each sums to 1).
    block : MultinomialBlock
        As encoded from the input, with missing cells (``block.missing`` not None).
    resp : ndarray of shape (n, K)
        ``p(y | x_obs)`` per row (``"mean"``, ``"mode"``).
    strategy : {"mean", "mode", "draw"}
    z : ndarray of int, shape (n,) or None
        Drawn classes (``"draw"``).
    rng : numpy.random.Generator or None
    rate : ndarray of shape (K,)
        Poisson rate of the document length per class.

    Returns
    -------
    CSR matrix (sparse input) or ndarray of shape (n, d)
        Observed counts as given, missing cells filled.
    """
    M = block.missing.tocoo() if sp.issparse(block.missing) else sp.coo_matrix(block.missing)
    rows, cols = M.row, M.col
    if strategy == "draw":
        vals = rng.poisson(rate[z[rows]] * theta[z[rows], cols]).astype(float)
    else:
        vals = np.einsum("ik,ki->i", resp[rows], rate[:, None] * theta[:, cols])
        if strategy == "mode":
            vals = np.floor(vals)
    if sp.issparse(block.X):
        fill = sp.csr_matrix((vals, (rows, cols)), shape=block.X.shape)
        return (block.X.tocsr() + fill).tocsr()
    X = np.array(block.X, dtype=float)
    X[rows, cols] = vals
    return X


def length_rate(counts, class_count, rng=None):
    """Poisson rate of the document length per class, (K,), from the counts (K, d) and class counts
    (K,): see :meth:`~bayesnb.families.multinomial.Multinomial.gen_rate`."""
    T = counts.sum(axis=1)
    n = np.asarray(class_count, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        overall = T.sum() / n.sum() if n.sum() > 0 else 1.0
        overall = overall if np.isfinite(overall) else 1.0
        rate = np.where(n > 0, T / np.where(n > 0, n, 1.0), overall)
    if rng is not None and overall > 0:
        ok = n > 0
        with np.errstate(over="ignore"):  # a subnormal mean length: a prior rate of inf, draws of 0
            draw = rng.standard_gamma(np.where(ok, T + 0.5, 1.0)) / (n + 0.5 / overall)
        rate = np.where(ok, draw, rate)
    return rate
