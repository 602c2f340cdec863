"""Outlier benchmark: ``NBOutlierDetector`` against IsolationForest, LOF, ECOD, COPOD and AVF.

Tables (label in brackets, used only to build the tasks, never shown to a detector): the bundled
house votes (16 categorical, [party]) and penguins (2 categorical, 5 numeric, [species]);
scikit-learn's bundled breast cancer (30 numeric, [diagnosis]) and wine (13 numeric,
[cultivar]); and, with ``--data-dir DIR``, UCI Adult (``adult.data``, a random ``--rows``
subsample; see ``_census.py``) and any other ``NAME.csv`` there, whose last column is the
label. Tables that are not there are skipped with a note.

Tasks (a 70/30 split of the rows per seed; AUC and average precision of the outlier score,
the outliers the positives):

- ``novelty``: each class in turn is the normal class: train on 70% of its rows, score its
  other 30% (inliers) and every row of the other classes (outliers); mean over the classes.
- injected anomalies: train on 70% of all rows; score the other 30% clean (inliers) and a
  corrupted copy of them (outliers; rows the corruption cannot change are left out):
    - ``swap-num``: the values of two numeric cells of the row exchanged (observed, different);
    - ``swap-cat``: the values of two categorical cells of the row exchanged (observed, different);
    - ``out-of-range``: one numeric cell set beyond its column's training range, by 10-50% of
      the range, on a random side (rounded away from the range to a whole number in a column
      whose training values are all whole numbers, so that no value wins by being a fraction);
    - ``assembled``: every cell taken from a different random held-out row (each column an
      independent permutation), so the marginals are real and the joint is not.
- ``rare-class``: the smallest class is thinned to 5% of the rows (if larger); train on 70%
  of that table, score the other 30%; the rare class is the outliers.

Detectors:

- ``NB``: ``NBOutlierDetector()``, the default (``NaiveBayes(structure="auto", auto_cv=False,
  edge_score="hierarchical")`` fitted on the rows as one class, missing cells marginalised, plus the
  range tails of numeric cells beyond their training range; each row scored by its cells' surprise,
  the larger of the structure's and its naive companion's sums, ``statistic="surprise"``);
  ``NB-density``: the same model scored by ``log p(x)`` (``statistic="density"``, the default before
  the surprise), and ``NB-naive``: ``NBOutlierDetector(NaiveBayes(), statistic="density")`` (the naive
  model's ``log p(x)``, the default before issue 31's work);
- scikit-learn ``IsolationForest`` (``random_state`` = seed) and ``LocalOutlierFactor(novelty=True)``;
- ``ECOD`` (Li et al. 2022, TKDE) and ``COPOD`` (Li et al. 2020, ICDM): PyOD's when importable
  (``pip install bayesnb[bench]``), else the definitions written below as PyOD computes them
  (empirical CDFs over the training and scored rows together, skewness-corrected tails);
- ``AVF`` (Koufakou et al. 2007, tables with categorical columns): the mean over a row's
  observed cells of the training frequency of its value, numeric columns cut at 10 training
  quantiles (lower = more unusual).

The baselines other than AVF see one-hot categorical columns (missing: a category of its own)
and standardised numeric columns with missing cells set to the training median. Mean over
seeds. A value outside a NB family's support (e.g. a negative value in a LogNormal column) is
scored ``log p(x) = -inf`` by ``score_samples`` (the most unusual). Should a call still be
refused (a value of the wrong type), its rows are scored one by one and a refused row counts
as impossible too; the count is printed. The machine load (1-minute average) is printed before and after.

Run:  python benchmarks/bench_outliers.py [--quick] [--seeds N] [--tables votes penguins]
      python benchmarks/bench_outliers.py --data-dir DIR --rows 3000
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _census import NOT_GIVEN, TARGET, load_adult
from _census import _read as read_adult
from scipy.stats import rankdata, skew
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.ensemble import IsolationForest
from sklearn.impute import SimpleImputer
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.neighbors import LocalOutlierFactor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from bayesnb import NaiveBayes, NBOutlierDetector
from bayesnb.datasets import load_house_votes, load_penguins

INJECTED = ("swap-num", "swap-cat", "out-of-range", "assembled")
TASKS = ("novelty", *INJECTED, "rare-class")
DETECTORS = ("NB", "NB-density", "NB-naive", "IForest", "LOF", "ECOD", "COPOD", "AVF")
#: Candidates run only when named (``--detectors``), reported beside the default with their own bar lines.
CANDIDATES = ("NB-max",)
BASELINES = ("IForest", "LOF", "ECOD", "COPOD")
RARE_SHARE = 0.05


# ------------------------------------------------------------------------------------ tables
def _numeric(frame):
    return [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


def _as_table(frame, label):
    """``(X, y)`` with numeric columns as float64 (so a swapped value fits any numeric column)."""
    X = frame.drop(columns=label).reset_index(drop=True)
    for c in _numeric(X):
        X[c] = X[c].astype("float64")
    return X, frame[label].astype(str).reset_index(drop=True)


def load_tables(names, data_dir, rows, seed=0):
    """The tables asked for, as ``{name: (X, y)}``, and notes on the ones not found."""
    tables, notes = {}, []
    if "votes" in names:
        tables["votes"] = _as_table(load_house_votes(), "party")
    if "penguins" in names:
        tables["penguins"] = _as_table(load_penguins(), "species")
    for name, loader in (("cancer", load_breast_cancer), ("wine", load_wine)):
        if name in names:
            data = loader(as_frame=True)
            tables[name] = _as_table(data.frame, "target")
    if data_dir is None:
        notes.append("no --data-dir: census and other public tables skipped")
        return tables, notes
    adult = load_adult(data_dir)
    if adult is None and (Path(data_dir) / "adult.data").is_file():  # this benchmark reads adult.data only
        adult = (read_adult(Path(data_dir) / "adult.data"),)
    if adult is None:
        notes.append(NOT_GIVEN.replace("--adult DIR", "--data-dir DIR").replace(" and adult.test", ""))
    else:
        frame = adult[0]
        frame = frame.sample(n=min(rows, len(frame)), random_state=seed)
        tables["adult"] = _as_table(frame, TARGET)
    for path in sorted(Path(data_dir).glob("*.csv")):
        frame = pd.read_csv(path)
        if len(frame) > rows:
            frame = frame.sample(n=rows, random_state=seed)
        tables[path.stem] = _as_table(frame, frame.columns[-1])
    return tables, notes


# ------------------------------------------------------------------------------------- tasks
def _split(n, rng, share=0.7):
    order = rng.permutation(n)
    cut = int(round(share * n))
    return order[:cut], order[cut:]


def _swap_within(X, columns, rng):
    """A copy of X with two observed, different cells of ``columns`` exchanged in each row; rows changed."""
    out, changed = X.copy(), np.zeros(len(X), dtype=bool)
    if len(columns) < 2:
        return out, changed
    values = X[columns].to_numpy(dtype=object)
    for i in range(len(X)):
        pairs = [(a, b) for a in range(len(columns)) for b in range(a + 1, len(columns))
                 if not pd.isna(values[i, a]) and not pd.isna(values[i, b]) and values[i, a] != values[i, b]]
        if pairs:
            a, b = pairs[rng.integers(len(pairs))]
            out.iloc[i, out.columns.get_loc(columns[a])] = values[i, b]
            out.iloc[i, out.columns.get_loc(columns[b])] = values[i, a]
            changed[i] = True
    return out, changed


def _out_of_range(X, train, numeric, rng):
    out = X.copy()
    if not numeric:
        return out, np.zeros(len(X), dtype=bool)
    lo, hi = train[numeric].min(), train[numeric].max()
    whole = {c: bool((train[c].dropna() % 1 == 0).all()) for c in numeric}
    for i in range(len(X)):
        c = numeric[rng.integers(len(numeric))]
        span = (hi[c] - lo[c]) or 1.0
        step = rng.uniform(0.1, 0.5) * span
        value = hi[c] + step if rng.random() < 0.5 else lo[c] - step
        if whole[c]:  # a whole number beyond the range: a detector cannot win on a fraction in a count column
            value = np.ceil(value) if value > hi[c] else np.floor(value)
        out.iloc[i, out.columns.get_loc(c)] = value
    return out, np.ones(len(X), dtype=bool)


def _assembled(X, rng):
    out = X.copy()
    for c in X.columns:
        out[c] = X[c].to_numpy()[rng.permutation(len(X))]
    changed = (out.astype(object).ne(X.astype(object)) & ~(out.isna() & X.isna())).any(axis=1).to_numpy()
    return out, changed


def corrupt(task, test, train, rng):
    """The corrupted copy of ``test`` for an injected-anomaly task, and which rows it changed."""
    numeric = _numeric(test)
    if task == "swap-num":
        return _swap_within(test, numeric, rng)
    if task == "swap-cat":
        return _swap_within(test, [c for c in test.columns if c not in numeric], rng)
    if task == "out-of-range":
        return _out_of_range(test, train, numeric, rng)
    return _assembled(test, rng)


def task_sets(task, X, y, rng):
    """``[(train, scored rows, is outlier), ...]``: one set per class for novelty, else one; [] if not applicable."""
    if task == "novelty":
        sets = []
        for k in sorted(y.unique()):
            normal = np.flatnonzero((y == k).to_numpy())
            fit, keep = _split(len(normal), rng)
            scored = pd.concat([X.iloc[normal[keep]], X[(y != k).to_numpy()]], ignore_index=True)
            sets.append((X.iloc[normal[fit]].reset_index(drop=True), scored,
                         np.r_[np.zeros(len(keep), bool), np.ones(int((y != k).sum()), bool)]))
        return sets
    if task == "rare-class":
        counts = y.value_counts()
        rare = counts.idxmin()
        others = np.flatnonzero((y != rare).to_numpy())
        n_rare = min(int(counts[rare]), max(2, int(round(RARE_SHARE * len(others) / (1 - RARE_SHARE)))))
        rows = np.r_[others, rng.choice(np.flatnonzero((y == rare).to_numpy()), n_rare, replace=False)]
        fit, keep = _split(len(rows), rng)
        outlier = (y.iloc[rows[keep]] == rare).to_numpy()
        if outlier.all() or not outlier.any():
            return []
        return [(X.iloc[rows[fit]].reset_index(drop=True), X.iloc[rows[keep]].reset_index(drop=True), outlier)]
    fit, keep = _split(len(X), rng)
    train, test = X.iloc[fit].reset_index(drop=True), X.iloc[keep].reset_index(drop=True)
    bad, changed = corrupt(task, test, train, rng)
    if changed.sum() < 5:
        return []
    scored = pd.concat([test, bad[changed]], ignore_index=True)
    return [(train, scored, np.r_[np.zeros(len(test), bool), np.ones(int(changed.sum()), bool)])]


# --------------------------------------------------------------------------------- detectors
def _encoder(train):
    numeric = _numeric(train)
    categorical = [c for c in train.columns if c not in numeric]
    parts = []
    if numeric:
        parts.append(("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numeric))
    if categorical:
        parts.append(("cat", make_pipeline(SimpleImputer(strategy="constant", fill_value="(missing)"),
                                           OneHotEncoder(handle_unknown="ignore", sparse_output=False)), categorical))
    return ColumnTransformer(parts).fit(train.astype({c: object for c in categorical}))


def _tails(train, scored):
    """PyOD's ECOD/COPOD pieces: -log left and right empirical CDFs and the skewness-corrected tail."""
    Z = np.vstack([train, scored])
    u_left = -np.log(rankdata(Z, method="max", axis=0) / len(Z))
    u_right = -np.log(rankdata(-Z, method="max", axis=0) / len(Z))
    sign = np.sign(np.nan_to_num(skew(Z, axis=0)))
    u_skew = u_left * -np.sign(sign - 1) + u_right * np.sign(sign + 1)
    return u_left[len(train):], u_right[len(train):], u_skew[len(train):]


