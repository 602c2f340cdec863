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

Missing cells (NaN) are marginalised exactly in prediction: a row's observed tokens are
scored by the distribution renormalised over its observed columns, which equals the
model fitted without those columns. In fitting, a row with a missing cell in the block
is left out of the block's counts (complete cases; see :func:`suff_stats`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._utils import all_missing_columns as _all_missing
from .._utils import dense
from .._utils import nonfinite_error
from ._base import Family, check_alpha, class_sums, dirichlet_draws, log_dot, resolve_scalar_alpha

__all__ = ["Multinomial", "MultinomialStats", "DirichletRows", "encode", "suff_stats",
           "update", "log_likelihood", "log_evidence"]


class MultinomialStats(NamedTuple):
    """Sufficient statistics.

    Attributes
    ----------
    counts : ndarray of shape (K, d)
        Weighted total count of column ``j`` among rows of class ``k`` (the rows that
        count: see :func:`suff_stats`).
    pending : ndarray of shape (K, d) or None
        The part of ``counts`` from rows with a missing cell in a column that no training
        row has observed yet. Such rows count as complete; if a later ``partial_fit``
        batch observes one of those columns they become partial rows, and this part is
        taken out again (:meth:`Multinomial.reindex_stats`), so that any batching gives
        the statistics of one fit. None: no such rows.
    """

    counts: np.ndarray
    pending: object = None


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
        1 where a cell is marginalised: missing in the input, or in a column never
        observed in training (see :func:`with_missing_columns`).
    raw : MultinomialBlock or None
        The block as encoded from the input, before never-observed columns were marked
        missing (None: this block is it). Imputation fills only the cells missing in
        ``raw`` and keeps every observed count, whatever the model knows of its column.
    """

    X: object
    missing: object
    raw: object = None


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
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{who}: counts must be numbers; received a sparse matrix of dtype {X.dtype}.")
        if X.dtype.kind == "b":
            X = X.astype(np.float64)
        data = X.data  # integer counts stay integer: no copy of a large matrix
    else:
        X = np.asarray(X, dtype=np.float64)
        data = X
    miss = np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, dtype=bool)
    any_missing = miss.any()
    if any_missing:
        finite = data[~miss]
    else:
        finite = data
    if finite.dtype.kind == "f" and np.isinf(finite).any():
        raise nonfinite_error(who, "counts", finite)
    if (finite < 0).any():
        raise ValueError(
            f"{who}: Negative values in data: counts must be >= 0 (Multinomial features are counts such as word "
            f"counts or tf-idf); received {int((finite < 0).sum())} negative value(s), "
            f"e.g. {float(finite[finite < 0][0])}."
        )
    if not any_missing:
        return MultinomialBlock(X, None)
    X = X.astype(np.float64) if X.dtype != np.float64 else X.copy()
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


def suff_stats(block: MultinomialBlock, resp: np.ndarray, observed_columns=None) -> MultinomialStats:
    """Weighted counts per (class, column); one ``bincount`` for labelled sparse data.

    Rows with a missing cell in the block are left out of the block's statistics
    (complete cases): counting their observed cells alone would bias theta towards the
    observed columns, and the exact posterior given a partial row is not a Dirichlet.
    Under missing-completely-at-random this is unbiased; ``run_mcmc(likelihood="rows")``
    samples the exact posterior that also uses the partial rows.
    """
    pending = None
    if block.missing is not None:
        M = block.missing
        has_missing = np.asarray(M.sum(axis=1)).ravel() > 0
        if observed_columns is not None and not observed_columns.all():  # never-observed columns
            M = M[:, np.flatnonzero(observed_columns)]                 # do not make a row partial
        partial = np.asarray(M.sum(axis=1)).ravel() > 0
        if partial.any():
            resp = np.where(partial[:, None], 0.0, resp)
        waiting = has_missing & ~partial  # missing only where no row has observed a value yet
        if waiting.any():
            pending = class_sums(block.X, np.where(waiting[:, None], resp, 0.0))
    return MultinomialStats(class_sums(block.X, resp), pending)


def with_missing_columns(block: MultinomialBlock, columns: np.ndarray) -> MultinomialBlock:
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
    return MultinomialBlock(X, M, block if block.raw is None else block.raw)


def update(prior: DirichletRows, stats: MultinomialStats) -> DirichletRows:
    """Conjugate update: concentration = alpha + counts (the only smoothing)."""
    return DirichletRows(prior.concentration + stats.counts)


def log_theta(post: DirichletRows) -> np.ndarray:
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


def log_likelihood(post: DirichletRows, block: MultinomialBlock, predictive="mean",
                   log_theta_T=None, neg_inf=None) -> np.ndarray:
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
    neg_inf : bool, optional
        Whether ``log_theta_T`` holds ``-inf`` (alpha=0 with zero counts), if known.
    """
    X, M = block.X, block.missing
    if predictive == "mean":
        lt_T = log_theta(post).T if log_theta_T is None else log_theta_T
        # alpha=0: 0 * log 0 stays 0 (-inf only where a concentration is exactly 0)
        jll = log_dot(X, lt_T, has_neg_inf=bool((post.concentration == 0).any()) if log_theta_T is None
                      else None if neg_inf is None else neg_inf)
        if M is not None:
            lm = log_observed_mass(post.concentration, M)
            length = np.asarray(X.sum(axis=1)).reshape(-1, 1)
            # a row's tokens lie in its observed columns: a zero observed mass means a
            # zero-probability row, already -inf in jll (never -inf - -inf)
            with np.errstate(invalid="ignore"):
                jll = jll - np.where((length > 0) & np.isfinite(lm), length * lm, 0.0)
        return jll
    if predictive != "marginal":
        raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
    a = post.concentration
    n = X.shape[0]
    length = np.asarray(X.sum(axis=1)).ravel()
    A = np.broadcast_to(a.sum(axis=1), (n, a.shape[0])) if M is None else observed_concentration(a, M)
    # alpha=0: a zero count adds exactly 0 (never gammaln(0) - gammaln(0) = NaN), a
    # class without data (A == 0) drops the factor as the plug-in does.
    with np.errstate(invalid="ignore"):
        out = np.where(A > 0, -log_rising(A, length[:, None]), 0.0)
    if sp.issparse(X):
        rows, cols = _row_col(X)
        vals = X.data
        # log Gamma(a + x) - log Gamma(a) is log(a) for x = 1, most entries of a text matrix
        one = vals == 1
        rest = ~one & (vals > 0)
        c1, cr, vr = cols[one], cols[rest], vals[rest]
        for k in range(a.shape[0]):
            terms = np.zeros(vals.shape[0])
            with np.errstate(invalid="ignore", divide="ignore"):
                terms[one] = np.log(a[k, c1])
                ak = a[k, cr]
                terms[rest] = log_rising(ak, vr)
            terms[A[rows, k] <= 0] = 0.0
            out[:, k] += np.bincount(rows, weights=terms, minlength=n)
    else:
        Xd = np.asarray(X)
        for k in range(a.shape[0]):
            with np.errstate(invalid="ignore"):
                terms = np.where((Xd > 0) & (A[:, k:k + 1] > 0), log_rising(a[k], Xd), 0.0)
            out[:, k] += terms.sum(axis=1)
    return out


