"""A latent-class mixture of naive components as the detector's density (issue 31, novelty).

Why it might help: the default detector's structure (TAN / k-DB) charges a coherent shift of many
correlated columns only at its root, since each child is typical given its parent; the naive model
charges every column but cannot see broken dependence (``assembled``). A mixture of naive components
charges every column against its component and models dependence through the components.

On ``bench_outliers.py``'s splits and seeds, for each task set, the detectors:

- ``auto``: the default, ``NBOutlierDetector()``; ``naive``: ``NBOutlierDetector(NaiveBayes())``;
- ``lc2``, ``lc3``, ``lc4``, ``lc6``: a naive latent-class model fitted on the training rows as one
  class (``NaiveBayes().fit_latent_class(X, n_components=C, random_state=0)``) scored by its
  ``log p(x)`` plus the detector's range tails (the same tails as ``naive``);
- ``lc-cv``: the number of components (1 = naive, 2, 3, 4, 6, 8) chosen by the mean cross-fitted
  ``log p(x)`` of the training rows (5 folds over the training rows only; no outlier is seen);
- ``lc-1se``: the fewest components within one standard error (of the paired per-row differences) of
  ``lc-cv``'s cross-fitted ``log p(x)`` (Breiman's one-standard-error rule);
- ``pick-cv``: whichever of ``auto`` and ``lc-cv`` has the higher cross-fitted ``log p(x)``;
- ``IForest`` (``random_state`` = seed), the novelty bar's baseline.

Printed: AUC per table (mean over seeds, then over a task's sets), the cross-fitted ``log p(x)`` per
training row of ``auto`` and ``lc-cv``, the components chosen, fit times, and the machine load.

Run:  python benchmarks/bench_outlier_latent.py [--seeds 3] [--tasks novelty assembled] [--tables ...]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections import Counter

import numpy as np
import pandas as pd
from bench_outliers import TASKS, _ranked, load_tables, outlier_scores, print_progress, table_means, task_sets
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold

from bayesnb import NaiveBayes, NBOutlierDetector
from bayesnb._utils import one_class_on_purpose

FIXED = (2, 3, 4, 6)
#: the component counts lc-cv and lc-1se choose among (1: the naive model; ``--counts``)
COUNTS = (1, 2, 3, 4, 6, 8)
FOLDS = 5


def _one_class(X):
    return np.zeros(len(X), dtype=int)


def latent_fit(train, C, component_prior="class"):
    """``(naive model, latent fit or None for C = 1)`` on ``train`` as one class."""
    with one_class_on_purpose():  # one class is how a detector models p(x)
        model = NaiveBayes().fit(train, _one_class(train))
    fit = None if C == 1 else model.fit_latent_class(train, n_components=C, random_state=0,
                                                     component_prior=component_prior)
    return model, fit


def latent_density(model, fit, X):
    """``log p(x)`` per row under the latent fit (the naive model's for C = 1); NaN -> -inf."""
    s = model.score_samples(X) if fit is None else model.score_samples(X, latent=fit)
    return np.where(np.isnan(s), -np.inf, s)


def crossfit(train, density_of):
    """Cross-fitted ``log p(x)`` of each training row: ``density_of(fit_rows, scored_rows)`` per fold."""
    out = np.empty(len(train))
    for a, b in KFold(FOLDS, shuffle=True, random_state=0).split(train):
        out[b] = density_of(train.iloc[a].reset_index(drop=True), train.iloc[b].reset_index(drop=True))
    return np.maximum(out, -1e4)  # a row a model calls impossible counts as very unlikely


def one_se(held):
    """The fewest components whose mean cross-fitted ``log p(x)`` is within one standard error (of the
    paired per-row differences) of the best count's (Breiman's one-standard-error rule)."""
    best = max(held, key=lambda C: held[C].mean())
    for C in sorted(held):
        d = held[best] - held[C]
        if d.mean() <= d.std(ddof=1) / np.sqrt(len(d)):
            return C
    return best


def one_set(train, scored, seed, counts=COUNTS, component_prior="class"):
    """AUC inputs (higher = more unusual) per detector, cross-fitted log p(x), chosen C, fit times."""
    scores, times = {}, {}
    t0 = time.perf_counter()
    auto = NBOutlierDetector(statistic="density").fit(train)
    times["auto"] = time.perf_counter() - t0
    scores["auto"] = -auto.score_samples(scored)
    t0 = time.perf_counter()
    naive = NBOutlierDetector(NaiveBayes(), statistic="density").fit(train)
    times["naive"] = time.perf_counter() - t0
    scores["naive"] = -naive.score_samples(scored)
    with np.errstate(invalid="ignore"):
        tails = naive.score_samples(scored) - naive.estimator_.score_samples(scored)  # minus range-tail costs
    tails = np.where(np.isfinite(tails), tails, 0.0)
    fits = {}
    for C in sorted(set(FIXED) | set(counts)):
        t0 = time.perf_counter()
        fits[C] = latent_fit(train, C, component_prior)
        times[f"lc{C}"] = time.perf_counter() - t0
        if C in FIXED:
            scores[f"lc{C}"] = -(latent_density(*fits[C], scored) + tails)
    t0 = time.perf_counter()
    held = {C: crossfit(train, lambda a, b, C=C: latent_density(*latent_fit(a, C, component_prior), b))
            for C in counts}
    ll = {C: float(v.mean()) for C, v in held.items()}
    best, simple = max(ll, key=ll.get), one_se(held)
    times["lc-cv"] = time.perf_counter() - t0 + times[f"lc{best}"]
    scores["lc-cv"] = -(latent_density(*fits[best], scored) + tails)
    scores["lc-1se"] = -(latent_density(*fits[simple], scored) + tails)
    t0 = time.perf_counter()
    ll_auto = float(np.mean(crossfit(
        train, lambda a, b: NBOutlierDetector(statistic="density").fit(a).estimator_.score_samples(b))))
    times["pick-cv"] = times["lc-cv"] + time.perf_counter() - t0 + times["auto"]
    scores["pick-cv"] = scores["auto"] if ll_auto >= ll[best] else scores["lc-cv"]
    scores["IForest"] = outlier_scores("IForest", train, scored, seed)
    return scores, {"ll_auto": ll_auto, "ll_lc": ll[best], "C": best, "C_1se": simple}, times


def run(tables, tasks, seeds, counts=COUNTS, component_prior="class", max_sets=None):
    """One record per task set: AUCs, cross-fitted log p(x) of auto and lc-cv, the counts chosen, fit times
    (the first ``max_sets`` sets of each task, table and seed when given; all of them by default)."""
    rows = []
    for table, (X, y) in tables.items():
        for task in tasks:
            for seed in range(seeds):
                rng = np.random.default_rng([seed, TASKS.index(task), len(X)])  # bench_outliers' splits
                for k, (train, scored, outlier) in enumerate(task_sets(task, X, y, rng)[:max_sets]):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        scores, info, times = one_set(train, scored, seed, counts, component_prior)
                    rec = {"task": task, "table": table, "seed": seed, "set": k, **info}
                    rec |= {f"auc_{n}": roc_auc_score(outlier, _ranked(s)) for n, s in scores.items()}
                    rec |= {f"t_{n}": t for n, t in times.items()}
                    rows.append(rec)
            print_progress(rows, table, task)
    return pd.DataFrame(rows)


def report(res):
    for task, g in res.groupby("task", sort=False):
        per = table_means(g)
        auc = per.filter(like="auc_").rename(columns=lambda c: c[4:])
        auc.loc["mean"] = auc.mean()
        print(f"\n{task}: AUC (mean over seeds and sets)")
        print(auc.round(3).to_string())
        print(f"{task}: cross-fitted log p(x) per training row (nats), auto and the lc-cv choice")
        print(per[["ll_auto", "ll_lc"]].round(2).to_string())
        for rule, col in (("lc-cv", "C"), ("lc-1se", "C_1se")):
            chosen = {t: dict(sorted(Counter(s[col]).items())) for t, s in g.groupby("table", sort=False)}
            print(f"{task}: components chosen by {rule} (count: sets): {chosen}")
        t = g.filter(like="t_").median().round(3)
        print(f"{task}: median fit time (s): " + ", ".join(f"{c[2:]} {v}" for c, v in t.items()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["votes", "penguins", "cancer", "wine"])
    parser.add_argument("--tasks", nargs="+", default=["novelty", "assembled"], choices=TASKS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--component-prior", default="class", choices=["class", "hierarchical"],
                        help="fit_latent_class's component_prior for the lc detectors")
    parser.add_argument("--counts", nargs="+", type=int, default=list(COUNTS),
                        help="component counts lc-cv and lc-1se choose among (1, naive, is always one)")
    parser.add_argument("--max-sets", type=int, default=None,
                        help="only the first N sets of each task, table and seed (a quick check; default all)")
    args = parser.parse_args(argv)
    counts = tuple(sorted(set(args.counts) | {1}))
    print(f"component_prior={args.component_prior!r}")
    tables, _ = load_tables(args.tables, None, 0)
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    start = time.perf_counter()
    res = run(tables, args.tasks, args.seeds, counts, args.component_prior, args.max_sets)
    print(f"{args.seeds} seed(s), {time.perf_counter() - start:.0f} s")
    report(res)
    print(f"\nload after: {os.getloadavg()[0]:.2f}")
    return res


if __name__ == "__main__":
    main()
