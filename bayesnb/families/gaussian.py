"""Real-valued features with a Normal-Inverse-Gamma prior (Gaussian with unknown mean and variance).

For class ``k`` and feature ``j``::

    sigma2[k, j]         ~ InvGamma(a0, b0)
    mu[k, j] | sigma2    ~ Normal(mu0, sigma2 / kappa0)
    x[i, j] | y=k        ~ Normal(mu[k, j], sigma2[k, j])

    posterior   kappa_n = kappa0 + n            mu_n = (kappa0 mu0 + n xbar) / kappa_n
                a_n     = a0 + n / 2            b_n  = b0 + M2 / 2 + kappa0 n (xbar - mu0)^2 / (2 kappa_n)
    plug-in     Normal(mu_n, b_n / a_n)         (posterior means of the natural parameters:
                                                 E[mu/sigma2] / E[1/sigma2] and 1 / E[1/sigma2])
    exact       Student-t(2 a_n, mu_n, b_n (kappa_n + 1) / (a_n kappa_n))
    evidence    log G(a_n) - log G(a0) + a0 log b0 - a_n log b_n + (log kappa0 - log kappa_n)/2 - n/2 log(2 pi)

Priors (``prior=``):

- ``"auto"`` (default): weak and scale-aware, set from the training data itself:
  ``mu0`` = pooled mean, ``a0 = 1``, ``b0`` = pooled within-class variance (so the prior's
  guess of the variance is the pooled variance, worth two observations), and
  ``kappa0 = 0.01 * within / total`` variance, so the prior on each class mean spreads
  10 total standard deviations around the pooled mean (well-separated classes are not
  pulled together). Zero-variance features need no ``var_smoothing``: every prior
  variance is at least ``1e-9 *`` the largest feature variance, and a feature that is
  constant in training (no information about the class) has its classes tied, so its
  factor cancels in ``predict_proba`` (see :func:`auto_prior`).
- ``None``: maximum likelihood, the improper limit ``kappa0 = a0 = b0 = 0``; the plug-in
  is then the sample mean and the biased (divide-by-n) variance, exactly
  scikit-learn's ``GaussianNB(var_smoothing=0)``.
- ``"reference"``: the reference prior ``p(mu, sigma2) ~ 1/sigma2`` (``kappa0 = 0,
  a0 = -1/2, b0 = 0``); the plug-in variance is the unbiased sample variance
  (divide by n - 1) and the exact predictive the textbook Student-t with n - 1 degrees
  of freedom.
- a dict ``{"mu0", "kappa0", "a0", "b0"}`` of scalars or per-feature arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp

from .._utils import all_missing_columns, nonfinite_error
from ._base import Family

__all__ = ["Gaussian", "GaussianStats", "NormalInverseGammas", "encode", "suff_stats",
           "update", "plug_in", "log_likelihood", "log_evidence"]

AUTO_KAPPA0 = 0.01
AUTO_A0 = 1.0
#: under prior="auto", no feature's prior sd is below this fraction of its values' magnitude
REL_SD_FLOOR = 1e-8


class GaussianStats(NamedTuple):
    """Sufficient statistics (weighted, missing cells left out).

    Attributes
    ----------
    n : ndarray of shape (K, d)
        Weighted number of observed values.
    mean : ndarray of shape (K, d)
        Weighted mean of the observed values (0 where ``n == 0``).
    m2 : ndarray of shape (K, d)
        Weighted sum of squared deviations from ``mean``.
    """

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray


class NormalInverseGammas(NamedTuple):
    """Normal-Inverse-Gamma parameters per (class, feature): prior and posterior alike.

    Attributes
    ----------
    mu : ndarray of shape (K, d)
    kappa : ndarray of shape (K, d)
    a : ndarray of shape (K, d)
    b : ndarray of shape (K, d)
    """

    mu: np.ndarray
    kappa: np.ndarray
    a: np.ndarray
    b: np.ndarray


class GaussianBlock(NamedTuple):
    """An encoded real-valued block.

    Attributes
    ----------
    X : ndarray of shape (n, d)
        Values with missing cells set to 0.
    observed : ndarray of bool, shape (n, d)
    """

    X: np.ndarray
    observed: np.ndarray


def encode(X, *, who="Gaussian") -> GaussianBlock:
    """Validate real values (NaN = missing, infinity = error); never modifies ``X``."""
    if sp.issparse(X):
        raise TypeError(
            f"{who}: Gaussian features need a dense array; received a sparse matrix. "
            "Use .toarray(), or a Multinomial/Bernoulli block for sparse counts."
        )
    X = np.asarray(X, dtype=np.float64)
    observed = ~np.isnan(X)
    if np.isinf(X).any():
        raise nonfinite_error(who, "Gaussian features", X)
    return GaussianBlock(np.where(observed, X, 0.0), observed)


def suff_stats(block: GaussianBlock, resp: np.ndarray) -> GaussianStats:
    """Weighted count, mean and sum of squared deviations per (class, feature).

    Each (class, feature) mean is computed on values shifted by the first value that class
    observed in the feature, so values that are all equal give that value exactly as the
    mean and exactly 0 as ``m2`` (whatever the weights and the summation order): a
    constant column is recognisably constant, not "variance 1e-34" from rounding.
    """
    X, obs = block.X, block.observed
    n = resp.T @ obs.astype(float)
    K, d = n.shape
    mean = np.zeros((K, d))
    m2 = np.zeros((K, d))
    for k in range(K):
        seen = obs & (resp[:, k] > 0)[:, None]
        has = seen.any(axis=0)
        ref = np.where(has, X[np.argmax(seen, axis=0), np.arange(d)], 0.0)
        shift = np.where(obs, X - ref, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean[k] = np.where(n[k] > 0, ref + (resp[:, k] @ shift) / n[k], 0.0)
        m2[k] = resp[:, k] @ np.where(obs, (X - mean[k]) ** 2, 0.0)
    return GaussianStats(n, mean, m2)


def merge(a: GaussianStats, b: GaussianStats) -> GaussianStats:
    """Combine two batches (Chan et al.'s parallel update; numerically stable)."""
    n = a.n + b.n
    delta = b.mean - a.mean
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(n > 0, b.n / n, 0.0)
        mean = a.mean + delta * frac
        m2 = a.m2 + b.m2 + np.where(n > 0, delta**2 * a.n * b.n / n, 0.0)
    return GaussianStats(n, mean, m2)


def _fit_exactly(base, add, target):
    """``base`` moved by a few ulps so that ``base + add == target`` in float64.

    Always reached for whole-number (and half-number) ``add``; with arbitrary real weights a
    rounding tie can leave ``base + add`` one ulp from ``target``."""
    base = base + (target - (base + add))  # the rounding error of base + add, corrected once
    for _ in range(64):  # then ulp by ulp (a float near base is finer than one near target)
        got = base + add
        if np.array_equal(got, target):
            break
        base = np.where(got > target, np.nextafter(base, -np.inf),
                        np.where(got < target, np.nextafter(base, np.inf), base))
    return base


def auto_prior(stats: GaussianStats) -> NormalInverseGammas:
    """The weak, scale-aware default prior computed from pooled statistics.

    A feature whose observed training values are all equal (zero total variance) says
    nothing about the class, so its classes are tied: each class's prior is the pooled
    posterior of the other classes' rows (``kappa0 + N - n_k``, ``a0 + (N - n_k) / 2``),
    every class ends with the same posterior and the feature's factor cancels in
    ``predict_proba`` for any value (bit for bit with whole-number weights; within an ulp
    of the posterior's parameters with arbitrary real weights). Its prior variance is ``1e-9 * max(value**2,
    largest variance of any feature)`` (1 when both are 0). Every other feature's prior
    variance is at least ``1e-9 *`` the largest variance (scikit-learn's ``var_smoothing``
    scale) and at least ``(REL_SD_FLOOR * |largest class mean|)**2``, so rounding-level
    spread (or a weighted spread made subnormal by extreme weights) never makes a near-zero
    variance.
    """
    K, d = stats.n.shape
    N = stats.n.sum(0)
    # pooled mean, shifted by one class's mean so that equal class means give it exactly
    first = np.argmax(stats.n > 0, axis=0)
    ref = stats.mean[first, np.arange(d)]
    with np.errstate(invalid="ignore", divide="ignore"):
        grand = np.where(N > 0, ref + (stats.n * (stats.mean - ref)).sum(0) / N, 0.0)
        within = np.where(N > 0, stats.m2.sum(0) / N, 0.0)
        total = np.where(N > 0, (stats.m2.sum(0) + (stats.n * (stats.mean - grand) ** 2).sum(0)) / N, 0.0)
    var = np.where(within > 0, within, total)
    positive = var[var > 0]
    floor = 1e-9 * positive.max() if positive.size else 0.0
    # a spread below 1e-8 of the values' magnitude is rounding, not scale (extreme weights
    # can make a weighted variance subnormal): the variance is at least (1e-8 * |value|)**2
    seen = stats.n > 0
    magnitude = np.where(seen, np.abs(stats.mean), 0.0).max(axis=0)
    floor = np.maximum(floor, (REL_SD_FLOOR * magnitude) ** 2)
    tied = (N > 0) & (total == 0)
    # a constant feature has no spread to learn a scale from: the scale is its magnitude
    # (1e-9 of its square) or scikit-learn's var_smoothing scale (1e-9 of the largest
    # variance), whichever is larger, and 1 when both are 0
    const_var = np.maximum(floor, 1e-9 * grand**2)
    const_var = np.where(const_var > 0, const_var, 1.0)
    # a never-observed feature (N == 0) has no scale of its own and takes the table's largest
    # (a 1e-9 variance would add ~-1e10 to every joint score)
    var = np.where(N > 0, np.where(tied, const_var, np.maximum(var, floor)),
                   positive.max() if positive.size else 1.0)
    # prior sd of a class mean = sqrt(var / kappa0) = 10 total sds: classes far apart are not
    # pulled together, and the conjugate shrinkage term does not inflate their variances
    kappa0 = AUTO_KAPPA0 * var / np.maximum(total, var)
    shape = (K, d)
    kappa = np.broadcast_to(kappa0, shape).copy()
    a = np.full(shape, AUTO_A0)
    if tied.any():
        n = stats.n[:, tied]
        k_all = kappa0[tied] + N[tied]
        a_all = AUTO_A0 + N[tied] / 2
        # exact: update() adds n (resp. n / 2) back, and every class must get the same value
        kappa[:, tied] = _fit_exactly(k_all - n, n, np.broadcast_to(k_all, n.shape))
        a[:, tied] = _fit_exactly(a_all - n / 2, n / 2, np.broadcast_to(a_all, n.shape))
    return NormalInverseGammas(
        np.broadcast_to(grand, shape).copy(),
        kappa,
        a,
        np.broadcast_to(AUTO_A0 * var, shape).copy(),
    )


def make_prior(prior, stats: GaussianStats, who="Gaussian") -> NormalInverseGammas:
    """Resolve ``prior`` ("auto", None, "reference" or a dict) to parameters of shape (K, d)."""
    shape = stats.n.shape
    if isinstance(prior, str) and prior == "auto":
        return auto_prior(stats)
    if prior is None:
        z = np.zeros(shape)
        return NormalInverseGammas(z, z.copy(), z.copy(), z.copy())
    if isinstance(prior, str) and prior == "reference":
        z = np.zeros(shape)
        return NormalInverseGammas(z, z.copy(), np.full(shape, -0.5), z.copy())
    if isinstance(prior, dict):
        keys = {"mu0", "kappa0", "a0", "b0"}
        if set(prior) != keys:
            raise ValueError(f"{who}: a prior dict needs exactly the keys {sorted(keys)}; received {sorted(prior)}.")
        vals = {}
        for k in keys:
            v = np.asarray(prior[k], dtype=float)
            try:
                vals[k] = np.broadcast_to(v, shape).astype(float)
            except ValueError:
                raise ValueError(f"{who}: prior[{k!r}] has shape {v.shape}; expected a scalar or ({shape[1]},).") from None
            if not np.all(np.isfinite(vals[k])):
                raise ValueError(f"{who}: prior[{k!r}] must be finite.")
        for k in ("kappa0", "a0", "b0"):
            if np.any(vals[k] <= 0):
                raise ValueError(f"{who}: prior[{k!r}] must be > 0 for a proper prior; received {prior[k]!r}. "
                                 "Use prior=None for maximum likelihood.")
        return NormalInverseGammas(vals["mu0"], vals["kappa0"], vals["a0"], vals["b0"])
    raise ValueError(f"{who}: prior must be 'auto', None, 'reference' or a dict; received {prior!r}.")


def update(prior: NormalInverseGammas, stats: GaussianStats) -> NormalInverseGammas:
    """Conjugate Normal-Inverse-Gamma update."""
    n, xbar = stats.n, stats.mean
    kappa = prior.kappa + n
    with np.errstate(invalid="ignore", divide="ignore"):
        # mu0 + n (xbar - mu0) / kappa: equals mu0 exactly when xbar == mu0
        mu = np.where(kappa > 0, prior.mu + (n / kappa) * (xbar - prior.mu), prior.mu)
        shrink = np.where(kappa > 0, prior.kappa * n * (xbar - prior.mu) ** 2 / (2 * kappa), 0.0)
    return NormalInverseGammas(mu, kappa, prior.a + n / 2, prior.b + stats.m2 / 2 + shrink)


def plug_in(post: NormalInverseGammas):
    """Plug-in ``(mean, var)`` of shape (K, d): ``mu_n`` and ``b_n / a_n``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        var = post.b / post.a
    return post.mu, var


def defined(post: NormalInverseGammas) -> np.ndarray:
    """Bool (K, d): where the predictive is a proper density."""
    _, var = plug_in(post)
    return np.isfinite(var) & (var > 0) & (post.a > 0) & (post.kappa > 0)


def log_likelihood(post: NormalInverseGammas, block: GaussianBlock, predictive="mean") -> np.ndarray:
    """``log p(x_block | y=k)``, shape (n, K); missing cells and undefined factors add 0.

    Parameters
    ----------
    post : NormalInverseGammas
    block : GaussianBlock
    predictive : {"mean", "marginal"}
        Normal plug-in, or the exact Student-t posterior predictive.
    """
    if predictive not in ("mean", "marginal"):
        raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
    X, obs = block.X, block.observed
    K = post.mu.shape[0]
    out = np.empty((X.shape[0], K))
    for k, ll in enumerate(class_cell_log_pdfs(post, X, predictive)):
        out[:, k] = np.where(obs, ll, 0.0).sum(axis=1)
    return out


def class_cell_log_pdfs(post: NormalInverseGammas, X: np.ndarray, predictive="mean"):
    """Yield, class by class, the (n, d) log densities of every cell of ``X``.

    ``"mean"``: Normal(mu_n, b_n / a_n); ``"marginal"``: the Student-t predictive.
    Undefined factors (no data under an improper prior) give 0; missing cells are the
    caller's to mask.
    """
    mu, var = plug_in(post)
    ok = defined(post)
    if predictive == "marginal":
        nu = 2 * post.a
        with np.errstate(invalid="ignore", divide="ignore"):
            s2 = post.b * (post.kappa + 1) / (post.a * post.kappa)
    for k in range(mu.shape[0]):
        if predictive == "marginal":
            nk = np.where(ok[k], nu[k], 1.0)
            sk = np.where(ok[k], s2[k], 1.0)
            ll = (gammaln((nk + 1) / 2) - gammaln(nk / 2) - 0.5 * np.log(nk * np.pi * sk)
                  - (nk + 1) / 2 * np.log1p((X - mu[k]) ** 2 / (nk * sk)))
        else:
            v = np.where(ok[k], var[k], 1.0)
            with np.errstate(over="ignore"):  # a squared distance past 1e308: density 0, log -inf
                ll = -0.5 * np.log(2 * np.pi * v) - (X - mu[k]) ** 2 / (2 * v)
        yield np.where(ok[k], ll, 0.0)


def log_evidence(prior: NormalInverseGammas, post: NormalInverseGammas) -> np.ndarray:
    """Closed-form ``log p(x_block | y)`` of the training data per class, shape (K,)."""
    n = post.kappa - prior.kappa
    with np.errstate(invalid="ignore", divide="ignore"):
        ev = (gammaln(post.a) - gammaln(prior.a) + prior.a * np.log(prior.b) - post.a * np.log(post.b)
              + 0.5 * (np.log(prior.kappa) - np.log(post.kappa)) - 0.5 * n * np.log(2 * np.pi))
    return ev.sum(axis=1)


class Gaussian(Family):
    """Real-valued block with a Normal-Inverse-Gamma prior per (class, feature).

    Parameters
    ----------
    prior : {"auto", None, "reference"} or dict, default="auto"
        See the module docstring: ``"auto"`` weak data-scaled prior, ``None`` maximum
        likelihood (= scikit-learn GaussianNB with ``var_smoothing=0``), ``"reference"``
        the ``1/sigma2`` reference prior (unbiased variance), or explicit
        ``{"mu0", "kappa0", "a0", "b0"}``.
    """

    _param_names = ("prior",)
    name = "gaussian"

    def __init__(self, prior="auto"):
        self.prior = prior

    def encode(self, X, state=None, *, extend=False, who="Gaussian"):
        """See :func:`encode`; the state is the number of features."""
        return encode(X, who=who), X.shape[1]

    def empty_stats(self, state, K):
        """Zero statistics."""
        z = np.zeros((K, state))
        return GaussianStats(z, z.copy(), z.copy())

    def stats(self, block, resp, state):
        """See :func:`suff_stats`."""
        return suff_stats(block, resp)

    def merge(self, a, b):
        """See :func:`merge`."""
        return merge(a, b)

    def make_prior(self, stats, state, who="Gaussian"):
        """See :func:`make_prior`."""
        return make_prior(self.prior, stats, who)

    def update(self, prior, stats):
        """See :func:`update`."""
        return update(prior, stats)

    def check_posterior(self, post, stats, names, classes, who="Gaussian"):
        """Raise a clear error where maximum likelihood leaves a density undefined."""
        has_data = stats.n.sum(0) > 0
        bad = ~defined(post) & has_data[None, :]
        if bad.any():
            k, j = np.argwhere(bad)[0]
            n = stats.n[k, j]
            why = "has no observed value" if n == 0 else (
                "has zero variance" if stats.m2[k, j] == 0 else "has too few values")
            label = classes[k].item() if hasattr(classes[k], "item") else classes[k]
            if self.prior is None or isinstance(self.prior, str) and self.prior == "reference":
                raise ValueError(
                    f"{who}: feature {names[j]!r} {why} in class {label!r} "
                    f"(n={n:g}), so its density is undefined under prior={self.prior!r}. "
                    "Use prior='auto' (the default) or a proper prior dict."
                )
            # a proper prior always gives a positive variance, unless float64 cannot hold it
            raise ValueError(
                f"{who}: feature {names[j]!r} in class {label!r} has a posterior variance too small "
                f"for float64 (weighted count n={n:g}, weighted spread m2={stats.m2[k, j]:g}): the "
                "sample weights are so extreme that the class's values have no measurable spread. "
                "Rescale sample_weight (weights are counts of rows), or pass a prior dict with a "
                "larger b0."
            )

    def log_likelihood(self, prior, post, block, predictive="mean"):
        """See :func:`log_likelihood`."""
        return log_likelihood(post, block, predictive)

    def log_evidence(self, prior, post):
        """See :func:`log_evidence`."""
        return log_evidence(prior, post)

    def is_proper(self, prior):
        """True when kappa0, a0, b0 > 0."""
        return bool(np.all(prior.kappa > 0) and np.all(prior.a > 0) and np.all(prior.b > 0))

    def all_missing(self, block):
        """Columns missing in every row, bool (d,)."""
        return all_missing_columns(~block.observed, block.X.shape)


# ---- generative pieces (generative.py) ----
# A "point" is a NormalInverseGammas whose plug-in (mu, b / a) is the (mean, variance) in
# use: the posterior itself, or one exact draw stored as (mu, kappa=1, a=1, b=sigma2).
def gen_point(prior: NormalInverseGammas, post: NormalInverseGammas, rng=None) -> NormalInverseGammas:
    """Plug-in (``rng=None``) or one exact draw ``sigma2 ~ InvGamma(a, b)``,
    ``mu ~ Normal(mu_n, sigma2 / kappa)`` per (class, feature). Undefined entries keep
    their plug-in values."""
    if rng is None:
        return post
    ok = defined(post) & (post.b > 0)
    a = np.where(ok, post.a, 1.0)
    b = np.where(ok, post.b, 1.0)
    kappa = np.where(ok, post.kappa, 1.0)
    sigma2 = b / rng.standard_gamma(a)
    mu = rng.normal(np.where(ok, post.mu, 0.0), np.sqrt(sigma2 / kappa))
    _, var = plug_in(post)
    return NormalInverseGammas(np.where(ok, mu, post.mu), np.ones_like(mu), np.ones_like(mu),
                               np.where(ok, sigma2, np.nan_to_num(var)))


def gen_sample(point: NormalInverseGammas, z: np.ndarray, rng, lengths=None) -> np.ndarray:
    """Real values (n, d) drawn from ``Normal(mu[z], var[z])``."""
    mu, var = plug_in(point)
    return rng.normal(mu[z], np.sqrt(np.maximum(np.nan_to_num(var[z]), 0.0)))


def gen_missing(block: GaussianBlock) -> np.ndarray:
    """Bool (n, d) mask of missing cells."""
    return ~block.observed


def gen_fill(point: NormalInverseGammas, block: GaussianBlock, resp, strategy, z=None, rng=None, rate=None):
    """Values (n, d) with missing cells filled.

    ``"mean"``: ``sum_k resp[i,k] mu_k`` (the conditional mean); ``"mode"``: of the
    candidate points ``mu_k``, the one where the mixture ``sum_k resp[i,k] N(. | mu_k, var_k)``
    is highest (an approximation of the mixture's mode); ``"draw"``: Normal given ``z``.
    """
    X = block.X.copy()
    miss = ~block.observed
    if not miss.any():
        return X
    mu, var = plug_in(point)
    var = np.where(np.isfinite(var) & (var > 0), var, 1.0)
    rows, cols = np.nonzero(miss)
    if strategy == "draw":
        X[rows, cols] = rng.normal(mu[z[rows], cols], np.sqrt(var[z[rows], cols]))
    elif strategy == "mean":
        X[rows, cols] = np.einsum("ik,ki->i", resp[rows], mu[:, cols])
    else:
        cand = mu[:, cols].T  # (m, K) candidate points
        m, v = mu[:, cols].T, var[:, cols].T
        with np.errstate(divide="ignore"):
            log_r = np.log(resp[rows])
        log_dens = np.empty((rows.size, cand.shape[1]))
        for c in range(cand.shape[1]):  # log of the mixture density at candidate c, in log space
            x = cand[:, c:c + 1]
            log_dens[:, c] = logsumexp(log_r - (x - m) ** 2 / (2 * v) - 0.5 * np.log(2 * np.pi * v), axis=1)
        X[rows, cols] = cand[np.arange(rows.size), np.argmax(log_dens, axis=1)]
    return X


def gen_cell_log_lik(prior, point: NormalInverseGammas, block: GaussianBlock, weights,
                     predictive="mean") -> np.ndarray:
    """Per-feature ``sum_k weights[i, k] log p(x_ij | y=k)``, (n, d); missing -> 0.

    ``predictive="marginal"`` uses the Student-t posterior predictive of ``point``."""
    X, obs = block.X, block.observed
    out = np.zeros(X.shape)
    for k, ll in enumerate(class_cell_log_pdfs(point, X, predictive)):
        w = weights[:, k:k + 1]
        out += np.where(obs & (w > 0), w * ll, 0.0)
    return out


def gen_log_penalty(prior: NormalInverseGammas, point: NormalInverseGammas) -> float:
    """``-a0 log s2 - b0 / s2 - kappa0 (mu - mu0)^2 / (2 s2)`` at the plug-in ``(mu, s2)``:
    the (unnormalised) log prior whose MAP is the plug-in, so EM with the plug-in
    M-step climbs ``log-likelihood + penalty``."""
    mu, var = plug_in(point)
    ok = defined(point)
    v = np.where(ok, var, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        pen = -prior.a * np.log(v) - prior.b / v - prior.kappa * (mu - prior.mu) ** 2 / (2 * v)
    return float(np.where(ok, pen, 0.0).sum())


# ---- posterior draws and NumPyro pieces (model.py) ----
#: names of the parameter variables in draws and ArviZ output (``sample_params`` keys)
PARAM_NAMES = ("mu", "sigma2")
# Exact conjugate draws (NumPy) and the pieces model.py assembles into the one NumPyro
# model. Parameterisation shared by both: ``mu`` (K, d) and ``sigma2`` (K, d), the
# class-conditional mean and variance.


def sample_params(post: NormalInverseGammas, n_draws: int, rng) -> dict:
    """Exact posterior draws ``{"mu", "sigma2"}``, each (n_draws, K, d).

    ``sigma2 ~ InvGamma(a_n, b_n)`` then ``mu | sigma2 ~ Normal(mu_n, sigma2 / kappa_n)``.
    """
    shape = (n_draws,) + post.mu.shape
    sigma2 = post.b / rng.standard_gamma(post.a, size=shape)
    mu = post.mu + np.sqrt(sigma2 / post.kappa) * rng.standard_normal(shape)
    return {"mu": mu, "sigma2": sigma2}


def posterior_moments(post: NormalInverseGammas) -> dict:
    """Closed-form posterior mean and sd of ``mu`` and ``sigma2`` (NaN where undefined)."""
    a, b, kappa = post.a, post.b, post.kappa
    with np.errstate(invalid="ignore", divide="ignore"):
        e_s2 = np.where(a > 1, b / (a - 1), np.nan)
        sd_s2 = np.where(a > 2, e_s2 / np.sqrt(np.where(a > 2, a - 2, 1.0)), np.nan)
        sd_mu = np.sqrt(e_s2 / kappa)
    return {"mu": (post.mu.copy(), sd_mu), "sigma2": (e_s2, sd_s2)}


def posterior_from_params(params: dict) -> NormalInverseGammas:
    """A posterior whose Normal plug-in equals the given ``mu``, ``sigma2`` (one draw)."""
    mu, s2 = np.asarray(params["mu"], float), np.asarray(params["sigma2"], float)
    return NormalInverseGammas(mu, np.ones_like(mu), np.ones_like(mu), s2)


def numpyro_static(prior: NormalInverseGammas):
    """Hashable structure (none needed beyond shapes)."""
    return ()


def numpyro_prior_args(prior: NormalInverseGammas) -> dict:
    """Normal-Inverse-Gamma hyperparameters as float32 (K, d) arrays."""
    return {k: getattr(prior, k).astype(np.float32) for k in ("mu", "kappa", "a", "b")}


def numpyro_sample(label, static, prior_args, feature_plate, class_plate="class"):
    """``sigma2_<label>`` ~ InvGamma(a0, b0), ``mu_<label>`` ~ Normal(mu0, sigma2 / kappa0)
    under plates ``class_plate`` x feature."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    p = prior_args
    K, d = p["mu"].shape
    with numpyro.plate(class_plate, K, dim=-2), numpyro.plate(feature_plate, d, dim=-1):
        s2 = numpyro.sample(f"sigma2_{label}", dist.InverseGamma(p["a"], p["b"]))
        mu = numpyro.sample(f"mu_{label}", dist.Normal(p["mu"], jnp.sqrt(s2 / p["kappa"])))
    return {"mu": mu, "sigma2": s2}


def params_from_sites(label, static, samples: dict) -> dict:
    """MCMC samples -> ``{"mu", "sigma2"}`` with leading sample axes."""
    return {"mu": np.asarray(samples[f"mu_{label}"], dtype=float),
            "sigma2": np.asarray(samples[f"sigma2_{label}"], dtype=float)}


def point_params(post: NormalInverseGammas) -> dict:
    """The parameters the plug-in (``"mean"``) predictive uses: ``mu_n`` and ``b_n / a_n``
    (not the posterior mean of sigma2, ``b_n / (a_n - 1)``). Inverse of :func:`posterior_from_params`."""
    mu, var = plug_in(post)
    return {"mu": np.asarray(mu, dtype=float), "sigma2": np.asarray(var, dtype=float)}


def sites_from_params(label, static, params: dict) -> dict:
    """Inverse of :func:`params_from_sites`: ``{"mu_<label>", "sigma2_<label>"}`` site values."""
    return {f"mu_{label}": np.asarray(params["mu"]), f"sigma2_{label}": np.asarray(params["sigma2"])}


def numpyro_stats_args(stats: GaussianStats) -> dict:
    """Count, mean and sum of squared deviations per (class, feature), float32."""
    return {"n": stats.n.astype(np.float32), "mean": stats.mean.astype(np.float32),
            "m2": stats.m2.astype(np.float32)}


def numpyro_suffstat_loglik(params, stats_args):
    """``sum_k,j -n/2 log(2 pi s2) - (M2 + n (xbar - mu)^2) / (2 s2)``."""
    import jax.numpy as jnp

    s = stats_args
    mu, s2 = params["mu"], params["sigma2"]
    return (-0.5 * s["n"] * jnp.log(2 * jnp.pi * s2)
            - (s["m2"] + s["n"] * (s["mean"] - mu) ** 2) / (2 * s2)).sum()


def numpyro_row_args(block: GaussianBlock, static) -> dict:
    """Values (missing set to 0) and the observed mask, float32 (n, d)."""
    return {"X": block.X.astype(np.float32), "mask": block.observed.astype(np.float32)}


def numpyro_row_loglik(params, row_args):
    """``log p(x_i | y=k)`` per row and class, (n, K); missing cells add 0."""
    import jax.numpy as jnp

    mu, s2 = params["mu"], params["sigma2"]  # (K, d)
    X, m = row_args["X"][:, None, :], row_args["mask"][:, None, :]
    ll = -0.5 * jnp.log(2 * jnp.pi * s2) - (X - mu) ** 2 / (2 * s2)
    return (ll * m).sum(-1)


def plot_panels(block, top=10) -> list:
    """One density panel per feature: the plug-in Normal of each class."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mu, var = block.posterior.mu, block.posterior.b / block.posterior.a
    return [(str(name), "density", (mu[:, j], np.sqrt(var[:, j]))) for j, name in enumerate(block.names)]