def log_evidence(prior: DirichletRows, post: DirichletRows) -> np.ndarray:
    """Closed-form ``log p(tokens | y)`` of the training data per class, shape (K,).

    Columns without counts contribute exactly 0, so only the non-zero counts are
    evaluated (a vocabulary is mostly zeros).
    """
    a0, a = prior.concentration, post.concentration
    rows, cols = np.nonzero(a != a0)
    terms = np.bincount(rows, weights=gammaln(a[rows, cols]) - gammaln(a0[rows, cols]), minlength=a.shape[0])
    return gammaln(a0.sum(1)) - gammaln(a.sum(1)) + terms


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
    joint_columns = True

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def encode(self, X, state=None, *, extend=False, who="Multinomial"):
        """See :func:`encode`.

        The state is a bool (d,) array: which columns have been observed (non-missing)
        in some training row. Columns never observed carry no information on theta
        beyond the prior, which is the same for every class, so at prediction time they
        are marginalised like missing cells (see :func:`with_missing_columns`).
        """
        block = encode(X, who=who)
        if state is None or extend:
            seen = ~_all_missing(block.missing, block.X.shape) if block.X.shape[0] else np.zeros(X.shape[1], bool)
            return block, seen if state is None else (np.asarray(state) | seen)
        never = ~np.asarray(state, dtype=bool)
        return (with_missing_columns(block, never) if never.any() else block), state

    def empty_stats(self, state, K):
        """Zero statistics."""
        return MultinomialStats(np.zeros((K, len(state))))

    def stats(self, block, resp, state):
        """See :func:`suff_stats` (completeness judged on the columns observed in training)."""
        return suff_stats(block, resp, observed_columns=np.asarray(state, dtype=bool))

    def merge(self, a, b):
        """Add the statistics of two disjoint batches (``pending`` None stays None)."""
        if a.pending is None or b.pending is None:
            pending = b.pending if a.pending is None else a.pending
        else:
            pending = a.pending + b.pending
        return MultinomialStats(a.counts + b.counts, pending)

    def reindex_stats(self, stats, old_state, new_state):
        """Statistics of earlier batches under the columns observed up to this batch.

        Rows counted while missing a column that no row had observed are partial rows once
        a batch observes one of those columns (:func:`suff_stats` leaves partial rows out),
        so their part (``stats.pending``) is taken out of the counts.
        """
        newly = np.asarray(new_state, dtype=bool) & ~np.asarray(old_state, dtype=bool)
        if stats.pending is None or not newly.any():
            return stats
        return MultinomialStats(np.maximum(stats.counts - stats.pending, 0.0), None)

    def make_prior(self, stats, state, who="Multinomial"):
        """Dirichlet(alpha) per class; ``"auto"`` by evidence."""
        alpha = check_alpha(self.alpha, who)
        K, d = stats.counts.shape
        a = resolve_scalar_alpha(alpha, lambda t: _evidence_scalar_alpha(t, stats.counts))
        a = np.asarray(a, dtype=float)
        if a.ndim == 1 and a.shape != (d,):
            raise ValueError(f"{who}: alpha has shape {a.shape}; expected a scalar or ({d},).")
        return DirichletRows(np.broadcast_to(a, (K, d)))  # read-only view: no K x d copy

    def update(self, prior, stats):
        """See :func:`update`."""
        return update(prior, stats)

    def predict_cache(self, prior, post):
        """``(log theta transposed, C-contiguous (d, K); whether it holds -inf)``."""
        # -inf needs a zero pseudo-count (alpha=0) and a zero count; the prior rows are equal
        neg_inf = not np.all(np.asarray(prior.concentration[0]) > 0) and bool((post.concentration == 0).any())
        return log_theta(post).T, neg_inf

    def log_likelihood(self, prior, post, block, predictive="mean", cache=None):
        """See :func:`log_likelihood`."""
        if cache is None:
            return log_likelihood(post, block, predictive)
        return log_likelihood(post, block, predictive, log_theta_T=cache[0], neg_inf=cache[1])

    def log_evidence(self, prior, post):
        """See :func:`log_evidence`."""
        return log_evidence(prior, post)

    def is_proper(self, prior):
        """True when every pseudo-count is > 0."""
        return bool(np.all(prior.concentration > 0))

    def all_missing(self, block):
        """Columns missing in every row, bool (d,)."""
        return _all_missing(block.missing, block.X.shape)


