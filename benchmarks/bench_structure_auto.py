"""Does ``structure="auto"`` generalise? CV log loss and accuracy of the structures, by edge score.

For each table: 5-fold stratified CV (shuffled, ``random_state=0``; mean +- standard error
over the folds) of

- ``NaiveBayes(structure=s)`` (``features="auto"``: numeric columns in their chosen family,
  entering the structure as 5 quantile-bin states), ``s`` in naive, tan, kdb (k=2), auto;
- ``CategoricalNB(structure=s)``: on an all-categorical table as it is; on a mixed table with
  every numeric column cut into 5 quantile bins learned on the training fold (missing stays
  missing);
- each structure other than naive twice: its edges weighted by the BDeu log Bayes factor
  (``edge_score="bdeu"``, the default; with ``--ess`` values) and by the conditional mutual
  information (``edge_score="mi"``, the behaviour before); with ``--edge-scores`` any of
  :data:`bayesnb.structure.EDGE_SCORES` (e.g. ``bdeu hierarchical``). The estimators have no
  ``edge_score`` parameter: the benchmark swaps the default of
  :func:`bayesnb.structure.edge_scores` / :func:`~bayesnb.structure.learn_parents` where the
  estimator modules imported them (:func:`edge_score`);
- scikit-learn ``LogisticRegression`` (one-hot categorical columns, standardised numeric ones,
  missing cells imputed with the most frequent category / the median; ``C=1``) for reference;
- issue 25's references, in the same folds: the default model ``NaiveBayes()`` (row "NaiveBayes()
  default"), scikit-learn's ``CategoricalNB`` and pgmpy's TAN (BDeu, ``--pgmpy-ess``, default 5,
  pgmpy's own) on every column cut into 10 quantile bins learned on the training fold, a missing
  cell a category of its own (``_references.py``; pgmpy's row is skipped with the install
  command when pgmpy is absent). Printed last: whether the default's mean log loss is <= both,
  and whether the best ``NaiveBayes`` / ``CategoricalNB`` row's mean accuracy is within 1 point
  of logistic regression's, per table.

Also reported: which structure ``auto`` chose on the folds (e.g. ``tan x4 naive x1``) and the
number of feature parents of the fitted structure (mean over folds).

Tables: house votes and penguins (bundled), with ``--sklearn`` scikit-learn's bundled wine and
breast cancer, with ``--census FILE`` UCI's ``adult.data`` (``--census-rows`` rows sampled with
``random_state=0``, default 10,000; ``?`` missing; see ``_census.py``), and every ``*.csv`` in ``--data-dir`` (target: the column named by ``--target``,
default the last one; a column is numeric when pandas reads it as a number with more than 10
distinct values, categorical otherwise). With ``--noise L``, each table again with one more
column of ``L`` random levels (uniform, independent of everything): the case where the mutual
information makes a high-cardinality column everyone's parent.

Run:  python benchmarks/bench_structure_auto.py [--sklearn] [--data-dir DIR] [--target NAME]
                                                 [--ess 1 10] [--folds 5] [--noise 50]
                                                 [--census adult.data] [--pgmpy-ess 5]
                                                 [--edge-scores bdeu mi hierarchical]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import time
import warnings
from collections import Counter

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import bayesnb
from bayesnb.structure import learn as S
from bayesnb.datasets import load_house_votes, load_penguins

import _census
import _references as R
from _tables import csv_tables


@contextlib.contextmanager
def edge_score(kind: str, ess: float = 1.0):
    """Make ``kind`` (and ``ess``) the default edge score of every bayesnb module that imported
    :func:`bayesnb.structure.edge_scores`, :func:`~bayesnb.structure.learn_parents` or
    :func:`~bayesnb.structure.learn.edge_scores_from_counts` (the CV guard's folds)."""
    def forced(f):  # over any edge_score the caller passes (the estimators pass their own, "bdeu" by default)
        return functools.wraps(f)(lambda *a, **kw: f(*a, **{**kw, "edge_score": kind, "ess": ess}))

    swaps = {S.edge_scores: forced(S.edge_scores), S.learn_parents: forced(S.learn_parents),
             # the CV guard's folds re-learn the edges from summed pair counts (bayesnb.structure.cv)
             S.edge_scores_from_counts: forced(S.edge_scores_from_counts)}
    undo = []
    for mod in [m for name, m in list(sys.modules.items()) if name.startswith("bayesnb") and m is not None]:
        for attr, value in list(vars(mod).items()):
            if any(value is f for f in swaps) and mod is not S:
                undo.append((mod, attr, value))
                setattr(mod, attr, swaps[value])
    try:
        yield
    finally:
        for mod, attr, value in undo:
            setattr(mod, attr, value)


def _numeric(X):
    return [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c])]


