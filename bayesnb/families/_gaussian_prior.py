"""Prior construction of the Gaussian family: ``prior=`` ("auto", None, "reference", dict)
resolved to Normal-Inverse-Gamma parameters of shape (K, d).

:mod:`bayesnb.families.gaussian` documents the priors; this module holds the data-scaled
``"auto"`` prior (:func:`auto_prior`) and the resolution of the other choices
(:func:`make_prior`). The NamedTuples live in :mod:`bayesnb.families.gaussian` (model
files name them by that module).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["AUTO_A0", "AUTO_KAPPA0", "REL_SD_FLOOR", "auto_prior", "make_prior"]

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
    return NormalInverseGammas(
        np.broadcast_to(grand, shape).copy(),
        kappa,
        a,
        np.broadcast_to(AUTO_A0 * var, shape).copy(),
    )


def make_prior(prior, stats, who="Gaussian"):
    """Resolve ``prior`` ("auto", None, "reference" or a dict) to parameters of shape (K, d).

    Parameters
    ----------
    prior : {"auto", None, "reference"} or dict
        The family's ``prior`` hyperparameter.
    stats : GaussianStats
        Training statistics (their shape (K, d); ``"auto"`` reads their values).
    who : str
        Name used in error messages.

    Returns
    -------
    NormalInverseGammas
    """
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
