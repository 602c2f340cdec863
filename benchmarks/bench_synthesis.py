"""Benchmark: ``bayesnb.Synthesizer`` side by side with SDV's GaussianCopula, CTGAN and TVAE (issue 26, item 5).

Tables
------
- **census** (UCI Adult). The TabSyn / TabDiff protocol trains on UCI's ``adult.data`` (32,561
  rows) and tests on ``adult.test`` (16,281 rows). Pass ``--census FILE`` (``adult.data``) and,
  when you have it, ``--census-test FILE`` (``adult.test``). Without ``--census-test`` a
  stratified (by income) holdout of ``adult.data`` of TabDiff's test share, 16,281 / 48,842
  = 33.3%, is the test table (seed ``--seed``; 10,854 rows), and the other 21,707 rows train:
  the figures are then not on the papers' split, and the output says so. As in TabSyn's
  preprocessing, a missing categorical cell (``?``) is a category of its own ("?"; Adult has
  no missing numeric cell); ``--keep-missing`` keeps them as missing cells instead.
- **house votes** (target ``party``) and **penguins** (target ``species``), bundled with
  bayesnb: a stratified 70/30 split per seed, missing cells kept as missing.
- with ``--data-dir DIR``, every ``*.csv`` in ``DIR`` (the public tables a user downloads; none is
  shipped), split as the bundled ones: target the column ``--target`` (default each file's last), ``?``
  a missing cell, a column read as numbers numeric with more than 10 distinct values and categorical
  otherwise (``_tables.csv_tables``).

Methods
-------
Each is fitted on the training rows and draws as many synthetic rows (as TabSyn does):

- ``Synthesizer``: ``bayesnb.Synthesizer(target=...)`` at its defaults; ``--configs`` adds
  rows for other public settings (``latent=None``, ``structure="kdb"``, ``latent=K``, ``numeric="auto"``,
  ...; ``proper`` samples with ``parameter_uncertainty=True``, one posterior draw per call, and
  ``plugin`` with ``parameter_uncertainty=False``, the default);
- ``SDV GaussianCopula``, ``SDV CTGAN``, ``SDV TVAE``: SDV's single-table synthesizers (CPU),
  numeric columns declared numerical, the others categorical; CTGAN and TVAE at SDV's default
  300 epochs unless ``--epochs N`` (stated in the output), torch on ``--torch-threads`` threads
  (default 1: on a loaded 2-core machine two threads burned ~7x the CPU time for the same fit);
- ``Gaussian copula (empirical)``: the Gaussian copula with empirical marginals of
  ``bench_synthetic.py`` (numpy/scipy; issue 26's other baseline), integer columns cast back to
  their training dtype; ``--no-copula`` leaves it out;
- ``real holdout (reference)``: not a generator but the real test rows scored as if they were
  synthetic (against the training rows): what "as good as real" reads on each metric at this
  table's size (shapes, trends, detection, alpha-precision / beta-recall, unseen pairs). Efficacy
  and DCR are not scored for it (the test rows are the efficacy test and the DCR holdout), and the
  test table has fewer rows than the synthetic ones; ``--no-reference`` leaves it out.

Scores
------
:func:`bayesnb.synthetic_report` of each synthetic table against the training rows, with the
test rows as ``real_test`` (efficacy and the DCR holdout); see docs/synthetic.md, "The
literature's metrics", for the definitions. ``shape`` / ``trend``: SDMetrics-definition column
shapes (KS / TV complement) and column-pair trends (correlation / contingency similarity).
``C2ST LR`` / ``C2ST GBM``: SDMetrics' detection score ``1 - mean_folds(2 max(AUC, 0.5) - 1)``
(3 folds) of bayesnb's logistic regression and of a ``HistGradientBoostingClassifier`` (the
"XGB-style" detector; XGBoost itself is not used). With ``sdmetrics`` installed (it comes with
SDV), three cross-checks computed by SDMetrics itself on the same rows: ``QualityReport``'s
column shapes and pair trends (``SDM shape`` / ``SDM trend``) and ``LogisticDetection``
(``SDM C2ST``: what TabSyn's and TabDiff's tables call "C2ST"; on the whole tables, as TabSyn).
``AUC`` / ``acc``: efficacy, a ``HistGradientBoostingClassifier`` trained on the synthetic rows
and tested on the real test rows (``AUC real``: trained on the real training rows). ``alpha-P`` / ``beta-R``:
alpha-precision / beta-recall (k-NN, at alpha = beta = 0.95); ``IP-alpha`` / ``IR-beta``: the same
integrated over alpha, as synthcity 0.2 computes them and TabSyn / TabDiff report them (fresh real rows
score about 1 and 0.5; ``bars`` compares these, and lists the k-NN forms apart). ``DCR``: share of synthetic rows nearer a training row
than a test row (0.5 ideal). ``pMSE x``: the pMSE ratio (Snoke et al.; 1 for rows of a correct
fitted model, 2 for an independent sample of equal size). ``miss err``: largest per-column missing-rate error. ``OOR``:
values outside the real range; ``unseen cat``: unseen categories; ``unseen pair``: share of
rows holding a category pair absent from the real rows. Slow metrics (detection, alpha/beta,
DCR) use at most ``--max-rows`` rows of each table (seeded subsample). ``fit x`` /
``sample x``: wall-clock seconds as a ratio to the default ``Synthesizer``'s in the same run;
``fit CPU s``: the fit's CPU seconds (all threads of the process; less sensitive to other jobs on
a shared machine than the wall clock, which ``fit s`` reports).

Usage::

    python benchmarks/bench_synthesis.py --census /path/adult.data [--census-test /path/adult.test] \\
        [--epochs 30] [--configs nolatent,kdb] [--seeds 1] [--csv out.csv]
    python benchmarks/bench_synthesis.py --bundled-only --seeds 2
    python benchmarks/bench_synthesis.py --merge a.csv b.csv      # one table from earlier runs

Needs ``pip install "bayesnb[bench]"`` for the SDV rows (they are skipped without ``sdv``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _census import COLUMNS, NUMERIC, TARGET, _read  # noqa: E402
from bench_synthetic import GaussianCopula  # noqa: E402
from _tables import csv_tables  # noqa: E402

from bayesnb import Synthesizer, synthetic_report  # noqa: E402
from bayesnb.datasets import load_house_votes, load_penguins  # noqa: E402

#: TabDiff's test share of the UCI split: adult.test rows / all rows
TEST_SHARE = 16281 / 48842

#: Synthesizer settings that --configs can add (name -> keyword arguments)
CONFIGS = {
    "default": {},
    "nolatent": {"latent": None},
    "naive": {"structure": "naive", "latent": None},
    "tan": {"structure": "tan", "latent": None},
    "kdb": {"structure": "kdb", "latent": None},
    "latent8": {"latent": 8},
    "latent20": {"latent": 20},
    "latent50": {"latent": 50},
    "classprior": {"component_prior": "class"},
    "smoothed": {"support": "smoothed"},
    "backoff": {"support": "backoff"},
    "parametric": {"numeric": "auto"},
    "plugin": {"sample": {"parameter_uncertainty": False}},
    "parametric-plugin": {"numeric": "auto", "sample": {"parameter_uncertainty": False}},
    "proper": {"sample": {"parameter_uncertainty": True}},
    "parametric-proper": {"numeric": "auto", "sample": {"parameter_uncertainty": True}},
}

COLUMNS_OUT = [("shape", "column_shapes"), ("trend", "column_pair_trends"), ("SDM shape", "sdm_shape"),
               ("SDM trend", "sdm_trend"), ("C2ST LR", "detection_logistic"), ("C2ST GBM", "detection_gbm"),
               ("SDM C2ST", "sdm_c2st"), ("AUC", "efficacy_auc"), ("acc", "tstr"), ("AUC real", "efficacy_auc_real"),
               ("alpha-P", "alpha_precision"), ("beta-R", "beta_recall"), ("IP-alpha", "alpha_precision_integrated"),
               ("IR-beta", "beta_recall_integrated"), ("DCR", "dcr_share"), ("pMSE x", "pmse_ratio"),
               ("miss err", "max_missing_rate_error"), ("OOR", "out_of_range"),
               ("unseen cat", "unseen_categories"), ("unseen pair", "unseen_category_pairs"),
               ("fit s", "fit_s"), ("fit CPU s", "fit_cpu_s"), ("sample s", "sample_s"), ("fit x", "fit_ratio"),
               ("sample x", "sample_ratio")]

#: published census rows quoted in issue 26 (not rerun here): shape, trend, C2ST-XGB, AUC, seconds
PUBLISHED = [("TabPC (2026)", 0.994, 0.986, 0.855, 0.916, "272"),
             ("TabSyn", 0.992, 0.980, 0.794, 0.910, "3,083"),
             ("TabDiff", 0.993, 0.985, 0.841, 0.913, "–"),
             ("CTGAN", 0.809, 0.758, 0.000, 0.862, "–"),
             ("latent-class mixture, 20,000 components", 0.992, 0.981, 0.773, 0.902, "60")]


# ------------------------------------------------------------------------------ tables
def census_tables(data, test, seed, keep_missing):
    """``(train, test, note)`` of the census table (see the module docstring)."""
    full = _read(data)
    if test is not None:
        train, held, note = full, _read(test), f"UCI split: {data} / {test}"
    else:
        train, held = train_test_split(full, test_size=TEST_SHARE, stratify=full[TARGET], random_state=seed)
        note = (f"no adult.test: stratified holdout of adult.data, {TEST_SHARE:.4f} of the rows "
                f"(TabDiff's test share 16,281 / 48,842), seed {seed}; {len(train)} train / {len(held)} test rows")
    if not keep_missing:
        cats = [c for c in COLUMNS if c not in NUMERIC]
        train, held = (d.fillna({c: "?" for c in cats}) for d in (train, held))
        note += "; a missing categorical cell is the category '?' (TabSyn's preprocessing)"
    return train.reset_index(drop=True), held.reset_index(drop=True), note


def split_table(df, target, seed):
    """``(train, test, target)``: ``df`` split 70/30, stratified by ``target`` (seed ``seed``)."""
    tr, te = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
    return tr.reset_index(drop=True), te.reset_index(drop=True), target


def bundled_tables(seed):
    """``{name: (train, test, target)}`` of the bundled tables, a stratified 70/30 split each (:func:`split_table`)."""
    return {name: split_table(df, target, seed) for name, df, target in
            (("house votes", load_house_votes(), "party"), ("penguins", load_penguins(), "species"))}


def folder_tables(folder, target, seed):
    """``{name: (train, test, target)}`` of every ``*.csv`` in ``folder`` (:func:`_tables.csv_tables`), split
    as :func:`bundled_tables` splits."""
    return {name: split_table(X.assign(**{y.name: y.to_numpy(dtype=object)}), y.name, seed)
            for name, X, y in csv_tables(folder, target, na_values=["?"])}


# ------------------------------------------------------------------------------ methods
def fit_bayesnb(params):
    """A maker: ``(train, target, seed) -> (sampler(n, seed), description)`` for ``Synthesizer(**params)``."""
    fit_kw = {k: v for k, v in params.items() if k != "sample"}
    sample_kw = params.get("sample", {})

    def make(train, target, seed):
        s = Synthesizer(target=target, random_state=seed, verbose=False, **fit_kw).fit(train)
        return (lambda n, sd: s.sample(n, random_state=sd, **sample_kw)), describe(s)
    return make


def fit_copula(train, target, seed):
    """A maker: the Gaussian copula with empirical marginals (``bench_synthetic.GaussianCopula``)."""
    model = GaussianCopula().fit(train)

    def sample(n, sd):
        out = model.sample(n, np.random.default_rng(sd))[list(train.columns)]
        for c in train.columns:  # its numerics are observed values: integer columns back to their dtype
            if pd.api.types.is_integer_dtype(train[c]) and not out[c].isna().any():
                out[c] = out[c].astype(train[c].dtype)
        return out

    return sample, "numpy/scipy, empirical marginals"


#: the method name of the real-holdout reference row
REFERENCE = "real holdout (reference)"

#: the method names counted as peers in :func:`bars` (besides SDV's)
COPULA = "Gaussian copula (empirical)"


def describe(synth):
    """The choice of a fitted Synthesizer: candidate, parents of each node, families of numeric columns."""
    m = synth.model_
    text = f"chose {synth.chosen_}"
    parents = getattr(m, "structure_", None) or {}
    if any(parents.values()):
        text += "; parents " + ", ".join(f"{c} <- {'+'.join(map(str, p))}" for c, p in parents.items() if p)
    fam = getattr(m, "family_scores_", None)
    if fam is not None and len(fam):
        text += "; numeric families " + ", ".join(f"{r.column}: {r.family}" for r in fam[fam.chosen].itertuples())
    if synth.latent_ is not None:
        text += f"; {getattr(synth.latent_, 'n_components', '?')} components per class"
    return text


#: torch's intra-op threads for CTGAN / TVAE (``--torch-threads``): on a shared 2-core machine two
#: threads spun ~7x the CPU time of one for the same CTGAN fit
TORCH_THREADS = [1]

#: ``--sdv-verbose``: CTGAN / TVAE print their progress per epoch (to follow a long fit)
SDV_VERBOSE = [False]

#: a missing categorical cell as SDV sees it: RDT 1.19's UniformEncoder under pandas 3.1 gives missing
#: cells a NaN frequency (then NaN intervals and an OverflowError), so they are passed as this
#: category and mapped back to missing in the synthetic rows
SDV_MISSING = "__missing__"


def _numeric(col):
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def _sdv_metadata(train):
    from sdv.metadata import Metadata

    meta = Metadata.detect_from_dataframe(train)
    for c in train.columns:
        meta.update_column(column_name=c, sdtype="numerical" if _numeric(train[c]) else "categorical")
    return meta


def fit_sdv(kind, epochs):
    """A maker for SDV's ``GaussianCopulaSynthesizer`` / ``CTGANSynthesizer`` / ``TVAESynthesizer`` (CPU)."""
    def make(train, target, seed):
        import torch
        from sdv import single_table

        torch.set_num_threads(TORCH_THREADS[0])
        torch.manual_seed(seed)
        np.random.seed(seed)
        cls = getattr(single_table, f"{kind}Synthesizer")
        kw = {} if kind == "GaussianCopula" else {"enable_gpu": False, "verbose": SDV_VERBOSE[0]}
        if epochs is not None and kind != "GaussianCopula":
            kw["epochs"] = epochs
        cats = [c for c in train.columns if not _numeric(train[c])]
        model = cls(_sdv_metadata(train), **kw)
        model.fit(train.astype({c: object for c in cats}).fillna({c: SDV_MISSING for c in cats}))
        ep = "" if kind == "GaussianCopula" else f"epochs={kw.get('epochs', 'default (300)')}"

        def sample(n, sd):
            out = model.sample(n)[list(train.columns)]
            for c in cats:
                out[c] = out[c].astype(object).where(out[c] != SDV_MISSING, np.nan)
            return out

        return sample, ep
    return make