def _bin(Xtr, Xte, bins=5):
    """Numeric columns -> quantile-bin labels learned on ``Xtr`` (missing stays missing)."""
    Xtr, Xte = Xtr.copy(), Xte.copy()
    for c in _numeric(Xtr):
        edges = np.unique(np.nanquantile(Xtr[c].to_numpy(float), np.linspace(0, 1, bins + 1)[1:-1]))
        for X in (Xtr, Xte):
            v = X[c].to_numpy(float)
            X[c] = pd.Series(np.where(np.isnan(v), None, np.searchsorted(edges, v, side="right").astype(str)),
                             index=X.index, dtype=object)
    return Xtr, Xte


def _logreg(X):
    num = _numeric(X)
    cat = [c for c in X.columns if c not in num]
    return make_pipeline(ColumnTransformer([
        ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore")), cat),
        ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), num)]),
        LogisticRegression(C=1.0, max_iter=2000))


def _clean(X):
    """Object columns with None for missing; nullable integer columns as float."""
    X = X.copy()
    for c in X.columns:
        if str(X[c].dtype) in ("Int64", "Int32", "Float64"):
            X[c] = X[c].astype(float)
        elif X[c].dtype == object:
            X[c] = X[c].where(X[c].notna(), None)
    return X


def configurations(ess_values, kinds=("bdeu", "mi")):
    """(label, estimator class, structure, edge score, ess) rows, naive once per estimator."""
    rows = []
    for est in ("NaiveBayes", "CategoricalNB"):
        rows.append((f"{est} naive", est, "naive", "bdeu", 1.0))
        for s in ("tan", "kdb", "auto"):
            if "bdeu" in kinds:
                for ess in ess_values:
                    rows.append((f"{est} {s} bdeu(ess={ess:g})", est, s, "bdeu", ess))
            rows.extend((f"{est} {s} {k}", est, s, k, 1.0) for k in kinds if k != "bdeu")
    return rows


def run_table(name, X, y, ess_values, folds=5, pgmpy_ess=5.0, kinds=("bdeu", "mi")):
    X = _clean(X)
    y = np.asarray(y)
    classes = np.unique(y)
    cv = list(StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y))
    mixed = bool(_numeric(X))
    out = []
    for label, est, structure, kind, ess in configurations(ess_values, kinds):
        ll, acc, chose, npar = [], [], Counter(), []
        t0 = time.perf_counter()
        for tr, te in cv:
            Xtr, Xte = X.iloc[tr], X.iloc[te]
            if est == "CategoricalNB" and mixed:
                Xtr, Xte = _bin(Xtr, Xte)
            model = getattr(bayesnb, est)(structure=structure)
            with edge_score(kind, ess), warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                model.fit(Xtr, y[tr])
            p = model.predict_proba(Xte)
            ll.append(log_loss(y[te], p, labels=model.classes_))
            acc.append(accuracy_score(y[te], model.classes_[np.argmax(p, axis=1)]))
            chose[model.structure_kind_] += 1
            npar.append(sum(len(v) for v in model.structure_.values()))
        out.append(_row(name, label, ll, acc, time.perf_counter() - t0,
                        " ".join(f"{k} x{v}" for k, v in chose.items()) if structure == "auto" else "", np.mean(npar)))
    for label, fit_predict in references(X, pgmpy_ess):
        ll, acc = [], []
        t0 = time.perf_counter()
        try:
            for tr, te in cv:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    p, cls = fit_predict(X.iloc[tr], y[tr], X.iloc[te])
                ll.append(log_loss(y[te], p, labels=cls))
                acc.append(accuracy_score(y[te], cls[np.argmax(p, axis=1)]))
        except ImportError:
            print(f"# {name}: {label} skipped: pgmpy is not installed ({R.PGMPY_INSTALL})", flush=True)
            ll, acc = [np.nan] * 2, [np.nan] * 2
        out.append(_row(name, label, ll, acc, time.perf_counter() - t0, "", np.nan))
    return out


