"""Census (issue 26): k-DB (hierarchical) at several k, and which category pairs make the unseen-pair rows.

For each ``k`` of ``--ks``: ``NaiveBayes(structure="kdb", k=k, alpha="hierarchical")`` fitted on
the training rows of ``bench_synthesis.py``'s census split (seed ``--split``, default 0), its mean held-out
``log p(x, y)`` on the test rows, and for each sample seed of ``--sample-seeds`` a synthetic table
of as many rows scored by :func:`bayesnb.synthetic_report` (shape, trend, C2ST GBM, efficacy AUC,
unseen category pairs, DCR share), as ``bench_synthesis.py`` scores it. With ``--pairs``, for the first
``k`` and sample seed, the share of synthetic rows holding an unseen pair of each two
categorical columns (> 0.1%), once with one posterior draw of the parameters and once with the
posterior mean. With ``--edges COLUMN``: k-DB's ranking of the columns (by ``I(X; Y)``) and the
edge scores (flat-Dirichlet BDeu log Bayes factors, ``structure.edge_scores``) of COLUMN as a child
of every other column: k-DB takes a parent only among earlier columns with a positive score. With
``--edge-score E`` (one of ``structure.EDGE_SCORES``, default ``bdeu``) every fit and the printed
scores use ``E`` (the default swapped as ``bench_structure_auto.edge_score`` does). With
``--support observed`` (or ``backoff``) the samples are drawn on the fitted model's observed
support (:func:`bayesnb.synth.observed_support.observed_support`, what ``Synthesizer(support=...)`` samples);
a comma-separated list (``--support observed,backoff,smoothed``) samples each support from the same
fit, the supports interleaved within each sample seed. Each sample line also gives the DCR share
against the test rows, and with several sample seeds a mean line per support follows.
``--split S`` takes the census split of seed ``S`` (default 0).
With ``--real-pairs`` it first prints the same share for the real test rows against the
training rows (the rate a perfect model of the population would give).

Usage::

    python benchmarks/census_kdb_k.py adult.data [--ks 2,3,4] [--sample-seeds 0,1,2,3] [--pairs]
    python benchmarks/census_kdb_k.py adult.data --ks '' --edges native-country
    python benchmarks/census_kdb_k.py adult.data --ks 2 --edges native-country --edge-score hierarchical
    python benchmarks/census_kdb_k.py adult.data --ks 3 --edge-score hierarchical --support observed --sample-seeds 1,2,3
    python benchmarks/census_kdb_k.py adult.data --ks 3 --edge-score hierarchical --support observed,backoff,smoothed
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _census import TARGET  # noqa: E402
from bench_structure_auto import edge_score as swap_edge_score  # noqa: E402
from bench_synthesis import census_tables  # noqa: E402

from bayesnb import NaiveBayes, synthetic_report  # noqa: E402
from bayesnb.synth.search import holdout_rows  # noqa: E402
from bayesnb.synth.observed_support import SUPPORTS, observed_support  # noqa: E402
from bayesnb.structure import engine as _mx  # noqa: E402
from bayesnb.structure import learn as _learn  # noqa: E402


#: the summary entries printed per sample, and their names
_SCORES = ("column_shapes", "column_pair_trends", "detection_gbm", "efficacy_auc", "unseen_category_pairs", "dcr_share")
_NAMES = ("shape", "trend", "C2ST GBM", "AUC", "unseen pairs", "DCR")


def as_table(model, X, y, train):
    """The synthetic rows ``(X, y)`` as a table with ``train``'s columns and dtypes."""
    syn = pd.DataFrame(X, columns=train.columns.drop(TARGET))
    syn[TARGET] = y
    return syn[train.columns].astype(train.dtypes.to_dict())


def unseen_pairs(train, syn, cats):
    """``(share of rows with any unseen pair, [(a, b, share)] of the pairs above 0.1%)``."""
    any_bad, out = np.zeros(len(syn), bool), []
    for a, b in itertools.combinations(cats, 2):
        real = set(zip(train[a], train[b]))
        bad = np.array([pair not in real for pair in zip(syn[a], syn[b])])
        any_bad |= bad
        if bad.mean() > 0.001:
            out.append((a, b, float(bad.mean())))
    return float(any_bad.mean()), sorted(out, key=lambda r: -r[2])