def methods(configs, epochs, sdv_kinds, copula=True):
    out = {("Synthesizer" if c == "default" else f"Synthesizer({_kw(CONFIGS[c])})"): fit_bayesnb(CONFIGS[c])
           for c in configs}
    if copula:
        out[COPULA] = fit_copula
    if importlib.util.find_spec("sdv") is None:
        print("sdv not installed (pip install 'bayesnb[bench]'): SDV rows skipped")
        return out
    for kind in sdv_kinds:
        out[sdv_name(kind, epochs)] = fit_sdv(kind, epochs)
    return out


def sdv_name(kind, epochs):
    """The row name of an SDV synthesizer: a neural one at other than SDV's default epochs is named with them."""
    return f"SDV {kind}" + (f" ({epochs} epochs)" if epochs is not None and kind != "GaussianCopula" else "")


def _kw(params):
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


# ------------------------------------------------------------------------------ scores
def sdmetrics_scores(train, syn, seed):
    """SDMetrics' own QualityReport shapes / trends and LogisticDetection (None without sdmetrics)."""
    if importlib.util.find_spec("sdmetrics") is None:
        return {}
    from sdmetrics.reports.single_table import QualityReport
    from sdmetrics.single_table import LogisticDetection

    cats = [c for c in train.columns if not _numeric(train[c])]
    meta = {"columns": {c: {"sdtype": "categorical" if c in cats else "numerical"} for c in train.columns}}
    # a missing categorical cell is a category (as in bayesnb's scores; SDMetrics' one-hot encoder
    # refuses NaN under pandas 3.1)
    kinds = {c: object if c in cats else float for c in train.columns}  # float: SDMetrics writes floats into Int64
    train, syn = (d.astype(kinds).fillna({c: SDV_MISSING for c in cats}) for d in (train, syn))
    out = {}
    try:
        report = QualityReport()
        report.generate(train, syn, meta, verbose=False)
        props = report.get_properties().set_index("Property")["Score"]
        out.update(sdm_shape=float(props["Column Shapes"]), sdm_trend=float(props["Column Pair Trends"]))
        np.random.seed(seed)  # LogisticDetection's folds draw from numpy's global state
        # whole tables, as TabSyn's eval_detection.py (a subsample can hold a category the real
        # subsample lacks, which SDMetrics' one-hot encoder refuses)
        out["sdm_c2st"] = float(LogisticDetection.compute(train, syn, meta))
    except Exception as e:  # a cross-check only: say why it is missing, keep bayesnb's scores
        print(f"    sdmetrics cross-check failed: {type(e).__name__}: {e}", flush=True)
    return out


