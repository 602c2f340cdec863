"""The default detector's score blended with the naive model's (issue 31, novelty): not the default.

On ``bench_outliers.py``'s splits, per task and table: the AUC of ``z_s + w * z_n``, where ``z_s`` is
the default ``NBOutlierDetector()``'s score and ``z_n`` the naive ``NBOutlierDetector(NaiveBayes())``'s,
each standardised by the median and MAD of its cross-fitted (5-fold) scores of the training rows;
``w = 0`` is the default itself, and ``min`` the smaller of the two. The naive model charges a
coherent shift of many columns in every column (novelty), the structure the broken dependence
between columns (``assembled``, ``swap-cat``): this shows the trade between them. Mean over seeds.

Run:  python benchmarks/bench_outlier_ensemble.py [--tasks novelty assembled] [--seeds 2]
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
from bench_outliers import TASKS, _ranked, load_tables, task_sets
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold

from bayesnb import NaiveBayes, NBOutlierDetector

WEIGHTS = (0.0, 0.2, 0.35, 0.5, 1.0)


def _standardised(make, train, scored):
    """The detector's scores of ``scored`` as ``(s - median) / (1.4826 MAD)`` of its cross-fitted training scores."""
    s = _ranked(make().fit(train).score_samples(scored))
    held = np.empty(len(train))
    for a, c in KFold(5, shuffle=True, random_state=0).split(train):
        held[c] = _ranked(make().fit(train.iloc[a]).score_samples(train.iloc[c]))
    med = np.median(held)
    return (s - med) / (1.4826 * np.median(np.abs(held - med)))


def run(tables, tasks, seeds):
    """``{(task, table, blend): mean AUC}``, blend ``"w=..."`` or ``"min"``."""
    out = {}
    for task in tasks:
        for table, (X, y) in tables.items():
            per_seed = {}
            for seed in range(seeds):
                rng = np.random.default_rng([seed, TASKS.index(task), len(X)])
                aucs = {}
                for train, scored, outlier in task_sets(task, X, y, rng):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        zs = _standardised(NBOutlierDetector, train, scored)
                        zn = _standardised(lambda: NBOutlierDetector(NaiveBayes(), statistic="density"), train, scored)
                    blends = {f"w={w:g}": zs + w * zn for w in WEIGHTS} | {"min": np.minimum(zs, zn)}
                    for name, z in blends.items():
                        aucs.setdefault(name, []).append(roc_auc_score(outlier, -z))
                for name, v in aucs.items():
                    per_seed.setdefault(name, []).append(np.mean(v))
            for name, v in per_seed.items():
                out[task, table, name] = float(np.mean(v))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["votes", "penguins", "cancer", "wine"])
    parser.add_argument("--tasks", nargs="+", default=["novelty", "assembled"], choices=TASKS)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args(argv)
    tables, _ = load_tables(args.tables, None, 0)
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    res = run(tables, args.tasks, args.seeds)
    names = [f"w={w:g}" for w in WEIGHTS] + ["min"]
    print("task | table | " + " | ".join(names))
    for task in args.tasks:
        present = [t for t in tables if (task, t, names[0]) in res]
        for t in present + ["mean"]:
            vals = [np.mean([res[task, u, n] for u in present]) if t == "mean" else res[task, t, n] for n in names]
            print(f"{task} | {t} | " + " | ".join(f"{v:.3f}" for v in vals))
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return res


if __name__ == "__main__":
    main()
