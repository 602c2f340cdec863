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

Everything about the distribution lives on :class:`Gaussian`; this module also holds the
NamedTuples it passes around and the ``"auto"`` prior (:func:`auto_prior`); the arithmetic over
cells (plug-in, chunked log densities and statistics) is in ``_gaussian_cells``.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._utils import all_finite, nonfinite_error
from . import _interval
from ._contract import Family
from .capabilities import SHARED, NumericNode
from ._gaussian_cells import (_complete_stats, chunked_parts, class_cell_log_pdfs, defined, mixture_mode, nig_log_norm,
                              plug_in, usable_plug_in)
from .numeric import float32_args, float_array, sample_class_feature, weighted_class_cells
from .dp_release import noisy_moments, require_bounds

__all__ = ["Gaussian", "GaussianStats", "NormalInverseGammas", "auto_prior", "plug_in"]


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

    ``sigma2 ~ InverseGamma(a, b)`` and ``mu | sigma2 ~ Normal(mu, sigma2 / kappa)``.

    Attributes
    ----------
    mu : ndarray of shape (K, d)
        Location of the mean.
    kappa : ndarray of shape (K, d)
        Pseudo-observations behind the mean (0: flat).
    a : ndarray of shape (K, d)
        Shape of the variance (half the pseudo-observations behind it).
    b : ndarray of shape (K, d)
        Scale of the variance (half the pseudo sum of squares).
    """

    mu: np.ndarray
    kappa: np.ndarray
    a: np.ndarray
    b: np.ndarray


class GaussianBlock(NamedTuple):
    """An encoded real-valued block.

    A missing cell is held as ``observed=False`` with the value 0, never as NaN, so no sum
    over cells (statistics, log densities) can turn NaN.

    Attributes
    ----------
    X : ndarray of shape (n, d)
        Values with missing cells set to 0.
    observed : ndarray of bool, shape (n, d)
        False at the missing cells (whose log density is left out of every sum).
    missing : ndarray of bool, shape (n, d), or None
        The block's missing-data mask (the family contract's one representation): True at the
        missing cells, None when none is; ``observed`` is its complement for the sums.
    """

    X: np.ndarray
    observed: np.ndarray
    missing: np.ndarray | None


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


def auto_prior(stats):
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

    Parameters
    ----------
    stats : GaussianStats
        Pooled sufficient statistics of the training data, (K, d) each.

    Returns
    -------
    NormalInverseGammas
        Prior parameters of shape (K, d).
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
    return NormalInverseGammas(np.broadcast_to(grand, shape).copy(), kappa, a,
                               np.broadcast_to(AUTO_A0 * var, shape).copy())


def _all_observed(obs) -> bool:
    """Whether the observed mask is all True; no pass over the cells for :meth:`Gaussian.encode`'s
    zero-memory mask of a complete block (a broadcast scalar)."""
    if obs.ndim == 2 and obs.size and not any(obs.strides):
        return bool(obs.flat[0])
    return bool(obs.all())


class Gaussian(Family, NumericNode, *SHARED):
    """Real-valued block with a Normal-Inverse-Gamma prior per (class, feature).

    Parameters
    ----------
    prior : {"auto", None, "reference"} or dict, default="auto"
        See the module docstring: ``"auto"`` weak data-scaled prior, ``None`` maximum
        likelihood (= scikit-learn GaussianNB with ``var_smoothing=0``), ``"reference"``
        the ``1/sigma2`` reference prior (unbiased variance), or explicit
        ``{"mu0", "kappa0", "a0", "b0"}``.

    Notes
    -----
    The encoding state is ``d``. Prior, posterior and generative "points" are
    :class:`NormalInverseGammas` (K, d); draws and the NumPyro model use ``mu``, ``sigma2``.
    """

    _param_names = ("prior",)
    name = "gaussian"
    default_fill = "mean"  # the posterior-predictive mean: best for squared loss
    param_names = ("mu", "sigma2")
    stats_type = GaussianStats
    params_type = NormalInverseGammas
    density = True
    ordered_support = True
    field_rules: ClassVar[dict] = {"GaussianStats": {"n": "count", "mean": "finite", "m2": "sum"},
                                   "NormalInverseGammas": {"mu": "finite", "kappa": "count", "a": "a", "b": "sum"}}

    #: a private fit releases counts, sums of u and sums of u**2 (:func:`.dp_release.noisy_moments`)
    dp_statistics = 3

    def __init__(self, prior="auto"):
        self.prior = prior

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Gaussian"):
        """Validate real values (NaN = missing, infinity = error); never modifies ``X``.

        Float input is kept as it is, in any layout (:func:`.numeric.float_array`): float32
        stays float32 when no cell is missing; missing cells make a float64 copy with 0 in them.

        Returns the :class:`GaussianBlock` and the state, the number of features ``d``
        (``state`` and ``extend`` are unused: a real-valued encoding has nothing to extend).
        """
        if sp.issparse(X):
            raise TypeError(
                f"{who}: Gaussian features need a dense array; received a sparse matrix. "
                "Use .toarray(), or a Multinomial/Bernoulli block for sparse counts."
            )
        A = float_array(X)  # no copy of float input, whatever its layout (float32 kept; statistics in float64)
        if all_finite(A):  # nothing missing: no copy, and a mask that takes no memory
            return GaussianBlock(A, np.broadcast_to(True, A.shape), None), X.shape[1]
        missing = np.isnan(A)
        observed = ~missing
        if np.isinf(A).any():
            raise nonfinite_error(who, "Gaussian features", A)
        values = np.zeros(A.shape)  # float64: the cells' shifts below are then float64 too
        np.copyto(values, A, where=observed)
        return GaussianBlock(values, observed, missing), X.shape[1]

    def empty_stats(self, state, K):
        """Zero statistics."""
        z = np.zeros((K, state))
        return GaussianStats(z, z.copy(), z.copy())

    def stats(self, block, resp, state):
        """Weighted count, mean and sum of squared deviations per (class, feature).

        Each (class, feature) mean is computed on values shifted by the first value that class
        observed in the feature, so values that are all equal give that value exactly as the
        mean and exactly 0 as ``m2`` (whatever the weights and the summation order): a
        constant column is recognisably constant, not "variance 1e-34" from rounding.
        """
        X, obs = block.X, block.observed
        if _all_observed(obs):
            return GaussianStats(*_complete_stats(X, resp))
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

    def merge(self, a, b):
        """Combine two batches (Chan et al.'s parallel update; numerically stable)."""
        n = a.n + b.n
        delta = b.mean - a.mean
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(n > 0, b.n / n, 0.0)
            mean = a.mean + delta * frac
            m2 = a.m2 + b.m2 + np.where(n > 0, delta**2 * a.n * b.n / n, 0.0)
        return GaussianStats(n, mean, m2)

    def make_prior(self, stats, state, who="Gaussian"):
        """Resolve ``prior`` ("auto", None, "reference" or a dict) to parameters of shape (K, d)
        (``"auto"``: :func:`auto_prior` of the training statistics)."""
        prior, shape = self.prior, stats.n.shape
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
                raise ValueError(f"{who}: a prior dict needs exactly the keys {sorted(keys)}; "
                                 f"received {sorted(prior)}.")
            vals = {}
            for k in keys:
                v = np.asarray(prior[k], dtype=float)
                try:
                    vals[k] = np.broadcast_to(v, shape).astype(float)
                except ValueError:
                    raise ValueError(f"{who}: prior[{k!r}] has shape {v.shape}; "
                                     f"expected a scalar or ({shape[1]},).") from None
                if not np.all(np.isfinite(vals[k])):
                    raise ValueError(f"{who}: prior[{k!r}] must be finite.")
            for k in ("kappa0", "a0", "b0"):
                if np.any(vals[k] <= 0):
                    raise ValueError(f"{who}: prior[{k!r}] must be > 0 for a proper prior; received {prior[k]!r}. "
                                     "Use prior=None for maximum likelihood.")
            return NormalInverseGammas(vals["mu0"], vals["kappa0"], vals["a0"], vals["b0"])
        raise ValueError(f"{who}: prior must be 'auto', None, 'reference' or a dict; received {prior!r}.")

    def dp_stats(self, block, resp, state, budget, bounds, names, who="Gaussian"):
        """Counts, means and squared deviations of values clipped to the declared bounds, with noise.

        See :func:`bayesnb.families.dp_release.noisy_moments` for the sensitivities, the variance
        floor and the noise-aware count (the returned ``n`` is ``n_eff``, at most the released
        count, so that a class mean's posterior variance includes the noise's), and
        :meth:`~.capabilities.PrivateRelease.dp_stats`. The prior must be proper (``"auto"`` or a dict): a released
        count can be near 0, where an improper prior leaves the posterior undefined.
        """
        if self.prior is None or (isinstance(self.prior, str) and self.prior == "reference"):
            raise ValueError(f"{who}: with privacy= a Gaussian block needs a proper prior ('auto' or a dict); "
                             f"received prior={self.prior!r}, improper where a noisy count is near 0.")
        lo, hi = require_bounds(bounds, names, who, type(self).__name__)
        return GaussianStats(*noisy_moments(block.X, block.observed, resp, lo, hi, budget))

    def observed_rows(self, stats):
        """Weighted number of observed cells per (class, column)."""
        return stats.n

    def update(self, prior, stats):
        """Conjugate Normal-Inverse-Gamma update."""
        n, xbar = stats.n, stats.mean
        kappa = prior.kappa + n
        with np.errstate(invalid="ignore", divide="ignore"):
            # mu0 + n (xbar - mu0) / kappa: equals mu0 exactly when xbar == mu0
            mu = np.where(kappa > 0, prior.mu + (n / kappa) * (xbar - prior.mu), prior.mu)
            shrink = np.where(kappa > 0, prior.kappa * n * (xbar - prior.mu) ** 2 / (2 * kappa), 0.0)
        return NormalInverseGammas(mu, kappa, prior.a + n / 2, prior.b + stats.m2 / 2 + shrink)

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
    def log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """The class-relative part and the row term of each row's class log densities.

        Under ``"mean"``, a complete row within :data:`~._gaussian_cells.EXACT_FROM` of some
        class (its summed squared distance in units of ``2 var``) takes its row term from the
        closest class's summed distance (exact to about 1e-12); any other row, and every row
        under ``"marginal"``, takes per cell the largest log density over the classes as the
        row term. A feature tied across classes (constant in training) then adds exactly 0 to
        every class's relative part, however far from its value a row lies.
        """
        if predictive not in ("mean", "marginal"):
            raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
        return chunked_parts(post, block.X, None if _all_observed(block.observed) else block.observed, predictive)

    def log_evidence(self, prior, post):
        """Closed-form ``log p(x_block | y)`` of the training data per class, shape (K,)."""
        n = post.kappa - prior.kappa
        with np.errstate(invalid="ignore", divide="ignore"):
            ev = (gammaln(post.a) - gammaln(prior.a) + prior.a * np.log(prior.b) - post.a * np.log(post.b)
                  + 0.5 * (np.log(prior.kappa) - np.log(post.kappa)) - 0.5 * n * np.log(2 * np.pi))
        return ev.sum(axis=1)

    def gen_values(self, block):
        """Values (n, d), NaN where missing."""
        return np.where(block.observed, block.X, np.float64(np.nan))

    def predictive_bins(self, prior, post, state, edges, predictive="mean"):
        """Masses and truncated means of the Normal plug-in (``"mean"``) or Student-t (``"marginal"``)."""
        return _interval.continuous_bins(*_interval.nig_loc_scale(post, predictive), edges)

    def is_proper(self, prior):
        """True when kappa0, a0, b0 > 0."""
        return bool(np.all(prior.kappa > 0) and np.all(prior.a > 0) and np.all(prior.b > 0))

    # ------------------------------------------------------------------ generative hooks
    # A "point" is a NormalInverseGammas whose plug-in (mu, b / a) is the (mean, variance) in
    # use: the posterior itself, or one exact draw stored as (mu, kappa=1, a=1, b=sigma2).
    def gen_point(self, prior, post, rng=None):
        """Plug-in (``rng=None``: the posterior itself) or one exact draw per (class, feature):
        ``sigma2 ~ InvGamma(a, b)``, ``mu ~ Normal(mu_n, sigma2 / kappa)``, stored as
        ``NormalInverseGammas(mu, 1, 1, sigma2)``; undefined entries keep their plug-in values."""
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

    def gen_sample(self, point, z, rng, lengths=None):
        """Real values (n, d) drawn from ``Normal(mu[z], var[z])`` (``lengths`` unused)."""
        mu, var = plug_in(point)
        return rng.normal(mu[z], np.sqrt(np.maximum(np.nan_to_num(var[z]), 0.0)))

    def gen_log_mass_between(self, prior, params, state, j, lo, hi, predictive="mean"):
        """``log P(lo <= x_j <= hi)`` per class: Normal plug-in (``"mean"``) or Student-t (``"marginal"``)."""
        loc, scale, nu = _interval.nig_loc_scale(params, predictive)
        return _interval.continuous_mass(loc[:, j], scale[:, j], None if nu is None else nu[:, j], lo, hi)

    def gen_sample_between(self, point, z, rng, j, lo, hi, state=None):
        """Column ``j`` drawn from ``Normal(mu[z], var[z])`` truncated to ``[lo, hi]``: the inverse CDF of a
        uniform draw between the bounds' CDFs (in the nearer tail's terms), scipy's truncnorm where even
        that underflows (a range beyond ~37 sd)."""
        mu, var = plug_in(point)
        return _interval.truncated_normal(mu[z, j], np.sqrt(np.maximum(np.nan_to_num(var[z, j]), 1e-300)), lo, hi, rng)

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Values (n, d) with missing cells filled.

        ``"mean"``: ``sum_k resp[i,k] mu_k`` (the conditional mean); ``"mode"``: of the
        candidate points ``mu_k``, the one where the mixture ``sum_k resp[i,k] N(. | mu_k, var_k)``
        is highest (an approximation of the mixture's mode); ``"draw"``: Normal given ``z``.
        ``rate`` is unused.
        """
        X = block.X.astype(np.float64)  # a copy (the fills are float64 whatever the input's dtype)
        miss = self.gen_missing(block)
        if not miss.any():
            return X
        mu, var = usable_plug_in(point)
        rows, cols = np.nonzero(miss)
        if strategy == "draw":
            X[rows, cols] = rng.normal(mu[z[rows], cols], np.sqrt(var[z[rows], cols]))
        elif strategy == "mean":
            X[rows, cols] = np.einsum("ik,ki->i", resp[rows], mu[:, cols])
        else:
            X[rows, cols] = mixture_mode(resp[rows], mu[:, cols].T, var[:, cols].T, mu[:, cols].T)
        return X

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per-feature ``sum_k weights[i, k] log p(x_ij | y=k)``, (n, d); missing -> 0.

        ``predictive="marginal"`` uses the Student-t posterior predictive of ``point``.
        """
        return weighted_class_cells(class_cell_log_pdfs(point, block.X, predictive), block.observed, weights)

    def gen_log_penalty(self, prior, point) -> float:
        """``-a0 log s2 - b0 / s2 - kappa0 (mu - mu0)^2 / (2 s2)`` at the plug-in ``(mu, s2)``:
        the (unnormalised) log prior whose MAP is the plug-in, so EM with the plug-in
        M-step climbs ``log-likelihood + penalty``."""
        mu, var = plug_in(point)
        ok = defined(point)
        v = np.where(ok, var, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            pen = -prior.a * np.log(v) - prior.b / v - prior.kappa * (mu - prior.mu) ** 2 / (2 * v)
        return float(np.where(ok, pen, 0.0).sum())

    # --------------------------------------------------------- draws and NumPyro hooks
    # Exact conjugate draws (NumPy) and the pieces model.py assembles into the NumPyro model,
    # both with ``mu`` and ``sigma2`` (K, d), the class-conditional mean and variance.
    def sample_params(self, post, n_draws, rng) -> dict:
        """Exact posterior draws ``{"mu", "sigma2"}``, each (n_draws, K, d).

        ``sigma2 ~ InvGamma(a_n, b_n)`` then ``mu | sigma2 ~ Normal(mu_n, sigma2 / kappa_n)``.
        """
        shape = (n_draws,) + post.mu.shape
        sigma2 = post.b / rng.standard_gamma(post.a, size=shape)
        mu = post.mu + np.sqrt(sigma2 / post.kappa) * rng.standard_normal(shape)
        return {"mu": mu, "sigma2": sigma2}

    def posterior_moments(self, post) -> dict:
        """Closed-form posterior mean and sd of ``mu`` and ``sigma2`` (NaN where undefined)."""
        a, b, kappa = post.a, post.b, post.kappa
        with np.errstate(invalid="ignore", divide="ignore"):
            e_s2 = np.where(a > 1, b / (a - 1), np.nan)
            sd_s2 = np.where(a > 2, e_s2 / np.sqrt(np.where(a > 2, a - 2, 1.0)), np.nan)
            sd_mu = np.sqrt(e_s2 / kappa)
        return {"mu": (post.mu.copy(), sd_mu), "sigma2": (e_s2, sd_s2)}

    def posterior_from_params(self, params: dict):
        """A posterior whose Normal plug-in equals the given ``mu``, ``sigma2`` (one draw)."""
        mu, s2 = np.asarray(params["mu"], float), np.asarray(params["sigma2"], float)
        return NormalInverseGammas(mu, np.ones_like(mu), np.ones_like(mu), s2)

    def numpyro_prior_args(self, prior) -> dict:
        """The prior on the standardised scale, float32 (K, d) each.

        Per (class, feature) cell, ``centre = mu0`` and ``scale = sqrt(b0 / a0)`` (the
        prior's typical sd; 1 where that is not a positive finite number), computed in
        float64: ``mu_std = (mu0 - centre) / scale``, ``b_std = b0 / scale**2``, with
        ``kappa0`` and ``a0`` unchanged (see :meth:`numpyro_sample`), and ``log_norm``, the
        normalising constant of the site's density (:func:`nig_log_norm`: its
        ``lgamma(a0)`` is computed here, not in the sampler).
        """
        mu0, kappa, a, b = (np.asarray(v, dtype=float) for v in (prior.mu, prior.kappa, prior.a, prior.b))
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.sqrt(b / a)
        scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
        centre = np.where(np.isfinite(mu0), mu0, 0.0)
        out = {"mu_std": (mu0 - centre) / scale, "kappa": kappa, "a": a, "b_std": b / scale**2,
               "centre": centre, "scale": scale}
        out = {k: v.astype(np.float32) for k, v in out.items()}
        out["log_norm"] = nig_log_norm(a, b / scale**2, kappa)
        return out

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """The Normal-Inverse-Gamma prior, sampled on a standardised, unconstrained scale.

        One sample site ``mu_sigma2_<label>__z`` of shape (K, d, 2) under plates
        ``class_plate`` x feature: per cell the standardised mean ``mu_std`` and
        ``log sigma2_std``, with the density :class:`._numpyro_dists.NIGUnconstrained` of
        ``sigma2_std ~ InvGamma(a0, b0 / s**2)``, ``mu_std | sigma2_std ~ Normal((mu0 - c) / s,
        sqrt(sigma2_std / kappa0))`` (the log-Jacobian of ``exp`` included), with the
        per-cell centre ``c`` and scale ``s`` of :meth:`numpyro_prior_args`. Deterministic
        sites ``mu_<label> = c + s * mu_std`` and ``sigma2_<label> = s**2 * sigma2_std`` are
        the parameters on the data's scale. This is exactly the prior ``sigma2 ~ InvGamma(a0,
        b0)``, ``mu | sigma2 ~ Normal(mu0, sigma2 / kappa0)``: if ``sigma2 ~ InvGamma(a0, b0)``
        then ``sigma2 / s**2 ~ InvGamma(a0, b0 / s**2)``, and ``(mu - c) / s | sigma2`` is
        Normal((mu0 - c) / s, sigma2 / (s**2 kappa0)). NUTS then sees parameters of order one
        whatever the data's scale (values ~1e5 no longer give variances ~1e10 next to
        probabilities), and the likelihoods below are computed on the standardised scale (no
        cancellation of large float32 numbers). One site with real support keeps the
        compiled sampler small (no transform objects, no ``lgamma``).

        Returns ``{"mu", "sigma2", "mu_std", "s2_std", "centre", "scale"}``, each (K, d).
        """
        import jax.numpy as jnp
        import numpyro

        p = prior_args
        c, s = p["centre"], p["scale"]
        from ._numpyro_dists import NIGUnconstrained

        log_norm = p["log_norm"] if "log_norm" in p else nig_log_norm(p["a"], p["b_std"], p["kappa"])
        z = sample_class_feature(f"mu_sigma2_{label}__z",
                                 NIGUnconstrained(p["mu_std"], p["kappa"], p["a"], p["b_std"], log_norm),
                                 feature_plate, class_plate)
        mu_std, s2_std = z[..., 0], jnp.exp(z[..., 1])
        mu = numpyro.deterministic(f"mu_{label}", c + s * mu_std)
        s2 = numpyro.deterministic(f"sigma2_{label}", s * s * s2_std)
        return {"mu": mu, "sigma2": s2, "mu_std": mu_std, "s2_std": s2_std, "centre": c, "scale": s}

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """MCMC samples -> ``{"mu", "sigma2"}`` (data scale, the deterministic sites) with leading sample axes."""
        return {"mu": np.asarray(samples[f"mu_{label}"], dtype=float),
                "sigma2": np.asarray(samples[f"sigma2_{label}"], dtype=float)}

    def point_params(self, post) -> dict:
        """The plug-in (``"mean"``) predictive's ``mu_n`` and ``b_n / a_n`` (not ``E[sigma2]``).

        Inverse of :meth:`posterior_from_params`."""
        mu, var = plug_in(post)
        return {"mu": np.asarray(mu, dtype=float), "sigma2": np.asarray(var, dtype=float)}

    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """Inverse of :meth:`params_from_sites`: the standardised sample sites and the data-scale
        deterministic sites; ``prior_args`` (:meth:`numpyro_prior_args`) gives the centre and scale."""
        if prior_args is None:
            raise ValueError("Gaussian.sites_from_params needs prior_args (from numpyro_prior_args): its "
                             "sample sites are on the prior's standardised scale; received None.")
        mu, s2 = np.asarray(params["mu"], dtype=float), np.asarray(params["sigma2"], dtype=float)
        c, s = (np.asarray(prior_args[k], dtype=float) for k in ("centre", "scale"))
        with np.errstate(divide="ignore"):
            z = np.stack([(mu - c) / s, np.log(s2 / s**2)], axis=-1)
        return {f"mu_sigma2_{label}__z": z, f"mu_{label}": mu, f"sigma2_{label}": s2}

    def numpyro_stats_args(self, stats) -> dict:
        """Count, mean and sum of squared deviations per (class, feature), float32."""
        return float32_args(stats, ("n", "mean", "m2"))

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum_k,j -n/2 log(2 pi s2) - (M2 + n (xbar - mu)^2) / (2 s2)``, computed on the
        standardised scale (``s2 = scale**2 s2_std``, ``xbar - mu = scale ((xbar - c) / scale - mu_std)``)."""
        import jax.numpy as jnp

        s, p = stats_args, params
        sc, s2 = p["scale"], p["s2_std"]
        dev = (s["mean"] - p["centre"]) / sc - p["mu_std"]
        return (-0.5 * s["n"] * jnp.log(2 * jnp.pi * s2 * sc * sc)
                - (s["m2"] / (sc * sc) + s["n"] * dev ** 2) / (2 * s2)).sum()

    def numpyro_row_args(self, block, static) -> dict:
        """Values (missing set to 0) and the observed mask, float32 (n, d)."""
        return {"X": block.X.astype(np.float32), "mask": block.observed.astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(x_i | y=k)`` per row and class, (n, K), on the standardised scale; missing cells add 0."""
        import jax.numpy as jnp

        p = params
        sc, s2 = p["scale"], p["s2_std"]  # (K, d)
        X, m = row_args["X"][:, None, :], row_args["mask"][:, None, :]
        dev = (X - p["centre"]) / sc - p["mu_std"]
        ll = -0.5 * jnp.log(2 * jnp.pi * s2 * sc * sc) - dev ** 2 / (2 * s2)
        return (ll * m).sum(-1)

    # ------------------------------------------------------------ linear form and display
    def plot_panels(self, block, top=10) -> list:
        """One density panel per feature: the plug-in Normal of each class (``top`` unused)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            mu, var = block.posterior.mu, block.posterior.b / block.posterior.a
        return [(str(name), "density", (mu[:, j], np.sqrt(var[:, j]))) for j, name in enumerate(block.names)]
