"""Impute numeric columns with a Bayesian class-conditional multivariate normal (the ``"mvn"`` configuration).

The naive-Bayes configurations treat the numeric columns as independent given the class (or
link them by a tree over binned parents); tables whose numeric columns are strongly and linearly
related need their joint covariance. This model gives each class ``k`` a multivariate normal over
the numeric columns, ``x | k ~ N(mu_k, Sigma_k)``, with a conjugate Normal-Inverse-Wishart prior,
fitted on the observed cells by EM, and fills a row's missing numeric cells with the
posterior-predictive conditional mean ``E[x_m | x_o]`` averaged over the class.

**Scale.** Each column is fitted on a standardised scale (observed mean 0, sd 1). A column that is
non-negative and right-skewed (skewness of its observed values above 1) is fitted as
``log(x + c)`` -- ``c = 0`` when every observed value is positive, else the lower quartile of the
positive observed values, so that the zeros sit next to the smallest amounts rather than in a
spike far below them (:func:`log_shift`) -- when that lowers the absolute skewness; its fill is
the conditional mean of ``x`` (``exp(m + v / 2) - c`` for a log-scale conditional mean ``m`` and
variance ``v``), not the back-transformed log-scale mean.

**Prior** (per class, on the standardised scale, so weak and data-scaled): ``mu_k | Sigma_k ~
N(0, Sigma_k / kappa0)`` and ``Sigma_k ~ Inverse-Wishart(Psi0 = I, nu0 = p + 2)`` with ``kappa0 =
1``: ``E[Sigma_k] = I`` (the pooled observed variances) and the prior weighs as one
observation. ``Psi_n = Psi0 + scatter`` is positive definite whatever the data (a constant
column, fewer rows than columns), so every covariance is invertible.

**Fit.** EM for a multivariate normal with missing values (Little & Rubin 2002, ch. 11), per
class, with the rows weighted by their class (the label; a row without one by the naive-Bayes
class posterior): the E-step fills a row's expected sufficient statistics by Gaussian
conditioning on its observed cells, the M-step is the NIW update on them; the fixed point is the
MAP ``(mu_n, Psi_n / (nu_n + p + 2))``. On complete data one step gives the closed form. Rows with
no observed numeric cell add nothing to the likelihood and are left out of the fit.

**Imputation.** The posterior predictive is a multivariate t with location ``mu_n`` and scale
proportional to ``Psi_n``, so the fill is the Gaussian-conditioning mean
``mu_m + S_mo S_oo^-1 (x_o - mu_o)`` with ``S = Psi_n`` (variance: :attr:`NIWFit.cov_predictive`),
averaged over the row's class weights (its label when ``label_given``, else the naive model's
``p(class | observed cells)`` or, ``class_posterior="joint"``, that times the class's normal
density; the two gave the same NRMSE within 0.01 on penguins, diabetes and breast cancer). Fills
are clipped, rounded and moved to values the column takes (:mod:`bayesnb.generative.values`).
Categorical columns (and numeric ones with fewer than two observed cells) keep the naive model's
fill, and its zero links are kept, so the result is a full table like the other configurations'.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone

from .niw import NIWFit, _condition, _log_density, _patterns, conditional_mean, fit_niw_em, log_shift
from .._utils import as_generator, is_numeric_column, one_class_on_purpose
from ..estimators import NaiveBayes
from ..estimators.validation import check_labelled
from ..generative.tables import missing_labels, write_cells
from ..generative.values import keep_cells
from ..generative.zero_links import keep_zero_links

__all__ = ["MVNFit", "NIWFit", "conditional_mean", "draw_mvn", "fill_mvn", "fit_mvn", "fit_niw_em", "impute_mvn",
           "log_shift"]


def _check_table(X, y, estimator, who):
    """The table arguments of :func:`impute_mvn` and :func:`~bayesnb.impute_table`: ``y`` as an
    array (zeros, one class, when None), after checking ``X``, ``y`` and ``estimator``."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"{who}: X must be a pandas DataFrame (one column per feature); "
                        f"received {type(X).__name__}.")
    repeated = X.columns[X.columns.duplicated()].unique().tolist()
    if repeated:
        raise ValueError(f"{who}: X must have unique column names (each is a column to impute); received "
                         f"{repeated[:10]} more than once.")
    if estimator is not None and not isinstance(estimator, NaiveBayes):
        raise TypeError(f"{who}: estimator must be a NaiveBayes (unfitted template); "
                        f"received {type(estimator).__name__}.")
    y = np.zeros(X.shape[0], dtype=np.int64) if y is None else np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"{who}: y must have shape ({X.shape[0]},), one label per row of X; "
                         f"received shape {y.shape}.")
    check_labelled(y, who, "Leave those rows out of X and y, or put the labels in X as a column and pass "
                           "y=None to impute them like any column.")
    return y


