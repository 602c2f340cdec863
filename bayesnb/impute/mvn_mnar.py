"""Self-masking missingness (MNAR) on the class-conditional multivariate normal of ``"mvn"``.

The naive selection model of :mod:`bayesnb.generative.mnar` links the columns only through the
class; this module puts the same missingness nodes on the ``"mvn"`` configuration
(:mod:`bayesnb.impute.mvn`), whose covariance lets the other columns place a hidden value::

    z | k ~ N(mu_k, Sigma_k)                     (the fitted scale of "mvn": logged where skewed, standardised)
    p(m_j = 1 | z) = rho_j[b_j(z_j)]  ~ Beta(alpha, alpha)     (shared by the classes)

with ``b_j`` the ``n_bins`` quantile bins of column ``j``'s observed values, as in
:func:`bayesnb.impute_mnar`. :func:`fit_mvn_mnar` is Monte-Carlo EM from the MAR fit
(importance-weighted Gaussian-conditional draws, antithetic and fixed across iterations, the
class weights held fixed); :func:`fill_mvn_mnar` takes the weighted mean of the draws on the
column's scale. See docs/mnar.md, "On the multivariate normal", for the steps and identification.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from .niw import NIWFit, _condition, _log_density, _patterns
from .._utils import as_generator
from ..families.numeric import draw_categories
from ..generative.mnar_bins import quantile_edges
from .mvn import _standardise, _weights, _write_fills, fit_mvn

__all__ = ["MVNSelectionFit", "fill_mvn_mnar", "fit_mvn_mnar"]


class MVNSelectionFit(NamedTuple):
    """The ``"mvn"`` model with self-masking missingness nodes (from :func:`fit_mvn_mnar`).

    Attributes
    ----------
    base : MVNFit
        The MAR fit (its scale, columns, naive model); its ``fits`` are the MAR parameters.
    fits : tuple of NIWFit or None
        Per class, the Normal-Inverse-Wishart posterior under the selection model.
    edges : tuple of ndarray
        Per covered column (``q``), the cut points of its bins on the fitted scale.
    selection : tuple of ndarray of shape (B_j,)
        ``p(m_j = 1 | bin)`` per covered column (flat at 0 for a column with no missing cell).
    missing_count, observed_count : tuple of ndarray of shape (B_j,)
        Expected counts of missing and observed cells per bin.
    alpha : float
        Beta(alpha, alpha) prior of each selection probability.
    em_objective : list of float
        Monte-Carlo estimate of the observed-data log likelihood (with the selection) after each iteration.
    converged : bool
    n_draws : int
        Draws per row of the E-step and the fill.
    """

    base: object
    fits: tuple
    edges: tuple
    selection: tuple
    missing_count: tuple
    observed_count: tuple
    alpha: float
    em_objective: list
    converged: bool
    n_draws: int


def _normals(n, q, n_draws, rng):
    """Antithetic standard normals (n, n_draws, q): the same draws serve every iteration."""
    half = rng.standard_normal((n, (n_draws + 1) // 2, q))
    return np.concatenate([half, -half], axis=1)[:, :n_draws]


def _tilted(mean, cov, Z, groups, eps, edges, logrho):
    """Per pattern group, the weighted draws of the missing cells given the observed ones and ``m = 1``.

    Yields ``(rows, m, S, w, ll, bins)``: rows (N,), their missing columns m (N, r), draws S (N, D, r),
    normalised importance weights w (N, D), the log of the mean selection factor ll (N,), and per
    missing column ``j`` its ``(j, nn, b)``: the group's rows ``nn`` missing it and their draws' bins ``b``.
    """
    filled, _, blocks = _condition(mean, cov, Z, groups)
    for (mi, _, rows, pid), block in zip(groups, blocks):
        r = mi.shape[1]
        L = np.linalg.cholesky((block + np.swapaxes(block, 1, 2)) / 2 + 1e-12 * np.eye(r))
        m = mi[pid]
        S = filled[rows[:, None], m][:, None, :] + np.einsum("nij,ndj->ndi", L[pid], eps[rows][:, :, :r])
        lw, bins = np.zeros(S.shape[:2]), []
        for j in np.unique(m):
            nn, ii = np.nonzero(m == j)
            b = np.searchsorted(edges[j], S[nn, :, ii], side="left")
            lw[nn] += logrho[j][b]
            bins.append((j, nn, b))
        lse = logsumexp(lw, axis=1)
        yield rows, m, S, np.exp(lw - lse[:, None]), lse - np.log(S.shape[1]), bins


def fit_mvn_mnar(X, y=None, *, n_bins=5, alpha=1.0, n_draws=200, estimator=None, max_iter=100, tol=1e-5,
                 random_state=None):
    """Fit the ``"mvn"`` model with self-masking missingness nodes by Monte-Carlo EM (module docstring).

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        The table; missing cells NaN/None/``pd.NA``.
    y : array-like of shape (n_samples,), optional
        Labels (one multivariate normal per class); None: one class.
    n_bins : int, default=5
        Quantile bins of each column's observed values.
    alpha : float, default=1.0
        Beta(alpha, alpha) prior of each selection probability.
    n_draws : int, default=200
        Draws of each row's missing cells in the E-step (importance sampling).
    estimator : NaiveBayes, optional
        Unfitted template of the naive model (default ``NaiveBayes()``).
    max_iter : int, default=100
    tol : float, default=1e-5
        EM stops when the relative change of its objective (a Monte-Carlo estimate, so it settles within
        its own noise rather than to zero) is at most ``tol``, or when no parameter moves by 1e-6.
    random_state : None, int or Generator
        The draws of the E-step.

    Returns
    -------
    MVNSelectionFit
    """
    rng = as_generator(random_state)
    base = fit_mvn(X, y, estimator=estimator)
    if not base.columns:
        return MVNSelectionFit(base, (), (), (), (), (), float(alpha), [], True, int(n_draws))
    A = np.column_stack([X.iloc[:, j].to_numpy(dtype=float, na_value=np.nan) for j in base.columns])
    Z = _standardise(base, A)
    n, p = Z.shape
    miss = np.isnan(Z)
    edges = tuple(quantile_edges(Z[:, j], n_bins) for j in range(p))
    n0 = tuple(np.bincount(np.searchsorted(e, Z[~miss[:, j], j], side="left"), minlength=len(e) + 1).astype(float)
               for j, e in enumerate(edges))  # observed cells per bin
    rate = np.clip(miss.mean(axis=0), 1e-3, 1 - 1e-3)
    rho = tuple(np.full(len(e) + 1, r) for e, r in zip(edges, rate))
    W = _weights(base, X, Z, y, True, "naive")  # the label, else the naive posterior (held fixed)
    groups = _patterns(miss)
    eps = _normals(n, p, int(n_draws), rng)
    fits = tuple(base.fits)
    hist, converged = [], False
    for _ in range(int(max_iter)):
        with np.errstate(divide="ignore"):  # 0 for a column with no missing cell (never looked up)
            logrho = tuple(np.log(r) for r in rho)
        n1 = [np.zeros_like(r) for r in rho]
        new_fits, total, delta = [], 0.0, 0.0
        for k, f in enumerate(fits):
            w = W[:, k]
            if f is None or w.sum() <= 0:
                new_fits.append(f)
                continue
            cov = f.cov_map
            filled = Z.copy()
            extra = np.zeros((p, p))
            ll = np.zeros(n)
            for rows, m, S, wt, lse, bins in _tilted(f.mean, cov, Z, groups, eps, edges, logrho):
                ll[rows] = lse
                Em = np.einsum("nd,ndi->ni", wt, S)
                filled[rows[:, None], m] = Em
                C = np.einsum("nd,ndi,ndj->nij", wt, S, S) - Em[:, :, None] * Em[:, None, :]
                np.add.at(extra, (m[:, :, None], m[:, None, :]), w[rows, None, None] * C)
                for j, nn, b in bins:
                    n1[j] += np.bincount(b.ravel(), weights=(w[rows][nn, None] * wt[nn]).ravel(), minlength=len(rho[j]))
            total += float(w @ (_log_density(f.mean, cov, Z) + ll))
            nw = w.sum()
            kappa, nu = 1.0 + nw, p + 2.0 + nw
            xbar = filled.T @ w / nw
            d = filled - xbar
            psi = np.eye(p) + (d * w[:, None]).T @ d + extra + nw / kappa * np.outer(xbar, xbar)
            psi = (psi + psi.T) / 2
            g = NIWFit(nw * xbar / kappa, psi, float(kappa), float(nu), f.n_iter, True)
            delta = max(delta, np.max(np.abs(g.mean - f.mean)), np.max(np.abs(g.cov_map - cov)))
            new_fits.append(g)
        for j in range(p):  # the selection factors of the observed cells
            with np.errstate(divide="ignore"):
                total += float(n0[j] @ np.log1p(-rho[j]))
        new_rho = tuple(np.where(miss[:, j].any(), (a + alpha) / (a + b + 2 * alpha), 0.0)
                        for j, (a, b) in enumerate(zip(n1, n0)))
        delta = max(delta, max(float(np.max(np.abs(a - b))) for a, b in zip(new_rho, rho)))
        fits, rho = tuple(new_fits), new_rho
        hist.append(total)
        if delta < 1e-6 or (len(hist) > 1 and abs(hist[-1] - hist[-2]) <= tol * abs(hist[-1])):
            converged = True
            break
    return MVNSelectionFit(base, fits, edges, rho, tuple(n1), n0, float(alpha), hist, converged, int(n_draws))


def _draw_params(fit, rng):
    """One posterior draw of every class's (mean, covariance) and of the selection probabilities."""
    from scipy.stats import invwishart

    params = []
    for f in fit.fits:
        if f is None:
            params.append(None)
            continue
        sigma = np.atleast_2d(invwishart(df=f.nu, scale=f.psi).rvs(random_state=rng))
        params.append((rng.multivariate_normal(f.mean, sigma / f.kappa), sigma))
    rho = tuple(np.where(r > 0, rng.beta(a + fit.alpha, b + fit.alpha), 0.0)
                for r, a, b in zip(fit.selection, fit.missing_count, fit.observed_count))
    return params, rho


