"""Benchmark: private accuracy against the number of training rows, at epsilon in {0.5, 1, 5, inf}.

What docs/privacy.md's "within 0.2 points at epsilon = 1" depends on: the noise of a private
fit is the same whatever the number of rows, so its cost falls as the table grows. Per table, a
fixed stratified test set is held out; from the rest, training sets of ``n`` rows are drawn
(stratified, one per seed) and fitted with ``privacy=bayesnb.DP(epsilon, bounds=..., classes=...)``
(Laplace, noise seed ``1000 + seed``; ``inf`` = no privacy), everything declared as in
``bench_privacy.py``. Printed: test accuracy, mean ± sd over the seeds, and the majority-class
baseline of the test set.

Tables: house votes (435 rows, CategoricalNB), penguins (333 complete rows, Gaussian +
Categorical) and, with ``--adult DIR``, the census table: the complete rows (30,162) of UCI's
``adult.data`` (Gaussian numeric columns, the codebook's categories and bounds of
``bench_privacy.py``; 8,000 held-out test rows). ``adult.test`` is not needed.

Usage::

    python benchmarks/bench_privacy_rows.py [--seeds 3] [--adult DIR]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _census import TARGET, _read
from bench_privacy import ADULT_CLASSES, adult_features, penguins, votes
from sklearn.model_selection import train_test_split

import bayesnb as bn

EPSILONS = [0.5, 1.0, 5.0, math.inf]


def census(folder):
    """The complete rows of ``DIR/adult.data`` as (table, target, model for a DP setting, bounds), or None."""
    path = None if folder is None else Path(folder) / "adult.data"
    if path is None or not path.is_file():
        return None
    df = _read(path).dropna().reset_index(drop=True)
    features, bounds = adult_features(hurdle=False)
    return df, TARGET, lambda dp: bn.NaiveBayes(features, privacy=dp), bounds


def curve(name, data, sizes, seeds, test_size):
    """Rows of the markdown table: per training size, the accuracy per epsilon (mean ± sd over seeds)."""
    df, target, make, bounds = data
    classes = ADULT_CLASSES if target == TARGET else sorted(df[target].unique())
    pool, test = train_test_split(df, test_size=test_size, stratify=df[target], random_state=0)
    Xt, yt = test.drop(columns=[target]), test[target]
    majority = yt.value_counts(normalize=True).iloc[0]
    lines = []
    for n in sizes:
        n = min(n, len(pool))
        acc = {eps: [] for eps in EPSILONS}
        for seed in range(seeds):
            train = pool if n == len(pool) else train_test_split(pool, train_size=n, stratify=pool[target],
                                                                 random_state=seed)[0]
            X, y = train.drop(columns=[target]), train[target]
            for eps in EPSILONS:
                dp = None if math.isinf(eps) else bn.DP(eps, bounds=bounds, classes=classes, random_state=1000 + seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make(dp).fit(X, y)
                acc[eps].append(float((model.predict(Xt) == yt).mean()))
        cells = [f"{np.mean(a):.3f} ± {np.std(a, ddof=1) if len(a) > 1 else 0.0:.3f}" for a in acc.values()]
        lines.append(f"| {name} | {n} | {majority:.3f} | " + " | ".join(cells) + " |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--adult", metavar="DIR", default=None, help="folder with UCI's adult.data")
    args = parser.parse_args()
    t0 = time.perf_counter()
    head = ["table", "training rows", "majority class", *("no privacy" if math.isinf(e) else f"epsilon = {e:g}"
                                                         for e in EPSILONS)]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    lines += curve("house votes", votes(), [100, 304], args.seeds, 0.3)
    lines += curve("penguins", penguins(), [100, 233], args.seeds, 0.3)
    data = census(args.adult)
    if data is not None:
        lines += curve("census", data, [300, 1000, 3000, 10000, 22162], args.seeds, 8000)
    print(f"### private accuracy against training rows: {args.seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
    print("\n".join(lines))
    if data is None:
        print("\n(census skipped: pass --adult DIR with UCI's adult.data)")


if __name__ == "__main__":
    main()