def ecod_scores(train, scored):
    """ECOD (Li et al. 2022): per cell the largest of the left, right and skew tails, summed (as PyOD)."""
    u_left, u_right, u_skew = _tails(train, scored)
    return np.maximum(u_skew, np.maximum(u_left, u_right)).sum(axis=1)


def copod_scores(train, scored):
    """COPOD (Li et al. 2020): per cell the larger of the skew tail and the mean of both tails, summed (as PyOD)."""
    u_left, u_right, u_skew = _tails(train, scored)
    return np.maximum(u_skew, (u_left + u_right) / 2).sum(axis=1)


def avf_scores(train, scored):
    """AVF (Koufakou et al. 2007): minus the mean training frequency of a row's observed values."""
    total, count = np.zeros(len(scored)), np.zeros(len(scored))
    for c in train.columns:
        a, b = train[c], scored[c]
        if c in _numeric(train):
            edges = np.unique(np.nanquantile(a.to_numpy(dtype=float), np.linspace(0, 1, 11)[1:-1]))
            a = pd.Series(np.where(a.isna(), np.nan, np.searchsorted(edges, a.to_numpy(dtype=float))))
            b = pd.Series(np.where(b.isna(), np.nan, np.searchsorted(edges, b.to_numpy(dtype=float))))
        freq = a.dropna().astype(str).value_counts(normalize=True)
        seen = b.notna().to_numpy()
        total[seen] += b[seen].astype(str).map(freq).fillna(0.0).to_numpy()
        count[seen] += 1
    return -total / np.maximum(count, 1)