def _with_missingness(R, logsel):
    """The class weights ``R`` (n, K) times ``p(m | observed cells, class)`` (``exp(logsel)``), renormalised:
    ``p(k | x_obs, m) ∝ p(k | x_obs) p(m | x_obs, k)``. A row whose product vanishes in every class keeps ``R``."""
    with np.errstate(invalid="ignore"):
        lw = np.where(R > 0, np.log(np.where(R > 0, R, 1.0)) + logsel, -np.inf)
        top = np.max(lw, axis=1, keepdims=True)
        w = np.exp(lw - np.where(np.isfinite(top), top, 0.0))
    tot = w.sum(axis=1, keepdims=True)
    return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), R)


def fill_mvn_mnar(fit, X, y=None, *, label_given=False, strategy="mean", random_state=None):
    """Fill the missing cells of ``X`` (the table :func:`fit_mvn_mnar` was fitted on) under the selection model.

    Parameters
    ----------
    fit : MVNSelectionFit
        From :func:`fit_mvn_mnar` on this table.
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Labels, used when ``label_given``.
    label_given : bool, default=False
        Weigh the classes by the row's label; otherwise by ``p(class | observed cells, missingness)``: the naive
        model's ``p(class | observed cells)`` times each class's ``p(these cells missing | observed cells)``
        (the mean selection factor of its draws).
    strategy : {"mean", "draw"}, default="mean"
        The mean of each missing cell's predictive given that it is missing, or one draw (with one draw
        of the parameters).
    random_state : None, int or Generator

    Returns
    -------
    DataFrame
        The completed table; the other columns are the naive model's fills (its draws with ``"draw"``).
    """
    rng = as_generator(random_state)
    base = fit.base
    model = base.model
    how = "mean" if strategy == "mean" else "draw"
    table = model.impute(X, y=y if label_given else None, **({} if how == "mean" else {
        "strategy": "draw", "random_state": rng}))
    if not base.columns:
        return table
    A = np.column_stack([X.iloc[:, j].to_numpy(dtype=float, na_value=np.nan) for j in base.columns])
    miss = np.isnan(A)
    if not miss.any():
        return table
    Z = _standardise(base, A)
    R = _weights(base, X, Z, y, label_given, "naive")
    groups = _patterns(miss)
    eps = _normals(len(Z), Z.shape[1], fit.n_draws, rng)
    lo, hi, c, logged, loc, sd = base.low, base.high, base.shift, base.logged, base.loc, base.scale
    if how == "mean":
        params, rho = [(f.mean, f.cov_predictive) if f is not None else None for f in fit.fits], fit.selection
    else:
        params, rho = _draw_params(fit, rng)
    with np.errstate(divide="ignore"):
        logrho = tuple(np.log(r) for r in rho)
    outs, logsel = [], np.full(R.shape, -np.inf)
    for k, par in enumerate(params):
        out = np.zeros_like(A)
        outs.append(out)
        if par is None:
            continue
        logsel[:, k] = 0.0  # log p(m = 1 on the missing cells | observed cells, class k); 0 for a complete row
        for rows, m, S, wt, ll, _ in _tilted(par[0], par[1], Z, groups, eps, fit.edges, logrho):
            logsel[rows, k] = ll
            t = S * sd[m][:, None, :] + loc[m][:, None, :]
            cap = np.log(np.where(logged, hi + c, 1.0))[m][:, None, :]
            with np.errstate(over="ignore"):
                x = np.where(logged[m][:, None, :], np.exp(np.minimum(t, cap)) - c[m][:, None, :], t)
            if how == "mean":
                out[rows[:, None], m] = np.einsum("nd,ndi->ni", wt, np.clip(x, lo[m][:, None, :], hi[m][:, None, :]))
            else:
                pick = draw_categories(wt, rng.random(len(rows)))
                out[rows[:, None], m] = x[np.arange(len(rows)), pick]
    R = _with_missingness(R, logsel)
    state = None if how == "mean" else draw_categories(R, rng.random(len(Z)))
    fill, total = np.zeros_like(A), np.zeros(len(A))
    for k, out in enumerate(outs):
        weight = R[:, k] if state is None else (state == k).astype(float)
        fill += weight[:, None] * out
        total += weight
    fill /= np.where(total > 0, total, 1.0)[:, None]
    return _write_fills(base, table, X, fill, miss, "mode" if how == "mean" else "draw")
