"""Posterior predictive checks of a fitted model: :func:`check_independence`, :func:`check_marginals`.

Each check compares a statistic of the data with its distribution over ``n_replicates`` datasets
replicated from the posterior predictive (Gelman, Meng and Stern 1996, *Statistica Sinica* 6):
one exact posterior draw and the data's labels per replicate, the data's missing cells blanked
in every replicate. The statistics (pairs within each class, marginals, deterministic
relations), the binning rule and the p-values are in docs/criticism.md and in the functions'
docstrings. p-values: one-sided for pairs, ``(1 + #{rep >= obs}) / (1 + R)``; two-sided for
marginals, ``min(1, 2 min(p_hi, p_lo))``. Effect: ``(obs - mean(rep)) / sd(rep)`` (0 when every
replicate equals the data, +-inf when they are constant and the data differs). Posterior
predictive p-values use the data twice, so they are conservative:
``P(p <= a) <= a`` roughly. MCAR verdicts come from :mod:`bayesnb.criticism.mcar`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.stats import rankdata
from sklearn.utils.validation import check_is_fitted

from .mcar import mcar_table, quartile_bins
from .._progress import progress
from ..impute.relations import deterministic_relations
from .._utils import as_generator, is_frame, missing_mask
from ..generative import GenerativeMixin
from ..generative.functions import sample_rows
from ..generative.tables import label_codes

__all__ = ["check_independence", "check_marginals", "check_mcar", "deterministic_relations",
           "mutual_information"]

PAIR_COLUMNS = ["class", "feature_a", "feature_b", "kind", "statistic", "replicated_mean", "replicated_sd",
                "p_value", "effect", "n"]
MARGINAL_COLUMNS = ["class", "feature", "check", "observed", "replicated_mean", "replicated_sd", "p_value",
                    "effect", "n"]


# ------------------------------------------------------------------------ statistics
def mutual_information(a, b):
    """Plug-in mutual information (nats) of integer-coded columns, one value per row of ``a``.

    Parameters
    ----------
    a, b : ndarray of int of shape (R, m)
        Codes ``>= 0`` (a negative code is a missing cell), one dataset per row.

    Returns
    -------
    ndarray of shape (R,)
        ``sum_uv p(u, v) log(p(u, v) / (p(u) p(v)))`` over each dataset's cells where both codes
        are ``>= 0`` (0 for a dataset with none).
    """
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    valid = (a >= 0) & (b >= 0)
    R = a.shape[0]
    ca, cb = int(a.max(initial=0)) + 1, int(b.max(initial=0)) + 1
    idx = (np.arange(R)[:, None] * (ca * cb) + a * cb + b)[valid]
    joint = np.bincount(idx, minlength=R * ca * cb).reshape(R, ca, cb).astype(float)
    n = joint.sum(axis=(1, 2), keepdims=True)
    p = joint / np.where(n > 0, n, 1.0)
    pa, pb = p.sum(2, keepdims=True), p.sum(1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(p) - np.log(pa * pb)), 0.0)
    return np.maximum(terms.sum(axis=(1, 2)), 0.0)


def _abs_spearman(x, y):
    """``|Spearman rho|`` of each row of ``x`` and ``y`` (shape (R, m)); 0 for a constant row."""
    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx = rx - rx.mean(1, keepdims=True)
    ry = ry - ry.mean(1, keepdims=True)
    den = np.sqrt((rx * rx).sum(1) * (ry * ry).sum(1))
    num = np.abs((rx * ry).sum(1))
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _tail_p(obs, rep, side):
    """Posterior predictive p-values of ``obs`` (S,) against ``rep`` (S, R)."""
    R = rep.shape[1]
    tol = 1e-12 * np.maximum(1.0, np.abs(obs))[:, None]
    hi = (1 + np.sum(rep >= obs[:, None] - tol, axis=1)) / (1 + R)
    if side == "greater":
        return hi
    lo = (1 + np.sum(rep <= obs[:, None] + tol, axis=1)) / (1 + R)
    return np.minimum(1.0, 2 * np.minimum(hi, lo))


def _effect(obs, rep):
    mean = rep.mean(1)
    sd = rep.std(1, ddof=1) if rep.shape[1] > 1 else np.zeros_like(mean)
    diff = obs - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        eff = np.where(sd > 0, diff / np.where(sd > 0, sd, 1.0), np.sign(diff) * np.inf)
    eff = np.where((sd == 0) & (np.abs(diff) <= 1e-12 * np.maximum(1.0, np.abs(obs))), 0.0, eff)
    return mean, sd, eff


# ------------------------------------------------------------------------ replicates
def _check_inputs(estimator, X, y, n_replicates, caller):
    """Validated ``(X, class codes, R)``; errors name what was expected."""
    if not isinstance(estimator, GenerativeMixin):  # the mixin of every bayesnb estimator
        raise TypeError(f"{caller}: the first argument must be a fitted bayesnb estimator (CategoricalNB, "
                        f"NaiveBayes, ...); received {type(estimator).__name__}.")
    check_is_fitted(estimator, "posterior_")
    who = estimator._who
    if sp.issparse(X):
        raise TypeError(f"{who}: the posterior predictive checks need dense X; received a sparse matrix "
                        "(convert it with X.toarray()).")
    R = n_replicates
    if isinstance(R, bool) or not isinstance(R, (int, np.integer)) or R < 1:
        raise ValueError(f"{who}: n_replicates must be an int >= 1; received {n_replicates!r}.")
    X = estimator._check_X(X, reset=False)
    n = X.shape[0]
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != n:
        raise ValueError(f"{who}: y must have one label per row of X ({n}); received shape {y_arr.shape}.")
    codes = label_codes(estimator.classes_, y_arr, n, who)
    if np.any(codes < 0):
        raise ValueError(f"{who}: y must not contain missing labels for a posterior predictive check.")
    return X, codes, int(R)


def _column(X, j):
    if isinstance(X, list):  # raw generated columns
        return np.asarray(X[j])
    return X.iloc[:, j].to_numpy() if is_frame(X) else np.asarray(X)[:, j]


def _discrete_columns(estimator, d):
    """Per feature, whether its family has a finite value set (``value_columns`` not None)."""
    out = np.zeros(d, dtype=bool)
    for b in estimator.posterior_.blocks:
        out[np.asarray(b.columns)] = b.family.value_columns(b.state) is not None
    return out


def _as_float(values, name, who):
    try:
        return pd.to_numeric(pd.Series(values, dtype=object), errors="raise").to_numpy(dtype=float,
                                                                                      na_value=np.nan)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: feature {name!r} is numeric in the model; received non-numeric values.") from None


def replicate_columns(estimator, X, y_codes, R, rng, verbose=None):
    """The data and ``R`` posterior predictive replicates, column by column.

    Returns
    -------
    columns : list of ndarray of shape (R + 1, n)
        Row 0 is the data. Discrete columns hold integer codes (-1 missing), numeric ones
        floats (NaN missing); the data's missing cells are missing in every replicate.
    discrete : ndarray of bool of shape (n_features,)
    names : list of str
    """
    who, d, n = estimator._who, int(estimator.n_features_in_), X.shape[0]
    names = [str(c) for c in getattr(estimator, "feature_names_in_", range(d))]
    discrete = _discrete_columns(estimator, d)
    replicates = progress(range(R), desc="posterior predictive replicates", verbose=verbose)
    if getattr(estimator, "_structure_fitted", lambda: None)() is None:
        # what estimator.sample(n, y=labels, parameter_uncertainty=True) draws, before the columns
        # are assembled into the training dtypes (which the statistics do not need)
        reps = [sample_rows(estimator.posterior_, n, d, rng=rng, z=y_codes, parameter_uncertainty=True, who=who,
                            stacklevel=4)[0] for _ in replicates]
    else:  # under a structure (TAN, k-DB), its own replicates: each feature drawn after its parents
        labels = estimator.classes_[y_codes]
        reps = [estimator.sample(n, y=labels, random_state=rng, parameter_uncertainty=True)[0] for _ in replicates]
    columns = []
    for j in range(d):
        data = _column(X, j)
        miss = missing_mask(np.asarray(data, dtype=object))
        stack = [data] + [_column(r, j) for r in reps]
        if discrete[j]:
            flat = np.concatenate([np.asarray(s, dtype=object) for s in stack])
            codes, _ = pd.factorize(pd.Series(flat, dtype=object), use_na_sentinel=True)
            col = codes.reshape(R + 1, n).astype(np.int64)
            col[:, miss] = -1
        else:
            col = np.vstack([_as_float(s, names[j], who) for s in stack])
            col[:, miss] = np.nan
        columns.append(col)
    return columns, discrete, names


# -------------------------------------------------------------------------- checks
def _pair_statistic(a, b, da, db):
    """Statistic of one pair on (R + 1, m) columns; returns (values (R + 1,), kind, n jointly observed)."""
    va = (a >= 0) if da else np.isfinite(a)
    vb = (b >= 0) if db else np.isfinite(b)
    both = va[0] & vb[0]
    m = int(both.sum())
    if da and db:
        return mutual_information(a[:, both], b[:, both]), "mutual_information", m
    if not da and not db:
        if m < 3:
            return np.zeros(a.shape[0]), "abs_spearman", m
        return _abs_spearman(a[:, both], b[:, both]), "abs_spearman", m
    codes, num = (a, b) if da else (b, a)
    if m == 0:
        return np.zeros(a.shape[0]), "mutual_information_binned", m
    x = num[:, both]
    return mutual_information(codes[:, both], quartile_bins(x, x[0])), "mutual_information_binned", m


def check_independence(estimator, X, y, *, n_replicates=200, random_state=None, verbose=None):
    """Posterior predictive check of conditional independence, for every feature pair within each class.

    See docs/criticism.md for the statistics and the binning rule, the module docs for the p-values.

    Parameters
    ----------
    estimator : fitted bayesnb estimator
    X : array-like or DataFrame of shape (n_samples, n_features)
        The data to check (usually the training data); missing cells allowed.
    y : array-like of shape (n_samples,)
        Its labels, all known to the estimator.
    n_replicates : int, default=200
        Number of replicated datasets ``R``; the smallest p-value is ``1 / (R + 1)``.
    random_state : None, int or Generator
    verbose : bool or None, default=None
        A progress bar over the replicates (None: :func:`bayesnb.set_progress`, by default shown
        after 2 s on a terminal or in Jupyter).

    Returns
    -------
    DataFrame
        One row per (class, pair): ``class``, ``feature_a``, ``feature_b``, ``kind``
        (``mutual_information``, ``abs_spearman`` or ``mutual_information_binned``),
        ``statistic`` (on the data), ``replicated_mean``, ``replicated_sd``, ``p_value``,
        ``effect`` and ``n`` (rows of the class where both cells are observed); sorted by
        ``p_value``, then by decreasing ``effect``. Its ``attrs["mcar"]`` holds, for every
        column with a missing cell, ``{"mcar": bool, "p_value": float, "partner": str}``: does
        the column's missingness look MCAR at level 0.05, the p-value of :func:`check_mcar`
        and the partner most dependent with it (empty dict: no cell is missing). Its
        ``attrs["deterministic_relations"]`` holds the deterministic relations among the numeric
        columns of ``X``, which no replicate keeps: a column that is 0 wherever another is, or
        equal to the sum or the product of two others on at least 99% of the rows -- the rows of
        :func:`bayesnb.criticism.checks.deterministic_relations` as a list of plain dicts (``kind``,
        ``target``, ``sources`` (a tuple), ``share``, ``n``; empty list: none).
    """
    X, codes, R = _check_inputs(estimator, X, y, n_replicates, "check_independence")
    columns, discrete, names = replicate_columns(estimator, X, codes, R, as_generator(random_state), verbose)
    mcar = mcar_table([c[0] for c in columns], discrete, names, codes)
    rows, stats = [], []
    for k, label in enumerate(estimator.classes_):
        in_k = codes == k
        sub = [c[:, in_k] for c in columns]
        for i, j in combinations(range(len(names)), 2):
            values, kind, m = _pair_statistic(sub[i], sub[j], discrete[i], discrete[j])
            rows.append((label, names[i], names[j], kind, m))
            stats.append(values)
    out = _table(rows, stats, PAIR_COLUMNS, "greater", ["class", "feature_a", "feature_b", "kind", "n"])
    out.attrs["mcar"] = {r.feature: {"mcar": bool(r.mcar), "p_value": float(r.p_value), "partner": r.partner}
                         for r in mcar.itertuples()}  # plain values: pandas compares attrs when it combines frames
    out.attrs["deterministic_relations"] = [
        {"kind": r.kind, "target": r.target, "sources": tuple(r.sources), "share": float(r.share), "n": int(r.n)}
        for r in deterministic_relations(X).itertuples()]
    return out


def check_mcar(estimator, X, y, *, alpha=0.05):
    """Does each column's missingness look missing completely at random? One test per column, no replicate.

    For each column with a missing cell, its missing indicator is tested for independence of
    the class and of every other column (on the rows where that column is observed) by a
    likelihood-ratio (G) test; the column's p-value is the smallest one times the number of
    partners tested (Bonferroni). See :mod:`bayesnb.criticism.mcar` for the binning and the caveats.

    Parameters
    ----------
    estimator : fitted bayesnb estimator
        Tells which columns are discrete (numeric ones are binned at their quartiles).
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        The labels, all known to the estimator.
    alpha : float, default=0.05
        Level of the verdict (``mcar`` is ``p_value >= alpha``).

    Returns
    -------
    DataFrame
        One row per column with a missing cell: ``feature``, ``n_missing``, ``missing_rate``,
        ``partner`` (most dependent: ``"class"`` or a column), ``g_statistic``, ``dof``,
        ``n_partners``, ``p_value`` (adjusted) and ``mcar``; sorted by ``p_value``.
    """
    if not (isinstance(alpha, float | int) and not isinstance(alpha, bool) and 0 < alpha < 1):
        raise ValueError(f"check_mcar: alpha must be a level in (0, 1); received {alpha!r}.")
    X, codes, _ = _check_inputs(estimator, X, y, 1, "check_mcar")
    columns, discrete, names = replicate_columns(estimator, X, codes, 0, as_generator(0))
    return mcar_table([c[0] for c in columns], discrete, names, codes, alpha=alpha)


def _marginal_stats(x):
    """Skewness, zero fraction, min, max, number of distinct values of each row of ``x`` (R + 1, m)."""
    mean = x.mean(1, keepdims=True)
    c = x - mean
    m2, m3 = (c ** 2).mean(1), (c ** 3).mean(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.where(m2 > 1e-300, m3 / np.where(m2 > 1e-300, m2, 1.0) ** 1.5, 0.0)
    s = np.sort(x, axis=1)
    distinct = 1 + np.sum(np.diff(s, axis=1) != 0, axis=1)
    return {"skewness": skew, "zero_fraction": (x == 0).mean(1), "min": s[:, 0], "max": s[:, -1],
            "n_distinct": distinct.astype(float)}


def check_marginals(estimator, X, y, *, n_replicates=200, random_state=None, verbose=None):
    """Posterior predictive check of each numeric column's family, within each class.

    Does the family fit the column? Compares the skewness, zero fraction, minimum,
    maximum and number of distinct values of the observed cells of every numeric
    column (families with no finite value set) in each class with the replicates';
    two-sided p-values (module docs). A Gaussian on a zero-inflated, non-negative
    column, for instance, has too few zeros and too low a minimum in its replicates.

    Parameters
    ----------
    estimator, X, y, n_replicates, random_state, verbose
        As in :func:`check_independence`.

    Returns
    -------
    DataFrame
        One row per (class, numeric feature, check): ``class``, ``feature``, ``check``,
        ``observed``, ``replicated_mean``, ``replicated_sd``, ``p_value``, ``effect``,
        ``n`` (observed cells); sorted by ``p_value``, then by decreasing ``|effect|``.
        Empty (with these columns) when the model has no numeric column.
    """
    X, codes, R = _check_inputs(estimator, X, y, n_replicates, "check_marginals")
    columns, discrete, names = replicate_columns(estimator, X, codes, R, as_generator(random_state), verbose)
    rows, stats = [], []
    for k, label in enumerate(estimator.classes_):
        in_k = codes == k
        for j in np.flatnonzero(~discrete):
            x = columns[j][:, in_k]
            obs = np.isfinite(x[0])
            if not obs.any():
                continue  # nothing observed in this class: nothing to compare (n would be 0)
            for check, values in _marginal_stats(x[:, obs]).items():
                rows.append((label, names[j], check, int(obs.sum())))
                stats.append(values)
    return _table(rows, stats, MARGINAL_COLUMNS, "two-sided", ["class", "feature", "check", "n"],
                  observed="observed")


def _table(rows, stats, order, side, keys, observed="statistic"):
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=float if c not in keys else object) for c in order})
    S = np.vstack(stats)
    obs, rep = S[:, 0], S[:, 1:]
    p = _tail_p(obs, rep, side)
    mean, sd, eff = _effect(obs, rep)
    df = pd.DataFrame(rows, columns=keys)
    df[observed], df["replicated_mean"], df["replicated_sd"], df["p_value"], df["effect"] = obs, mean, sd, p, eff
    df["_sev"] = -np.abs(eff) if side != "greater" else -eff
    df = df.sort_values(["p_value", "_sev"], kind="stable").drop(columns="_sev")
    return df[order].reset_index(drop=True)