def _pyod(name):
    try:
        if name == "ECOD":
            from pyod.models.ecod import ECOD
            return ECOD
        from pyod.models.copod import COPOD
        return COPOD
    except ImportError:
        return None


#: the bayesnb detectors by name (each a fresh unfitted detector)
NB_DETECTORS = {"NB": NBOutlierDetector,
                "NB-density": lambda: NBOutlierDetector(statistic="density"),
                "NB-naive": lambda: NBOutlierDetector(NaiveBayes(), statistic="density")}

#: rows the NB detectors refused (a value outside a family's support is -inf without a refusal; a call
#: still refused is scored row by row, a refused row as impossible, log p(x) = -inf)
REFUSED = {"rows": 0, "calls": 0}


def _nb_scores(detector, scored):
    try:
        return detector.score_samples(scored)
    except ValueError:
        REFUSED["calls"] += 1
    out = np.empty(len(scored))
    for i in range(len(scored)):
        try:
            out[i] = detector.score_samples(scored.iloc[[i]])[0]
        except ValueError:
            out[i] = -np.inf
            REFUSED["rows"] += 1
    return out


def _standardised(detector, train, scored):
    """``-log p(x)`` of ``scored`` as a z-score against ``detector``'s training rows (median, sd of the finite)."""
    ref = -detector.score_samples(train)
    ref = ref[np.isfinite(ref)]
    return (-_nb_scores(detector, scored) - np.median(ref)) / (ref.std() or 1.0)


