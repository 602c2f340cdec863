"""MAR given the observed columns: each missingness indicator as a logistic regression on fully observed columns.

The fourth model of :func:`~bayesnb.impute.mnar_evidence.mnar_evidence`. A column's cells may go missing because of
*another* column's value, one that is always observed (the usual MAR mechanism of a simulation, or a survey's
skip pattern), or because of the class. Where that column is correlated with the missing one, a self-masking node
("missing because of its own value") can mimic the pattern, and beat MAR models that have no node for it. This
model gives each missingness indicator ``m_j`` a logistic regression on columns that are observed in every row::

    logit p(m_j = 1 | x_obs) = w_0 + sum_k w_k . f_k(x_k)

with ``f_k`` a fully observed numeric column standardised (one weight) or its quantile bins (one weight per bin but
the first), or a fully observed categorical column's values (one weight per value but the first). The drivers are
chosen per column by forward selection on BIC (:func:`select_drivers`). Because the drivers are observed,
``log p(m | x_obs)`` separates from the feature model, so the model's log-likelihood is the tied MAR fit's with each
column's constant missing rate replaced by its regression: no EM is needed.

The class is not a candidate: missingness driven by the class is the test's "MAR by state" model. As a driver here
it made the test choose MAR on penguins' self-masked measurements (docs/mnar.md), whose values the species nearly
fixes, so BIC cannot tell "missing because of the species" from "missing because of its own value" there.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .._utils import is_numeric_column
from ..generative.mnar_bins import between_values, own_bins, quantile_edges

__all__ = ["MAX_LEVELS", "SCREEN", "Driver", "candidate_drivers", "logistic_loglik", "select_drivers"]

#: Categorical driver columns with more values than this are not candidates (their one-hot design would
#: be wide, and BIC would charge ``levels - 1`` parameters for them).
MAX_LEVELS = 32

#: After the first step of the forward selection, only this many of the best single drivers are tried again.
SCREEN = 8

#: Precision of the Gaussian prior on the regression's weights (not the intercept): it keeps the fit finite when a
#: driver separates the missing cells from the observed ones.
RIDGE = 1e-2


class Driver(NamedTuple):
    """One candidate driver of the missingness.

    Attributes
    ----------
    name : str
        ``"<column>"`` (standardised, or categorical) or ``"<column> (bins)"``.
    design : ndarray of shape (n, k)
        Its columns of the regression's design matrix (``k`` weights).
    """

    name: str
    design: np.ndarray


def _one_hot(codes, levels):
    """Indicators of codes 1..levels-1, shape (n, levels - 1)."""
    return (np.asarray(codes)[:, None] == np.arange(1, levels)[None, :]).astype(float)


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
        A numeric column with at least three distinct values gives two (standardised, and its bins), one with two
        values one; a categorical column with 2 to :data:`MAX_LEVELS` values gives one.
    """
    out = []
    for name in X.columns:
        col = X[name]
        if col.isna().any():
            continue
        if is_numeric_column(col):  # bool columns: categorical, as everywhere in the package
            x = col.to_numpy(dtype=float)
            if not np.all(np.isfinite(x)) or np.ptp(x) == 0:
                continue
            out.append(Driver(str(name), ((x - x.mean()) / x.std())[:, None]))
            edges = between_values(x, quantile_edges(x, n_bins))
            if len(np.unique(x)) > 2 and len(edges) > 1:
                out.append(Driver(f"{name} (bins)", _one_hot(own_bins(x, edges), len(edges) + 1)))
            continue
        codes, levels = pd.factorize(col)
        if 2 <= len(levels) <= MAX_LEVELS:
            out.append(Driver(str(name), _one_hot(codes, len(levels))))
    return out


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

    with threadpool_limits(1):  # one BLAS thread: small designs, where threads only contend
        model = LogisticRegression(C=1.0 / RIDGE, solver="newton-cholesky", tol=1e-8, max_iter=200).fit(Z, m)
    logit = model.decision_function(Z)
    return float(np.sum(m * logit - np.logaddexp(0.0, logit)))


def select_drivers(m, drivers, log_n):
    """Forward selection of the drivers of one missingness indicator by BIC.

    Parameters
    ----------
    m : ndarray of shape (n,) of bool
        Which cells of the column are missing.
    drivers : list of Driver
        From :func:`candidate_drivers`.
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
    Z = np.zeros((m.size, 0))
    if n1 == 0 or n0 == 0:
        return 0.0, 0, ()
    ll = n1 * np.log(n1 / m.size) + n0 * np.log(n0 / m.size)
    k, chosen = 0, []
    pool = list(drivers)
    while pool:
        scored = sorted(((logistic_loglik(np.hstack([Z, d.design]), m) - 0.5 * d.design.shape[1] * log_n, i)
                         for i, d in enumerate(pool)), reverse=True)
        score, best = scored[0]
        if score <= ll:
            break
        d = pool[best]
        Z, k, ll = np.hstack([Z, d.design]), k + d.design.shape[1], score + 0.5 * d.design.shape[1] * log_n
        chosen.append(d.name)
        keep = [i for _, i in scored[1:SCREEN + 1]] if len(chosen) == 1 else [i for _, i in scored[1:]]
        pool = [pool[i] for i in sorted(keep)]
    return float(ll), int(k), tuple(chosen)