def edges(X, y, column, kind="bdeu"):
    """Print k-DB's column ranking and ``column``'s edge scores as a child of each other column."""
    model = NaiveBayes(structure="kdb", alpha="hierarchical").fit(X, y)
    encoded = model._encoded(X)
    nodes = _mx.make_nodes(model.posterior_.blocks, encoded, None)
    data = _mx.node_data(nodes, encoded)
    names = model._node_names(nodes)
    scores = _learn.edge_scores(data[2], np.searchsorted(model.classes_, y), [nd.n_states for nd in nodes],
                         len(model.classes_), None, edge_score=kind)
    print("ranking by I(X; Y):", ", ".join(names[i] for i in np.argsort(-scores.class_mi, kind="stable")))
    j = names.index(column)
    print(f"edge scores of {column} as a child:",
          ", ".join(f"{names[i]} {scores.weights[j, i]:.1f}" for i in range(len(names)) if i != j), flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("census")
    p.add_argument("--ks", default="2,3,4")
    p.add_argument("--sample-seeds", default="0,1,2,3")
    p.add_argument("--pairs", action="store_true")
    p.add_argument("--edges", metavar="COLUMN")
    p.add_argument("--edge-score", default="bdeu", choices=_learn.EDGE_SCORES)
    p.add_argument("--real-pairs", action="store_true", help="unseen pairs of the real test rows")
    p.add_argument("--support", default="smoothed",
                   help=f"comma-separated supports among {SUPPORTS} (default: smoothed, the posterior predictive)")
    p.add_argument("--split", type=int, default=0, help="seed of the census split (default 0)")
    args = p.parse_args(argv)
    args.supports = [v for v in args.support.split(",") if v]
    if not args.supports or any(v not in SUPPORTS for v in args.supports):
        p.error(f"--support: comma-separated values among {SUPPORTS}; received {args.support!r}")
    with swap_edge_score(args.edge_score, 1.0):
        run(args)


def run(args):
    warnings.simplefilter("ignore")
    train, test, note = census_tables(args.census, None, args.split, False)
    print(note, f"(load {os.getloadavg()[0]:.1f})")
    X, y = train.drop(columns=TARGET), train[TARGET].to_numpy()
    Xte = test.drop(columns=TARGET)
    if args.real_pairs:
        cats = [c for c in train.columns if not pd.api.types.is_numeric_dtype(train[c])]
        share, worst = unseen_pairs(train, test, cats)
        print(f"real test rows: {share:.4f} hold a pair unseen in the training rows; "
              + ", ".join(f"{a} x {b} {v:.4f}" for a, b, v in worst), flush=True)
    if args.edges:
        edges(X, y, args.edges, args.edge_score)
    for i, k in enumerate(int(v) for v in args.ks.split(",") if v):
        t0 = time.process_time()
        model = NaiveBayes(structure="kdb", k=k, alpha="hierarchical").fit(X, y)
        codes = pd.Index(model.classes_).get_indexer(test[TARGET])
        fitted = model
        drawn = {v: model if v == "smoothed" else observed_support(model, v) for v in args.supports}
        print(f"k={k}: fit {time.process_time() - t0:.1f} s CPU, held-out log p(x, y) "
              f"{holdout_rows(fitted, Xte, codes).mean():.4f}; parents {model.structure_}", flush=True)
        seeds, scores = [int(v) for v in args.sample_seeds.split(",")], {v: [] for v in args.supports}
        for sd in seeds:
            for v, model in drawn.items():
                syn = as_table(model, *model.sample(len(train), random_state=sd), train)
                s = synthetic_report(train, syn, target=TARGET, real_test=test, max_rows=10000, random_state=0).summary
                scores[v].append([s[m] for m in _SCORES])
                print(f"  sample seed {sd}" + (f" {v}" if len(drawn) > 1 else "") + ": "
                      + " ".join(f"{name} {x:.4f}" for name, x in zip(_NAMES, scores[v][-1]))
                      + f" (load {os.getloadavg()[0]:.1f})", flush=True)
        for v in scores if len(seeds) > 1 else ():
            a = np.array(scores[v])
            print(f"  {v}, mean (sd) of {len(seeds)} sample seeds: "
                  + " ".join(f"{name} {m:.4f} ({sd:.4f})" for name, m, sd in zip(_NAMES, a.mean(0), a.std(0, ddof=1))),
                  flush=True)
        model, sd = drawn[args.supports[0]], seeds[0]
        if args.pairs and i == 0:  # the first support and sample seed
            cats = [c for c in train.columns if not pd.api.types.is_numeric_dtype(train[c])]
            for pu in (True, False):
                rows = as_table(model, *model.sample(len(train), random_state=sd, parameter_uncertainty=pu),
                                train)
                share, worst = unseen_pairs(train, rows, cats)
                print(f"    parameter_uncertainty={pu}: {share:.4f} of rows hold an unseen pair; "
                      + ", ".join(f"{a} x {b} {v:.4f}" for a, b, v in worst), flush=True)


if __name__ == "__main__":
    main()