def score(train, test, syn, target, max_rows, seed, reference=False):
    """``(summary dict, SyntheticReport)`` of one synthetic table, SDMetrics' cross-checks added.

    With ``reference=True`` ``syn`` is the real test table itself: no efficacy (it would be tested
    on its own training rows) and no DCR (it is its own holdout); those entries are None.
    """
    if reference:
        report = synthetic_report(train, syn, metrics=("alpha_beta", "detection"), max_rows=max_rows,
                                  random_state=seed)
    else:
        report = synthetic_report(train, syn, target=target, real_test=test, max_rows=max_rows, random_state=seed)
    s = dict(report.summary)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.update(sdmetrics_scores(train, syn, seed))
    return s, report


def worst(report, k=5):
    """The ``k`` columns with the lowest shape and the ``k`` pairs with the lowest trend, as text."""
    cols = report.columns.sort_values("shape").head(k)
    pairs = report.pairs.dropna(subset=["trend"]).sort_values("trend").head(k)
    return ("    worst shapes: " + ", ".join(f"{r.column} {r.shape:.3f}" for r in cols.itertuples())
            + "\n    worst trends: " + ", ".join(f"{r.a} x {r.b} {r.trend:.3f}" for r in pairs.itertuples()))


def _real_holdout(test):
    """The maker of the reference row: the real test rows, as they are."""
    info = f"the {len(test)} real test rows, unseen in fitting"
    return lambda train, target, seed: ((lambda n, sd: test.copy()), info)


