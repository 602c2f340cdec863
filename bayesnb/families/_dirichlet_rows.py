"""Numerics of Dirichlet rows shared by :class:`~bayesnb.families.multinomial.Multinomial`.

Log probabilities renormalised over observed columns, rising factorials for the
Dirichlet-multinomial predictive, and sparse helpers; pure functions of arrays.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._utils import dense

__all__ = ["with_missing_columns", "log_theta", "log_rising", "observed_concentration", "log_observed_mass"]


def _row_col(X):
    """Row and column index of every stored entry of a CSR/CSC matrix."""
    n, d = X.shape
    if X.format == "csr":
        return np.repeat(np.arange(n), np.diff(X.indptr)), X.indices
    return X.indices, np.repeat(np.arange(d), np.diff(X.indptr))


def with_missing_columns(block, columns: np.ndarray):
    """The block with every cell of the bool (d,) ``columns`` marked missing (a new block).

    The input block is kept as ``raw`` of the result: the cells of these columns are
    marginalised in scoring, but they are still observed data (never imputed over).
    """
    X = block.X
    n = X.shape[0]
    cols = np.flatnonzero(columns)
    extra = sp.csr_matrix((np.ones(n * cols.size), (np.repeat(np.arange(n), cols.size), np.tile(cols, n))),
                          shape=X.shape)
    if sp.issparse(X):
        X = X.tocsr().copy()
        keep = sp.diags((~columns).astype(float))
        X = (X @ keep).tocsr()
        X.eliminate_zeros()
        M = extra if block.missing is None else ((sp.csr_matrix(block.missing) + extra) > 0).astype(float)
    else:
        X = np.where(columns[None, :], 0.0, X)
        M = extra.toarray() if block.missing is None else np.maximum(np.asarray(block.missing), extra.toarray())
    return type(block)(X, M, block if block.raw is None else block.raw)


def log_theta(post) -> np.ndarray:
    """Posterior-mean ``log theta`` of shape (K, d); rows with no data and alpha=0 -> 0.

    The result is the transpose of a C-contiguous (d, K) array, so ``log_theta(p).T``
    is ready for ``X @ log_theta.T`` without another copy.
    """
    a = post.concentration
    tot = a.sum(axis=1)
    lt_T = np.empty(a.shape[::-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.log(a.T, out=lt_T)
        lt_T -= np.log(tot)
    empty = tot == 0
    if empty.any():
        lt_T[:, empty] = 0.0
    return lt_T.T


def log_rising(a, x):
    """``log Gamma(a + x) - log Gamma(a)`` without cancellation at huge ``a`` (broadcast).

    Below ``a = 1000`` the difference of ``gammaln`` is exact to ~1e-12; above, both
    ``gammaln`` values are so large (4e18 at a = 1e17) that their difference is
    rounding noise, so the Stirling series is differenced analytically:
    ``(a - 1/2) log1p(x/a) + x log(a + x) - x + s(a + x) - s(a)``, with
    ``s(z) = 1/(12z) - 1/(360z^3) + 1/(1260z^5)`` (truncation error < 1e-24).
    ``x = 0`` gives exactly 0 (also at ``a = 0``); ``a = 0 < x`` gives ``-inf`` (a zero
    probability, alpha=0).

    Parameters
    ----------
    a, x : array-like, broadcastable
        ``a >= 0``, ``x >= 0``.

    Returns
    -------
    ndarray of the broadcast shape
    """
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    out = np.empty(a.shape)
    big = a >= 1000.0
    small = ~big
    with np.errstate(invalid="ignore", divide="ignore"):
        out[small] = gammaln(a[small] + x[small]) - gammaln(a[small])
    if big.any():
        ab, xb = a[big], x[big]
        z = ab + xb

        def s(t):
            t2 = t * t
            return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * t2)) / t2) / t

        out[big] = (ab - 0.5) * np.log1p(xb / ab) + xb * np.log(z) - xb + (s(z) - s(ab))
    out[x == 0] = 0.0
    return out


def observed_concentration(a: np.ndarray, M) -> np.ndarray:
    """``sum_j (1 - M[i, j]) a[k, j]``, shape (n, K): each row's concentration on its observed columns.

    Computed without cancellation: ``total - missing`` is exact to a few ulps of the
    result where the missing columns hold less than half the row's concentration; the
    other rows are summed over their observed columns directly (a frequent column
    missing, counts of 1e17, would otherwise leave nothing or rounding noise).

    Parameters
    ----------
    a : ndarray of shape (K, d)
        Concentrations (or theta).
    M : ndarray or sparse matrix of shape (n, d)
        1 where a cell is missing.

    Returns
    -------
    ndarray of shape (n, K)
    """
    total = a.sum(axis=1)
    out = total[None, :] - np.asarray(M @ a.T)
    bad = np.flatnonzero((out < 0.5 * total[None, :]).any(axis=1))
    if bad.size:
        Mr = M.tocsr() if sp.issparse(M) else np.asarray(M)
        for start in range(0, bad.size, 1024):  # bounded memory on wide vocabularies
            rows = bad[start:start + 1024]
            obs = 1.0 - dense(Mr[rows])
            out[rows] = obs @ a.T
    return np.maximum(out, 0.0)


def log_observed_mass(a: np.ndarray, M) -> np.ndarray:
    """``log`` of the posterior-mean theta mass on each row's observed columns, (n, K).

    ``log(sum_obs a) - log(sum a)``, from the concentrations (see
    :func:`observed_concentration`), never ``log(1 - sum_missing theta)``. A class
    without any concentration (alpha=0, no data) gets 0, as in :func:`log_theta`;
    a mass of exactly 0 gives ``-inf``.
    """
    total = a.sum(axis=1)
    with np.errstate(divide="ignore"):
        lm = np.log(observed_concentration(a, M)) - np.log(np.where(total > 0, total, 1.0))[None, :]
    lm[:, total == 0] = 0.0
    return lm


def _evidence_scalar_alpha(alpha: float, counts: np.ndarray) -> float:
    """Evidence for a scalar alpha using only the non-zero counts (fast on vocabularies)."""
    K, d = counts.shape
    nz = counts[counts > 0]
    return float(
        K * gammaln(d * alpha) - gammaln(d * alpha + counts.sum(1)).sum()
        + (gammaln(alpha + nz) - gammaln(alpha)).sum()
    )


def _theta(point) -> np.ndarray:
    """Normalised theta (K, d) of a generative point; uniform for rows with no mass."""
    a = point.concentration
    tot = a.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, a / np.where(tot > 0, tot, 1.0), 1.0 / max(a.shape[1], 1))