def impute_mvn(X, y=None, *, label_given=False, class_posterior="naive", estimator=None, max_iter=200, tol=1e-4):
    """Fill the missing numeric cells of ``X`` with a class-conditional multivariate normal.

    The model, prior, fit and fill are described in the module docstring; the categorical
    columns are filled by the naive model (``estimator`` fitted on ``X, y``).

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        The table; missing cells NaN/None/``pd.NA``.
    y : array-like of shape (n_samples,), optional
        Labels of the rows (one multivariate normal per class); None: one class.
    label_given : bool, default=False
        Weigh each row's classes by its label; otherwise by ``p(class | observed cells)``
        (see ``class_posterior``).
    class_posterior : {"naive", "joint"}, default="naive"
        ``"naive"``: the naive model's class posterior from all observed cells (numeric ones
        as independent given the class); ``"joint"``: its class posterior from the row's
        observed *categorical* cells times the class's multivariate normal density of its
        observed numeric cells (a Gaussian with the predictive covariance), normalised -- the
        class posterior of the model that imputes.
    estimator : NaiveBayes, optional
        Unfitted template of the naive model (default ``NaiveBayes()``).
    max_iter : int, default=200
        EM iterations per class at most.
    tol : float, default=1e-4
        EM tolerance (see :func:`fit_niw_em`).

    Returns
    -------
    DataFrame
        The completed table (observed cells unchanged, columns and dtypes of the input where
        the fills fit them).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X = load_diabetes(as_frame=True).data.copy()
    >>> X.iloc[::3, 2] = float("nan")
    >>> int(impute_mvn(X).isna().sum().sum())
    0
    """
    y = _check_table(X, y, estimator, "impute_mvn")
    if class_posterior not in ("joint", "naive"):
        raise ValueError(f"impute_mvn: class_posterior must be 'joint' or 'naive'; received {class_posterior!r}.")
    fit = fit_mvn(X, y, estimator=estimator, max_iter=max_iter, tol=tol)
    return fill_mvn(fit, X, y, label_given=label_given, class_posterior=class_posterior)


class MVNFit(NamedTuple):
    """A fitted ``"mvn"`` configuration (from :func:`fit_mvn`), imputing with :func:`fill_mvn`.

    Attributes
    ----------
    model : NaiveBayes
        The naive model fitted on the table: it fills the other columns and gives the class weights.
    columns : tuple of int
        Positions of the numeric columns the multivariate normal covers (``q`` of them; empty: none).
    low, high : ndarray of shape (q,)
        Their observed ranges (fills are clipped to them).
    integer : ndarray of bool, shape (q,)
        Whether every observed value of the column is a whole number (fills are rounded).
    shift : ndarray of shape (q,)
        ``c`` of the ``log(x + c)`` scale (0 where not logged).
    logged : ndarray of bool, shape (q,)
        Whether the column is fitted on the log scale (:func:`log_shift`).
    loc, scale : ndarray of shape (q,)
        The standardisation of the (logged) column: observed mean and sd (1 where the sd is 0).
    fits : tuple of NIWFit or None
        One per class of ``model`` (None for a class with no weight).
    """

    model: object
    columns: tuple
    low: np.ndarray
    high: np.ndarray
    integer: np.ndarray
    shift: np.ndarray
    logged: np.ndarray
    loc: np.ndarray
    scale: np.ndarray
    fits: tuple


def _numeric_block(columns, X, who):
    """The columns (positions) of ``X`` as a float array (missing NaN), refusing infinite values."""
    A = np.column_stack([X.iloc[:, j].to_numpy(dtype=float, na_value=np.nan) for j in columns])
    if np.any(np.isinf(A)):
        raise ValueError(f"{who}: the numeric columns have infinite values; missing cells must be NaN.")
    return A


def _standardise(fit, A):
    """``A`` on the fitted scale (logged where ``fit.logged``, then standardised)."""
    logged, c = fit.logged, fit.shift
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(logged, np.log(np.maximum(np.where(logged, A + c, 1.0), 1e-300)), A)
    return (T - fit.loc) / fit.scale


def _label_weights(model, y, post):
    """Class weights: a labelled row's label (one-hot), the others' ``post`` (every row's when ``y`` is None)."""
    if y is None:
        return post
    codes = pd.Index(model.classes_).get_indexer(np.where(missing_labels(y, unlabeled=None), None, y))
    return np.where((codes >= 0)[:, None], np.eye(len(model.classes_))[np.maximum(codes, 0)], post)


