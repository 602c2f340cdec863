"""The multivariate-normal mathematics of :mod:`bayesnb.impute.mvn`: the Normal-Inverse-Wishart posterior
fitted by EM on cells with gaps, Gaussian conditioning batched over missing patterns, and the log scale.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = ["NIWFit", "conditional_mean", "fit_niw_em", "log_shift"]


class NIWFit(NamedTuple):
    """The Normal-Inverse-Wishart posterior of one class (from :func:`fit_niw_em`).

    Attributes
    ----------
    mean : ndarray of shape (p,)
        ``mu_n``, the posterior mean (and mode) of the class mean.
    psi : ndarray of shape (p, p)
        ``Psi_n``, the posterior scale matrix.
    kappa : float
        ``kappa_n = kappa0 + n``.
    nu : float
        ``nu_n = nu0 + n``.
    n_iter : int
        EM iterations run.
    converged : bool
        Whether the parameters moved less than ``tol`` at the last iteration.
    """

    mean: np.ndarray
    psi: np.ndarray
    kappa: float
    nu: float
    n_iter: int
    converged: bool

    @property
    def cov_map(self):
        """The MAP covariance ``Psi_n / (nu_n + p + 2)`` (joint mode of the NIW)."""
        return self.psi / (self.nu + self.psi.shape[0] + 2)

    @property
    def cov_predictive(self):
        """The posterior-predictive covariance ``Psi_n (kappa_n + 1) / (kappa_n (nu_n - p - 1))``."""
        p = self.psi.shape[0]
        return self.psi * (self.kappa + 1) / (self.kappa * (self.nu - p - 1))


def _patterns(mask):
    """The rows of ``mask`` grouped by their count ``r`` of True cells (r >= 1), for batched linear algebra.

    Each group: ``(mi, oi, rows, pid)`` with ``mi`` (G, r) / ``oi`` (G, p - r) the True /
    False columns of its G distinct patterns, ``rows`` its rows and ``pid`` each row's
    pattern (0..G-1). With ``mask`` the missing cells: the rows to condition; with the observed
    cells: the rows with a density.
    """
    keys, inv = np.unique(mask, axis=0, return_inverse=True)
    inv = inv.ravel()
    counts = keys.sum(axis=1)
    groups = []
    for r in np.unique(counts[counts > 0]):
        pats = np.flatnonzero(counts == r)
        mi = np.array([np.flatnonzero(keys[g]) for g in pats]).reshape(len(pats), r)
        oi = np.array([np.flatnonzero(~keys[g]) for g in pats]).reshape(len(pats), mask.shape[1] - r)
        pid = pd.Index(pats).get_indexer(inv)
        rows = np.flatnonzero(pid >= 0)
        groups.append((mi, oi, rows, pid[rows]))
    return groups


def _condition(mean, cov, Z, groups):
    """Fill the NaN cells of Z by Gaussian conditioning: (filled, per-cell variances, per-group blocks).

    Uses the precision form: ``E[x_m | x_o] = mu_m - L_mm^-1 L_mo (x_o - mu_o)``,
    ``Var = L_mm^-1`` with ``L = cov^-1``, batched over the patterns with the same number
    of missing cells. A block is the (G, r, r) stack of the patterns' conditional covariances.
    """
    prec = np.linalg.inv(cov)
    prec = (prec + prec.T) / 2
    filled = Z.copy()
    var = np.zeros_like(Z)
    blocks = []
    for mi, oi, rows, pid in groups:
        cond = np.linalg.inv(prec[mi[:, :, None], mi[:, None, :]])  # (G, r, r)
        coef = cond @ prec[mi[:, :, None], oi[:, None, :]]  # (G, r, p - r)
        m, o = mi[pid], oi[pid]
        cm = mean[m] - np.einsum("nij,nj->ni", coef[pid], Z[rows[:, None], o] - mean[o])
        filled[rows[:, None], m] = cm
        var[rows[:, None], m] = np.diagonal(cond, axis1=1, axis2=2)[pid]
        blocks.append(cond)
    return filled, var, blocks


def _log_density(mean, cov, Z):
    """``log N(z_o | mean_o, cov_oo)`` of each row's observed cells (0 for a row with none)."""
    out = np.zeros(len(Z))
    for oi, _, rows, pid in _patterns(~np.isnan(Z)):
        q = oi.shape[1]
        L = np.linalg.cholesky(cov[oi[:, :, None], oi[:, None, :]])  # (G, q, q)
        o = oi[pid]
        d = Z[rows[:, None], o] - mean[o]
        u = np.linalg.solve(L[pid], d[:, :, None])[:, :, 0]
        logdet = 2 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
        out[rows] = -0.5 * (np.sum(u ** 2, axis=1) + logdet[pid] + q * np.log(2 * np.pi))
    return out


