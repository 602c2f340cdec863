"""Benchmark: what the census TSTR gap (synthetic vs real training rows) is made of.

Issue 14's protocol (``bench_synthetic.py --adult``): a HistGradientBoosting classifier trained
on 10,000 rows, tested on UCI Adult's ``adult.test``. This script takes that gap apart with
model-free controls built from 10,000 real rows of ``adult.data`` (seed 0):

- ``real``: the rows as they are (TRTR);
- ``real, complete rows only``: the training rows drawn among rows without a missing cell
  (what a sampler that never draws a missing cell can at best give);
- ``within-class shuffle``: each column permuted independently within each income class.
  This is exactly a sample of a naive Bayes model with *perfect* class-conditional marginals:
  the ceiling of any ``structure="naive"`` sampler;
- ``within-class shuffle keeping pair (a, b)``: the same, with ``a`` and ``b`` permuted
  together: how much of the gap a single class-conditional dependence gives back
  (the top pairs are printed);
- the bayesnb sampler (``--structure``, default ``tan``), its accuracy on all test rows and
  on the complete test rows only.

Then, for the bayesnb sampler against the real rows: permutation importances (on
``adult.test``) of the classifier trained on each, the positive-capital-gain share and median
per class, the share of rows whose (education, education-num) pair never occurs in the real
data, and the share of rows with a missing cell.

Usage::

    python benchmarks/bench_synthetic_gap.py --adult DIR [--structure tan] [--k 2] [--pairs 10]
    python benchmarks/bench_synthetic_gap.py --adult DIR --seeds 5   # only the seed spread of TSTR
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import _census
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.inspection import permutation_importance
from threadpoolctl import threadpool_limits

from bayesnb import NaiveBayes

TARGET = _census.TARGET


def design(frames):
    """Joint ordinal codes of the categorical columns (missing a category), numerics as float."""
    cols = [c for c in frames[0].columns if c != TARGET]
    out = [[] for _ in frames]
    mask = []
    for c in cols:
        if c in _census.NUMERIC:
            for o, f in zip(out, frames):
                o.append(pd.to_numeric(f[c]).to_numpy(dtype=float))
            mask.append(False)
        else:
            joined = pd.concat([f[c].astype(object).fillna("<missing>") for f in frames], ignore_index=True)
            codes = pd.factorize(joined)[0].astype(float)
            start = 0
            for o, f in zip(out, frames):
                o.append(codes[start:start + len(f)])
                start += len(f)
            mask.append(True)
    return [np.column_stack(o) for o in out], np.array(mask), cols


def hgb(train, test, seed=0):
    """The fitted classifier and its test accuracy (train on ``train``, test on ``test``)."""
    (Xa, Xb), mask, _ = design([train, test])
    clf = HistGradientBoostingClassifier(categorical_features=mask, random_state=seed)
    with threadpool_limits(1, user_api="openmp"):
        clf.fit(Xa, train[TARGET].to_numpy())
        return clf, float(np.mean(clf.predict(Xb) == test[TARGET].to_numpy())), Xb


def shuffle_within_class(df, rng, keep=()):
    """Permute each feature independently within each class; the columns in ``keep`` together."""
    out = df.copy()
    for idx in df.groupby(TARGET).indices.values():
        together = rng.permutation(idx)
        for c in df.columns:
            if c == TARGET:
                continue
            perm = together if c in keep else rng.permutation(idx)
            out.iloc[idx, out.columns.get_loc(c)] = df.iloc[perm][c].to_numpy()
    return out


def seed_spread(full, test, n, seeds):
    """TRTR and TSTR over ``seeds`` seeds (the real rows, the draws and the classifier reseeded)."""
    X0, y0 = full.drop(columns=TARGET), full[TARGET]
    models = {"naive": NaiveBayes(), "tan": NaiveBayes(structure="tan"),
              "kdb (k=2)": NaiveBayes(structure="kdb", k=2), "kdb (k=3)": NaiveBayes(structure="kdb", k=3)}
    for m in models.values():
        m.fit(X0, y0)
    acc = {name: [] for name in ["real rows (TRTR)", *models]}
    for seed in range(seeds):
        acc["real rows (TRTR)"].append(hgb(full.sample(n=n, random_state=seed), test, seed)[1])
        for name, m in models.items():
            X, y = m.sample(n, random_state=seed)
            acc[name].append(hgb(X.assign(**{TARGET: y})[list(full.columns)], test, seed)[1])
    print(f"\nHGB on {n} rows, tested on adult.test; {seeds} seeds (real rows, draws, classifier), "
          "models fitted once on adult.data\n")
    print("| training rows | mean | sd | min | max |\n|---|---|---|---|---|")
    for name, a in acc.items():
        a = np.array(a)
        print(f"| {name} | {a.mean():.4f} | {a.std(ddof=1):.4f} | {a.min():.4f} | {a.max():.4f} |")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--adult", metavar="DIR", default=None, help="folder with adult.data and adult.test")
    p.add_argument("--structure", default="tan", help="bayesnb sampler's structure (default tan)")
    p.add_argument("--k", type=int, default=2, help="k of structure='kdb'")
    p.add_argument("--pairs", type=int, default=10, help="how many kept pairs to print")
    p.add_argument("--n", type=int, default=10_000, help="training rows (real and synthetic)")
    p.add_argument("--seeds", type=int, default=0,
                   help="only the seed spread: TRTR and TSTR (naive, tan, kdb k=2 and 3) over this many seeds")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    data = _census.load_adult(args.adult)
    if data is None:
        print(_census.NOT_GIVEN)
        return 0
    full, test = data
    if args.seeds:
        return seed_spread(full, test, args.n, args.seeds)
    rng = np.random.default_rng(0)
    real = full.sample(n=args.n, random_state=0).reset_index(drop=True)
    complete = full.dropna().sample(n=args.n, random_state=0).reset_index(drop=True)
    test_complete = test.dropna().reset_index(drop=True)
    t0 = time.perf_counter()
    model = NaiveBayes(structure=args.structure, k=args.k).fit(full.drop(columns=TARGET), full[TARGET])
    X, y = model.sample(args.n, random_state=0)
    syn = X.assign(**{TARGET: y})[list(full.columns)]
    print(f"bayesnb structure={args.structure!r} fit+sample: {time.perf_counter() - t0:.1f} s; "
          f"learned structure: {getattr(model, 'structure_kind_', args.structure)}, parents "
          f"{getattr(model, 'structure_', {})}")

    rows = []
    clf_real, acc, Xtest = hgb(real, test)
    rows.append(("real rows (TRTR)", acc, hgb(real, test_complete)[1]))
    rows.append(("real, complete rows only", hgb(complete, test)[1], hgb(complete, test_complete)[1]))
    naive = shuffle_within_class(real, rng)
    base = hgb(naive, test)[1]
    rows.append(("within-class shuffle (naive ceiling)", base, hgb(naive, test_complete)[1]))
    clf_syn, acc_syn, _ = hgb(syn, test)
    rows.append((f"bayesnb structure={args.structure!r}", acc_syn, hgb(syn, test_complete)[1]))
    print(f"\nHGB on {args.n} training rows, tested on adult.test ({len(test)} rows; "
          f"{len(test_complete)} without a missing cell)\n")
    print("| training rows | accuracy, all test rows | accuracy, complete test rows |\n|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a:.3f} | {b:.3f} |")

    feats = [c for c in full.columns if c != TARGET]
    gains = []
    for a, b in itertools.combinations(feats, 2):
        kept = shuffle_within_class(real, np.random.default_rng(1), keep=(a, b))
        gains.append((hgb(kept, test)[1] - base, a, b))
    gains.sort(reverse=True)
    print(f"\nWithin-class shuffle keeping one pair together: accuracy gain over the naive ceiling "
          f"({base:.3f}), top {args.pairs} of {len(gains)} pairs\n")
    print("| pair | gain |\n|---|---|")
    for g, a, b in gains[:args.pairs]:
        print(f"| {a} x {b} | {g:+.3f} |")

    yt = test[TARGET].to_numpy()
    with threadpool_limits(1, user_api="openmp"):
        imp_r = permutation_importance(clf_real, Xtest, yt, n_repeats=3, random_state=0).importances_mean
        imp_s = permutation_importance(clf_syn, Xtest, yt, n_repeats=3, random_state=0).importances_mean
    print("\nPermutation importance on adult.test (accuracy drop), HGB trained on real vs synthetic rows\n")
    print("| feature | real | synthetic |\n|---|---|---|")
    for f, a, b in sorted(zip(feats, imp_r, imp_s), key=lambda t: -t[1]):
        print(f"| {f} | {a:.4f} | {b:.4f} |")

    print("\nRelations, real vs synthetic rows\n")
    print("| quantity | real | synthetic |\n|---|---|---|")
    for cls in sorted(full[TARGET].unique()):
        r, s = real[real[TARGET] == cls]["capital-gain"], syn[syn[TARGET] == cls]["capital-gain"]
        print(f"| P(capital-gain > 0 \\| {cls}) | {np.mean(r > 0):.3f} | {np.mean(s > 0):.3f} |")
        print(f"| median capital-gain given > 0, {cls} | {r[r > 0].median():.0f} | {s[s > 0].median():.0f} |")
    pairs_real = set(zip(full["education"], full["education-num"]))
    off = np.mean([pr not in pairs_real for pr in zip(syn["education"], syn["education-num"])])
    print(f"| (education, education-num) pair never in adult.data | 0.000 | {off:.3f} |")
    print(f"| rows with a missing cell | {real.isna().any(axis=1).mean():.3f} | {syn.isna().any(axis=1).mean():.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
