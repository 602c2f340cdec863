"""Census (issue 26): how the sampling support moves DCR, alpha-precision and beta-recall.

One ``NaiveBayes(structure="kdb", k=3, alpha="hierarchical")`` with hierarchical edge scores (what
the default ``Synthesizer`` chose on ``bench_synthesis.py``'s census split, seed 0) is fitted once on
the training rows and sampled (as many rows) under three supports, each scored by
:func:`bayesnb.synthetic_report` as ``bench_synthesis.py`` scores it:

- ``smoothed``: the fitted posterior predictive (``Synthesizer(support="smoothed")``);
- ``observed``: each context's counts alone where it has data (the default's
  ``support="observed"``, :func:`bayesnb._synth_support.observed_support`);
- ``observed, smoothed on seen cells``: a variant tried here only: each context with data keeps its
  *posterior* concentration (counts plus the prior's pseudo-counts) on the cells it saw and 0 on
  the others, so the support is the observed one but the probabilities are shrunk toward the
  parent context as in the fit.

Usage::

    python benchmarks/census_support_variants.py adult.data [--sample-seeds 0,1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from unittest import mock

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _census import TARGET  # noqa: E402
from bench_synthesis import census_tables  # noqa: E402
from census_kdb_k import as_table  # noqa: E402

from bayesnb import NaiveBayes, synthetic_report  # noqa: E402
from bayesnb._synth_support import observed_support  # noqa: E402
from bayesnb.families import categorical as _categorical  # noqa: E402


def seen_cells_smoothed(prior, post):
    """Posterior concentrations on the cells each context saw (0 elsewhere); prior where it saw none."""
    out = []
    for a0, a in zip(prior, post):
        a = np.asarray(a, dtype=float)
        n = np.maximum(a - a0, 0.0)
        out.append(np.where(n.sum(axis=-1, keepdims=True) > 0, np.where(n > 0, a, 0.0), a0))
    return tuple(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("census")
    p.add_argument("--sample-seeds", default="0")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    train, test, note = census_tables(args.census, None, 0, False)
    print(note, f"(load {os.getloadavg()[0]:.1f})")
    X, y = train.drop(columns=TARGET), train[TARGET].to_numpy()
    t0 = time.process_time()
    model = NaiveBayes(structure="kdb", k=3, alpha="hierarchical", edge_score="hierarchical").fit(X, y)
    print(f"fit {time.process_time() - t0:.1f} s CPU", flush=True)
    with mock.patch.object(_categorical, "observed_counts", seen_cells_smoothed):
        seen = observed_support(model)
    variants = {"smoothed": model, "observed": observed_support(model), "observed, smoothed on seen cells": seen}
    keys = ["column_shapes", "column_pair_trends", "detection_gbm", "efficacy_auc", "alpha_precision",
            "beta_recall", "dcr_share", "unseen_category_pairs"]
    print("| support | sample seed | " + " | ".join(keys) + " |\n" + "|---" * (len(keys) + 2) + "|")
    for sd in (int(v) for v in args.sample_seeds.split(",")):
        for name, m in variants.items():
            syn = as_table(m, *m.sample(len(train), random_state=sd), train)
            s = synthetic_report(train, syn, target=TARGET, real_test=test, max_rows=10000, random_state=0).summary
            print(f"| {name} | {sd} | " + " | ".join(f"{s[k]:.4f}" for k in keys) + " |", flush=True)
    print(f"(load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