def append_csv(row, csv):
    """Append one row to ``csv``, under the file's header when it has one (a row lacking some of its
    columns, e.g. the reference's efficacy, leaves them empty; a new column is dropped with a warning)."""
    frame = pd.DataFrame([row])
    if os.path.exists(csv):
        header = list(pd.read_csv(csv, nrows=0).columns)
        extra = [c for c in frame.columns if c not in header]
        if extra:
            print(f"    {csv}: columns {extra} not in its header, not written", flush=True)
        frame = frame.reindex(columns=header)
    frame.to_csv(csv, mode="a", header=not os.path.exists(csv), index=False)


def run_table(name, train, test, target, makers, seed, max_rows, note="", details=None, csv=None, reference=False):
    """Fit, sample and score every method on one table; with ``details`` (a folder) also write each
    report's per-column and per-pair tables there; with ``reference`` add the real-holdout row."""
    rows = []
    makers = {**makers, REFERENCE: _real_holdout(test)} if reference else makers
    for method, make in makers.items():
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {method} ...", flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0, c0 = time.perf_counter(), time.process_time()
            sampler, info = make(train, target, seed)
            t1, c1 = time.perf_counter(), time.process_time()
            syn = sampler(len(train), seed)
            t2, c2 = time.perf_counter(), time.process_time()
        s, report = score(train, test, syn, target, max_rows, seed, reference=method == REFERENCE)
        times = (t1 - t0, t2 - t1, c1 - c0, c2 - c1) if method != REFERENCE else (np.nan,) * 4
        rows.append({"data": name, "method": method, "seed": seed, "info": info, "note": note,
                     **dict(zip(("fit_s", "sample_s", "fit_cpu_s", "sample_cpu_s"), times)),
                     "load_avg": os.getloadavg()[0], **s})
        print(f"    fit {times[0]:.1f} s ({times[2]:.1f} s CPU), sample {times[1]:.1f} s, {info}; "
              f"shape {s['column_shapes']:.4f}, "
              f"trend {s['column_pair_trends']:.4f}, C2ST GBM {s['detection_gbm']:.4f}, "
              f"AUC {s.get('efficacy_auc') or float('nan'):.4f}, alpha-P {s['alpha_precision']:.4f}, "
              f"beta-R {s['beta_recall']:.4f}, IP-alpha {s['alpha_precision_integrated']:.4f}, "
              f"IR-beta {s['beta_recall_integrated']:.4f}", flush=True)
        print(worst(report), flush=True)
        if csv:  # row by row, so that a run stopped early keeps what it measured
            append_csv(rows[-1], csv)
        if details:
            os.makedirs(details, exist_ok=True)
            stem = os.path.join(details, f"{name}_{method}_{seed}".replace(" ", "_").replace("/", "_"))
            report.columns.to_csv(stem + "_columns.csv", index=False)
            report.pairs.to_csv(stem + "_pairs.csv", index=False)
            syn.to_csv(stem + "_synthetic.csv", index=False)
    return rows


