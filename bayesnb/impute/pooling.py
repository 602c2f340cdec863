"""Rubin's rules: pool an analysis repeated on each of ``m`` multiply imputed tables.

``model.impute(X, n_imputations=m, strategy="draw")`` gives ``m`` completed tables; fit the
analysis model on each, then :func:`pool` its estimates and their squared standard errors, as
R's ``mice::pool`` does (Rubin 1987; small-sample degrees of freedom of Barnard & Rubin 1999)::

    Qbar = mean_l Q_l                     pooled estimate
    Ubar = mean_l U_l                     within-imputation variance
    B    = var_l Q_l  (ddof 1)            between-imputation variance
    T    = Ubar + (1 + 1/m) B             total variance
    riv  = (1 + 1/m) B / Ubar             relative increase in variance due to nonresponse
    lambda = (1 + 1/m) B / T              proportion of the variance due to nonresponse
    df_old = (m - 1) / lambda^2           (infinite when B = 0)
    df_obs = (dfcom + 1) / (dfcom + 3) * dfcom * (1 - lambda)     (only with ``dfcom``)
    df   = df_old * df_obs / (df_old + df_obs)                    (df_old without ``dfcom``)
    fmi  = (riv + 2 / (df + 3)) / (riv + 1)   fraction of missing information

Confidence intervals use Student's t with ``df`` degrees of freedom.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .._utils import DataError

__all__ = ["as_matrix", "pool", "pooled_inputs"]


def as_matrix(values, name, who="pool"):
    """``values`` as a finite float matrix of shape (m, p), one row per table (a DataError otherwise)."""
    a = np.asarray(values, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise DataError(f"{who}: {name} must have shape (m,) or (m, p): one row per table; "
                        f"received shape {np.shape(values)}.")
    if not np.all(np.isfinite(a)):
        raise DataError(f"{who}: {name} must be finite; received NaN or infinite values.")
    return a


def pooled_inputs(estimates, variances, names, conf_level, who, fewest, tables):
    """``(Q, U, names)`` of a pooling call, checked: the same shape, at least ``fewest`` rows (``tables``
    names them in the message), variances >= 0, a level in (0, 1), one name per parameter (a DataFrame
    or Series ``estimates`` gives its own). A DataError names what is wrong."""
    if names is None and isinstance(estimates, (pd.DataFrame, pd.Series)):
        names = list(estimates.columns) if isinstance(estimates, pd.DataFrame) else [estimates.name]
    Q = as_matrix(estimates, "estimates", who)
    U = as_matrix(variances, "variances", who)
    if Q.shape != U.shape:
        raise DataError(f"{who}: estimates and variances must have the same shape; received {Q.shape} "
                        f"and {U.shape}.")
    m, p = Q.shape
    if m < fewest:
        raise DataError(f"{who}: needs the results of at least {fewest} {tables}; received {m}.")
    if np.any(U < 0):
        raise DataError(f"{who}: variances must be >= 0 (squared standard errors); received {U.min():g}.")
    if not 0 < conf_level < 1:
        raise DataError(f"{who}: conf_level must be in (0, 1); received {conf_level!r}.")
    names = [f"x{j}" for j in range(p)] if names is None else list(names)
    if len(names) != p:
        raise DataError(f"{who}: {len(names)} names for {p} parameters.")
    return Q, U, names


def pool(estimates, variances, *, dfcom=None, conf_level=0.95, names=None) -> pd.DataFrame:
    """Pool estimates from ``m`` imputed tables with Rubin's rules.

    Parameters
    ----------
    estimates : array-like of shape (m,) or (m, p)
        The estimate of each of ``p`` parameters on each of ``m >= 2`` completed tables.
    variances : array-like of the same shape
        Their squared standard errors (within-imputation variances), each >= 0.
    dfcom : float, optional
        Degrees of freedom of the analysis on complete data (e.g. ``n - p`` for a linear
        regression). Given, the small-sample adjustment of Barnard & Rubin (1999) applies;
        otherwise the large-sample ``df_old``.
    conf_level : float, default=0.95
        Level of the confidence interval.
    names : list of str, optional
        Parameter names (the index of the result); a DataFrame or Series ``estimates``
        gives its own.

    Returns
    -------
    pandas.DataFrame
        One row per parameter: ``estimate`` (Qbar), ``ubar``, ``b``, ``t``, ``std_error``
        (sqrt t), ``df``, ``riv``, ``lambda``, ``fmi``, ``statistic`` (estimate / std_error),
        ``p_value`` (two-sided, t with ``df``) and the interval ``lower``, ``upper``.

    Raises
    ------
    DataError
        Fewer than two tables, shapes that differ, negative or non-finite values, a
        ``dfcom`` that is not positive, or a ``conf_level`` outside (0, 1).

    Examples
    --------
    >>> from bayesnb import pool
    >>> r = pool([1.0, 1.2, 0.8], [0.04, 0.05, 0.03])
    >>> round(float(r["estimate"].iloc[0]), 3), round(float(r["t"].iloc[0]), 4)
    (1.0, 0.0933)
    """
    Q, U, names = pooled_inputs(estimates, variances, names, conf_level, "pool", 2, "imputed tables")
    m = Q.shape[0]
    if dfcom is not None and not (np.isscalar(dfcom) and dfcom > 0):
        raise DataError(f"pool: dfcom must be a number > 0 (complete-data degrees of freedom); "
                        f"received {dfcom!r}.")

    qbar = Q.mean(axis=0)
    ubar = U.mean(axis=0)
    b = Q.var(axis=0, ddof=1)
    t = ubar + (1 + 1 / m) * b
    with np.errstate(divide="ignore", invalid="ignore"):
        riv = np.where(b > 0, (1 + 1 / m) * b / ubar, 0.0)
        lam = np.where(t > 0, (1 + 1 / m) * b / t, 0.0)
        df_old = np.where(lam > 0, (m - 1) / lam**2, np.inf)
        if dfcom is None:
            df = df_old
        else:
            df_obs = (dfcom + 1) / (dfcom + 3) * dfcom * (1 - lam)
            df = np.where(np.isinf(df_old), df_obs, df_old * df_obs / (df_old + df_obs))
        fmi = np.where(np.isinf(df), lam, (riv + 2 / (df + 3)) / (riv + 1))
        se = np.sqrt(t)
        statistic = qbar / se
    quant = stats.t.ppf(0.5 + conf_level / 2, df)
    return pd.DataFrame({
        "estimate": qbar, "ubar": ubar, "b": b, "t": t, "std_error": se, "df": df, "riv": riv,
        "lambda": lam, "fmi": fmi, "statistic": statistic, "p_value": 2 * stats.t.sf(np.abs(statistic), df),
        "lower": qbar - quant * se, "upper": qbar + quant * se,
    }, index=pd.Index(names, name="parameter"))
