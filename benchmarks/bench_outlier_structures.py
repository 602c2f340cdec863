"""Why the default detector's structure is not chosen by held-out likelihood (issue 31, novelty).

For each table of ``bench_outliers.py`` and each class in turn (the ``novelty`` task's normal
class), on the same 70/30 splits: the held-out log-likelihood per row of the normal class's 30%
(``score_samples``, the density a detector ranks by) and the novelty AUC (the other classes the
outliers) of ``NBOutlierDetector`` with ``NaiveBayes()`` (naive), ``NaiveBayes(structure="tan")``,
``NaiveBayes(structure="auto", auto_cv=False)`` (``auto-bdeu``: edges scored by BDeu) and the default
(``auto``: ``structure="auto"`` with ``edge_score="hierarchical"``). Choosing by held-out likelihood on
the training rows would choose the model of the higher first column; the AUC columns show whether that
is the better detector. ``--task`` takes another task of ``bench_outliers.py`` (e.g. ``assembled``:
the held-out rows are its clean 30%). The held-out column is the model's ``log p(x)``; the AUC the
detector's score (range tails included). Mean over seeds; the machine load is printed.

Run:  python benchmarks/bench_outlier_structures.py [--seeds 3] [--tables votes penguins cancer wine]
      python benchmarks/bench_outlier_structures.py --per-class     # a row per normal class
      python benchmarks/bench_outlier_structures.py --task assembled
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
import pandas as pd
from bench_outliers import TASKS, load_tables, task_sets
from sklearn.metrics import roc_auc_score

from bayesnb import NaiveBayes, NBOutlierDetector

MODELS = {"naive": lambda: NBOutlierDetector(NaiveBayes(), statistic="density"),
          "tan": lambda: NBOutlierDetector(NaiveBayes(structure="tan"), statistic="density"),
          "auto-bdeu": lambda: NBOutlierDetector(NaiveBayes(structure="auto", auto_cv=False), statistic="density"),
          "auto": lambda: NBOutlierDetector(statistic="density")}


def run(tables, seeds, task="novelty"):
    """Rows ``(table, model, seed, normal, heldout, auc)``, one per split: mean held-out ``log p(x)`` of the
    normal rows and the task's AUC (``normal``: the novelty task's normal class, else ``"all"``)."""
    rows = []
    for table, (X, y) in tables.items():
        normals = sorted(y.unique()) if task == "novelty" else ["all"]  # task_sets' order of the classes
        for seed in range(seeds):
            for name, make in MODELS.items():
                rng = np.random.default_rng([seed, TASKS.index(task), len(X)])  # bench_outliers' splits
                for normal, (train, scored, outlier) in zip(normals, task_sets(task, X, y, rng)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        det = make().fit(train)
                        s, density = det.score_samples(scored), det.estimator_.score_samples(scored)
                    s = np.maximum(s, -1e4)  # an impossible row counts as very unlikely, not -inf
                    rows.append((table, name, seed, normal, np.mean(np.maximum(density, -1e4)[~outlier]),
                                 roc_auc_score(outlier, -s)))
    return pd.DataFrame(rows, columns=["table", "model", "seed", "normal", "heldout", "auc"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["votes", "penguins", "cancer", "wine"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--task", default="novelty", choices=[t for t in TASKS if t != "rare-class"])
    parser.add_argument("--per-class", action="store_true",
                        help="novelty: a row per table and normal class (default: the mean over the classes)")
    args = parser.parse_args(argv)
    tables, _ = load_tables(args.tables, None, 0)
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    rows = run(tables, args.seeds, args.task)
    by = ["table", "normal"] if args.per_class else ["table"]
    res = rows.groupby([*by, "model"])[["heldout", "auc"]].mean().unstack("model")
    if not args.per_class:  # each class weighs alike within a table, as in bench_outliers
        res.loc["mean"] = res.mean()
    print(res.round(3).to_string())
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return res


if __name__ == "__main__":
    main()
