"""Benchmark: missing cells in ``bayesnb.Synthesizer``'s samples (issue 26, item 2), on house votes.

Fits ``Synthesizer(target="party", random_state=0)`` on all 435 rows with ``missing="drop"``
(no missing-indicator node: the behaviour before), ``missing="model"`` (the default),
``missing="model", component_prior="class"`` (the latent components' prior before the hierarchical
one), ``missing="model", latent=None`` (the structure evidence chooses, no latent-class
candidate) and the same with ``support="smoothed"`` (the structure's posterior predictive as
fitted, not its observed support), then for each:

- the pMSE ratio (Snoke et al.; ``synthetic_report``) of 435 synthetic rows, mean ± sd over
  ``--seeds`` seeds, with one posterior draw of the parameters per call (``parameter_uncertainty=True``)
  and with the posterior-mean plug-in (``parameter_uncertainty=False``, the default);
- the largest per-column missing-rate error ``|rate real - rate synthetic|`` at 435 rows (mean
  over the seeds: sampling noise included) and over 50 x 435 rows of the plug-in model (its own
  rates).

Usage::

    python benchmarks/bench_missing.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from bayesnb import Synthesizer, synthetic_report
from bayesnb.datasets import load_house_votes

SETTINGS = {"missing='drop'": {"missing": "drop"}, "missing='model'": {},
            "missing='model', component_prior='class'": {"component_prior": "class"},
            "missing='model', latent=None": {"latent": None},
            "missing='model', latent=None, support='smoothed'": {"latent": None, "support": "smoothed"}}


def measure(votes, kwargs, seeds):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer(target="party", random_state=0, **kwargs).fit(votes)
    fit_s = time.perf_counter() - t0
    real = votes.isna().mean()
    row = {"chosen": synth.chosen_, "fit s": fit_s}
    for pu, label in ((True, "draw"), (False, "plug-in")):
        ratios, errors = [], []
        for seed in seeds:
            out = synth.sample(len(votes), random_state=seed, parameter_uncertainty=pu)
            s = synthetic_report(votes, out, target="party", random_state=seed, metrics=()).summary
            ratios.append(s["pmse_ratio"])
            errors.append(s["max_missing_rate_error"])
        row[f"pMSE ratio ({label})"] = f"{np.mean(ratios):.2f} ± {np.std(ratios, ddof=1):.2f}"
        row[f"rate err 435 ({label})"] = f"{np.mean(errors):.3f}"
    big = synth.sample(50 * len(votes), random_state=99, parameter_uncertainty=False)
    row["rate err model"] = f"{(big.isna().mean() - real).abs().max():.4f}"
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5)")
    args = p.parse_args(argv)
    votes = load_house_votes()
    rows = {name: measure(votes, kw, range(args.seeds)) for name, kw in SETTINGS.items()}
    keys = list(next(iter(rows.values())))
    print("| setting | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{row[k]:.1f}" if k == "fit s" else str(row[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
