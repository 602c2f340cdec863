"""Benchmark: ``bayesnb.Synthesizer`` next to plain naive Bayes and Gaussian copulas, in the literature's metrics.

On the bundled house votes (target ``party``) and penguins (target ``species``), for each seed:
split the real rows 70/30 (stratified), fit on the 70% and draw as many synthetic rows with

- ``Synthesizer``: ``bayesnb.Synthesizer(target=...)`` (structure by evidence, latent class by
  held-out likelihood; the choice is printed);
- ``NaiveBayes``: ``NaiveBayes().sample(n)``;
- ``Gaussian copula``: empirical marginals and a normal copula (``bench_synthetic.GaussianCopula``,
  numpy/scipy only);
- ``SDV GaussianCopula``: SDV's ``GaussianCopulaSynthesizer`` at its defaults, only when ``sdv``
  is installed (``pip install "bayesnb[bench]"``); skipped otherwise;

then :func:`bayesnb.synthetic_report` against the 70% with the 30% as ``real_test``: SDMetrics
column shapes and pair trends, the gradient-boosting C2ST detection score, efficacy AUC (TSTR;
TRTR beside it), the share of rows with a category pair absent from the real rows, values out of
the real range, and the seconds to fit and sample. Printed as a markdown table, mean ± sd.

Usage::

    python benchmarks/bench_synthesizer.py [--seeds 5] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import warnings

import numpy as np
import pandas as pd
from bench_synthetic import GaussianCopula
from sklearn.model_selection import train_test_split

from bayesnb import NaiveBayes, Synthesizer, synthetic_report
from bayesnb.datasets import load_house_votes, load_penguins

METRICS = [("column_shapes", "shapes"), ("column_pair_trends", "pair trends"), ("detection_gbm", "C2ST GBM"),
           ("efficacy_auc", "efficacy AUC"), ("efficacy_auc_real", "AUC real"),
           ("unseen_category_pairs", "unseen pairs"), ("out_of_range", "out of range"), ("seconds", "fit+sample s")]
CHOICES = []


def synth_synthesizer(train, target, n, seed):
    s = Synthesizer(target=target, random_state=seed).fit(train)
    CHOICES.append(s.chosen_)
    return s.sample(n, random_state=seed)


def synth_nb(train, target, n, seed):
    m = NaiveBayes().fit(train.drop(columns=target), train[target])
    X, y = m.sample(n, random_state=seed)
    return X.assign(**{target: y})[list(train.columns)]


def synth_copula(train, target, n, seed):
    return GaussianCopula().fit(train).sample(n, np.random.default_rng(seed))


def synth_sdv(train, target, n, seed):
    from sdv.metadata import Metadata
    from sdv.single_table import GaussianCopulaSynthesizer

    meta = Metadata.detect_from_dataframe(train)
    model = GaussianCopulaSynthesizer(meta)
    model.fit(train)
    return model.sample(n)[list(train.columns)]


def methods():
    out = {"Synthesizer": synth_synthesizer, "NaiveBayes": synth_nb, "Gaussian copula": synth_copula}
    if importlib.util.find_spec("sdv") is not None:
        out["SDV GaussianCopula"] = synth_sdv
    else:
        print("sdv not installed (pip install 'bayesnb[bench]'): SDV GaussianCopula skipped")
    return out


def run(name, df, target, seeds, makers):
    rows = []
    for seed in seeds:
        train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
        for method, make in makers.items():
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                syn = make(train, target, len(train), seed)
            dt = time.perf_counter() - t0
            s = synthetic_report(train, syn, target=target, real_test=test, random_state=seed,
                                 metrics=("detection",)).summary
            rows.append({"data": name, "method": method, "seed": seed, "seconds": dt, **s})
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5)")
    p.add_argument("--quick", action="store_true", help="2 seeds")
    args = p.parse_args(argv)
    seeds = range(2 if args.quick else args.seeds)
    makers = methods()
    res = pd.concat([run("house votes", load_house_votes(), "party", seeds, makers),
                     run("penguins", load_penguins(), "species", seeds, makers)])
    print("| data | method | " + " | ".join(label for _, label in METRICS) + " |")
    print("|---" * (len(METRICS) + 2) + "|")
    for (data, method), g in res.groupby(["data", "method"], sort=False):
        cells = []
        for key, _ in METRICS:
            v = g[key].astype(float)
            cells.append(f"{v.mean():.2f}" if key == "seconds" else f"{v.mean():.3f} ± {v.std(ddof=1):.3f}")
        print(f"| {data} | {method} | " + " | ".join(cells) + " |")
    print(f"\nSynthesizer's choices: {pd.Series(CHOICES).value_counts().to_dict()}")


if __name__ == "__main__":
    main()
