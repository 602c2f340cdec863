"""Self-masking odds: a categorical column's missingness as a function of its own value, on a fitted predictive.

The joint selection model of :mod:`bayesnb.impute.mnar_config` gives a categorical column a missingness node only when
it has at most as many values as classes (:func:`~bayesnb.impute.mnar_config.identified_values`). This module
covers the other categorical columns, in two stages.

1. **The predictive.** The configuration that imputes column ``j`` (naive Bayes, TAN or the latent-class model)
   gives, for every row, ``q_i(v) = p(x_ij = v | x_i,-j)``. Column ``j``'s own parameters are fitted on the rows
   where it is observed, so under self-masking it is (approximately: the other parameters use every row) the
   predictive *among observed cells*.
2. **The rates.** With ``rho_v = p(missing | value v)``, Bayes' rule gives, for a row whose other cells are
   ``x_-j``::

       p(v | x_-j) ∝ q(v) / (1 - rho_v),    p(observed | x_-j) = 1 / sum_v q(v) / (1 - rho_v)

   and a missing cell's predictive is ``q(v) rho_v / (1 - rho_v)``, normalised. The rates are fitted to the
   column's missingness indicators alone (:func:`fit_rates`: the posterior mode, each rate shrunk toward the
   column's missing share). They are identified only because ``q_i`` differs between rows: the other columns (and
   the class) tell which values a row's missing cell is likely to hold. A column whose predictive is the same in
   every row is not fitted.

**When it is used** (``Imputer(missingness="auto")``): when it explains the column's missingness better by BIC than
missingness at random given the other columns, partly observed ones included (:func:`mar_given_columns`: a logistic
regression on the drivers chosen by forward selection, a missing cell its own level, the label among them).
That competitor is what keeps a missingness driven by another column, observed or not, or by the class, from
passing as self-masking: on the mushroom
table, whose ``stalk-root`` column is missing in whole groups of species, the self-masking model beats one constant
rate by 177 nats but loses to the drivers by 994 (docs/mnar.md). ``missingness="mnar"`` uses it for every such column
without the test; ``"mar"`` never fits it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit, logsumexp

from .._utils import is_numeric_column
from ..families.numeric import draw_categories
from ..generative.tables import label_codes
from ..generative.mnar_bins import own_bins
from .mar_observed import MAX_LEVELS, SCREEN, _one_hot, score_statistics, select_drivers

__all__ = ["OddsColumn", "column_predictive", "fit_odds", "fit_rates", "logit_covariance", "mar_given_columns",
           "odds_fills"]

#: The configurations whose predictive of a categorical cell the odds can reweight.
READERS = ("naive", "latent", "tan", "tan-mi")

#: Bound on the rates' logits: rho in [expit(-12), expit(12)], so every value keeps a chance of being observed.
LOGIT_BOUND = 12.0

#: Columns with more values are not fitted: the predictive scores the table once per value.
MAX_VALUES = 64

#: Prior strength ``A`` of each rate (:func:`fit_rates`): ``A`` cells' worth of the column's missing share.
PRIOR_STRENGTH = 10.0

#: The largest variance of a rate's logit in multiple imputation's draws (:func:`logit_covariance`), and the
#: variance of a logit at the bound (none, but for a positive definite covariance).
MAX_LOGIT_VARIANCE, MIN_LOGIT_VARIANCE = 1.0, 1e-12

#: Bins of a numeric driver, cut at the quantiles of its observed values (as many as the missingness nodes' default).
N_BINS = 5


class OddsColumn(NamedTuple):
    """The self-masking odds of one categorical column.

    Attributes
    ----------
    configuration : str
        The configuration whose predictive is reweighted (the column's choice).
    values : ndarray of object, shape (V,)
        The column's observed values, in the order of ``rho``.
    rho : ndarray of float, shape (V,)
        ``p(missing | value)``.
    loglik : float
        Log-likelihood of the column's missingness indicators under the rates.
    loglik_mar : float
        Under missingness at random given the other columns (the drivers below; none: one constant rate).
    k_mar : int
        That regression's weights beyond the intercept.
    drivers : tuple of str
        Its drivers, in the order forward selection chose them.
    used : bool
        Whether the fills use the rates (``"auto"``: BIC prefers them; ``"mnar"``: always).
    logit_cov : ndarray of shape (V, V)
        The covariance of the rates' logits (:func:`logit_covariance`), from which multiple imputation draws them.
    """

    configuration: str
    values: np.ndarray
    rho: np.ndarray
    loglik: float
    loglik_mar: float
    k_mar: int
    drivers: tuple
    used: bool
    logit_cov: np.ndarray


def _codes(model, labels, n, who):
    return np.full(n, -1, dtype=np.int64) if labels is None else label_codes(model.classes_, labels, n, who)


def column_predictive(config, member, X, column, values, labels=None, who="Imputer"):
    """``p(x_ij = v | x_i,-j)`` of each row of ``X`` under a fitted configuration, shape (n, V).

    Parameters
    ----------
    config : str
        One of :data:`READERS`.
    member : NaiveBayes or (NaiveBayes, LatentClassFit)
        The fitted configuration.
    X : DataFrame of shape (n, d)
        Rows; the cell of ``column`` is ignored (each value of ``values`` is put in its place).
    column : hashable
    values : array-like of object, length V
        Values the column takes.
    labels : array-like of shape (n,), optional
        Each row's class (None/NaN where unknown: summed over the classes).
    who : str

    Returns
    -------
    ndarray of shape (n, V)
        Rows sum to 1 (NaN for a row that has probability 0 under every value, possible with ``alpha=0``).
    """
    model, latent = member if config == "latent" else (member, None)
    n = X.shape[0]
    codes = _codes(model, labels, n, who)
    known = codes >= 0
    scores = np.empty((n, len(values)))
    if pd.isna(np.asarray(values, dtype=object)).any():
        raise ValueError(f"{who}: the values of column {column!r} whose predictive is asked for must not be missing; "
                         f"received {list(values)[:10]}.")
    filled = X.copy()
    for v, value in enumerate(values):
        # as objects: a new table's own dtype (all-missing float, a category set without the value) cannot hold it
        filled[column] = pd.Series([value] * n, index=X.index, dtype=object)
        if latent is not None:
            Xv = model._check_X(filled, reset=False)
            encoded, _ = model._encode_blocks(Xv, model.posterior_)
            scores[:, v] = model._latent_log_px(latent, encoded, codes)
            continue
        joint = model.predict_joint_log_proba(filled)
        scores[:, v] = logsumexp(joint, axis=1)
        scores[known, v] = joint[known, codes[known]]
    with np.errstate(invalid="ignore"):  # a row of probability 0 for every value: NaN (odds_fills keeps its fill)
        return np.exp(scores - logsumexp(scores, axis=1, keepdims=True))


def _loglik(t, P, observed):
    """The missingness indicators' log-likelihood at logits ``t`` of the rates, and its gradient."""
    e = np.exp(t)
    c = P @ (1.0 + e)  # sum_v q(v) / (1 - rho_v) >= 1
    cm = np.maximum(c - 1.0, 1e-300)
    ll = -np.log(c).sum() + np.log(cm[~observed]).sum()
    g = -1.0 / c
    g[~observed] += 1.0 / cm[~observed]
    return ll, (P.T @ g) * e


def fit_rates(P, observed, strength=None):
    """Self-masking rates of one column, given its predictive among observed cells: their posterior mode.

    Parameters
    ----------
    P : ndarray of shape (n, V)
        Each row's predictive of the column's value (:func:`column_predictive`).
    observed : ndarray of bool, shape (n,)
    strength : float, optional
        ``A`` of the prior ``rho_v ~ Beta(1 + A r, 1 + A (1 - r))``, ``r`` the column's missing share: each rate
        shrunk toward it by ``A`` cells' worth (a value seen in a handful of cells cannot take an extreme rate).
        None: :data:`PRIOR_STRENGTH`; 0: maximum likelihood.

    Returns
    -------
    (ndarray of shape (V,), float)
        ``rho`` (``p(missing | value)``, within :data:`LOGIT_BOUND` on the logit scale) and the log-likelihood of
        the indicators at it: ``sum_obs -log c_i + sum_miss log(c_i - 1) - log c_i``, ``c_i = sum_v q_i(v) / (1 -
        rho_v)`` (the prior not included).
    """
    P, observed, objective, rate = _posterior(P, observed, strength)
    V = P.shape[1]
    start = np.log(rate / (1 - rate))  # every rate the column's missing share
    fits = [minimize(objective, np.full(V, s), jac=True, method="L-BFGS-B",
                     bounds=[(-LOGIT_BOUND, LOGIT_BOUND)] * V) for s in (start, start - 1.0)]
    best = min(fits, key=lambda r: r.fun)
    return expit(best.x), float(_loglik(best.x, P, observed)[0])


def _posterior(P, observed, strength):
    """``(P, observed, objective, rate)``: the negative log posterior of the rates' logits and its gradient."""
    P = np.asarray(P, dtype=float)
    observed = np.asarray(observed, dtype=bool)
    A = PRIOR_STRENGTH if strength is None else float(strength)
    rate = float(np.clip((~observed).mean(), 1e-6, 1 - 1e-6))
    a, b = A * rate, A * (1 - rate)

    def objective(t):
        ll, g = _loglik(t, P, observed)
        rho = expit(t)
        return -(ll + (a * np.log(rho) + b * np.log1p(-rho)).sum()), -(g + a * (1 - rho) - b * rho)

    return P, observed, objective, rate


def logit_covariance(P, observed, rho, strength=None):
    """The Laplace approximation's covariance of the rates' logits at their posterior mode (:func:`fit_rates`).

    The inverse of the negative log posterior's Hessian (by central differences of its analytic gradient), its
    eigenvalues floored so that no direction's variance exceeds :data:`MAX_LOGIT_VARIANCE` (a rate the data hardly
    inform; the prior alone gives a variance of about ``1 / (A rho (1 - rho))``); a rate at the bound of its logit
    (``±LOGIT_BOUND``) gets no variance, since its draws would pile up at the bound. Multiple imputation draws the
    rates from it (:func:`odds_fills`).

    Parameters
    ----------
    P : ndarray of shape (n, V)
    observed : ndarray of bool, shape (n,)
    rho : ndarray of shape (V,)
        The posterior mode.
    strength : float, optional
        As in :func:`fit_rates`.

    Returns
    -------
    ndarray of shape (V, V)
        Symmetric positive definite.
    """
    P, observed, objective, _ = _posterior(P, observed, strength)
    t = np.log(rho) - np.log1p(-rho)
    V, h = t.size, 1e-4
    H = np.column_stack([(objective(t + h * e)[1] - objective(t - h * e)[1]) / (2 * h) for e in np.eye(V)])
    w, U = np.linalg.eigh((H + H.T) / 2)
    C = (U / np.maximum(w, 1.0 / MAX_LOGIT_VARIANCE)) @ U.T
    at_bound = np.abs(t) >= LOGIT_BOUND - 1e-6
    C[at_bound, :] = 0.0
    C[:, at_bound] = 0.0
    C[at_bound, at_bound] = MIN_LOGIT_VARIANCE
    return (C + C.T) / 2  # exactly symmetric


def _designs(X, labels=None):
    """Candidate drivers of the columns' missingness, ``[(column, name, design)]``: the labels' (``column`` None;
    when there are two classes or more) and every column's, a missing cell its own level."""
    out = []
    if labels is not None:
        codes = pd.factorize(pd.factorize(np.asarray(labels, dtype=object))[0])[0]  # an unknown label its own level
        if 2 <= codes.max() + 1 <= MAX_LEVELS + 1:
            out.append((None, "(label)", _one_hot(codes, codes.max() + 1)))
    for c in X.columns:
        col = X[c]
        miss = col.isna().to_numpy()
        if is_numeric_column(col):
            x = col.to_numpy(dtype=float, na_value=np.nan)
            ok = np.isfinite(x)
            if ok.sum() < 2 or np.ptp(x[ok]) == 0:
                continue
            z = np.where(ok, (x - x[ok].mean()) / x[ok].std(), 0.0)
            out.append((c, str(c), np.column_stack([z, miss]) if miss.any() else z[:, None]))
            codes = own_bins(x, np.unique(np.quantile(x[ok], np.linspace(0, 1, N_BINS + 1)[1:-1])))
        else:
            codes = pd.factorize(col)[0]
        codes = pd.factorize(codes)[0]  # a missing cell (-1) its own level
        levels = codes.max() + 1
        if 2 <= levels <= MAX_LEVELS + miss.any():  # the missing level besides the values
            out.append((c, f"{c} (bins)" if is_numeric_column(col) else str(c), _one_hot(codes, levels)))
    return out


def mar_given_columns(X, column, missing, labels=None, designs=None):
    """Missingness at random given the other columns: the best logistic regression of one column's indicators.

    The candidates are the other columns, partly observed ones included: a numeric column standardised (a missing
    cell 0, with its own indicator) and in quantile bins, a categorical one by its values, a missing cell its own
    level (columns with more than :data:`~bayesnb.impute.mar_observed.MAX_LEVELS` values are left out); and the
    labels (missingness driven by the class). The :data:`~bayesnb.impute.mar_observed.SCREEN` candidates with the
    largest score statistics are tried by forward selection on BIC
    (:func:`~bayesnb.impute.mar_observed.select_drivers`).

    Parameters
    ----------
    X : DataFrame of shape (n, d)
    column : hashable
        The column whose missingness is modelled (not a candidate).
    missing : ndarray of bool, shape (n,)
    labels : array-like of shape (n,), optional
        The rows' labels (None/NaN where unknown): a candidate when they hold two classes or more.
    designs : list, optional
        The candidates of every column of ``X`` (and of ``labels``), built once for several columns (``fit_odds``);
        None: built here.

    Returns
    -------
    (float, int, tuple of str)
        The log-likelihood, the weights beyond the intercept and the drivers chosen (none: one constant rate).
    """
    m = np.asarray(missing, dtype=float)
    log_n = np.log(m.size)
    designs = [(name, D) for c, name, D in (_designs(X, labels) if designs is None else designs) if c != column]
    gain = [0.5 * score_statistics(D, m[:, None])[0] - 0.5 * D.shape[1] * log_n for _, D in designs]
    keep = [designs[i] for i in np.argsort(gain, kind="stable")[::-1][:SCREEN]]
    return select_drivers(missing, keep, log_n)


def fit_odds(X, labels, chosen, models, columns, test=True, who="Imputer"):
    """The self-masking odds of each categorical column in ``columns`` (see the module docstring).

    Parameters
    ----------
    X : DataFrame
        The training table.
    labels : array-like or None
        The rows' labels (the predictive is conditioned on them).
    chosen : dict
        Column -> the configuration that fills it; only columns filled by one of :data:`READERS` are fitted.
    models : dict
        Configuration -> its fitted member.
    columns : iterable
        The candidate columns (categorical, with missing and observed cells). A column is left out when it has
        fewer than two or more than :data:`MAX_VALUES` observed values, or when its predictive is the same in
        every row (naive Bayes with one class: nothing identifies the rates).
    test : bool, default=True
        Use the rates only where BIC prefers them to :func:`mar_given_columns` (False: always).
    who : str

    Returns
    -------
    dict
        Column -> :class:`OddsColumn`, for every column fitted (``used`` tells which fill from it).
    """
    out, designs = {}, None
    log_n = np.log(max(X.shape[0], 2))
    for c in columns:
        config = chosen.get(c)
        observed = X[c].notna().to_numpy()
        values = pd.unique(X.loc[observed, c].astype(object))
        if config not in READERS or not 2 <= len(values) <= MAX_VALUES or observed.all() or not observed.any():
            continue
        P = column_predictive(config, models[config], X, c, values, labels, who)
        good = np.isfinite(P).all(axis=1)  # (every training row is possible under its own class; kept general)
        if not good.all() or np.ptp(P, axis=0).max() < 1e-9:  # the same predictive in every row: not identified
            continue
        rho, ll = fit_rates(P, observed)
        designs = _designs(X, labels) if designs is None else designs  # (once, for every column)
        ll_mar, k, drivers = mar_given_columns(X, c, ~observed, labels, designs)
        used = (not test) or (-ll + len(values) / 2 * log_n < -ll_mar + (k + 1) / 2 * log_n)
        out[c] = OddsColumn(config, np.asarray(values, dtype=object), rho, ll, float(ll_mar), int(k),
                            tuple(drivers), bool(used), logit_covariance(P, observed, rho))
    return out


def odds_fills(odds, models, X, given, rng, strategy="auto", n_imputations=1, who="Imputer"):
    """Fills of the missing cells of the columns whose odds are used: ``{column: list of n_imputations arrays}``.

    Each missing cell's predictive given that it is missing, ``q(v) rho_v / (1 - rho_v)`` normalised: its most
    probable value (``"auto"``), or draws from it (``"draw"``): per completed table one draw of the rates from
    their Laplace approximation (``logit_cov``), then each cell from its predictive at those rates. The
    configuration's parameters stay at their posterior mean (their uncertainty is not propagated here).

    Parameters
    ----------
    odds : dict
        Column -> :class:`OddsColumn`.
    models : dict
    X : DataFrame
    given : array-like or None
        Labels to condition on.
    rng : Generator
    strategy : {"auto", "draw"}
    n_imputations : int
    who : str

    Returns
    -------
    dict
        Column -> list of ``n_imputations`` object arrays, one value per missing cell of the column (in row order);
        None where the row's predictive is 0 for every value (a row impossible under its label with ``alpha=0``):
        that cell keeps its configuration's fill.
    """
    out = {}
    for c, oc in odds.items():
        miss = X[c].isna().to_numpy()
        if not oc.used or not miss.any():
            continue
        rows = X.loc[miss]
        sub = None if given is None else np.asarray(given, dtype=object)[miss]
        q = column_predictive(oc.configuration, models[oc.configuration], rows, c, oc.values, sub, who)
        if strategy != "draw":
            Q, ok = _given_missing(q, oc.rho)
            out[c] = [np.where(ok, oc.values[np.argmax(Q, axis=1)], None)] * int(n_imputations)
            continue
        t = np.log(oc.rho) - np.log1p(-oc.rho)
        L = np.linalg.cholesky(oc.logit_cov)
        out[c] = []
        for _ in range(int(n_imputations)):  # one draw of the rates per completed table
            Q, ok = _given_missing(q, expit(np.clip(t + L @ rng.standard_normal(t.size), -LOGIT_BOUND, LOGIT_BOUND)))
            pick = draw_categories(Q, rng.random(len(Q)))
            out[c].append(np.where(ok, oc.values[pick], None))
    return out


def _given_missing(q, rho):
    """Each row's predictive given that the cell is missing, ``q rho / (1 - rho)`` normalised, and which rows have
    one (a row impossible under its label, ``alpha=0``, has none)."""
    Q = q * (rho / (1.0 - rho))
    total = Q.sum(axis=1)
    ok = np.isfinite(total) & (total > 0)
    return np.where(ok[:, None], Q / np.where(ok, total, 1.0)[:, None], 0.0), ok
