"""Benchmark: a private ``Synthesizer`` against a private ``NaiveBayes(...).sample``, same budget.

On the bundled house votes (target ``party``; every vote declared ``n``/``y``; 392 missing votes)
and penguins (target ``species``; the categories and bounds declared as in docs/privacy.md; 19
missing cells), for each seed: split 70/30 (stratified), then at each epsilon, with the same
``DP(epsilon, bounds=..., classes=..., random_state=1000 + seed)`` (Laplace):

- ``NaiveBayes.sample``: ``NaiveBayes(features, privacy=dp)`` (the families the Synthesizer builds
  from the same declarations: Categorical with the declared categories, Gaussian with the bounds),
  fitted on the 70%, ``sample(n_train)`` (no missing cell drawn, integer columns not rounded);
- ``Synthesizer (missing="drop")``: ``Synthesizer(privacy=dp, categories=..., missing="drop")``;
- ``Synthesizer``: the default ``missing="model"`` (a categorical column's missing cells are one more
  category of its released counts, at no extra cost; a numeric column whose dtype can hold a missing
  cell has its indicator node, one more released statistic). Its numeric columns are declared
  equal-width bins over their bounds (the private default, ``bayesnb.synth.private_bins``);
- ``Synthesizer (Gaussian numeric)`` (tables with bounds, under privacy): the same with
  ``categories={column: "gaussian"}`` for every bounded column, the earlier default.

Each synthetic table (``n_train`` rows) is compared with the 70% by
:func:`bayesnb.synthetic_report` (the 30% as ``real_test``, slower metrics off): mean per-column
TVD (missing cells a category of their own), mean KS of the numeric columns, mean absolute
difference of the pairwise Cramér's V, and TSTR accuracy (train on synthetic, test on the real
30%). ``no privacy`` rows: the same three fitted without ``privacy`` (``Synthesizer(structure=
"naive", latent=None)`` so that only privacy differs). Printed as markdown, mean ± sd over seeds.

Usage::

    python benchmarks/bench_privacy_synth.py [--seeds 5] [--epsilons 1 5]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

import bayesnb as bn
from bayesnb.datasets import load_house_votes, load_penguins

PENGUIN_BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
                  "body_mass_g": (2500, 6500)}
PENGUIN_CATEGORIES = {"island": ["Biscoe", "Dream", "Torgersen"], "sex": ["female", "male"],
                      "year": [2007, 2008, 2009]}


def votes():
    """House votes: (table, target, classes, categories, bounds)."""
    df = load_house_votes()
    cats = {c: ["n", "y"] for c in df.columns if c != "party"}
    return "house votes", df, "party", ["democrat", "republican"], cats, {}


def penguins():
    """Penguins, every row: (table, target, classes, categories, bounds)."""
    return ("penguins", load_penguins(), "species", ["Adelie", "Chinstrap", "Gentoo"], PENGUIN_CATEGORIES,
            PENGUIN_BOUNDS)


def nb_features(cats, bounds):
    """The features dict the private Synthesizer builds from the same declarations."""
    out = {}
    if bounds:
        out[tuple(bounds)] = bn.Gaussian()
    out[tuple(cats)] = bn.Categorical(categories=[cats[c] for c in cats])
    return out


def tables(train, target, cats, bounds, dp, seed):
    """``{method: synthetic table}`` of the three methods (privacy ``dp``; None: without)."""
    X, y = train.drop(columns=[target]), train[target]
    features = nb_features(cats, bounds) if dp is not None else "auto"
    nb = bn.NaiveBayes(features, privacy=dp).fit(X, y)
    Xs, ys = nb.sample(len(train), random_state=seed)
    out = {"NaiveBayes.sample": Xs.assign(**{target: np.asarray(ys)})[train.columns]}
    kw = {"privacy": dp, "categories": cats} if dp is not None else {"structure": "naive", "latent": None}
    arms = [("Synthesizer (missing='drop')", "drop", kw), ("Synthesizer", "model", kw)]
    if dp is not None and bounds:
        arms.append(("Synthesizer (Gaussian numeric)", "model",
                     {**kw, "categories": {**cats, **dict.fromkeys(bounds, "gaussian")}}))
    for name, missing, kw in arms:
        synth = bn.Synthesizer(target=target, missing=missing, random_state=seed, **kw).fit(train)
        out[name] = synth.sample(len(train), random_state=seed)
    return out


def run(dataset, seeds, epsilons):
    name, df, target, classes, cats, bounds = dataset()
    rows = []
    for seed in range(seeds):
        train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
        for eps in list(epsilons) + [math.inf]:
            dp = None if math.isinf(eps) else bn.DP(eps, bounds=bounds or None, classes=classes,
                                                    random_state=1000 + seed)
            for method, synth in tables(train, target, cats, bounds, dp, seed).items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rep = bn.synthetic_report(train, synth, target, real_test=test, metrics=(),
                                              random_state=seed).summary
                rows.append({"table": name, "epsilon": eps, "method": method, "mean TVD": rep["mean_tvd"],
                             "mean KS": rep.get("mean_ks"), "mean abs V diff": rep["mean_abs_cramers_v_diff"],
                             "TSTR acc": rep["tstr"], "missing share": float(synth.drop(columns=[target])
                                                                             .isna().to_numpy().mean())})
    return pd.DataFrame(rows)


def table(frame):
    """Mean ± sd per (table, epsilon, method), markdown."""
    metrics = [c for c in ("mean TVD", "mean KS", "mean abs V diff", "TSTR acc", "missing share")
               if frame[c].notna().any()]
    lines = ["| table | epsilon | method | " + " | ".join(metrics) + " |", "|---" * (3 + len(metrics)) + "|"]
    for (tab, eps, method), g in frame.groupby(["table", "epsilon", "method"], sort=False):
        cells = [f"{g[m].mean():.3f} ± {g[m].std(ddof=1) if len(g) > 1 else 0.0:.3f}" for m in metrics]
        label = "inf (no privacy)" if math.isinf(eps) else f"{eps:g}"
        lines.append(f"| {tab} | {label} | {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 5.0])
    args = parser.parse_args()
    for dataset in (votes, penguins):
        start = time.perf_counter()
        frame = run(dataset, args.seeds, args.epsilons)
        frame["table"] = pd.Categorical(frame["table"], frame["table"].unique())
        print(table(frame))
        print(f"\n({dataset.__name__}: {args.seeds} seeds, {time.perf_counter() - start:.1f} s)\n")


if __name__ == "__main__":
    main()