def conditional_mean(mean, cov, X):
    """The Gaussian conditional mean of each row's missing cells given its observed cells.

    Parameters
    ----------
    mean : array-like of shape (p,)
    cov : array-like of shape (p, p)
        Symmetric positive definite covariance.
    X : array-like of shape (n, p)
        Rows with missing cells as NaN.

    Returns
    -------
    filled : ndarray of shape (n, p)
        ``X`` with each NaN cell replaced by ``E[x_m | x_o]`` (observed cells unchanged).
    variance : ndarray of shape (n, p)
        The conditional variance of each filled cell (0 for observed cells).

    Examples
    --------
    >>> import numpy as np
    >>> conditional_mean([0.0, 0.0], [[1.0, 0.5], [0.5, 1.0]], np.array([[2.0, np.nan]]))[0]
    array([[2., 1.]])
    """
    mean = np.asarray(mean, dtype=float)
    cov = np.asarray(cov, dtype=float)
    Z = np.array(X, dtype=float, ndmin=2)
    p = mean.shape[0]
    if mean.ndim != 1 or cov.shape != (p, p) or Z.shape[1] != p:
        raise ValueError(f"conditional_mean: expected mean (p,), cov (p, p) and X (n, p) with one p; received "
                         f"mean {mean.shape}, cov {cov.shape}, X {Z.shape}.")
    if not np.allclose(cov, cov.T) or np.any(np.linalg.eigvalsh(cov) <= 0):
        raise ValueError("conditional_mean: cov must be symmetric positive definite.")
    return _condition(mean, cov, Z, _patterns(np.isnan(Z)))[:2]


def fit_niw_em(Z, weights=None, *, kappa0=1.0, nu0=None, psi0=None, mu0=None, max_iter=200, tol=1e-4):
    """EM (MAP) for a multivariate normal with missing cells under a Normal-Inverse-Wishart prior.

    Parameters
    ----------
    Z : array-like of shape (n, p)
        Data, missing cells NaN. Rows with no observed cell are ignored.
    weights : array-like of shape (n,), optional
        Non-negative row weights (a class's responsibilities); default 1.
    kappa0 : float, default=1.0
        Prior pseudo-count of the mean.
    nu0 : float, optional
        Inverse-Wishart degrees of freedom, > p - 1 (default ``p + 2``).
    psi0 : array-like of shape (p, p), optional
        Inverse-Wishart scale, positive definite (default the identity).
    mu0 : array-like of shape (p,), optional
        Prior mean (default 0).
    max_iter : int, default=200
    tol : float, default=1e-4
        Stop when the mean and the MAP covariance move less than this (max absolute change).

    Returns
    -------
    NIWFit
        ``mu_n``, ``Psi_n``, ``kappa_n``, ``nu_n`` from the expected sufficient statistics at the
        EM fixed point. On complete data: the conjugate closed form ``kappa_n = kappa0 + n``,
        ``mu_n = (kappa0 mu0 + n xbar) / kappa_n``, ``Psi_n = Psi0 + S + kappa0 n / kappa_n
        (xbar - mu0)(xbar - mu0)^T`` with ``S`` the scatter about ``xbar``.

    Examples
    --------
    >>> import numpy as np
    >>> fit = fit_niw_em(np.array([[0.0, 1.0], [2.0, np.nan], [1.0, 2.0]]))
    >>> fit.mean.shape, bool(np.all(np.linalg.eigvalsh(fit.psi) > 0))
    ((2,), True)
    """
    Z = np.array(Z, dtype=float, ndmin=2)
    n, p = Z.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (n,) or np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"fit_niw_em: weights must be {n} finite non-negative numbers; received shape {w.shape}.")
    if np.any(np.isinf(Z)):
        raise ValueError("fit_niw_em: Z has infinite values; missing cells must be NaN.")
    nu0 = p + 2.0 if nu0 is None else float(nu0)
    psi0 = np.eye(p) if psi0 is None else np.asarray(psi0, dtype=float)
    mu0 = np.zeros(p) if mu0 is None else np.asarray(mu0, dtype=float)
    if not kappa0 > 0 or not nu0 > p - 1 or psi0.shape != (p, p) or mu0.shape != (p,) \
            or np.any(np.linalg.eigvalsh((psi0 + psi0.T) / 2) <= 0):
        raise ValueError(f"fit_niw_em: the prior needs kappa0 > 0, nu0 > p - 1 = {p - 1}, psi0 ({p}, {p}) positive "
                         f"definite and mu0 ({p},); received kappa0={kappa0}, nu0={nu0}, psi0 {psi0.shape}, "
                         f"mu0 {mu0.shape}.")
    miss = np.isnan(Z)
    keep = (~miss).any(axis=1) & (w > 0)
    Z, w, miss = Z[keep], w[keep], miss[keep]
    groups = _patterns(miss)
    nw = w.sum()
    kappa, nu = kappa0 + nw, nu0 + nw
    mean, cov = mu0.copy(), psi0 / (nu + p + 2)
    if nw > 0:
        obs = ~miss
        cnt = obs.T @ w
        mean = np.where(cnt > 0, (np.where(obs, Z, 0.0).T @ w) / np.maximum(cnt, 1e-300), mu0)
        dev = np.where(obs, Z - mean, 0.0)
        cov = np.diag(np.where(cnt > 0, (dev ** 2).T @ w / np.maximum(cnt, 1e-300), 1.0) + 1e-3)
    converged, it = False, 0
    psi = psi0.copy()
    for it in range(1, max_iter + 1):
        filled, _, blocks = _condition(mean, cov, Z, groups)
        xbar = filled.T @ w / nw if nw > 0 else mu0
        d = filled - xbar
        scatter = (d * w[:, None]).T @ d
        for (mi, _, rows, pid), block in zip(groups, blocks):  # E[x_m x_m^T] adds the conditional covariance
            wp = np.bincount(pid, weights=w[rows], minlength=len(mi))
            np.add.at(scatter, (mi[:, :, None], mi[:, None, :]), wp[:, None, None] * block)
        new_mean = (kappa0 * mu0 + nw * xbar) / kappa
        dm = xbar - mu0
        psi = psi0 + scatter + kappa0 * nw / kappa * np.outer(dm, dm)
        psi = (psi + psi.T) / 2
        new_cov = psi / (nu + p + 2)
        delta = max(np.max(np.abs(new_mean - mean)), np.max(np.abs(new_cov - cov)))
        mean, cov = new_mean, new_cov
        if delta < tol:
            converged = True
            break
    return NIWFit(mean, psi, float(kappa), float(nu), it, converged)