DEFAULT, CNB10, LOGREG = "NaiveBayes() default", "sklearn CategoricalNB 10 bins", "LogisticRegression"


def references(X, pgmpy_ess):
    """(label, fit_predict) of the reference rows; ``fit_predict(Xtr, ytr, Xte) -> (proba, classes)``.

    The default model ``NaiveBayes()`` as a user gets it; scikit-learn's ``CategoricalNB`` and
    pgmpy's TAN on 10 quantile bins of the training fold, missing cells a category of their own
    (:mod:`_references`); logistic regression (:func:`_logreg`)."""
    def default(Xtr, ytr, Xte):
        m = bayesnb.NaiveBayes().fit(Xtr, ytr)
        return m.predict_proba(Xte), m.classes_

    def cnb10(Xtr, ytr, Xte):
        return R.sklearn_categorical_nb(*_relabel(Xtr, Xte, ytr))

    def tan10(Xtr, ytr, Xte):
        return R.pgmpy_tan(*_relabel(Xtr, Xte, ytr), ess=pgmpy_ess)

    def logreg(Xtr, ytr, Xte):
        m = _logreg(X).fit(Xtr, ytr)
        return m.predict_proba(Xte), m.classes_

    return [(DEFAULT, default), (CNB10, cnb10), (f"pgmpy TAN 10 bins BDeu(ess={pgmpy_ess:g})", tan10), (LOGREG, logreg)]


def _relabel(Xtr, Xte, ytr):
    Ltr, Lte = R.quantile_labels(Xtr, Xte, bins=10)
    return Ltr, ytr, Lte


def bars(df):
    """Issue 25's bars per table, as a markdown table: the default's log loss against CategoricalNB on 10
    bins and pgmpy's TAN, and the best bayesnb configuration's accuracy within 1 point of logistic regression's."""
    lines = ["| table | default log loss | CategoricalNB 10 bins | pgmpy TAN | LogisticRegression | "
             "default <= CategoricalNB 10 bins | default <= pgmpy TAN | best bayesnb accuracy | LogisticRegression "
             "accuracy | best within 1 point |", "|---|---|---|---|---|---|---|---|---|---|"]
    for table, g in df.groupby("table", sort=False):
        r = {m: g[g["model"] == m].iloc[0] for m in g["model"]}
        tan = next(v for m, v in r.items() if m.startswith("pgmpy TAN"))
        ours = g[g["model"].str.startswith(("NaiveBayes", "CategoricalNB"))]
        best = ours.loc[ours["accuracy"].idxmax()]
        d, lr = r[DEFAULT], r[LOGREG]
        f = lambda v, m="log_loss": f"{v[m]:.4f} ± {v[m + '_se']:.4f}"  # noqa: E731
        yes = lambda ok: "n/a (skipped)" if ok is None else ("yes" if ok else "**no**")  # noqa: E731
        lines.append(f"| {table} | {f(d)} | {f(r[CNB10])} | {f(tan)} | {f(lr)} | "
                     f"{yes(d['log_loss'] <= r[CNB10]['log_loss'])} | "
                     f"{yes(None if np.isnan(tan['log_loss']) else d['log_loss'] <= tan['log_loss'])} | "
                     f"{f(best, 'accuracy')} ({best['model']}) | {f(lr, 'accuracy')} | "
                     f"{yes(best['accuracy'] >= lr['accuracy'] - 0.01)} |")
    return "\n".join(lines)


def _row(table, label, ll, acc, secs, chose, npar):
    se = lambda v: np.std(v, ddof=1) / np.sqrt(len(v))  # noqa: E731
    return {"table": table, "model": label, "log_loss": np.mean(ll), "log_loss_se": se(ll), "accuracy": np.mean(acc),
            "accuracy_se": se(acc), "parents": npar, "auto_chose": chose, "seconds": secs}


