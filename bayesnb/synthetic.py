"""How faithful is a synthetic table to the real one? :func:`synthetic_report`.

Four views, on any synthetic table (from bayesnb's :meth:`~bayesnb.BaseNB.sample` or not):

- **marginals**, column by column: the total variation distance (TVD) of a categorical
  column's frequencies, the Kolmogorov-Smirnov (KS) statistic of a numeric column's
  observed values, and for numerics the synthetic values outside the real range and the
  non-integers of an integer-valued real column;
- **pairs**: Cramér's V of every pair of columns in the real and in the synthetic table
  (numerics binned at the real data's quantiles), and the absolute difference;
- **propensity**: the pMSE of Snoke et al. (2018), how well a logistic regression tells
  synthetic rows from real ones, and its ratio to the value expected when they cannot be
  told apart;
- **utility** (with a target): TSTR, the accuracy on real test rows of a gradient-boosted
  classifier trained on synthetic rows, next to TRTR, the same trained on real rows.

Snoke, J., Raab, G. M., Nowok, B., Dibben, C. and Slavkovic, A. (2018). General and
specific utility measures for synthetic data. *JRSS A* 181(3), 663-688.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from . import _synthetic_metrics as sm
from ._utils import is_numeric_column
from .plot import _pyplot

__all__ = ["SyntheticReport", "synthetic_report"]


@dataclass(repr=False)
class SyntheticReport:
    """The result of :func:`synthetic_report`.

    Attributes
    ----------
    columns : DataFrame
        One row per column: ``column``, ``kind`` (``"categorical"``/``"numeric"``),
        ``metric`` (``"tvd"``/``"ks"``), ``value``, and for numeric columns
        ``out_of_range`` (synthetic values outside [real min, real max]) and
        ``non_integer`` (non-integer synthetic values where every real value is an
        integer; 0 otherwise); these two are ``<NA>`` for categorical columns.
    pairs : DataFrame
        One row per pair of columns: ``a``, ``b``, ``cramers_v_real``,
        ``cramers_v_synthetic``, ``abs_diff``.
    summary : dict
        ``n_real``, ``n_synthetic``, ``mean_tvd`` and ``mean_ks`` (None without such
        columns), ``mean_abs_cramers_v_diff``, ``max_abs_cramers_v_diff`` (None with one
        column), ``pmse``, ``pmse_null``, ``pmse_ratio`` and, with a target, ``tstr``,
        ``trtr``, ``n_test``.
    target : str or None
    """

    columns: pd.DataFrame
    pairs: pd.DataFrame
    summary: dict
    target: object = None
    _pair_order: list = field(default_factory=list, repr=False)

    def to_frame(self):
        """Everything in one long table: ``section`` (summary/column/pair), ``name``, ``metric``, ``value``.

        Returns
        -------
        DataFrame
        """
        rows = [("summary", "", k, v) for k, v in self.summary.items() if v is not None]
        for r in self.columns.itertuples(index=False):
            rows.append(("column", r.column, r.metric, r.value))
            if r.kind == "numeric":
                rows += [("column", r.column, "out_of_range", r.out_of_range),
                         ("column", r.column, "non_integer", r.non_integer)]
        for r in self.pairs.itertuples(index=False):
            name = f"{r.a} x {r.b}"
            rows += [("pair", name, "cramers_v_real", r.cramers_v_real),
                     ("pair", name, "cramers_v_synthetic", r.cramers_v_synthetic),
                     ("pair", name, "abs_cramers_v_diff", r.abs_diff)]
        out = pd.DataFrame(rows, columns=["section", "name", "metric", "value"])
        out["value"] = out["value"].astype(float)
        return out

    def __str__(self):
        s = self.summary
        lines = [(f"synthetic-data report: {s['n_synthetic']} synthetic vs {s['n_real']} real rows, "
                 f"{len(self.columns)} columns")]
        if s["mean_tvd"] is not None:
            lines.append(f"  marginals, categorical: mean TVD {s['mean_tvd']:.4f}")
        if s["mean_ks"] is not None:
            lines.append(f"  marginals, numeric:     mean KS  {s['mean_ks']:.4f}")
        if s["mean_abs_cramers_v_diff"] is not None:
            lines.append(f"  pairs: mean |Cramér's V synthetic - real| {s['mean_abs_cramers_v_diff']:.4f} "
                         f"(max {s['max_abs_cramers_v_diff']:.4f}) over {len(self.pairs)} pairs")
        ratio = "" if s["pmse_ratio"] is None else f", {s['pmse_ratio']:.2f} x its null expectation {s['pmse_null']:.5f}"
        lines.append(f"  propensity: pMSE {s['pmse']:.5f}{ratio}")
        if "tstr" in s:
            lines.append(f"  utility ({self.target!r}, {s['n_test']} real test rows): TSTR accuracy {s['tstr']:.4f}, "
                         f"TRTR {s['trtr']:.4f}")
        worst = self.columns.sort_values("value", ascending=False).head(3)
        lines.append("  worst marginals: " + ", ".join(f"{r.column} ({r.metric} {r.value:.3f})"
                                                       for r in worst.itertuples()))
        if len(self.pairs):
            top = self.pairs.sort_values("abs_diff", ascending=False).head(3)
            lines.append("  worst pairs: " + ", ".join(f"{r.a} x {r.b} ({r.abs_diff:.3f})" for r in top.itertuples()))
        return "\n".join(lines)

    __repr__ = __str__

    def plot(self, max_columns=40):
        """Figures of the report (needs matplotlib: ``pip install "bayesnb[plot]"``).

        Parameters
        ----------
        max_columns : int, default=40
            Show at most this many columns in the heatmaps (the first ones).

        Returns
        -------
        fig_columns, fig_pairs : matplotlib Figure
            Per-column TVD/KS bars; Cramér's V heatmaps of the real and synthetic tables
            and of their difference.
        """
        plt = _pyplot()
        cols = self.columns
        fig1, ax = plt.subplots(figsize=(max(4.0, 0.35 * len(cols) + 1.5), 3.2))
        colours = ["tab:blue" if k == "categorical" else "tab:orange" for k in cols["kind"]]
        ax.bar(range(len(cols)), cols["value"], color=colours)
        ax.set_xticks(range(len(cols)), [str(c) for c in cols["column"]], rotation=90, fontsize=7)
        ax.set_ylabel("TVD (blue) / KS (orange)")
        ax.set_title("marginals: synthetic vs real")
        names = self._pair_order[:max_columns]
        idx = {n: i for i, n in enumerate(names)}
        mats = [np.eye(len(names)) for _ in range(2)]
        for r in self.pairs.itertuples(index=False):
            if r.a in idx and r.b in idx:
                for m, v in zip(mats, (r.cramers_v_real, r.cramers_v_synthetic)):
                    m[idx[r.a], idx[r.b]] = m[idx[r.b], idx[r.a]] = v
        fig2, axes = plt.subplots(1, 3, figsize=(3 * max(3.5, 0.25 * len(names) + 1.5), max(3.2, 0.25 * len(names))))
        for a, m, title, cmap, lim in zip(axes, (mats[0], mats[1], mats[1] - mats[0]),
                                          ("Cramér's V, real", "Cramér's V, synthetic", "synthetic - real"),
                                          ("viridis", "viridis", "RdBu_r"), ((0, 1), (0, 1), (-1, 1))):
            im = a.imshow(m, cmap=cmap, vmin=lim[0], vmax=lim[1])
            a.set_title(title, fontsize=9)
            a.set_xticks(range(len(names)), [str(n) for n in names], rotation=90, fontsize=6)
            a.set_yticks(range(len(names)), [str(n) for n in names], fontsize=6)
            fig2.colorbar(im, ax=a, fraction=0.046)
        fig1.tight_layout()
        fig2.tight_layout()
        return fig1, fig2


# ------------------------------------------------------------------------------ inputs
def _frames(real, synthetic):
    """``real`` and ``synthetic`` as DataFrames with the same columns in the same order."""
    def frame(x, what, columns=None):
        if isinstance(x, pd.DataFrame):
            return x
        a = np.asarray(x, dtype=object) if not isinstance(x, np.ndarray) else x
        if a.ndim != 2:
            raise ValueError(f"synthetic_report: {what} must be a DataFrame or a 2-d array; received "
                             f"{type(x).__name__} with {a.ndim} dimension(s).")
        names = columns if columns is not None else [f"x{j}" for j in range(a.shape[1])]
        if len(names) != a.shape[1]:
            raise ValueError(f"synthetic_report: {what} has {a.shape[1]} columns; expected {len(names)} "
                             f"(the columns of the other table).")
        return pd.DataFrame(a, columns=names)

    other = lambda x: list(x.columns) if isinstance(x, pd.DataFrame) else None
    r = frame(real, "real", other(synthetic))
    s = frame(synthetic, "synthetic", list(r.columns))
    if r.columns.duplicated().any():
        raise ValueError(f"synthetic_report: real has duplicated column names {list(r.columns[r.columns.duplicated()])}.")
    missing, extra = [c for c in r.columns if c not in s.columns], [c for c in s.columns if c not in r.columns]
    if missing or extra:
        raise ValueError(f"synthetic_report: real and synthetic must have the same columns; synthetic lacks "
                         f"{missing} and has extra {extra}.")
    if len(r) < 2 or len(s) < 2:
        raise ValueError(f"synthetic_report: need at least 2 rows in each table; received {len(r)} real and "
                         f"{len(s)} synthetic rows.")
    return r, s[list(r.columns)]


def _as_float(x, name, what):
    try:
        v = pd.to_numeric(x, errors="raise")
    except (TypeError, ValueError):
        raise ValueError(f"synthetic_report: column {name!r} is numeric in the real table but {what} holds "
                         f"non-numbers (e.g. {x.dropna().iloc[:3].tolist()}).") from None
    return pd.Series(v).astype("Float64").to_numpy(dtype=float, na_value=np.nan)


def _as_categories(x):
    return np.array([sm.MISSING if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v
                     for v in x.astype(object)], dtype=object)


def _prepare(real, *others):
    """Prepared columns ``{name: (kind, real array, other arrays...)}`` (see ``_synthetic_metrics``)."""
    out = {}
    for name in real.columns:
        if is_numeric_column(real[name]):
            out[name] = ("numeric", _as_float(real[name], name, "real"),
                         *[_as_float(o[name], name, what) for o, what in others])
        else:
            out[name] = ("categorical", _as_categories(real[name]), *[_as_categories(o[name]) for o, _ in others])
    return out


def _marginal(name, kind, r, s):
    if kind == "categorical":
        return {"column": name, "kind": kind, "metric": "tvd", "value": sm.tvd(r, s),
                "out_of_range": pd.NA, "non_integer": pd.NA}
    if np.isnan(r).all() or np.isnan(s).all():
        which = "real" if np.isnan(r).all() else "synthetic"
        raise ValueError(f"synthetic_report: numeric column {name!r} has no observed value in the {which} table; "
                         "the KS statistic is undefined.")
    ro, so = r[~np.isnan(r)], s[~np.isnan(s)]
    integer = bool(np.all(ro == np.round(ro)))
    return {"column": name, "kind": kind, "metric": "ks", "value": sm.ks_statistic(r, s),
            "out_of_range": int(np.sum((so < ro.min()) | (so > ro.max()))),
            "non_integer": int(np.sum(so != np.round(so))) if integer else 0}


def _labels(df, target, what):
    y = df[target]
    if y.isna().any():
        raise ValueError(f"synthetic_report: target {target!r} has {int(y.isna().sum())} missing value(s) in "
                         f"the {what} table; pass drop_unlabelled=True to leave those rows out.")
    return y.astype(object).to_numpy()


def _utility(real, synthetic, target, real_test, random_state):
    """``(tstr, trtr, n_test)``; without ``real_test``, 30% of ``real`` held out (stratified)."""
    if real_test is None:
        y = _labels(real, target, "real")
        counts = pd.Series(y).value_counts()
        strat = y if counts.min() >= 2 and len(counts) <= 0.3 * len(y) else None
        train, test = train_test_split(real, test_size=0.3, stratify=strat, random_state=random_state)
    else:
        train, test = real, _frames(real, real_test)[1]
    y_train, y_test, y_syn = (_labels(d, target, w) for d, w in ((train, "real"), (test, "real test"),
                                                                  (synthetic, "synthetic")))
    feats = [c for c in real.columns if c != target]
    if not feats:
        raise ValueError(f"synthetic_report: the target {target!r} is the only column; nothing to train on.")
    prep = _prepare(train[feats], (synthetic[feats], "synthetic"), (test[feats], "the real test table"))
    kinds = [p[0] for p in prep.values()]
    seed = None if random_state is None else int(np.random.default_rng(random_state).integers(2**31))
    tstr = sm.train_accuracy([p[2] for p in prep.values()], y_syn, [p[3] for p in prep.values()], y_test, kinds, seed)
    trtr = sm.train_accuracy([p[1] for p in prep.values()], y_train, [p[3] for p in prep.values()], y_test, kinds,
                             seed)
    return tstr, trtr, len(test)


# ------------------------------------------------------------------------------ report
def synthetic_report(real, synthetic, target=None, *, real_test=None, bins=10, random_state=None,
                     drop_unlabelled=False):
    """Compare a synthetic table with the real one: marginals, pairs, propensity and utility.

    Parameters
    ----------
    real, synthetic : DataFrame or 2-d array
        The same columns (by name for DataFrames, in any order; by position for arrays).
        A column is numeric if its real dtype is a (non-boolean) number, categorical
        otherwise. Missing values are a category of their own in categorical columns
        and left out of the KS statistic of numeric ones (a numeric column's missing
        cells enter the propensity model as an indicator and the pairs as a bin).
    target : column name, optional
        Label column for the utility metrics (TSTR and TRTR).
    real_test : DataFrame or 2-d array, optional
        Real rows, not used to make ``synthetic``, to test the classifiers on. Default
        (with a target): 30% of ``real`` held out (stratified by the target, seeded by
        ``random_state``); TRTR trains on the other 70%. The synthetic rows should then
        come from a model fitted *without* the held-out rows (else TSTR is optimistic);
        pass ``real_test`` to control the split yourself.
    bins : int, default=10
        Numeric columns are cut at the ``bins``-quantiles of their real values (fewer
        bins if values repeat) for Cramér's V.
    random_state : None, int or numpy Generator
        Seeds the hold-out split and the classifiers.
    drop_unlabelled : bool, default=False
        With ``target``: leave out the rows of each table whose label is missing (as
        ``bayesnb evaluate-synthetic --drop-unlabelled``). Otherwise such rows are refused
        with a ``ValueError``.

    Returns
    -------
    SyntheticReport
        ``columns``, ``pairs``, ``summary`` (see :class:`SyntheticReport`);
        ``print(report)`` gives a readable summary, ``report.to_frame()`` one long table,
        ``report.plot()`` figures.

    Notes
    -----
    - TVD of a categorical column: ``0.5 * sum_v |p_real(v) - p_synth(v)|``. KS of a
      numeric column: ``max_x |F_real(x) - F_synth(x)|`` of the empirical CDFs (as
      ``scipy.stats.ks_2samp``'s statistic).
    - Cramér's V is the plain (not bias-corrected) ``sqrt(chi2 / (n (min(r, c) - 1)))``,
      as ``scipy.stats.contingency.association(method="cramer")``, on the categories
      present in each table (0 if a column is constant). Its small-sample upward bias
      is similar for the two tables when they have about the same number of rows.
    - pMSE (Snoke et al. 2018): an unpenalised main-effects logistic regression
      (one-hot categoricals, standardised numerics, missing indicators) predicts whether
      a row of real ∪ synthetic is synthetic; ``pMSE = mean_i (p_i - c)^2``, ``c`` the
      synthetic share. ``pmse_null = (k - 1) (1 - c)^2 c / N`` (``k`` parameters, ``N``
      rows) is its expectation, as Snoke et al. derive it, when the synthetic rows are
      drawn from a correct model *fitted to the real rows* (plug-in parameters):
      ``pmse_ratio`` near 1 (or below) means the propensity model cannot tell them apart.
      Two *independent* samples of one distribution, or rows drawn with fresh parameter
      uncertainty (bayesnb's default ``sample``), have expectation ``(k - 1) c (1 - c) / N``,
      i.e. a ratio of ``1 / (1 - c)`` (2 for tables of equal size); a test checks both by
      simulation.
    - TSTR / TRTR: scikit-learn's ``HistGradientBoostingClassifier`` (categorical
      columns coded and declared ``categorical_features``), trained on the synthetic /
      real rows, accuracy on the real test rows.

    Examples
    --------
    >>> from bayesnb import CategoricalNB, synthetic_report
    >>> from bayesnb.datasets import load_house_votes
    >>> votes = load_house_votes()
    >>> model = CategoricalNB().fit(votes.drop(columns="party"), votes["party"])
    >>> X, y = model.sample(len(votes), random_state=0)
    >>> report = synthetic_report(votes, X.assign(party=y), random_state=0)
    >>> report.summary["mean_tvd"] < 0.1
    True
    """
    r, s = _frames(real, synthetic)
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(2**31))
    if target is not None and target not in r.columns:
        raise ValueError(f"synthetic_report: target {target!r} is not a column (columns: {list(r.columns)[:10]}).")
    if target is not None and drop_unlabelled:
        r, s = r[r[target].notna()], s[s[target].notna()]
        if real_test is not None:
            real_test = _frames(r, real_test)[1]
            real_test = real_test[real_test[target].notna()]
    if not (isinstance(bins, (int, np.integer)) and bins >= 2):
        raise ValueError(f"synthetic_report: bins must be an integer >= 2; received {bins!r}.")
    prep = _prepare(r, (s, "synthetic"))
    columns = pd.DataFrame([_marginal(name, *p) for name, p in prep.items()])
    columns[["out_of_range", "non_integer"]] = columns[["out_of_range", "non_integer"]].astype("Int64")
    coded = {}
    for name, (kind, a, b) in prep.items():
        coded[name] = sm.category_codes(a, b)[0] if kind == "categorical" else sm.bin_codes(a, b, bins)
    pairs = pd.DataFrame([{"a": x, "b": y, "cramers_v_real": sm.cramers_v(coded[x][0], coded[y][0]),
                           "cramers_v_synthetic": sm.cramers_v(coded[x][1], coded[y][1])}
                          for x, y in combinations(list(prep), 2)],
                         columns=["a", "b", "cramers_v_real", "cramers_v_synthetic"])
    pairs["abs_diff"] = (pairs["cramers_v_synthetic"] - pairs["cramers_v_real"]).abs()
    value, k = sm.pmse(list(prep.values()), len(r), len(s))
    null = sm.pmse_null(k, len(r), len(s))

    def mean(x):
        return float(np.mean(x)) if len(x) else None

    summary = {"n_real": len(r), "n_synthetic": len(s),
               "mean_tvd": mean(columns.loc[columns.kind == "categorical", "value"]),
               "mean_ks": mean(columns.loc[columns.kind == "numeric", "value"]),
               "mean_abs_cramers_v_diff": mean(pairs["abs_diff"]),
               "max_abs_cramers_v_diff": float(pairs["abs_diff"].max()) if len(pairs) else None,
               "pmse": value, "pmse_null": null, "pmse_ratio": value / null if null > 0 else None}
    if target is not None:
        summary["tstr"], summary["trtr"], summary["n_test"] = _utility(r, s, target, real_test, random_state)
    return SyntheticReport(columns=columns, pairs=pairs, summary=summary, target=target, _pair_order=list(prep))
