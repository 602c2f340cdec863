"""MAR given the observed columns: each missingness indicator as a logistic regression on fully observed columns.

The fourth model of :func:`~bayesnb.impute.mnar_evidence.mnar_evidence`. A column's cells may go missing because of
*another* column's value, one that is always observed (the usual MAR mechanism of a simulation, or a survey's
skip pattern), or because of the class. Where that column is correlated with the missing one, a self-masking node
("missing because of its own value") can mimic the pattern, and beat MAR models that have no node for it. This
model gives each missingness indicator ``m_j`` a logistic regression on columns that are observed in every row::

    logit p(m_j = 1 | x_obs) = w_0 + sum_k w_k . f_k(x_k)

with ``f_k`` a fully observed numeric column standardised (one weight) or its quantile bins (one weight per bin but
the first), or a fully observed categorical column's values (one weight per value but the first). The drivers are
chosen per column by forward selection on BIC (:func:`select_drivers`) among the :data:`SCREEN` candidates with the
largest score statistics (:func:`screen_drivers`: one pass over the candidates for every column, so a wide table
costs one design matrix at a time, not one logistic fit per candidate and column). Because the drivers are observed,
``log p(m | x_obs)`` separates from the feature model, so the model's log-likelihood is the tied MAR fit's with each
column's constant missing rate replaced by its regression: no EM is needed.

The class (``y``) is not a candidate: missingness driven by the class is the test's "MAR by state" model. As a
driver here it made the test choose MAR on penguins' self-masked measurements (docs/mnar.md), whose values the
species nearly fixes, so BIC cannot tell "missing because of the species" from "missing because of its own value"
there. A label left among the columns of ``X`` (no ``y``) is a column like any other, and a candidate.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .._utils import is_numeric_column
from ..generative.mnar_bins import node_edges, own_bins

__all__ = ["MAX_LEVELS", "SCREEN", "Driver", "candidate_drivers", "driver_design", "logistic_loglik",
           "score_statistics", "screen_drivers", "select_drivers"]

#: Categorical driver columns with more values than this are not candidates (their one-hot design would
#: be wide, and BIC would charge ``levels - 1`` parameters for them).
MAX_LEVELS = 32

#: The candidates with the largest score statistics that the forward selection of each column's drivers tries.
SCREEN = 8

#: Precision of the Gaussian prior on the regression's weights (not the intercept): it keeps the fit finite when a
#: driver separates the missing cells from the observed ones.
RIDGE = 1e-2


class Driver(NamedTuple):
    """One candidate driver of the missingness (its design is built when needed, :func:`driver_design`).

    Attributes
    ----------
    name : str
        ``"<column>"`` (standardised, or categorical) or ``"<column> (bins)"``.
    column : hashable
        Its column's label in the table.
    kind : {"linear", "bins", "values"}
        Standardised numeric column (one weight), its quantile bins, or a categorical column's values (one weight
        per bin or value but the first).
    """

    name: str
    column: object
    kind: str


def _one_hot(codes, levels):
    """Indicators of codes 1..levels-1, shape (n, levels - 1)."""
    return (np.asarray(codes)[:, None] == np.arange(1, levels)[None, :]).astype(float)


def _standardised(col):
    """A numeric column standardised (scaled by its largest magnitude first, so that neither tiny nor huge values
    overflow), or None when it is constant or not finite."""
    x = col.to_numpy(dtype=float)
    if not np.all(np.isfinite(x)):
        return None
    top = float(np.max(np.abs(x))) if x.size else 0.0
    if top == 0.0:
        return None
    x = x / top
    sd = float(x.std())
    return (x - x.mean()) / sd if sd > 0 and np.isfinite(sd) else None


def _bins(col, n_bins):
    """A numeric column's quantile-bin codes and their count (the missingness nodes' rule)."""
    x = col.to_numpy(dtype=float)
    edges = node_edges(x, n_bins)
    return own_bins(x, edges), len(edges) + 1


def candidate_drivers(X, n_bins=5):
    """The drivers a missingness indicator may be regressed on: the columns of ``X`` with no missing cell.

    Parameters
    ----------
    X : DataFrame of shape (n, d)
    n_bins : int, default=5
        Quantile bins of a numeric driver (the rule of the missingness nodes' bins).

    Returns
    -------
    list of Driver
        A non-constant finite numeric column gives its standardised values, and its bins too where it has at least
        three distinct values and its quantiles make at least two bins; a categorical column with 2 to
        :data:`MAX_LEVELS` values gives its values.
    """
    out = []
    for name in X.columns:
        col = X[name]
        if col.isna().any():
            continue
        if is_numeric_column(col):  # bool columns: categorical, as everywhere in the package
            if _standardised(col) is None:
                continue
            out.append(Driver(str(name), name, "linear"))
            if col.nunique() > 2 and _bins(col, n_bins)[1] > 2:
                out.append(Driver(f"{name} (bins)", name, "bins"))
        elif 2 <= col.nunique() <= MAX_LEVELS:
            out.append(Driver(str(name), name, "values"))
    return out


def driver_design(X, driver, n_bins=5):
    """A driver's columns of the regression's design matrix, shape (n, k).

    Parameters
    ----------
    X : DataFrame of shape (n, d)
    driver : Driver
        From :func:`candidate_drivers` on ``X``.
    n_bins : int, default=5

    Returns
    -------
    ndarray of shape (n, k)
        ``"linear"``: the standardised column (k = 1); ``"bins"`` and ``"values"``: indicators of every bin or value
        but the first.
    """
    col = X[driver.column]
    if driver.kind == "linear":
        return _standardised(col)[:, None]
    if driver.kind == "bins":
        return _one_hot(*_bins(col, n_bins))
    codes, levels = pd.factorize(col)
    return _one_hot(codes, len(levels))


def score_statistics(design, M):
    """The score (Rao) statistic of adding a driver to the constant missing rate of each indicator.

    Parameters
    ----------
    design : ndarray of shape (n, k)
        The driver's design (:func:`driver_design`).
    M : ndarray of shape (n, J)
        The indicators (1: missing).

    Returns
    -------
    ndarray of shape (J,)
        ``u' (D_c' D_c)^+ u / (r (1 - r))`` with ``D_c`` the design centred, ``u = D_c' m`` and ``r`` the
        indicator's rate (0 where it is constant): chi-squared with ``k`` degrees of freedom when the driver does
        not matter. For a categorical driver it is Pearson's chi-squared of the value-by-missing table.
    """
    M = np.asarray(M, dtype=float)
    rate = M.mean(axis=0)
    var = rate * (1.0 - rate)
    D = design - design.mean(axis=0)
    u = D.T @ M  # (k, J): D centred, so D' (m - r) = D' m
    stat = np.einsum("kj,kj->j", u, np.linalg.pinv(D.T @ D) @ u)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(var > 0, stat / np.where(var > 0, var, 1.0), 0.0)


def screen_drivers(X, drivers, M, n_bins=5, keep=SCREEN):
    """For each missingness indicator, the ``keep`` drivers with the largest score statistics.

    Drivers are ranked by ``statistic / 2 - k / 2 log n`` (:func:`score_statistics`; BIC's gain, to first order).
    Each candidate's design is built once, for every indicator at a time.

    Parameters
    ----------
    X : DataFrame of shape (n, d)
    drivers : list of Driver
    M : ndarray of bool, shape (n, J)
        The indicators (True: missing).
    n_bins : int, default=5
    keep : int, default=SCREEN

    Returns
    -------
    list of list of int
        Per indicator, indices into ``drivers``, the best first.
    """
    n, J = np.shape(M)
    scores = np.full((len(drivers), J), -np.inf)
    with threadpool_limits(1):  # small products, where BLAS threads only contend
        for i, d in enumerate(drivers):
            D = driver_design(X, d, n_bins)
            scores[i] = 0.5 * score_statistics(D, M) - 0.5 * D.shape[1] * np.log(n)
    order = np.argsort(-scores, axis=0, kind="stable")
    return [order[:keep, j].tolist() for j in range(J)]


def logistic_loglik(Z, m):
    """The log-likelihood of a logistic regression of ``m`` on ``Z`` (and an intercept) at its fitted coefficients.

    Parameters
    ----------
    Z : ndarray of shape (n, k)
        Design matrix, without the intercept (k >= 1).
    m : ndarray of shape (n,) of 0/1

    Returns
    -------
    float
        ``sum_i m_i log p_i + (1 - m_i) log(1 - p_i)`` at the coefficients that maximise it less
        ``RIDGE / 2 |w|^2`` (the intercept not penalised; scikit-learn's ``LogisticRegression(C=1 / RIDGE)``, by
        Newton's method). The prior keeps them finite where a driver separates the missing cells.
    """
    from sklearn.linear_model import LogisticRegression  # lazy: keeps `import bayesnb` light

    model = LogisticRegression(C=1.0 / RIDGE, solver="newton-cholesky", tol=1e-8, max_iter=200).fit(Z, m)
    logit = model.decision_function(Z)
    return float(np.sum(m * logit - np.logaddexp(0.0, logit)))


def select_drivers(m, designs, log_n):
    """Forward selection of the drivers of one missingness indicator by BIC.

    Parameters
    ----------
    m : ndarray of shape (n,) of bool
        Which cells of the column are missing.
    designs : list of (str, ndarray of shape (n, k))
        Candidate drivers: their names and designs (:func:`driver_design`).
    log_n : float
        ``log n`` of BIC's penalty.

    Returns
    -------
    (float, int, tuple of str)
        The regression's log-likelihood, its weights beyond the intercept, and the drivers chosen (in order); with
        no driver the constant missing rate's log-likelihood, 0 and ``()``.
    """
    m = np.asarray(m, dtype=float)
    n1 = float(m.sum())
    n0 = m.size - n1
    if n1 == 0 or n0 == 0:
        return 0.0, 0, ()
    ll = n1 * np.log(n1 / m.size) + n0 * np.log(n0 / m.size)
    Z, k, chosen = np.zeros((m.size, 0)), 0, []
    pool = list(designs)
    with threadpool_limits(1):  # small designs, where BLAS threads only contend
        while pool:
            score, best = max((logistic_loglik(np.hstack([Z, D]), m) - 0.5 * D.shape[1] * log_n, i)
                              for i, (_, D) in enumerate(pool))  # (ties: the later candidate, as before)
            if score <= ll:
                break
            name, D = pool.pop(best)
            Z, k, ll = np.hstack([Z, D]), k + D.shape[1], score + 0.5 * D.shape[1] * log_n
            chosen.append(name)
    return float(ll), int(k), tuple(chosen)
