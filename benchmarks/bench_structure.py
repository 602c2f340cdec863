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

With ``--adult DIR``: ``NaiveBayes(structure=...)`` on the UCI census table's official split
(fit on adult.data, scored on adult.test): test accuracy, log loss, fit seconds and the
structure ``auto`` chose (benchmarks/_census.py reads the files; skipped with a note when absent).

With ``--large``: fit and predict_proba times (best of 3) at 100,000 rows x 20 ternary columns
(two of them dependent), complete and with 5% of the cells missing, relative to naive.

With ``--impute``: imputation accuracy on house votes. For each seed, 20% of the observed cells
are blanked at random (MCAR); each model is fitted on the blanked table and its labels, imputes
it (``strategy="mode"``, with the party given and without it), and is scored by the share of
blanked cells it restores. Models: CategoricalNB naive, tan, auto, and the latent-class naive
model (``fit_latent_class(X, y, n_components="auto")``, ``impute(X, latent=fit)``).

Run:  python benchmarks/bench_structure.py [--quick] [--seeds N] [--large] [--impute] [--penguins] [--adult DIR]
      (``--quick``: house votes only, one repetition)
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
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


def census(folder):
    """Official split of the census table: test accuracy and log loss per structure."""
    tables = load_adult(folder)
    if tables is None:
        print(NOT_GIVEN)
        return None
    train, test = tables
    Xtr, ytr = train.drop(columns=TARGET), train[TARGET].to_numpy()
    Xte, yte = test.drop(columns=TARGET), test[TARGET].to_numpy()
    out = {}
    print(f"{'structure':10s} {'chosen':8s} {'accuracy':>9s} {'log loss':>9s} {'fit s':>7s}")
    for s in STRUCTURES:
        t = time.perf_counter()
        m = bayesnb.NaiveBayes(structure=s).fit(Xtr, ytr)
        fit_s = time.perf_counter() - t
        proba = m.predict_proba(Xte)
        true = proba[np.arange(len(yte)), np.searchsorted(m.classes_, yte)]
        acc = float(np.mean(m.classes_[proba.argmax(axis=1)] == yte))
        ll = float(-np.mean(np.log(np.clip(true, 1e-300, None))))
        out[s] = {"accuracy": acc, "log_loss": ll, "chosen": m.structure_kind_}
        print(f"{s:10s} {m.structure_kind_:8s} {acc:9.4f} {ll:9.4f} {fit_s:7.1f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--impute", action="store_true")
    ap.add_argument("--penguins", action="store_true")
    ap.add_argument("--adult", default=None, metavar="DIR", help="folder with UCI adult.data and adult.test")
    args = ap.parse_args(argv)
    if args.adult is not None:
        return {"census": census(args.adult)}
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