# ---- generative pieces (generative.py) ----
# A "point" is a DirichletRows whose normalised rows are the theta in use: the posterior
# itself (plug-in) or one exact Dirichlet draw. Document lengths are modelled for
# generation only: L | y=k ~ Poisson(rate[k]), rate[k] the mean training length of class
# k (total counts / class count, both sufficient statistics). With that length model the
# counts are independent Poisson(rate[k] * theta[k, j]) (Poisson splitting), which is how
# missing count cells are imputed.
def gen_point(prior: DirichletRows, post: DirichletRows, rng=None) -> DirichletRows:
    """Plug-in (``rng=None``) or one exact Dirichlet draw of theta per class."""
    if rng is None:
        return post
    return DirichletRows(dirichlet_draws(post.concentration, 1, rng)[0])


def gen_theta(point: DirichletRows) -> np.ndarray:
    """Normalised theta (K, d); uniform for rows with no mass."""
    a = point.concentration
    tot = a.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, a / np.where(tot > 0, tot, 1.0), 1.0 / max(a.shape[1], 1))


def gen_rate(stats: MultinomialStats, class_count: np.ndarray, rng=None) -> np.ndarray:
    """Poisson rate of the document length per class, (K,).

    Plug-in: mean length ``T_k / n_k``; with ``rng``, a draw from its posterior
    ``Gamma(T_k + 1/2, n_k + 1/(2 m))`` under a half-document prior ``Gamma(1/2, 1/(2 m))``
    centred on the overall mean length ``m``: proper, so a class with almost no weight
    (``sample_weight`` 1e-300) draws lengths near ``m`` instead of astronomically long
    documents, and negligible next to any real class count. Classes without rows get ``m``.
    """
    T = stats.counts.sum(axis=1)
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


def gen_sample(point: DirichletRows, z: np.ndarray, rng, lengths=None) -> np.ndarray:
    """Counts (n, d): row i has ``lengths[i]`` tokens drawn from theta[z[i]]."""
    theta = gen_theta(point)
    out = np.zeros((z.shape[0], theta.shape[1]))
    for k in np.unique(z):
        rows = np.flatnonzero(z == k)
        out[rows] = rng.multinomial(lengths[rows].astype(np.int64), theta[k])
    return out


