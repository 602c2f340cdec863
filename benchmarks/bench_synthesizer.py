"""Benchmark: ``bayesnb.Synthesizer`` next to plain naive Bayes and Gaussian copulas, in the literature's metrics.

On the bundled house votes (target ``party``) and penguins (target ``species``), and with
``--adult FILE`` UCI's census ``adult.data`` (target ``income``; its ``?`` cells are missing),
for each seed: split the real rows 70/30 (stratified), fit on the 70% and draw as many
synthetic rows with

- ``Synthesizer``: ``bayesnb.Synthesizer(target=...)`` (structure by evidence, latent class by
  held-out likelihood, missing cells modelled by missing-indicator nodes; the choice is printed);
- ``Synthesizer (missing=drop)``: the same without missing-indicator nodes (no missing cell drawn);
- ``NaiveBayes``: ``NaiveBayes().sample(n)``;
- ``Gaussian copula``: empirical marginals and a normal copula (``bench_synthetic.GaussianCopula``,
  numpy/scipy only);
- ``SDV GaussianCopula``: SDV's ``GaussianCopulaSynthesizer`` at its defaults, only when ``sdv``
  is installed (``pip install "bayesnb[bench]"``); skipped otherwise;

then :func:`bayesnb.synthetic_report` against the 70% with the 30% as ``real_test``: SDMetrics
column shapes and pair trends, the gradient-boosting C2ST detection score, efficacy AUC (TSTR;
TRTR beside it), the pMSE ratio (Snoke et al.), the largest per-column missing-rate error
(real 70% against the synthetic rows, so with the sampling noise of that many rows), the share
of rows with a category pair absent from the real rows, values out of the real range, and the
seconds to fit and sample. For the two ``Synthesizer`` rows also "miss err 20x": the largest
per-column missing-rate error of 20 times as many rows drawn from the posterior-mean model
(``parameter_uncertainty=False``), i.e. the model's own rates without most sampling noise.
Printed as a markdown table, mean ± sd.

Usage::

    python benchmarks/bench_synthesizer.py [--seeds 5] [--quick] [--adult /tmp/hier/data/adult.data]
        [--only-synthesizers]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import warnings

import numpy as np
import pandas as pd
from _census import NUMERIC, TARGET, _read
from bench_synthetic import GaussianCopula
from sklearn.model_selection import train_test_split

from bayesnb import NaiveBayes, Synthesizer, synthetic_report
from bayesnb.datasets import load_house_votes, load_penguins

METRICS = [("column_shapes", "shapes"), ("column_pair_trends", "pair trends"), ("detection_gbm", "C2ST GBM"),
           ("efficacy_auc", "efficacy AUC"), ("efficacy_auc_real", "AUC real"), ("pmse_ratio", "pMSE ratio"),
           ("max_missing_rate_error", "miss err"), ("rate_error_20x", "miss err 20x"),
           ("unseen_category_pairs", "unseen pairs"), ("out_of_range", "out of range"), ("seconds", "fit+sample s")]
CHOICES = []
#: per fitted Synthesizer, the largest missing-rate error of 20 x n posterior-mean rows (read by run)
RATE_ERRORS = []


def _synthesizer(missing):
    def make(train, target, n, seed):
        s = Synthesizer(target=target, random_state=seed, missing=missing).fit(train)
        CHOICES.append(f"{s.chosen_} (missing={missing})")
        big = s.sample(20 * n, random_state=seed + 1000, parameter_uncertainty=False)
        RATE_ERRORS.append(float((big.isna().mean() - train.isna().mean()).abs().max()))
        return s.sample(n, random_state=seed)
    return make


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


def methods(only_synthesizers=False):
    out = {"Synthesizer": _synthesizer("model"), "Synthesizer (missing=drop)": _synthesizer("drop")}
    if only_synthesizers:
        return out
    out.update({"NaiveBayes": synth_nb, "Gaussian copula": synth_copula})
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
            RATE_ERRORS.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                syn = make(train, target, len(train), seed)
            dt = time.perf_counter() - t0
            s = synthetic_report(train, syn, target=target, real_test=test, random_state=seed,
                                 metrics=("detection",)).summary
            rows.append({"data": name, "method": method, "seed": seed, "seconds": dt, **s,
                         "rate_error_20x": RATE_ERRORS[0] if RATE_ERRORS else np.nan})
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5)")
    p.add_argument("--quick", action="store_true", help="2 seeds")
    p.add_argument("--adult", default=None, help="UCI's adult.data: add the census table (target income)")
    p.add_argument("--only-synthesizers", action="store_true", help="only the two Synthesizer rows")
    p.add_argument("--skip-bundled", action="store_true", help="not house votes and penguins (with --adult)")
    args = p.parse_args(argv)
    seeds = range(2 if args.quick else args.seeds)
    makers = methods(args.only_synthesizers)
    parts = [] if args.skip_bundled else [run("house votes", load_house_votes(), "party", seeds, makers),
                                          run("penguins", load_penguins(), "species", seeds, makers)]
    if args.adult is not None:
        adult = _read(args.adult)
        adult[NUMERIC] = adult[NUMERIC].astype("int64")
        parts.append(run("census", adult, TARGET, seeds, makers))
    res = pd.concat(parts)
    print("| data | method | " + " | ".join(label for _, label in METRICS) + " |")
    print("|---" * (len(METRICS) + 2) + "|")
    for (data, method), g in res.groupby(["data", "method"], sort=False):
        cells = []
        for key, _ in METRICS:
            v = g[key].astype(float)
            if v.isna().all():
                cells.append("")
                continue
            cells.append(f"{v.mean():.2f}" if key == "seconds" else f"{v.mean():.3f} ± {v.std(ddof=1):.3f}")
        print(f"| {data} | {method} | " + " | ".join(cells) + " |")
    print(f"\nSynthesizer's choices: {pd.Series(CHOICES).value_counts().to_dict()}")


if __name__ == "__main__":
    main()