def log_shift(values, start="quartile"):
    """The shift ``c`` of the ``log(x + c)`` scale for a column, or None to keep it as it is.

    The rule of the module docstring: the observed values are non-negative, their skewness is
    above 1, and ``log(x + c)`` has a smaller absolute skewness. ``c = 0`` when every value is
    positive; a column with zeros is *started* at the lower quartile of its positive values, so
    that its zeros, at ``log(c)``, sit next to its smallest positive values (``log(x + c) >=
    log(2 c)`` for the three quarters at or above ``c``). Started at the smallest positive value
    instead, the zeros of a zero-heavy column form a spike several log units below the rest: the
    normal fitted to that scale has a spread no value has, and its back-transformed conditional
    mean ``exp(m + v / 2) - c`` overshoots (docs/benchmarks.md, "The median only where the masses
    hold half the column").

    Parameters
    ----------
    values : array-like of shape (n,)
        The column's observed values (NaN ignored).
    start : {"quartile", "smallest"}, default="quartile"
        The ``c`` of a column with zeros: the lower quartile of its positive values, or (the rule
        before) its smallest positive value, which ``benchmarks/bench_outlier_choice.py`` keeps so
        that its recorded run reproduces.

    Returns
    -------
    float or None

    Examples
    --------
    >>> import numpy as np
    >>> log_shift(np.exp(np.random.default_rng(0).normal(size=500)))
    0.0
    >>> log_shift(np.arange(10.0)) is None
    True
    """
    if start not in ("quartile", "smallest"):
        raise ValueError(f"log_shift: start must be 'quartile' or 'smallest'; received {start!r}.")
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if v.size < 3 or v.min() < 0 or not np.any(v > 0):
        return None

    def skew(a):
        sd = a.std()
        return 0.0 if sd == 0 else float(np.mean((a - a.mean()) ** 3) / sd ** 3)

    s = skew(v)
    if s <= 1:
        return None
    pos = v[v > 0]
    c = 0.0 if v.min() > 0 else float(np.quantile(pos, 0.25) if start == "quartile" else pos.min())
    return c if abs(skew(np.log(v + c))) < abs(s) else None