def gen_missing(block: MultinomialBlock) -> np.ndarray:
    """Bool (n, d) mask of the cells missing in the input (dense).

    Cells of a column never observed in training are marginalised in scoring but are
    not missing: they are observed counts and are never imputed.
    """
    if block.raw is not None:
        block = block.raw
    if block.missing is None:
        return np.zeros(block.X.shape, dtype=bool)
    return dense(block.missing) > 0


def gen_fill(point: DirichletRows, block: MultinomialBlock, resp, strategy, z=None, rng=None, rate=None):
    """Counts with missing cells filled from ``Poisson(rate[k] theta[k, j])``:
    ``"mean"`` the mixture mean, ``"mode"`` its floor (the Poisson mode of the mean),
    ``"draw"`` a Poisson draw given classes ``z``. Sparse input stays sparse.

    Only the cells missing in the input are filled; every observed count is returned
    as given, also in a column never observed in training (``block.raw``)."""
    if block.raw is not None:
        block = block.raw
    if block.missing is None:
        return block.X
    theta = gen_theta(point)
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


def gen_cell_log_lik(prior, point: DirichletRows, block: MultinomialBlock, weights, predictive="mean"):
    """Per-column contributions ``sum_k weights[i,k] c_ijk`` that add up exactly to the
    row's ``log p(tokens | y=k)`` of :func:`log_likelihood`: ``x_ij log(theta_kj / m_ik)``
    (``m_ik`` the mass of the observed columns) for ``"mean"``; for ``"marginal"`` the
    Polya terms ``log G(a_kj + x_ij) - log G(a_kj)`` plus the row term
    ``log G(A) - log G(A + L)`` shared out in proportion ``x_ij / L``.
    Returns a CSR matrix for sparse input, else a dense (n, d) array."""
    X = block.X
    Xc = X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X))
    rows, cols = _row_col(Xc)
    vals = Xc.data
    n = X.shape[0]
    length = np.asarray(Xc.sum(axis=1)).ravel()
    a = point.concentration
    acc = np.zeros(vals.shape[0])
    if predictive == "mean":
        lt = log_theta(point)
        lm = np.zeros((n, a.shape[0]))
        if block.missing is not None:
            lm = log_observed_mass(a, block.missing)
            lm = np.where(np.isfinite(lm), lm, 0.0)  # zero mass: the tokens' log theta is -inf already
        for k in range(a.shape[0]):
            with np.errstate(divide="ignore", invalid="ignore"):
                c = vals * (lt[k, cols] - lm[rows, k])
                acc += np.where(weights[rows, k] > 0, weights[rows, k] * c, 0.0)  # 0 * -inf masked
    else:
        A = (np.broadcast_to(a.sum(axis=1), (n, a.shape[0])) if block.missing is None
             else observed_concentration(a, block.missing))
        with np.errstate(invalid="ignore"):
            row_term = -log_rising(A, length[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(length[rows] > 0, vals / np.where(length[rows] > 0, length[rows], 1.0), 0.0)
        for k in range(a.shape[0]):
            with np.errstate(invalid="ignore"):  # alpha=0: 0 * -inf where the class has weight 0
                c = log_rising(a[k, cols], vals) + share * row_term[rows, k]
                # as in log_likelihood: no concentration on the row's observed columns -> factor dropped
                c = np.where(A[rows, k] > 0, c, 0.0)
                acc += np.where(weights[rows, k] > 0, weights[rows, k] * c, 0.0)
    out = sp.csr_matrix((acc, (rows, cols)), shape=X.shape)
    return out if sp.issparse(X) else out.toarray()


def gen_log_penalty(prior: DirichletRows, point: DirichletRows) -> float:
    """``sum alpha log theta``: the log prior whose MAP is the posterior mean."""
    lt = log_theta(point)
    with np.errstate(invalid="ignore"):
        return float(np.where(prior.concentration > 0, prior.concentration * lt, 0.0).sum())


# ---- posterior draws and NumPyro pieces (model.py) ----
#: names of the parameter variables in draws and ArviZ output (``sample_params`` keys)
PARAM_NAMES = ("theta",)
# Exact conjugate draws (NumPy) and the pieces model.py assembles into the one NumPyro
# model. Parameterisation shared by both: ``theta`` (K, d), each row on the simplex.


def sample_params(post: DirichletRows, n_draws: int, rng) -> dict:
    """Exact posterior draws: ``{"theta": (n_draws, K, d)}`` (memory: n_draws * K * d)."""

    return {"theta": dirichlet_draws(post.concentration, n_draws, rng)}


def posterior_moments(post: DirichletRows) -> dict:
    """Closed-form posterior mean and sd: ``{"theta": (mean, sd)}``, each (K, d)."""
    a = post.concentration
    a0 = a.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = a / a0
        return {"theta": (m, np.sqrt(m * (1 - m) / (a0 + 1)))}


def posterior_from_params(params: dict) -> DirichletRows:
    """A posterior whose plug-in equals the given ``theta`` (K, d) (one draw)."""
    return DirichletRows(np.asarray(params["theta"], dtype=float))


def numpyro_static(prior: DirichletRows):
    """Hashable structure (none needed beyond shapes)."""
    return ()


def numpyro_prior_args(prior: DirichletRows) -> dict:
    """Dirichlet pseudo-counts as a float32 (K, d) array."""
    return {"alpha": prior.concentration.astype(np.float32)}


def numpyro_sample(label, static, prior_args, feature_plate, class_plate="class"):
    """``theta_<label>`` ~ Dirichlet(alpha) under plate ``class_plate`` (event over the columns)."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    alpha = prior_args["alpha"]
    with numpyro.plate(class_plate, alpha.shape[0], dim=-1):
        th = numpyro.sample(f"theta_{label}", dist.Dirichlet(alpha))
    return {"theta": th, "log_theta": jnp.log(jnp.clip(th, jnp.finfo(th.dtype).tiny))}


def params_from_sites(label, static, samples: dict) -> dict:
    """MCMC samples -> ``{"theta": (..., K, d)}``."""
    return {"theta": np.asarray(samples[f"theta_{label}"], dtype=float)}


def point_params(post: DirichletRows) -> dict:
    """The parameters the plug-in (``"mean"``) predictive uses: ``{"theta": (K, d)}``.

    Inverse of :func:`posterior_from_params` (same plug-in)."""
    return {"theta": posterior_moments(post)["theta"][0]}


def sites_from_params(label, static, params: dict) -> dict:
    """Inverse of :func:`params_from_sites`: ``{"theta_<label>": theta}`` (NumPyro site values)."""
    return {f"theta_{label}": np.asarray(params["theta"])}


def numpyro_stats_args(stats: MultinomialStats) -> dict:
    """Counts per (class, column), float32."""
    return {"counts": stats.counts.astype(np.float32)}


def numpyro_suffstat_loglik(params, stats_args):
    """``sum_{k,j} n[k,j] log theta[k,j]``: the labelled-data log-likelihood."""
    return (stats_args["counts"] * params["log_theta"]).sum()


def numpyro_row_args(block: MultinomialBlock, static) -> dict:
    """Dense float32 counts, missing mask and row lengths (sparse input is densified)."""
    X = block.X.toarray() if sp.issparse(block.X) else np.asarray(block.X)
    M = block.missing
    M = np.zeros(X.shape) if M is None else (M.toarray() if sp.issparse(M) else np.asarray(M))
    return {"X": X.astype(np.float32), "missing": M.astype(np.float32),
            "length": X.sum(axis=1).astype(np.float32)}


def numpyro_row_loglik(params, row_args):
    """``log p(tokens_i | y=k)`` per row and class, (n, K), renormalised over observed columns."""
    import jax.numpy as jnp

    ll = row_args["X"] @ params["log_theta"].T
    observed_mass = jnp.clip(1.0 - row_args["missing"] @ params["theta"].T, jnp.finfo(ll.dtype).tiny)
    return ll - row_args["length"][:, None] * jnp.log(observed_mass)


# ---- linear-classifier view (model.py coef_) ----
def linear_terms(theta, state):
    """Binary log-odds pieces from ``theta`` (..., 2, d): ``log theta_1j - log theta_0j`` per count."""
    with np.errstate(divide="ignore", invalid="ignore"):  # alpha=0: NaN where undefined, see model._linear
        lt = np.log(theta)
        return lt[..., 1, :] - lt[..., 0, :], np.zeros(theta.shape[:-2])


def linear_names(names, state):
    """Names of the :func:`linear_terms` weights: the column names."""
    return list(names)


def plot_panels(block, top=10) -> list:
    """One bar panel for the block: its ``top`` most probable columns per class."""
    names = [str(n) for n in block.names]
    a = block.posterior.concentration
    p = a / a.sum(axis=1, keepdims=True)
    idx = np.argsort(-p.max(axis=0))[:top]
    return [(f"{len(names)} count columns (top {len(idx)})", "bars", ([names[i] for i in idx], p[:, idx]))]
