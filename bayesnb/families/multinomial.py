"""Count features (bag of words) with a Dirichlet prior over the block's columns.

For class ``k``, the ``d`` columns of the block share one probability vector::

    theta[k, :]   ~ Dirichlet(alpha, ..., alpha)
    tokens of row i | y=k  ~ iid Categorical(theta[k, :])      (counts x[i, :])

    posterior     Dirichlet(alpha + n[k, :])
    plug-in       theta[k, j] = (n[k,j] + alpha) / (n[k] + d alpha)     (scikit-learn MultinomialNB)
    exact         Dirichlet-multinomial (Polya) predictive of the row's tokens
    evidence      log B(alpha + n[k]) - log B(alpha)

Log probabilities are those of the row's token sequence given its length (the
multinomial coefficient ``L! / prod x_j!`` is left out: it does not depend on the
class, exactly as in scikit-learn). Dense or scipy.sparse (CSR/CSC) input, never
densified. Fractional counts (tf-idf) are accepted as in scikit-learn: the plug-in
uses them as weights, and the exact predictive extends the factorials with the
gamma function (a smooth interpolation, not the probability of any count vector).

Missing cells (NaN) are marginalised exactly: a row's observed tokens are scored by
the distribution renormalised over its observed columns, which equals the model
fitted without those columns.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._utils import all_missing_columns as _all_missing
from .._utils import hard_labels, nonfinite_error
from ._base import Family, check_alpha, resolve_scalar_alpha

__all__ = ["Multinomial", "MultinomialStats", "DirichletRows", "encode", "suff_stats",
           "update", "log_likelihood", "log_evidence"]


class MultinomialStats(NamedTuple):
    """Sufficient statistics.

    Attributes
    ----------
    counts : ndarray of shape (K, d)
        Weighted total count of column ``j`` among rows of class ``k``.
    """

    counts: np.ndarray


class DirichletRows(NamedTuple):
    """One Dirichlet per class over the block's columns: prior and posterior alike.

    Attributes
    ----------
    concentration : ndarray of shape (K, d)
    """

    concentration: np.ndarray


class MultinomialBlock(NamedTuple):
    """An encoded count block.

    Attributes
    ----------
    X : ndarray or CSR/CSC matrix of shape (n, d)
        Counts, missing cells set to 0 (the input itself when nothing is missing).
    missing : ndarray, sparse matrix of shape (n, d), or None
        1 where a cell was missing.
    """

    X: object
    missing: object


def encode(X, *, who="Multinomial") -> MultinomialBlock:
    """Validate non-negative finite counts and separate missing cells (never in place).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n, d)
    who : str

    Returns
    -------
    MultinomialBlock
    """
    if sp.issparse(X):
        if X.format not in ("csr", "csc"):
            X = X.tocsr()
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        data = X.data
    else:
        X = np.asarray(X, dtype=np.float64)
        data = X
    miss = np.isnan(data)
    any_missing = miss.any()
    if any_missing:
        finite = data[~miss]
    else:
        finite = data
    if np.isinf(finite).any():
        raise nonfinite_error(who, "counts", finite)
    if (finite < 0).any():
        raise ValueError(
            f"{who}: counts must be >= 0 (Multinomial features are counts such as word "
            f"counts or tf-idf); received {int((finite < 0).sum())} negative value(s), "
            f"e.g. {float(finite[finite < 0][0])}."
        )
    if not any_missing:
        return MultinomialBlock(X, None)
    X = X.copy()
    if sp.issparse(X):
        m = X.copy()
        m.data = miss.astype(float)
        m.eliminate_zeros()
        X.data[miss] = 0.0
        X.eliminate_zeros()
    else:
        m = miss.astype(float)
        X[miss] = 0.0
    return MultinomialBlock(X, m)


def _row_col(X):
    """Row and column index of every stored entry of a CSR/CSC matrix."""
    n, d = X.shape
    if X.format == "csr":
        return np.repeat(np.arange(n), np.diff(X.indptr)), X.indices
    return X.indices, np.repeat(np.arange(d), np.diff(X.indptr))


def suff_stats(block: MultinomialBlock, resp: np.ndarray) -> MultinomialStats:
    """Weighted counts per (class, column); one ``bincount`` for labelled sparse data."""
    X = block.X
    K = resp.shape[1]
    d = X.shape[1]
    hard = hard_labels(resp) if sp.issparse(X) else None
    if hard is not None:
        labels, w = hard
        rows, cols = _row_col(X)
        vals = X.data * w[rows] if not np.all(w == 1) else X.data
        key = labels[rows] * d + cols
        counts = np.bincount(key, weights=vals, minlength=K * d).reshape(K, d)
    else:
        counts = np.asarray((X.T @ resp).T)
    return MultinomialStats(counts)


def update(prior: DirichletRows, stats: MultinomialStats) -> DirichletRows:
    """Conjugate update: concentration = alpha + counts (the only smoothing)."""
    return DirichletRows(prior.concentration + stats.counts)


def log_theta(post: DirichletRows) -> np.ndarray:
    """Posterior-mean ``log theta`` of shape (K, d); rows with no data and alpha=0 -> 0."""
    a = post.concentration
    tot = a.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lt = np.log(a) - np.log(tot)
    lt[np.broadcast_to(tot == 0, lt.shape)] = 0.0
    return lt


def log_likelihood(post: DirichletRows, block: MultinomialBlock, predictive="mean",
                   log_theta_T=None) -> np.ndarray:
    """``log p(tokens of the row | y=k)``, shape (n, K).

    Parameters
    ----------
    post : DirichletRows
    block : MultinomialBlock
    predictive : {"mean", "marginal"}
        ``"mean"``: multinomial with the posterior-mean theta (scikit-learn's score).
        ``"marginal"``: Dirichlet-multinomial, the exact posterior predictive.
    log_theta_T : ndarray of shape (d, K), optional
        Precomputed C-contiguous ``log_theta(post).T`` (saves work on big vocabularies).
    """
    X, M = block.X, block.missing
    if predictive == "mean":
        lt_T = log_theta(post).T if log_theta_T is None else log_theta_T
        if np.isinf(lt_T).any():  # alpha=0: 0 * log 0 must stay 0
            jll = _dot_ignoring_zeros(X, lt_T)
        else:
            jll = np.asarray(X @ lt_T)
        if M is not None:
            theta = np.exp(lt_T)  # (d, K)
            observed_mass = 1.0 - np.asarray(M @ theta)
            length = np.asarray(X.sum(axis=1)).reshape(-1, 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                jll = jll - np.where(length > 0, length * np.log(observed_mass), 0.0)
        return jll
    if predictive != "marginal":
        raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
    a = post.concentration
    n = X.shape[0]
    length = np.asarray(X.sum(axis=1)).ravel()
    A = np.broadcast_to(a.sum(axis=1), (n, a.shape[0]))
    if M is not None:
        A = A - np.asarray(M @ a.T)
    out = gammaln(A) - gammaln(A + length[:, None])
    if sp.issparse(X):
        rows, cols = _row_col(X)
        vals = X.data
        for k in range(a.shape[0]):
            ak = a[k, cols]
            out[:, k] += np.bincount(rows, weights=gammaln(ak + vals) - gammaln(ak), minlength=n)
    else:
        Xd = np.asarray(X)
        for k in range(a.shape[0]):
            out[:, k] += (gammaln(a[k] + Xd) - gammaln(a[k])).sum(axis=1)
    return out


def _dot_ignoring_zeros(X, L_T):
    """``X @ L_T`` where ``0 * -inf`` counts as 0."""
    if sp.issparse(X):
        X = X.tocsr()
        rows, cols = _row_col(X)
        out = np.zeros((X.shape[0], L_T.shape[1]))
        for k in range(L_T.shape[1]):
            out[:, k] = np.bincount(rows, weights=X.data * L_T[cols, k], minlength=X.shape[0])
        return out
    X = np.asarray(X)
    out = np.zeros((X.shape[0], L_T.shape[1]))
    for k in range(L_T.shape[1]):
        with np.errstate(invalid="ignore"):
            out[:, k] = np.where(X != 0, X * L_T[:, k], 0.0).sum(axis=1)
    return out


def log_evidence(prior: DirichletRows, post: DirichletRows) -> np.ndarray:
    """Closed-form ``log p(tokens | y)`` of the training data per class, shape (K,)."""
    a0, a = prior.concentration, post.concentration
    return gammaln(a0.sum(1)) - gammaln(a.sum(1)) + (gammaln(a) - gammaln(a0)).sum(1)


def _evidence_scalar_alpha(alpha: float, counts: np.ndarray) -> float:
    """Evidence for a scalar alpha using only the non-zero counts (fast on vocabularies)."""
    K, d = counts.shape
    nz = counts[counts > 0]
    return float(
        K * gammaln(d * alpha) - gammaln(d * alpha + counts.sum(1)).sum()
        + (gammaln(alpha + nz) - gammaln(alpha)).sum()
    )


class Multinomial(Family):
    """Count block (e.g. word counts) with a symmetric Dirichlet prior per class.

    Parameters
    ----------
    alpha : float, "auto" or array-like of shape (d,), default=1.0
        Dirichlet pseudo-count per column (1 = Laplace, 0 = maximum likelihood).
        ``"auto"`` picks the scalar that maximises the closed-form evidence.
    """

    _param_names = ("alpha",)
    name = "multinomial"
    accepts_sparse = True

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def encode(self, X, state=None, *, extend=False, who="Multinomial"):
        """See :func:`encode`; the state is the number of columns."""
        return encode(X, who=who), X.shape[1]

    def empty_stats(self, state, K):
        """Zero statistics."""
        return MultinomialStats(np.zeros((K, state)))

    def stats(self, block, resp, state):
        """See :func:`suff_stats`."""
        return suff_stats(block, resp)

    def make_prior(self, stats, state, who="Multinomial"):
        """Dirichlet(alpha) per class; ``"auto"`` by evidence."""
        alpha = check_alpha(self.alpha, who)
        K, d = stats.counts.shape
        a = resolve_scalar_alpha(alpha, lambda t: _evidence_scalar_alpha(t, stats.counts))
        a = np.asarray(a, dtype=float)
        if a.ndim == 1 and a.shape != (d,):
            raise ValueError(f"{who}: alpha has shape {a.shape}; expected a scalar or ({d},).")
        return DirichletRows(np.broadcast_to(a, (K, d)).astype(float))

    def update(self, prior, stats):
        """See :func:`update`."""
        return update(prior, stats)

    def log_likelihood(self, prior, post, block, predictive="mean", cache=None):
        """See :func:`log_likelihood`."""
        return log_likelihood(post, block, predictive, log_theta_T=cache)

    def log_evidence(self, prior, post):
        """See :func:`log_evidence`."""
        return log_evidence(prior, post)

    def is_proper(self, prior):
        """True when every pseudo-count is > 0."""
        return bool(np.all(prior.concentration > 0))

    def all_missing(self, block):
        """Columns missing in every row, bool (d,)."""
        return _all_missing(block.missing, block.X.shape)
