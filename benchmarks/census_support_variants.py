"""Census (issue 26): which sampling supports move the DCR share, and what they cost in trend and unseen pairs.

Fits ``NaiveBayes(structure="kdb", k=3, alpha="hierarchical")`` with the hierarchical edge score
(what the default ``Synthesizer`` chooses on the seed-0 census split; ``census_kdb_k.py``) on the
training rows of ``bench_synthesis.py``'s census split ``SPLIT``, then samples it once per sample
seed under each VARIANT, a rule applied to every structure node's Dirichlet concentrations
(prior ``a0``, counts ``n``, ``N`` a context's rows, ``a = n + a0``). These are experiments, not
package options; ``backoff`` is ``Synthesizer(support="backoff")``:

- ``observed``: ``n`` where ``N > 0``, else ``a0`` (``support="observed"``); ``smoothed``: ``a``;
- ``obscat``: observed on categorical nodes, smoothed on numeric (histogram) nodes;
  ``obshist``: the reverse;
- ``backoff``: ``n`` where ``N >= sum(a0)``, else ``a`` restricted to the values seen with the
  context's class and with each parent's state (``bayesnb.synth.backoff``);
- ``backoffcat`` / ``backoffhist``: that rule on categorical / numeric nodes only, observed on the others;
- ``templ-L``: ``n + L * a0`` on the same pairwise support in every context;
- ``thin-M``: ``n`` where ``N >= M``, else ``a`` on the pairwise support.

Each line: ``synthetic_report`` scores (``--fast``: without the detection and alpha/beta metrics)
and ``exact``, the share of synthetic rows equal to a training row in every column.

Usage::

    python benchmarks/census_support_variants.py adult.data --variants observed,smoothed,obscat,obshist,backoff --sample-seeds 0,1,2,3,4,5 --fast
"""

from __future__ import annotations

import argparse
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
from bayesnb.synth.backoff import pairwise_support  # noqa: E402
from bayesnb.synth.observed_support import observed_support  # noqa: E402


def transform(variant, numeric, axes, a0, a):
    """The concentrations ``variant`` samples from, for one node's (C, V) prior ``a0`` and posterior ``a``."""
    n = np.maximum(a - a0, 0.0)
    N = n.sum(-1, keepdims=True)
    obs = np.where(N > 0, n, a0)
    kind, _, par = variant.partition("-")
    if kind == "observed":
        return obs
    if kind == "smoothed":
        return a
    if kind in ("obscat", "obshist"):
        return a if numeric == (kind == "obscat") else obs
    mask = pairwise_support(n, axes)
    if kind in ("backoff", "backoffcat", "backoffhist"):
        if kind != "backoff" and numeric != (kind == "backoffhist"):
            return obs
        return np.where(N < a0.sum(-1, keepdims=True), np.where(mask, a, 0.0), n)
    if kind == "templ":
        return np.where(mask, n + float(par) * a0, 0.0)
    if kind == "thin":
        return np.where(N >= float(par), n, np.where(mask, a, 0.0))
    raise ValueError(f"unknown variant {variant!r}")


def variant_model(model, variant):
    """A shallow copy of the fitted k-DB whose structure nodes sample ``variant``'s concentrations."""
    mixed = model._structure_fitted()
    out = observed_support(model)  # the naive blocks as support="observed" has them; the nodes replaced below
    posts = []
    for pa, nd, pr, po in zip(mixed.parents, mixed.nodes, mixed.priors, mixed.posteriors):
        axes = (mixed.n_classes, *(mixed.nodes[p].n_states for p in pa))
        conc = []
        for a0, a in zip(pr.concentration, po.concentration):
            c = np.maximum(transform(variant, nd.numeric, axes, a0, a), 0.0)
            conc.append(np.where(c.sum(-1, keepdims=True) > 0, c, a0))  # never a context without mass
        posts.append(po._replace(concentration=tuple(conc)))
    setattr(out, model._structure_attr, mixed._replace(posteriors=tuple(posts)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("census")
    p.add_argument("--variants", default="observed,smoothed,backoff")
    p.add_argument("--sample-seeds", default="0,1")
    p.add_argument("--split", type=int, default=0)
    p.add_argument("--fast", action="store_true", help="skip the detection and alpha/beta metrics")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    train, test, note = census_tables(args.census, None, args.split, False)
    print(note, f"(load {os.getloadavg()[0]:.1f})", flush=True)
    X, y = train.drop(columns=TARGET), train[TARGET].to_numpy()
    with swap_edge_score("hierarchical", 1.0):
        t0 = time.process_time()
        model = NaiveBayes(structure="kdb", k=3, alpha="hierarchical").fit(X, y)
    print(f"fit {time.process_time() - t0:.1f} s CPU", flush=True)
    seen = set(map(tuple, train.astype(str).to_numpy()))
    metrics = ("dcr",) if args.fast else "all"
    for v in args.variants.split(","):
        drawn = variant_model(model, v)
        for sd in (int(s) for s in args.sample_seeds.split(",")):
            Xs, ys = drawn.sample(len(train), random_state=sd)
            syn = pd.DataFrame(Xs, columns=X.columns)
            syn[TARGET] = ys
            syn = syn[train.columns].astype(train.dtypes.to_dict())
            exact = np.mean([tuple(r) in seen for r in syn.astype(str).to_numpy()])
            s = synthetic_report(train, syn, target=TARGET, real_test=test, max_rows=10000, random_state=0,
                                 metrics=metrics).summary
            gbm = "" if s["detection_gbm"] is None else f" C2ST GBM {s['detection_gbm']:.4f}"
            print(f"{v} seed {sd}: shape {s['column_shapes']:.4f} trend {s['column_pair_trends']:.4f}{gbm} "
                  f"AUC {s['efficacy_auc']:.4f} unseen pairs {s['unseen_category_pairs']:.4f} "
                  f"DCR {s['dcr_share']:.4f} exact {exact:.4f} (load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