def outlier_scores(name, train, scored, seed):
    """Higher = more unusual, for detector ``name`` fitted on ``train``; None where it does not apply."""
    if name == "NB-max":  # a candidate: the larger standardised -log p(x) of the structure and the naive model
        return np.maximum(_standardised(NBOutlierDetector(statistic="density").fit(train), train, scored),
                          _standardised(NBOutlierDetector(NaiveBayes(), statistic="density").fit(train), train, scored))
    if name in NB_DETECTORS:
        return -_nb_scores(NB_DETECTORS[name]().fit(train), scored)
    if name == "AVF":
        return None if not [c for c in train.columns if c not in _numeric(train)] else avf_scores(train, scored)
    encoder = _encoder(train)
    cat = {c: object for c in train.columns if c not in _numeric(train)}
    A, B = encoder.transform(train.astype(cat)), encoder.transform(scored.astype(cat))
    if name == "IForest":
        return -IsolationForest(random_state=seed).fit(A).score_samples(B)
    if name == "LOF":
        return -LocalOutlierFactor(novelty=True).fit(A).score_samples(B)
    cls = _pyod(name)
    if cls is not None:
        return cls().fit(A).decision_function(B)
    return ecod_scores(A, B) if name == "ECOD" else copod_scores(A, B)


# ----------------------------------------------------------------------------------- running
def print_progress(rows, table, task):
    """Print each detector's mean AUC so far on ``table`` and ``task`` (over its seeds and sets)."""
    done = pd.DataFrame([r for r in rows if r["table"] == table and r["task"] == task])
    if len(done):
        aucs = done.filter(like="auc_").mean().round(3)
        print(f"  {task} | {table} | " + ", ".join(f"{c[4:]} {v}" for c, v in aucs.items()), flush=True)


def table_means(g):
    """Each table's mean over its seeds, of the means over each seed's sets (rows of one task)."""
    return g.groupby(["table", "set"], sort=False).mean(numeric_only=True).groupby("table", sort=False).mean()


def _ranked(s):
    """Scores with +-inf replaced by values just beyond the finite ones (the metrics need finite scores)."""
    finite = s[np.isfinite(s)]
    top, bottom = (finite.max(), finite.min()) if finite.size else (0.0, 0.0)
    return np.where(s == np.inf, top + 1.0, np.where(s == -np.inf, bottom - 1.0, s))