def _write_fills(fit, base, X, fill, miss, how):
    """``base`` with the covered columns' missing cells ``fill`` (n, q), clipped to the observed range,
    rounded in whole-number columns and moved to the values the column takes (``how``: ``"mode"`` or
    ``"draw"``, :func:`~bayesnb.generative.values.keep_cells`); the naive model's zero links kept."""
    fill = np.clip(fill, fit.low, fit.high)
    fill = np.where(fit.integer, np.round(fill), fill)
    cells = [(np.flatnonzero(miss[:, i]), np.full(int(miss[:, i].sum()), j), fill[miss[:, i], i])
             for i, j in enumerate(fit.columns) if miss[:, i].any()]
    supports = getattr(fit.model, "value_support_", None) or {}
    table = write_cells(base, keep_cells(cells, supports, how))
    return keep_zero_links(table, X, getattr(fit.model, "zero_links_", None))


def fit_mvn(X, y=None, *, estimator=None, max_iter=200, tol=1e-4):
    """Fit the ``"mvn"`` configuration on ``X`` (the model of the module docstring), for :func:`fill_mvn`.

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        The training table; missing cells NaN/None/``pd.NA``.
    y : array-like of shape (n_samples,), optional
        Labels of the rows (one multivariate normal per class); None: one class.
    estimator : NaiveBayes, optional
        Unfitted template of the naive model (default ``NaiveBayes()``).
    max_iter : int, default=200
    tol : float, default=1e-4
        EM settings (see :func:`fit_niw_em`).

    Returns
    -------
    MVNFit
    """
    y = _check_table(X, y, estimator, "fit_mvn")
    with one_class_on_purpose():  # y=None: every row one class (imputation, not classification)
        model = clone(NaiveBayes() if estimator is None else estimator).fit(X, y)
    cols = tuple(j for j, c in enumerate(X.columns) if is_numeric_column(X[c]) and X[c].notna().sum() >= 2)
    empty = np.zeros(0)
    if not cols:
        return MVNFit(model, (), empty, empty, empty.astype(bool), empty, empty.astype(bool), empty, empty, ())
    A = _numeric_block(cols, X, "fit_mvn")
    lo, hi = np.nanmin(A, axis=0), np.nanmax(A, axis=0)
    integer = np.array([np.all(a[~np.isnan(a)] == np.round(a[~np.isnan(a)])) for a in A.T])
    shift = [log_shift(a) for a in A.T]
    logged = np.array([s is not None for s in shift])
    c = np.array([0.0 if s is None else s for s in shift])
    T = np.where(logged, np.log(np.where(logged, A + c, 1.0)), A)
    loc, sd = np.nanmean(T, axis=0), np.nanstd(T, axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    Z = (T - loc) / sd
    W = _label_weights(model, y, model.predict_proba(X))  # the label, else p(k | x)
    fits = tuple(fit_niw_em(Z, W[:, k], max_iter=max_iter, tol=tol) if W[:, k].sum() > 0 else None
                 for k in range(W.shape[1]))
    return MVNFit(model, cols, lo, hi, integer, c, logged, loc, sd, fits)


def _weights(fit, X, Z, y, label_given, class_posterior):
    """The rows' class weights of the fill (module docstring, "Imputation")."""
    model = fit.model
    post = model.predict_proba(X)
    if label_given:
        return _label_weights(model, y, post)
    if class_posterior == "naive":
        return post
    Xc = X.copy()
    for j in fit.columns:
        Xc.isetitem(j, pd.Series(np.nan, index=X.index))
    logr = np.log(np.maximum(model.predict_proba(Xc), 1e-300)) + np.column_stack(
        [_log_density(f.mean, f.cov_predictive, Z) if f is not None else np.full(len(Z), -np.inf) for f in fit.fits])
    logr -= logr.max(axis=1, keepdims=True)
    R = np.exp(logr)
    return R / R.sum(axis=1, keepdims=True)


def fill_mvn(fit, X, y=None, *, label_given=False, class_posterior="naive"):
    """Fill the missing cells of ``X`` with a fitted ``"mvn"`` configuration (:func:`fit_mvn`).

    ``X`` is the training table or new rows with its columns. ``fill_mvn(fit_mvn(X, y), X, y)``
    is :func:`impute_mvn` (same arguments).

    Parameters
    ----------
    fit : MVNFit
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Labels of the rows (None/NaN where unknown), used when ``label_given``.
    label_given : bool, default=False
    class_posterior : {"naive", "joint"}, default="naive"
        As in :func:`impute_mvn`.

    Returns
    -------
    DataFrame
        The completed table.
    """
    model = fit.model
    # the naive model fills the other columns: the conditional medians of the covered ones (written over
    # below) are not drawn
    other = X.isna().to_numpy() & ~np.isin(np.arange(X.shape[1]), fit.columns)[None, :]
    base = model._impute(X, strategy="auto", n_imputations=1, random_state=None, parameter_uncertainty=True,
                         y=y if label_given else None, n_components=1, latent=None, median_cells=other)
    if not fit.columns:
        return base
    A = _numeric_block(fit.columns, X, "impute_mvn")
    if not np.isnan(A).any():
        return base
    miss = np.isnan(A)
    Z = _standardise(fit, A)
    R = _weights(fit, X, Z, y, label_given, class_posterior)
    groups = _patterns(miss)
    lo, hi, c, logged, loc, sd = fit.low, fit.high, fit.shift, fit.logged, fit.loc, fit.scale
    fill, total = np.zeros_like(A), np.zeros(len(A))
    for k, f in enumerate(fit.fits):
        if f is None:
            continue
        mz, vz = _condition(f.mean, f.cov_predictive, Z, groups)[:2]
        t, vt = mz * sd + loc, vz * sd ** 2
        with np.errstate(over="ignore"):
            xk = np.where(logged, np.exp(np.minimum(t + vt / 2, np.log(np.where(logged, hi + c, 1.0)))) - c, t)
        fill += R[:, [k]] * np.clip(xk, lo, hi)
        total += R[:, k]
    fill /= np.where(total > 0, total, 1.0)[:, None]
    return _write_fills(fit, base, X, fill, miss, "mode")  # the nearest value the column takes


def draw_mvn(fit, X, y=None, *, label_given=False, n_imputations=1, random_state=None):
    """Multiple imputations of ``X`` from a fitted ``"mvn"`` configuration (:func:`fit_mvn`).

    Each completed table takes one draw of every class's parameters from its Normal-Inverse-Wishart
    posterior (``Sigma ~ IW(nu_n, Psi_n)``, ``mu | Sigma ~ N(mu_n, Sigma / kappa_n)``, on the fitted
    scale), one class per row from its class weights, and the row's missing numeric cells from the
    normal conditional on its observed ones; the other columns are the naive model's draws
    (``impute(strategy="draw")``). The NIW is the EM fit's (the parameters' uncertainty given the
    observed cells, not a data-augmentation sampler's). Draws are moved to the values the column takes
    as :meth:`~bayesnb.NaiveBayes.impute` moves its draws.

    Parameters
    ----------
    fit : MVNFit
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Labels of the rows (None/NaN where unknown), used when ``label_given``.
    label_given : bool, default=False
    n_imputations : int, default=1
    random_state : None, int or Generator

    Returns
    -------
    list of DataFrame
        ``n_imputations`` completed tables.
    """
    from scipy.stats import invwishart

    rng = as_generator(random_state)
    model = fit.model
    bases = model.impute(X, y=y if label_given else None, strategy="draw", n_imputations=n_imputations,
                         random_state=rng)
    bases = bases if isinstance(bases, list) else [bases]
    if not fit.columns:
        return bases
    A = _numeric_block(fit.columns, X, "draw_mvn")
    miss = np.isnan(A)
    if not miss.any():
        return bases
    Z = _standardise(fit, A)
    R = _weights(fit, X, Z, y, label_given, "naive")
    hi, c, logged = fit.high, fit.shift, fit.logged
    out = []
    for base in bases:
        state = (rng.random(len(Z))[:, None] > np.cumsum(R, axis=1)).sum(axis=1)
        drawn = Z.copy()
        for k, f in enumerate(fit.fits):
            rows = np.flatnonzero((np.minimum(state, len(fit.fits) - 1) == k) & miss.any(axis=1))
            if f is None or not rows.size:
                continue
            sigma = np.atleast_2d(invwishart(df=f.nu, scale=f.psi).rvs(random_state=rng))
            mu = rng.multivariate_normal(f.mean, sigma / f.kappa)
            sub = Z[rows]
            groups = _patterns(np.isnan(sub))
            mean, _, blocks = _condition(mu, sigma, sub, groups)
            for (mi, _, grows, pid), block in zip(groups, blocks):
                L = np.linalg.cholesky((block + np.swapaxes(block, 1, 2)) / 2)
                eps = rng.standard_normal((grows.size, mi.shape[1]))
                mean[grows[:, None], mi[pid]] += np.einsum("nij,nj->ni", L[pid], eps)
            drawn[rows] = mean
        t = drawn * fit.scale + fit.loc
        with np.errstate(over="ignore"):
            x = np.where(logged, np.exp(np.minimum(t, np.log(np.where(logged, hi + c, 1.0)))) - c, t)
        out.append(_write_fills(fit, base, X, x, miss, "draw"))
    return out
