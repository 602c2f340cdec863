"""Combining rules for an analysis repeated on ``m`` synthetic tables (:func:`pool_synthetic`).

A :class:`~bayesnb.Synthesizer` table stands in for the real one. An analysis run on it estimates
what the same analysis would give on the real rows, and, through them, the population. The
rules of Raab, Nowok & Dibben (2016), as R's synthpop applies them (``summary.fit.synds``), with
``k`` synthetic rows per table, ``n`` real rows, ``m`` tables, ``Q_l`` and ``U_l`` the estimate
and its squared standard error on table ``l``::

    Qbar = mean_l Q_l                                   pooled estimate
    Ubar = mean_l U_l                                   mean variance on a synthetic table
    T    = Ubar * k / n                                 inference to the real rows' estimate
    T    = Ubar * (k / n + 1 / m)                       to the population, simple synthesis
    T    = Ubar * (k / n + (1 + k / n) / m)             to the population, proper synthesis

"Simple" synthesis draws the rows from one fitted model (``Synthesizer.sample``'s default, the
posterior-mean plug-in); "proper" synthesis draws the model's parameters from their posterior
for each table (``sample(..., parameter_uncertainty=True)``), which adds the uncertainty about
them. Unlike Rubin's rules for imputation (:func:`bayesnb.pool`), no between-table variance
enters ``T``: every table is synthesised from the same real rows, so the variance between
tables is known from the variance within them. Intervals are normal, as synthpop's. Each rule
holds only if the synthesis model is right for the analysis: compare with the real rows'
analysis where you can (``synthetic_report`` and docs/synthetic.md).

Raab, G. M., Nowok, B. and Dibben, C. (2016). Practical data synthesis for large samples.
*Journal of Privacy and Confidentiality* 7(3), 67-97.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy import stats

from .._utils import DataError
from ..impute.pooling import pooled_inputs

__all__ = ["SYNTHESIS", "pool_synthetic"]

#: the kinds of synthesis :func:`pool_synthetic` combines (``method=``)
SYNTHESIS = ("simple", "proper")


def _count(value, name):
    if not (isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1):
        raise DataError(f"pool_synthetic: {name} must be a whole number >= 1; received {value!r}.")
    return int(value)


def pool_synthetic(estimates, variances, *, n_original, n_synthetic=None, method="simple",
                   population_inference=True, conf_level=0.95, names=None) -> pd.DataFrame:
    """Pool estimates from ``m`` synthetic tables with the synthetic-data combining rules.

    See the module docstring for the rules (Raab, Nowok & Dibben 2016; R's synthpop).

    Parameters
    ----------
    estimates : array-like of shape (m,) or (m, p)
        The estimate of each of ``p`` parameters on each of ``m >= 1`` synthetic tables.
    variances : array-like of the same shape
        Their squared standard errors as the analysis computes them on a synthetic table,
        each >= 0.
    n_original : int
        Rows of the real table the Synthesizer was fitted on (``n``).
    n_synthetic : int, optional
        Rows of each synthetic table (``k``); default ``n_original``.
    method : {"simple", "proper"}, default="simple"
        How the tables were drawn: ``"simple"`` from one fitted model (``Synthesizer.sample``'s
        default, the plug-in), ``"proper"`` with the parameters drawn from their posterior for
        each table (``sample(..., parameter_uncertainty=True)``).
    population_inference : bool, default=True
        True: the interval covers the population quantity. False: it covers what the same
        analysis of the real rows would estimate (``T = Ubar k / n``; ``method`` then does
        not matter), for exploring a synthetic table before running the final code on the
        real one.
    conf_level : float, default=0.95
        Level of the (normal) confidence interval.
    names : list of str, optional
        As in :func:`bayesnb.pool`.

    Returns
    -------
    pandas.DataFrame
        One row per parameter: ``estimate`` (Qbar), ``ubar``, ``b`` (the variance between the
        tables, ddof 1; NaN for one table: reported, not used), ``t``, ``std_error``
        (sqrt t), ``statistic`` (estimate / std_error), ``p_value`` (two-sided, normal) and the
        interval ``lower``, ``upper``.

    Raises
    ------
    DataError
        No table, shapes that differ, negative or non-finite values, counts that are not
        whole numbers >= 1, an unknown ``method`` or a ``conf_level`` outside (0, 1).

    Examples
    --------
    >>> from bayesnb import pool_synthetic
    >>> r = pool_synthetic([1.0, 1.2, 0.8], [0.04, 0.05, 0.03], n_original=200)
    >>> round(float(r["t"].iloc[0]), 4)  # 0.04 * (200/200 + 1/3)
    0.0533
    """
    Q, U, names = pooled_inputs(estimates, variances, names, conf_level, "pool_synthetic", 1, "synthetic tables")
    m, p = Q.shape
    n = _count(n_original, "n_original")
    k = n if n_synthetic is None else _count(n_synthetic, "n_synthetic")
    if method not in SYNTHESIS:
        raise DataError(f"pool_synthetic: method must be one of {SYNTHESIS}; received {method!r}.")

    qbar, ubar = Q.mean(axis=0), U.mean(axis=0)
    b = Q.var(axis=0, ddof=1) if m > 1 else np.full(p, np.nan)
    factor = k / n
    if population_inference:
        factor += 1 / m if method == "simple" else (1 + k / n) / m
    t = ubar * factor
    se = np.sqrt(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(se > 0, qbar / se, np.where(qbar == 0, 0.0, np.sign(qbar) * np.inf))
    z = stats.norm.ppf(0.5 + conf_level / 2)
    return pd.DataFrame({
        "estimate": qbar, "ubar": ubar, "b": b, "t": t, "std_error": se, "statistic": statistic,
        "p_value": 2 * stats.norm.sf(np.abs(statistic)), "lower": qbar - z * se, "upper": qbar + z * se,
    }, index=pd.Index(names, name="parameter"))