# ------------------------------------------------------------------------------ output
def with_ratios(res):
    """Add ``fit_ratio`` / ``sample_ratio``: seconds over the default Synthesizer's (same data and seed)."""
    res = res.copy()
    base = res[res.method == "Synthesizer"].groupby(["data", "seed"])[["fit_s", "sample_s"]].mean()
    keys = list(zip(res.data, res.seed))
    for col, out in (("fit_s", "fit_ratio"), ("sample_s", "sample_ratio")):
        ref = np.array([base[col].get(k, np.nan) for k in keys], dtype=float)
        res[out] = res[col].to_numpy(float) / ref
    return res


def markdown(res):
    res = with_ratios(res)
    keys = [(label, key) for label, key in COLUMNS_OUT if key in res.columns and res[key].notna().any()]
    lines = ["| data | method | " + " | ".join(label for label, _ in keys) + " |",
             "|---" * (len(keys) + 2) + "|"]
    for (data, method), g in res.groupby(["data", "method"], sort=False):
        cells = []
        for label, key in keys:
            v = pd.to_numeric(g[key], errors="coerce").astype(float)
            if v.isna().all():
                cells.append("–")
                continue
            fmt = ".1f" if key in ("fit_s", "sample_s", "fit_cpu_s") else ".2f" if key.endswith("ratio") else (
                ".0f" if key in ("out_of_range", "unseen_categories") else ".3f")
            cell = format(v.mean(), fmt)
            cells.append(cell + (f" ± {v.std(ddof=1):{fmt}}" if len(v) > 1 and not key.endswith(("_s", "ratio"))
                                 else ""))
        lines.append(f"| {data} | {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def published_table():
    lines = ["Published census rows quoted in issue 26 (NOT rerun here; their own protocol and hardware):", "",
             "| method (published) | shape | trend | C2ST-XGB | AUC | fit s |", "|---|---|---|---|---|---|"]
    lines += [f"| {m} | {a:.3f} | {b:.3f} | {c:.3f} | {d:.3f} | {t} |" for m, a, b, c, d, t in PUBLISHED]
    return "\n".join(lines)


#: metrics where higher is better, and where lower is better (DCR: nearer 0.5 is better), in :func:`bars`;
#: alpha-precision and beta-recall as the literature reports them (integrated over alpha, TabSyn's)
HIGHER = ["column_shapes", "column_pair_trends", "sdm_shape", "sdm_trend", "detection_logistic", "detection_gbm",
          "sdm_c2st", "efficacy_auc", "tstr", "alpha_precision_integrated", "beta_recall_integrated"]
LOWER = ["pmse_ratio", "max_missing_rate_error", "out_of_range", "unseen_categories", "unseen_category_pairs"]
#: compared and listed by :func:`bars`, not in its bar: the k-NN point forms at alpha = beta = 0.95, which a
#: generator crowding the real rows' core (alpha) or spread beyond them (beta) wins
KNN_FORMS = ["alpha_precision", "beta_recall"]


def bars(res):
    """Issue 26's census bars for each census row, as text.

    A peer (an SDV row or the empirical Gaussian copula) beats a ``Synthesizer`` row on a metric
    when it scores strictly better, and ties it when equal; each such metric is listed with both
    values and, when the run has it, the real holdout's value beside them. Alpha-precision and
    beta-recall are compared in their integrated forms (:data:`HIGHER`); where a peer scores higher
    on a k-NN form (:data:`KNN_FORMS`), that is listed apart, outside the bar.
    """
    cen = res[res.data == "census"]
    if cen.empty:
        return ""
    peers = cen[cen.method.str.startswith("SDV") | (cen.method == COPULA)]
    ref = cen[cen.method == REFERENCE]
    out = ["Issue 26 bars on census (shape >= 0.99, trend >= 0.98, C2ST GBM >= 0.80, AUC >= 0.910, fit <= 60 s; "
           "beat every peer on every metric):"]

    def val(row, k):
        v = row.get(k) if hasattr(row, "get") else getattr(row, k, None)
        return None if v is None or pd.isna(v) else float(v)

    for _, r in cen[cen.method.str.startswith("Synthesizer")].iterrows():
        checks = [("shape", r.column_shapes >= 0.99), ("trend", r.column_pair_trends >= 0.98),
                  ("C2ST GBM", r.detection_gbm >= 0.80), ("AUC", r.efficacy_auc >= 0.910), ("fit", r.fit_s <= 60)]
        lost, tied, knn = [], [], []
        for _, p in peers.iterrows():
            for k in HIGHER + LOWER + ["dcr_share"] + KNN_FORMS:
                a, b = val(r, k), val(p, k)
                if a is None or b is None:
                    continue
                if k == "dcr_share":
                    a, b = -abs(a - 0.5), -abs(b - 0.5)
                elif k in LOWER:
                    a, b = -a, -b
                if b == a and k not in KNN_FORMS:
                    tied.append(f"{k} vs {p.method} ({val(r, k):.3f})")
                elif b > a:
                    rv = val(ref.iloc[0], k) if len(ref) else None
                    (knn if k in KNN_FORMS else lost).append(
                        f"{k} vs {p.method} ({val(p, k):.3f} vs {val(r, k):.3f}"
                        + (f"; real holdout {rv:.3f}" if rv is not None else "") + ")")
        out.append(f"  {r.method}: " + ", ".join(f"{k} {'holds' if ok else 'MISSED'}" for k, ok in checks)
                   + ("; beats every peer" if len(peers) and not lost else
                      f"; not beaten: {', '.join(lost)}" if lost else "")
                   + (f"; tied: {', '.join(tied)}" if tied else "")
                   + (f"; k-NN forms (not in the bar) where a peer scores higher: {', '.join(knn)}" if knn else ""))
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--census", metavar="FILE", help="UCI adult.data")
    p.add_argument("--census-test", metavar="FILE", help="UCI adult.test (default: a holdout of adult.data)")
    p.add_argument("--keep-missing", action="store_true", help="census: keep '?' as missing cells")
    p.add_argument("--bundled-only", action="store_true", help="skip the census table")
    p.add_argument("--census-only", action="store_true", help="skip the bundled tables")
    p.add_argument("--data-dir", metavar="DIR", help="also every *.csv in this folder (see the module docstring)")
    p.add_argument("--target", help="target column of the --data-dir tables (default: each one's last)")
    p.add_argument("--seeds", type=int, default=1, help="seeds per table (default 1)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--epochs", type=int, default=None, help="CTGAN/TVAE epochs (default: SDV's 300)")
    p.add_argument("--configs", default="default",
                   help=f"comma-separated Synthesizer settings among {list(CONFIGS)} (default: default; the "
                        "time ratios need a 'default' row of the same table and seed, here or in a --merge file)")
    p.add_argument("--sdv", default="GaussianCopula,CTGAN,TVAE", help="SDV synthesizers ('' for none)")
    p.add_argument("--no-copula", action="store_true", help="leave out the empirical Gaussian copula row")
    p.add_argument("--no-reference", action="store_true", help="leave out the real-holdout reference row")
    p.add_argument("--sdv-verbose", action="store_true", help="CTGAN/TVAE print their progress per epoch")
    p.add_argument("--torch-threads", type=int, default=1, help="torch threads for CTGAN/TVAE (default 1)")
    p.add_argument("--max-rows", type=int, default=10000, help="rows per table for the slow metrics")
    p.add_argument("--csv", help="also append every row to this CSV, as it is measured")
    p.add_argument("--details", metavar="DIR",
                   help="write each report's per-column and per-pair tables and the synthetic rows here")
    p.add_argument("--merge", nargs="+", metavar="CSV", help="print one table from earlier --csv files and exit")
    args = p.parse_args(argv)
    TORCH_THREADS[0] = args.torch_threads
    SDV_VERBOSE[0] = args.sdv_verbose
    if args.merge:
        res = pd.concat([pd.read_csv(f) for f in args.merge], ignore_index=True)
    else:
        configs = [c for c in args.configs.split(",") if c]
        unknown = [c for c in configs if c not in CONFIGS]
        if unknown:
            p.error(f"unknown --configs {unknown}; choose among {list(CONFIGS)}")
        makers = methods(configs, args.epochs, [k for k in args.sdv.split(",") if k], copula=not args.no_copula)
        rows = []
        for seed in range(args.seed, args.seed + args.seeds):
            if not args.bundled_only:
                if args.census is None:
                    p.error("--census FILE (adult.data) is needed unless --bundled-only")
                train, test, note = census_tables(args.census, args.census_test, seed, args.keep_missing)
                print(note)
                rows += run_table("census", train, test, TARGET, makers, seed, args.max_rows, note, args.details,
                                  args.csv, reference=not args.no_reference)
            if args.data_dir:
                for name, (train, test, target) in folder_tables(args.data_dir, args.target, seed).items():
                    rows += run_table(name, train, test, target, makers, seed, args.max_rows, details=args.details,
                                      csv=args.csv, reference=not args.no_reference)
            if not args.census_only:
                for name, (train, test, target) in bundled_tables(seed).items():
                    rows += run_table(name, train, test, target, makers, seed, args.max_rows, details=args.details,
                                      csv=args.csv, reference=not args.no_reference)
        res = pd.DataFrame(rows)
    print()
    print(markdown(res))
    print()
    for (data, method), g in res.groupby(["data", "method"], sort=False):
        print(f"- {data} / {method}: {'; '.join(sorted(set(map(str, g['info'].dropna()))))}")
    notes = sorted(set(map(str, res["note"].dropna()))) if "note" in res else []
    for n in notes:
        if n and n != "nan":
            print(f"census: {n}")
    print()
    print(bars(res))
    print()
    print(published_table())


if __name__ == "__main__":
    main()