def summary(df, metric):
    """A markdown table: one row per (table, estimator), one column per structure and edge score."""
    df = df.assign(estimator=df["model"].str.split().str[0], config=df["model"].str.split(n=1).str[1].fillna(""))
    df = df[df["estimator"].isin(["NaiveBayes", "CategoricalNB", LOGREG])]
    configs = list(dict.fromkeys(c for c in df["config"] if c))
    lines = [f"| table | estimator | {' | '.join(configs)} | LogisticRegression |",
             "|---|---|" + "---|" * (len(configs) + 1)]
    for table, g in df.groupby("table", sort=False):
        lr = g[g["estimator"] == "LogisticRegression"].iloc[0]
        for est in ("NaiveBayes", "CategoricalNB"):
            cells = []
            for c in configs:
                r = g[(g["estimator"] == est) & (g["config"] == c)].iloc[0]
                chose = f" ({r['auto_chose']})" if r["auto_chose"] else ""
                cells.append(f"{r[metric]:.4f} ± {r[metric + '_se']:.4f}{chose}")
            lines.append(f"| {table} | {est} | {' | '.join(cells)} | {lr[metric]:.4f} ± {lr[metric + '_se']:.4f} |")
    return "\n".join(lines)


def tables(args):
    for name, X, y in _tables(args):
        yield name, X, y
        if args.noise:
            rng = np.random.default_rng(0)
            noise = np.array([f"v{i}" for i in range(args.noise)], dtype=object)[rng.integers(0, args.noise, len(X))]
            yield f"{name} + {args.noise}-level noise", X.assign(noise=noise), y


def _tables(args):
    votes = load_house_votes()
    yield "house votes", votes.drop(columns="party"), votes["party"]
    peng = load_penguins()
    yield "penguins", peng.drop(columns="species"), peng["species"]
    if args.sklearn:
        from sklearn.datasets import load_breast_cancer, load_wine

        for nm, loader in (("wine", load_wine), ("breast cancer", load_breast_cancer)):
            d = loader(as_frame=True)
            yield nm, d.data, d.target.astype(str)
    if args.census:
        d = _census._read(args.census)
        if args.census_rows and len(d) > args.census_rows:
            d = d.sample(n=args.census_rows, random_state=0).reset_index(drop=True)
        X = d.drop(columns=_census.TARGET).astype({c: float for c in _census.NUMERIC})
        yield f"census ({len(d):,} rows)", X, d[_census.TARGET].str.strip()
    if args.data_dir:
        yield from csv_tables(args.data_dir, args.target)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sklearn", action="store_true", help="also scikit-learn's wine and breast cancer tables")
    ap.add_argument("--data-dir", help="also every *.csv in this folder")
    ap.add_argument("--target", default=None, help="target column of the CSVs (default: the last)")
    ap.add_argument("--ess", type=float, nargs="+", default=[1.0], help="BDeu equivalent sample sizes")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--noise", type=int, default=0, help="also each table with a column of this many random levels")
    ap.add_argument("--census", help="also UCI's adult.data (this file; '?' is missing)")
    ap.add_argument("--census-rows", type=int, default=10_000, help="rows of --census kept (a sample, random_state=0)")
    ap.add_argument("--edge-scores", nargs="+", default=["bdeu", "mi"], choices=S.EDGE_SCORES,
                    help="edge scores compared (default bdeu mi; 'hierarchical': bayesnb.structure.hier_edges)")
    ap.add_argument("--pgmpy-ess", type=float, default=5.0, help="BDeu equivalent sample size of pgmpy's TAN")
    args = ap.parse_args(argv)
    rows = []
    for name, X, y in tables(args):
        t0 = time.perf_counter()
        new = run_table(name, X, y, args.ess, args.folds, args.pgmpy_ess, tuple(args.edge_scores))
        rows += new
        print(f"# {name}: {time.perf_counter() - t0:.0f} s", flush=True)
        for r in new:  # as it goes: the summary below comes only at the end
            print(f"#   {r['model']}: log loss {r['log_loss']:.4f} ± {r['log_loss_se']:.4f}, accuracy "
                  f"{r['accuracy']:.4f}, parents {r['parents']:.1f} {r['auto_chose']}", flush=True)
    df = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(df.round(4).to_string(index=False))
    for metric in ("log_loss", "accuracy"):
        print(f"\n{metric} (mean ± standard error over the folds; auto: the structure chosen on the folds)\n")
        print(summary(df, metric))
    print("\nissue 25's bars (mean ± standard error over the folds; best: the highest accuracy of the NaiveBayes and "
          "CategoricalNB rows)\n")
    print(bars(df))
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    print(f"\nload average at the end: {' '.join(f'{v:.2f}' for v in load)} on {os.cpu_count()} cores")
    return df


if __name__ == "__main__":
    main()