def run(tables, tasks, detectors, seeds):
    """Rows ``(task, table, detector, seed, auc, ap)``."""
    rows = []
    for table, (X, y) in tables.items():
        for task in tasks:
            for seed in range(seeds):
                rng = np.random.default_rng([seed, TASKS.index(task), len(X)])
                sets = task_sets(task, X, y, rng)
                for name in detectors:
                    aucs, aps = [], []
                    for train, scored, outlier in sets:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            s = outlier_scores(name, train, scored, seed)
                        if s is None:
                            break
                        s = _ranked(s)
                        aucs.append(roc_auc_score(outlier, s))
                        aps.append(average_precision_score(outlier, s))
                    if aucs:
                        rows.append((task, table, name, seed, np.mean(aucs), np.mean(aps)))
    return pd.DataFrame(rows, columns=["task", "table", "detector", "seed", "auc", "ap"])


def _cell(values):
    return f"{np.mean([v[0] for v in values]):.3f} ({np.mean([v[1] for v in values]):.3f})"


def report(results, tables):
    """Print AUC (AP) per task and table, the mean over the tables, and the issue's bar."""
    mean = {key: (g["auc"].mean(), g["ap"].mean()) for key, g in results.groupby(["task", "table", "detector"])}
    names = [d for d in DETECTORS + CANDIDATES if d in set(results["detector"])]
    print("| task | table | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    bars = []
    for task in TASKS:
        present = [t for t in tables if any((task, t, d) in mean for d in names)]
        for table in present:
            cells = [_cell([mean[task, table, d]]) if (task, table, d) in mean else "-" for d in names]
            print(f"| {task} | {table} | " + " | ".join(cells) + " |")
        if not present:
            continue
        cells, auc = [], {}
        for d in names:
            values = [mean[task, t, d] for t in present if (task, t, d) in mean]
            auc[d] = np.mean([v[0] for v in values]) if len(values) == len(present) else np.nan
            cells.append("-" if not values else _cell(values) + ("" if len(values) == len(present) else
                                                                 f" [{len(values)} table(s)]"))
        print(f"| {task} | **mean of {len(present)}** | " + " | ".join(cells) + " |")
        against = ("IForest",) if task == "novelty" else BASELINES if task in INJECTED else ()
        against = [d for d in against if d in auc and np.isfinite(auc[d])]
        for nb in [d for d in ("NB", *CANDIDATES) if d in auc] if against else ():
            best = max(against, key=auc.get)
            verdict = "met" if auc[nb] >= auc[best] else "NOT met"
            bars.append(f"bar, {task}: {nb} {auc[nb]:.3f} vs best of {'/'.join(against)} ({best}) "
                        f"{auc[best]:.3f}: {verdict}")
    print()
    print("\n".join(bars))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["votes", "penguins", "cancer", "wine"],
                        help="bundled tables: votes penguins cancer wine (default: all four)")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--detectors", nargs="+", default=list(DETECTORS), choices=DETECTORS + CANDIDATES,
                        help="default: all but the candidates (NB-max: the larger of the structure's and the naive "
                             "model's log p(x) standardised against the training rows)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="folder with adult.data and/or NAME.csv (label last)")
    parser.add_argument("--rows", type=int, default=3000, help="rows sampled from each --data-dir table")
    parser.add_argument("--quick", action="store_true", help="1 seed, house votes and penguins")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.tables = 1, [t for t in args.tables if t in ("votes", "penguins")]
    tables, notes = load_tables(args.tables, args.data_dir, args.rows)
    for note in notes:
        print(f"note: {note}")
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs); "
          f"ECOD/COPOD from {'PyOD' if _pyod('ECOD') else 'the definitions in this script (PyOD not installed)'}")
    start = time.perf_counter()
    results = run(tables, args.tasks, args.detectors, args.seeds)
    print(f"AUC (average precision), mean over {args.seeds} seed(s); {time.perf_counter() - start:.0f} s\n")
    report(results, list(tables))
    if REFUSED["calls"]:
        print(f"\nnote: {REFUSED['calls']} NB scoring call(s) were refused for a value outside a family's support; "
              f"{REFUSED['rows']} row(s) scored one by one were refused and counted as impossible (log p(x) = -inf)")
    print(f"\nload after: {os.getloadavg()[0]:.2f}")
    return results


if __name__ == "__main__":
    main()
