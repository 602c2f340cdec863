"""Structure benchmark: CategoricalNB naive vs TAN vs k-DB vs auto, 10-fold CV accuracy.

Tables: house votes (16 categorical columns with missing cells, [party]); in the full run also
a simulated XOR table (``b = a XOR y`` with 10% noise, plus 3 weakly informative columns: the
features tell nothing alone and everything together) and a table simulated from a naive model.

For each table and structure: mean +- standard error of the accuracy over stratified 10-fold CV
(shuffled, ``--seeds`` repetitions), the number of folds where ``auto`` chose each structure,
and fit / predict time relative to naive.

With ``--penguins``: the same for ``NaiveBayes(structure=...)`` on the bundled penguins table
(344 rows: island, sex categorical; bill length and depth, flipper length, body mass and year
numeric; [species]), a mixed table: numeric columns are discretised into quantile bins for the
structure and as parents, and keep the family ``features="auto"`` chose for them, one posterior
per (class, parents' states).

With ``--large``: fit and predict_proba times (best of 3) at 100,000 rows x 20 ternary columns
(two of them dependent), complete and with 5% of the cells missing, relative to naive.

With ``--impute``: imputation accuracy on house votes. For each seed, 20% of the observed cells
are blanked at random (MCAR); each model is fitted on the blanked table and its labels, imputes
it (``strategy="mode"``, with the party given and without it), and is scored by the share of
blanked cells it restores. Models: CategoricalNB naive, tan, auto, and the latent-class naive
model (``fit_latent_class(X, y, n_components="auto")``, ``impute(X, latent=fit)``).

With ``--sklearn``: the same for ``NaiveBayes(structure=...)`` on scikit-learn's bundled wine
(178 rows, 13 numeric columns, 3 classes), breast cancer (569 rows, 30 numeric columns, 2
classes), iris (150 rows, 4 numeric columns, 3 classes) and diabetes (442 rows, 10 numeric
columns; the target cut at its tertiles, 3 classes) tables: numeric columns only, each in the family ``features="auto"``
chooses for it (as in ``structure="naive"``, today's ``NaiveBayes()``), one posterior per
(class, parents' bins).

With ``--adult DIR``: the UCI census income table (:mod:`_census`; not shipped, "a table the
project has not seen"): ``NaiveBayes(structure=...)`` fitted on the official training split
(32,561 rows; 8 categorical and 6 numeric columns, missing cells in 3 columns), accuracy on the
official test split (16,281 rows) with its standard error ``sqrt(p (1 - p) / n)`` (and
``naive Gaussian``: the naive model with every numeric column Gaussian, to show what the
family choice of ``features="auto"``, which every structure's numeric nodes keep, is worth), the
structure ``auto`` chose, and fit / predict seconds; ``--adult-rows N`` fits on the first N
training rows instead (``--seeds`` > 1 is not used: the split is fixed). Then the same with
``CategoricalNB(structure=...)`` on the 8 categorical columns alone. With ``--adult DIR
--impute``: imputation on the first ``--adult-rows`` (default 2000) training rows with 30% of
the observed cells blanked MCAR (``bench_impute.py``'s masks and scores: categorical
accuracy, numeric NRMSE), ``NaiveBayes(structure=naive / tan / auto)`` against the latent-class
naive model (``fit_latent_class(X, y, n_components="auto")``), ``impute(strategy="auto")``
with and without the label, ``--seeds`` seeds (default 3).

Run:  python benchmarks/bench_structure.py [--quick] [--seeds N] [--large] [--impute] [--penguins]
                                            [--sklearn] [--adult DIR [--adult-rows N]]
      (``--quick``: house votes only, one repetition)
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import Counter

import numpy as np
import pandas as pd
from _census import NOT_GIVEN, TARGET, load_adult
from bench_impute import blank as blank_cells
from bench_impute import mask as mask_cells
from bench_impute import score as score_cells
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.model_selection import StratifiedKFold

import bayesnb
from bayesnb.datasets import load_house_votes, load_penguins

try:  # run as a script (benchmarks/ on the path) or as a module
    from _census import NOT_GIVEN, TARGET, load_adult
except ImportError:  # pragma: no cover
    from benchmarks._census import NOT_GIVEN, TARGET, load_adult

STRUCTURES = ("naive", "tan", "kdb", "auto")


def house_votes():
    d = load_house_votes()
    return d.drop(columns="party"), d["party"].to_numpy()


def xor_table(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.9, a ^ y, 1 - (a ^ y))
    weak = (rng.random((n, 3)) < np.where(y == 1, 0.6, 0.4)[:, None]).astype(int)
    return np.column_stack([a, b, weak]), y


def naive_table(n=1000, d=10, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(4), size=(3, d))  # (class, feature, value)
    u = rng.random((n, d))[..., None]
    X = (u > np.cumsum(p[y], axis=-1)).sum(-1)
    return X, y


def penguins():
    d = load_penguins()
    return d.drop(columns="species"), d["species"].to_numpy()


def sklearn_table(loader):
    d = loader(as_frame=True)
    y = d.target.to_numpy()
    if loader is load_diabetes:  # a regression target: its tertiles
        y = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    return d.data, y


def census(folder, rows=None):
    """Official split: test accuracy (and its standard error) and log loss of every structure, fitted on the training split."""
    got = load_adult(folder)
    if got is None:
        print(f"\n{NOT_GIVEN}")
        return None
    train, test = got
    if rows:
        train = train.iloc[:rows]
    Xtr, ytr = train.drop(columns=TARGET), train[TARGET].to_numpy()
    Xte, yte = test.drop(columns=TARGET), test[TARGET].to_numpy()
    print(f"\ncensus income (NaiveBayes, official split): fitted on {len(ytr)} rows, tested on {len(yte)}; "
          f"{Xtr.isna().any(axis=1).mean():.1%} of training rows have a missing cell")
    print(f"{'structure':14s} {'test accuracy':>18s} {'log loss':>9s} {'fit s':>7s} {'predict s':>10s}")
    out = {}
    cats = [c for c in Xtr.columns if not pd.api.types.is_numeric_dtype(Xtr[c])]
    nums = [c for c in Xtr.columns if c not in cats]
    gaussian = {tuple(cats): bayesnb.Categorical(), tuple(nums): bayesnb.Gaussian()}
    for s in ("naive Gaussian", *STRUCTURES):  # naive with every numeric column Gaussian: the family choice's worth
        t0 = time.perf_counter()
        m = (bayesnb.NaiveBayes(features=gaussian) if s == "naive Gaussian"
             else bayesnb.NaiveBayes(structure=s)).fit(Xtr, ytr)
        t1 = time.perf_counter()
        proba = m.predict_proba(Xte)
        t2 = time.perf_counter()
        acc = float(np.mean(m.classes_[proba.argmax(axis=1)] == yte))
        loss = float(-np.mean(np.log(np.clip(proba[np.arange(len(yte)), np.searchsorted(m.classes_, yte)], 1e-300, None))))
        se = np.sqrt(acc * (1 - acc) / len(yte))
        print(f"{s:14s} {acc:8.4f} +- {se:.4f} {loss:9.4f} {t1 - t0:7.1f} {t2 - t1:10.1f}"
              + (f"   (chose {m.structure_kind_})" if s == "auto" else ""))
        if s == "auto":
            print(m.structure_scores_.round(1).to_string(index=False))
        out[s] = acc
    print(f"\nthe {len(cats)} categorical columns only (CategoricalNB), same split")
    for s in STRUCTURES:
        m = bayesnb.CategoricalNB(structure=s).fit(Xtr[cats], ytr)
        acc = float(np.mean(m.predict(Xte[cats]) == yte))
        print(f"{s:14s} {acc:8.4f} +- {np.sqrt(acc * (1 - acc) / len(yte)):.4f}"
              + (f"   (chose {m.structure_kind_})" if s == "auto" else ""))
        out[f"categorical {s}"] = acc
    return out


def census_impute(folder, rows=2000, seeds=3):
    """30% MCAR on census rows: structures against the latent-class model (module docstring)."""
    got = load_adult(folder)
    if got is None:
        print(f"\n{NOT_GIVEN}")
        return None
    tr = got[0].iloc[:rows]
    X, y = tr.drop(columns=TARGET), tr[TARGET].to_numpy(dtype=object)
    X = X.astype({c: float for c in X.columns if pd.api.types.is_numeric_dtype(X[c])})
    cats = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    nums = [c for c in X.columns if c not in cats]
    res, chosen = {}, Counter()
    t0 = time.perf_counter()
    for seed in range(seeds):
        M = mask_cells(X, "MCAR 30%", np.random.default_rng(seed))
        Xm = blank_cells(X, M)
        for name in ("naive", "tan", "auto", "latent class"):
            m = bayesnb.NaiveBayes(structure="naive" if name == "latent class" else name).fit(Xm, y)
            if name == "auto":
                chosen[m.structure_kind_] += 1
            for tag, yy in (("", None), (" +y", y)):
                kw = {}
                if name == "latent class":
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        kw["latent"] = m.fit_latent_class(Xm, yy, n_components="auto", random_state=seed)
                F = m.impute(Xm, strategy="auto", y=yy, **kw)
                res.setdefault(name + tag, []).append(score_cells(X, F, M, cats, nums)[:2])
    print(f"\ncensus income, first {rows} training rows, 30% of the observed cells blanked MCAR, {seeds} seeds "
          f"(mean +- sd; {time.perf_counter() - t0:.0f} s)")
    print(f"{'model':16s} {'categorical accuracy':>22s} {'numeric NRMSE':>18s}")
    for name, r in res.items():
        a = np.array(r)
        print(f"{name:16s} {a[:, 0].mean():12.4f} +- {a[:, 0].std(ddof=1):.4f} "
              f"{a[:, 1].mean():9.4f} +- {a[:, 1].std(ddof=1):.4f}")
    print("auto chose:", dict(chosen))
    return {k: np.mean(v, axis=0).tolist() for k, v in res.items()}


def run(name, X, y, seeds, estimator=bayesnb.CategoricalNB):
    acc = {s: [] for s in STRUCTURES}
    t_fit = Counter()
    t_pred = Counter()
    chosen = Counter()
    for seed in range(seeds):
        for tr, te in StratifiedKFold(10, shuffle=True, random_state=seed).split(np.zeros(len(y)), y):
            Xtr = X.iloc[tr] if hasattr(X, "iloc") else X[tr]
            Xte = X.iloc[te] if hasattr(X, "iloc") else X[te]
            for s in STRUCTURES:
                t0 = time.perf_counter()
                m = estimator(structure=s).fit(Xtr, y[tr])
                t1 = time.perf_counter()
                acc[s].append(np.mean(m.predict(Xte) == y[te]))
                t_pred[s] += time.perf_counter() - t1
                t_fit[s] += t1 - t0
                if s == "auto":
                    chosen[m.structure_kind_] += 1
    print(f"\n{name} ({estimator.__name__}): {len(y)} rows, {X.shape[1]} columns, {seeds} x 10-fold CV")
    print(f"{'structure':10s} {'accuracy':>16s} {'fit x naive':>12s} {'predict x naive':>16s}")
    for s in STRUCTURES:
        a = np.array(acc[s])
        print(f"{s:10s} {a.mean():8.4f} +- {a.std(ddof=1) / np.sqrt(len(a)):.4f} "
              f"{t_fit[s] / t_fit['naive']:12.1f} {t_pred[s] / t_pred['naive']:16.1f}")
    print("auto chose:", dict(chosen))
    return {s: float(np.mean(acc[s])) for s in STRUCTURES}


def large(n=100_000, d=20, reps=3):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, d)).astype(float)
    X[:, 1] = np.where(rng.random(n) < 0.8, X[:, 0], X[:, 1])
    print(f"\n{n} rows x {d} columns: seconds (best of {reps}), ratio to naive")
    for miss in (0.0, 0.05):
        Xm = X.copy()
        Xm[rng.random(Xm.shape) < miss] = np.nan
        base = None
        for s in ("naive", "tan", "kdb"):
            fit, pred = [], []
            for _ in range(reps):
                t0 = time.perf_counter()
                m = bayesnb.CategoricalNB(structure=s).fit(Xm, y)
                t1 = time.perf_counter()
                m.predict_proba(Xm)
                fit.append(t1 - t0)
                pred.append(time.perf_counter() - t1)
            f, p = min(fit), min(pred)
            base = base or (f, p)
            print(f"missing {miss:.0%} {s:6s} fit {f:6.2f} ({f / base[0]:4.1f}x)  predict {p:6.2f} ({p / base[1]:4.1f}x)")


def blank(X, frac, rng):
    """A copy of X with ``frac`` of its observed cells blanked (MCAR), and the blanked mask."""
    obs = X.notna().to_numpy()
    hide = obs & (rng.random(obs.shape) < frac)
    return X.mask(hide), hide


def impute_accuracy(seeds=5, frac=0.2):
    X, y = house_votes()
    models = ("naive", "tan", "auto", "latent class")
    acc = {(m, g): [] for m in models for g in (True, False)}
    chosen = Counter()
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        Xb, hide = blank(X, frac, rng)
        truth = X.to_numpy()[hide]
        for name in models:
            m = bayesnb.CategoricalNB(structure="naive" if name == "latent class" else name).fit(Xb, y)
            if name == "auto":
                chosen[m.structure_kind_] += 1
            kw = {}
            if name == "latent class":
                kw["latent"] = m.fit_latent_class(Xb, y, n_components="auto", random_state=seed)
            for given in (True, False):
                out = m.impute(Xb, y=y if given else None, **kw)
                acc[(name, given)].append(np.mean(out.to_numpy()[hide] == truth))
    print(f"\nhouse votes: share of blanked cells restored ({frac:.0%} of the observed cells blanked MCAR, "
          f"{seeds} seeds; mean +- standard error)")
    print(f"{'model':14s} {'party given':>18s} {'party unknown':>18s}")
    for name in models:
        cells = [np.array(acc[(name, g)]) for g in (True, False)]
        print(f"{name:14s} " + " ".join(f"{a.mean():10.4f} +- {a.std(ddof=1) / np.sqrt(len(a)):.4f}" for a in cells))
    print("auto chose:", dict(chosen))
    return {k: float(np.mean(v)) for k, v in acc.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--impute", action="store_true")
    ap.add_argument("--penguins", action="store_true")
    ap.add_argument("--sklearn", action="store_true", help="wine, breast cancer, iris, diabetes tertiles (NaiveBayes, numeric)")
    ap.add_argument("--adult", metavar="DIR", default=None, help="folder with UCI adult.data and adult.test")
    ap.add_argument("--adult-rows", type=int, default=None, help="fit on the first N training rows")
    args = ap.parse_args(argv)
    if args.adult is not None:
        if args.impute:
            return {"census impute": census_impute(args.adult, args.adult_rows or 2000, args.seeds or 3)}
        return {"census": census(args.adult, args.adult_rows)}
    if args.sklearn:
        return {name: run(name, *sklearn_table(loader), args.seeds or 1, bayesnb.NaiveBayes)
                for name, loader in (("wine", load_wine), ("breast cancer", load_breast_cancer), ("iris", load_iris),
                                     ("diabetes tertiles", load_diabetes))}
    if args.penguins:
        return {"penguins": run("penguins", *penguins(), args.seeds or 3, bayesnb.NaiveBayes)}
    if args.impute:
        return impute_accuracy(args.seeds or 5)
    if args.large:
        large()
        return None
    seeds = args.seeds or (1 if args.quick else 3)
    out = {"house votes": run("house votes", *house_votes(), seeds)}
    if not args.quick:
        out["xor"] = run("simulated XOR", *xor_table(), seeds)
        out["naive"] = run("simulated naive", *naive_table(), seeds)
    return out


if __name__ == "__main__":
    main()
