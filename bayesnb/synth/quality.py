"""How faithful is a synthetic table to the real one? :func:`synthetic_report`.

Five views, on any synthetic table (from bayesnb's :meth:`~bayesnb.estimators.BaseNB.sample` or not):

- **marginals**, column by column: the total variation distance (TVD) of a categorical
  column's frequencies, the Kolmogorov-Smirnov (KS) statistic of a numeric column's
  observed values, and for numerics the synthetic values outside the real range and the
  non-integers of an integer-valued real column;
- **pairs**: Cramér's V of every pair of columns in the real and in the synthetic table
  (numerics binned at the real data's quantiles), and the absolute difference;
- **propensity**: the pMSE of Snoke et al. (2018), how well a logistic regression tells
  synthetic rows from real ones, and its ratio to the value expected when they cannot be
  told apart;
- **utility** (with a target): TSTR, the accuracy (and ROC AUC) on real test rows of a
  gradient-boosted classifier trained on synthetic rows, next to TRTR, the same trained on
  real rows;
- **the literature's scores**: SDMetrics' column shapes and column-pair trends, missing-rate
  errors, support checks (unseen categories and category pairs), alpha-precision and
  beta-recall (Alaa et al. 2022), C2ST detection scores and the DCR share against a real
  holdout (:mod:`bayesnb.synth.fidelity`, :mod:`bayesnb.synth.distance`).

Snoke, J., Raab, G. M., Nowok, B., Dibben, C. and Slavkovic, A. (2018). General and
specific utility measures for synthetic data. *JRSS A* 181(3), 663-688.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from . import fidelity as fid
from . import metrics as sm
from .distance import SLOW_METRICS, distance_metrics
from .._utils import DataError, is_numeric_column
from ..plot import pyplot

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
        integer; 0 otherwise); these two are ``<NA>`` for categorical columns. Then
        ``shape_metric`` (``"KSComplement"``/``"TVComplement"``) and ``shape`` (its value,
        ``1 - value``), ``missing_real``, ``missing_synthetic`` (shares of missing cells)
        and ``missing_rate_error`` (their absolute difference), and for categorical columns
        ``unseen_categories`` (synthetic cells holding a value the real column never has;
        ``<NA>`` for numeric columns).
    pairs : DataFrame
        One row per pair of columns: ``a``, ``b``, ``cramers_v_real``,
        ``cramers_v_synthetic``, ``abs_diff``, ``trend_metric``
        (``"CorrelationSimilarity"`` for two numeric columns, ``"ContingencySimilarity"``
        otherwise), ``trend`` (its value; NaN when a correlation is undefined) and, for two
        categorical columns, ``unseen_pair_share`` (share of synthetic rows whose pair of
        values never occurs in the real table; ``<NA>`` otherwise).
    summary : dict
        ``n_real``, ``n_synthetic``, ``mean_tvd`` and ``mean_ks`` (None without such
        columns), ``mean_abs_cramers_v_diff``, ``max_abs_cramers_v_diff`` (None with one
        column), ``pmse``, ``pmse_null``, ``pmse_ratio``; ``column_shapes``,
        ``column_pair_trends`` (None without a defined pair) and ``quality_score`` (their
        mean, SDMetrics' overall score), ``max_missing_rate_error``, ``out_of_range``,
        ``non_integer`` and ``unseen_categories`` (totals over the columns),
        ``unseen_category_pairs`` (share of synthetic rows holding any pair of categories
        absent from the real table; None with fewer than two categorical columns);
        ``alpha_precision``, ``beta_recall``, ``alpha_precision_integrated``,
        ``beta_recall_integrated``, ``detection_logistic``, ``detection_gbm``,
        ``dcr_share`` (None when not computed, see ``metrics``), ``n_subsample`` (rows of
        each table they use at most); with a target, ``tstr``, ``trtr`` (accuracies),
        ``efficacy_auc``, ``efficacy_auc_real`` (ROC AUC, TSTR and TRTR) and ``n_test``.
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
            else:
                rows.append(("column", r.column, "unseen_categories", r.unseen_categories))
            rows += [("column", r.column, r.shape_metric, r.shape),
                     ("column", r.column, "missing_rate_error", r.missing_rate_error)]
        for r in self.pairs.itertuples(index=False):
            name = f"{r.a} x {r.b}"
            rows += [("pair", name, "cramers_v_real", r.cramers_v_real),
                     ("pair", name, "cramers_v_synthetic", r.cramers_v_synthetic),
                     ("pair", name, "abs_cramers_v_diff", r.abs_diff)]
            if np.isfinite(r.trend):
                rows.append(("pair", name, r.trend_metric, r.trend))
            if r.unseen_pair_share is not pd.NA:
                rows.append(("pair", name, "unseen_pair_share", r.unseen_pair_share))
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
            if s["efficacy_auc"] is not None:
                lines.append(f"  efficacy: ROC AUC TSTR {s['efficacy_auc']:.4f}, TRTR {s['efficacy_auc_real']:.4f}")
        lines += _literature_lines(s)
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
        plt = pyplot()
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
            raise DataError(f"synthetic_report: {what} must be a DataFrame or a 2-d array; received "
                            f"{type(x).__name__} with {a.ndim} dimension(s).")
        names = columns if columns is not None else [f"x{j}" for j in range(a.shape[1])]
        if len(names) != a.shape[1]:
            raise DataError(f"synthetic_report: {what} has {a.shape[1]} columns; expected {len(names)} "
                            f"(the columns of the other table).")
        return pd.DataFrame(a, columns=names)

    other = lambda x: list(x.columns) if isinstance(x, pd.DataFrame) else None
    r = frame(real, "real", other(synthetic))
    s = frame(synthetic, "synthetic", list(r.columns))
    if r.columns.duplicated().any():
        raise DataError(f"synthetic_report: real has duplicated column names {list(r.columns[r.columns.duplicated()])}.")
    missing, extra = [c for c in r.columns if c not in s.columns], [c for c in s.columns if c not in r.columns]
    if missing or extra:
        raise DataError(f"synthetic_report: real and synthetic must have the same columns; synthetic lacks "
                        f"{missing} and has extra {extra}.")
    if len(r) < 2 or len(s) < 2:
        raise DataError(f"synthetic_report: need at least 2 rows in each table; received {len(r)} real and "
                        f"{len(s)} synthetic rows.")
    return r, s[list(r.columns)]


def _as_float(x, name, what):
    try:
        v = pd.to_numeric(x, errors="raise")
    except (TypeError, ValueError):
        raise DataError(f"synthetic_report: column {name!r} is numeric in the real table but {what} holds "
                        f"non-numbers (e.g. {x.dropna().iloc[:3].tolist()}).") from None
    out = pd.Series(v).astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    if np.isinf(out).any():
        raise DataError(f"synthetic_report: column {name!r} of the {what} table holds {int(np.isinf(out).sum())} "
                        "infinite value(s); expected finite numbers (missing cells may be NaN).")
    return out


def _as_categories(x):
    return np.array([sm.MISSING if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) else v
                     for v in x.astype(object)], dtype=object)


def _prepare(real, *others):
    """Prepared columns ``{name: (kind, real array, other arrays...)}`` (see :mod:`bayesnb.synth.metrics`)."""
    out = {}
    for name in real.columns:
        if is_numeric_column(real[name]):
            out[name] = ("numeric", _as_float(real[name], name, "real"),
                         *[_as_float(o[name], name, what) for o, what in others])
        else:
            out[name] = ("categorical", _as_categories(real[name]), *[_as_categories(o[name]) for o, _ in others])
    return out


def _literature_lines(s):
    """The report's lines on the literature's scores (see :class:`SyntheticReport`)."""
    def f(v, fmt=".4f"):
        return "–" if v is None else format(v, fmt)

    pairs = "" if s["unseen_category_pairs"] is None else (
        f"; {f(s['unseen_category_pairs'], '.2%')} of rows hold a category pair absent from the real data")
    lines = [f"  SDMetrics quality: column shapes {f(s['column_shapes'])}, column pair trends "
             f"{f(s['column_pair_trends'])} (score {f(s['quality_score'])})",
             f"  missing cells: max |rate real - rate synthetic| {s['max_missing_rate_error']:.4f}",
             f"  support: {s['out_of_range']} values out of range, {s['non_integer']} non-integers, "
             f"{s['unseen_categories']} unseen categories{pairs}"]
    if s["alpha_precision"] is not None:
        lines.append(f"  alpha-precision {s['alpha_precision']:.4f}, beta-recall {s['beta_recall']:.4f} "
                     f"(k-NN, alpha = beta = 0.95); integrated over alpha, as TabSyn reports them: "
                     f"{s['alpha_precision_integrated']:.4f}, {s['beta_recall_integrated']:.4f}")
    if s["detection_logistic"] is not None:
        lines.append(f"  detection (C2ST, 1 = indistinguishable): logistic {s['detection_logistic']:.4f}, "
                     f"gradient boosting {s['detection_gbm']:.4f}")
    if s["dcr_share"] is not None:
        lines.append(f"  DCR share {s['dcr_share']:.4f} (synthetic rows closer to the training rows than to the "
                     "holdout; 0.5 ideal)")
    return lines


def _marginal(name, kind, r, s):
    """One row of the columns table (:class:`SyntheticReport`) of the real and synthetic column ``r``, ``s``."""
    rates = fid.missing_rate(r), fid.missing_rate(s)
    out = {"column": name, "kind": kind}
    if kind == "categorical":
        out.update(metric="tvd", value=sm.tvd(r, s), out_of_range=pd.NA, non_integer=pd.NA,
                   shape_metric="TVComplement", shape=fid.tv_complement(r, s))
    else:
        if np.isnan(r).all() or np.isnan(s).all():
            which = "real" if np.isnan(r).all() else "synthetic"
            raise DataError(f"synthetic_report: numeric column {name!r} has no observed value in the {which} "
                            "table; the KS statistic is undefined.")
        ro, so = r[~np.isnan(r)], s[~np.isnan(s)]
        integer = bool(np.all(ro == np.round(ro)))
        out.update(metric="ks", value=sm.ks_statistic(r, s),
                   out_of_range=int(np.sum((so < ro.min()) | (so > ro.max()))),
                   non_integer=int(np.sum(so != np.round(so))) if integer else 0,
                   shape_metric="KSComplement", shape=fid.ks_complement(r, s))
    out.update(missing_real=rates[0], missing_synthetic=rates[1], missing_rate_error=abs(rates[0] - rates[1]),
               unseen_categories=fid.unseen_values(r, s) if kind == "categorical" else pd.NA)
    return out


def _labels(df, target, what):
    y = df[target]
    if y.isna().any():
        raise DataError(f"synthetic_report: target {target!r} has {int(y.isna().sum())} missing value(s) in "
                        f"the {what} table; pass drop_unlabelled=True to leave those rows out.")
    if pd.api.types.is_float_dtype(y) and not np.all(np.mod(y, 1) == 0):
        raise DataError(f"synthetic_report: target {target!r} holds continuous numbers in the {what} table (e.g. "
                        f"{y[np.mod(y, 1) != 0].iloc[:3].tolist()}); the utility scores train a classifier: give a "
                        "column of class labels")
    return y.astype(object).to_numpy()


def _utility(real, synthetic, target, real_test, random_state):
    """``(tstr, trtr, n_test, auc_tstr, auc_trtr)``; without ``real_test``, 30% of ``real`` held out (stratified)."""
    from sklearn.model_selection import train_test_split  # lazy: keeps `import bayesnb` light

    if real_test is None:
        y = _labels(real, target, "real")
        counts = pd.Series(y).value_counts()
        strat = y if counts.min() >= 2 and len(counts) <= 0.3 * len(y) else None
        train, test = train_test_split(real, test_size=0.3, stratify=strat, random_state=random_state)
    else:
        train, test = real, real_test
    y_train, y_test, y_syn = (_labels(d, target, w) for d, w in ((train, "real"), (test, "real test"),
                                                                  (synthetic, "synthetic")))
    feats = [c for c in real.columns if c != target]
    if not feats:
        raise DataError(f"synthetic_report: the target {target!r} is the only column; nothing to train on.")
    prep = _prepare(train[feats], (synthetic[feats], "synthetic"), (test[feats], "the real test table"))
    kinds = [p[0] for p in prep.values()]
    seed = None if random_state is None else int(np.random.default_rng(random_state).integers(2**31))
    test_columns = [p[3] for p in prep.values()]
    tstr = sm.train_scores([p[2] for p in prep.values()], y_syn, test_columns, y_test, kinds, seed)
    trtr = sm.train_scores([p[1] for p in prep.values()], y_train, test_columns, y_test, kinds, seed)
    return tstr[0], trtr[0], len(test), tstr[1], trtr[1]


def _pairs(prep, bins, unseen):
    """The pairs table: Cramér's V (quantile bins), SDMetrics' trend, unseen category pairs (``unseen``)."""
    coded, wide = {}, {}
    for name, (kind, a, b, *_) in prep.items():
        coded[name] = sm.category_codes(a, b)[0] if kind == "categorical" else sm.bin_codes(a, b, bins)
        wide[name] = coded[name] if kind == "categorical" else fid.equal_width_codes(a, b)
    rows = []
    for x, y in combinations(list(prep), 2):
        numeric = prep[x][0] == prep[y][0] == "numeric"
        trend = (fid.correlation_similarity(prep[x][1], prep[y][1], prep[x][2], prep[y][2]) if numeric else
                 fid.contingency_similarity(wide[x][0], wide[y][0], wide[x][1], wide[y][1]))
        rows.append({"a": x, "b": y, "cramers_v_real": sm.cramers_v(coded[x][0], coded[y][0]),
                     "cramers_v_synthetic": sm.cramers_v(coded[x][1], coded[y][1]),
                     "trend_metric": "CorrelationSimilarity" if numeric else "ContingencySimilarity", "trend": trend,
                     "unseen_pair_share": float(unseen[(x, y)].mean()) if (x, y) in unseen else pd.NA})
    names = ["a", "b", "cramers_v_real", "cramers_v_synthetic", "trend_metric", "trend", "unseen_pair_share"]
    pairs = pd.DataFrame(rows, columns=names)
    pairs.insert(4, "abs_diff", (pairs["cramers_v_synthetic"] - pairs["cramers_v_real"]).abs())
    pairs["trend"] = pairs["trend"].astype(float)
    pairs["unseen_pair_share"] = pairs["unseen_pair_share"].astype("Float64")
    return pairs


# ------------------------------------------------------------------------------ report
def synthetic_report(real, synthetic, target=None, *, real_test=None, bins=10, metrics="all", max_rows=5000,
                     random_state=None, drop_unlabelled=False):
    """Compare a synthetic table with the real one: marginals, pairs, propensity, utility, the literature's scores.

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
        pass ``real_test`` to control the split yourself. With or without a target,
        ``real_test`` is the holdout of the DCR share (none without it).
    bins : int, default=10
        Numeric columns are cut at the ``bins``-quantiles of their real values (fewer
        bins if values repeat) for Cramér's V.
    metrics : "all" or collection of str, default="all"
        Which of the slower metrics to compute: ``"alpha_beta"`` (alpha-precision,
        beta-recall), ``"detection"`` (the two C2ST detection scores), ``"dcr"`` (needs
        ``real_test``). ``()`` skips all three (their summary entries are then None).
    max_rows : int, default=5000
        The slower metrics use at most this many rows of each table (a seeded subsample).
    random_state : None, int or numpy Generator
        Seeds the hold-out split, the subsamples and the classifiers.
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
      real rows, accuracy and ROC AUC (macro one-vs-rest beyond two classes) on the real
      test rows (machine-learning efficacy).
    - Column shapes and pair trends are SDMetrics' ``QualityReport`` definitions
      (KSComplement, TVComplement, CorrelationSimilarity, ContingencySimilarity, a
      numeric column cut into 10 equal-width bins of its real range in a mixed pair); a
      missing cell is a category of its own, numeric missing cells are dropped (pairwise
      for correlations).
    - alpha-precision / beta-recall: the k-NN estimate (k = 5, alpha = beta = 0.95) of
      Alaa et al. (2022), on standardised numerics and scaled one-hot categoricals
      (:func:`bayesnb.synth.distance.alpha_precision_beta_recall`); and their integrated
      forms as synthcity's ``AlphaPrecision`` ("naive") computes them and TabSyn reports them,
      on min-max scaled numerics and one-hot categoricals, as many rows of each table
      (:func:`bayesnb.synth.distance.integrated_alpha_beta`; real rows reach about 1 and 0.5).
    - Detection: SDMetrics' score ``1 - mean_folds(2 max(AUC, 0.5) - 1)`` of a logistic
      regression and of a HistGradientBoostingClassifier telling real from synthetic
      rows in 3-fold cross-validation; 1 means indistinguishable.
    - DCR share: the share of synthetic rows nearer to a real training row than to a
      ``real_test`` row (as many of each), 0.5 ideal.

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
    chosen = (SLOW_METRICS if isinstance(metrics, str) and metrics == "all" else (metrics,)
              if isinstance(metrics, str) or not np.iterable(metrics) else tuple(metrics))
    if any(not isinstance(m, str) or m not in SLOW_METRICS for m in chosen):
        raise ValueError(f"synthetic_report: metrics must be 'all' or a collection of {list(SLOW_METRICS)}; "
                         f"received {metrics!r}.")
    if not (isinstance(max_rows, (int, np.integer)) and max_rows >= 2):
        raise ValueError(f"synthetic_report: max_rows must be an integer >= 2; received {max_rows!r}.")
    test = None if real_test is None else _frames(r, real_test)[1]
    prep = _prepare(r, (s, "synthetic"), *([] if test is None else [(test, "the real test table")]))
    columns = pd.DataFrame([_marginal(name, *p[:3]) for name, p in prep.items()])
    columns[["out_of_range", "non_integer", "unseen_categories"]] = (
        columns[["out_of_range", "non_integer", "unseen_categories"]].astype("Int64"))
    unseen = fid.unseen_pair_rows({name: p[1:3] for name, p in prep.items() if p[0] == "categorical"})
    pairs = _pairs(prep, bins, unseen)
    value, k = sm.pmse([p[:3] for p in prep.values()], len(r), len(s))
    null = sm.pmse_null(k, len(r), len(s))

    def mean(x):
        x = np.asarray(x, dtype=float)
        return float(np.mean(x[np.isfinite(x)])) if np.isfinite(x).any() else None

    shapes, trends = mean(columns["shape"]), mean(pairs["trend"])
    summary = {"n_real": len(r), "n_synthetic": len(s),
               "mean_tvd": mean(columns.loc[columns.kind == "categorical", "value"]),
               "mean_ks": mean(columns.loc[columns.kind == "numeric", "value"]),
               "mean_abs_cramers_v_diff": mean(pairs["abs_diff"]),
               "max_abs_cramers_v_diff": float(pairs["abs_diff"].max()) if len(pairs) else None,
               "pmse": value, "pmse_null": null, "pmse_ratio": value / null if null > 0 else None,
               "column_shapes": shapes, "column_pair_trends": trends,
               "quality_score": None if trends is None else (shapes + trends) / 2,
               "max_missing_rate_error": float(columns["missing_rate_error"].max()),
               "out_of_range": int(columns["out_of_range"].sum()), "non_integer": int(columns["non_integer"].sum()),
               "unseen_categories": int(columns["unseen_categories"].sum()),
               "unseen_category_pairs": float(np.any(list(unseen.values()), axis=0).mean()) if unseen else None}
    seed = None if random_state is None else int(np.random.default_rng([random_state, 1]).integers(2**31))
    summary.update(distance_metrics(list(prep.values()), chosen, max_rows, seed), n_subsample=max_rows)
    if target is not None:
        (summary["tstr"], summary["trtr"], summary["n_test"], summary["efficacy_auc"],
         summary["efficacy_auc_real"]) = _utility(r, s, target, test, random_state)
    return SyntheticReport(columns=columns, pairs=pairs, summary=summary, target=target, _pair_order=list(prep))
