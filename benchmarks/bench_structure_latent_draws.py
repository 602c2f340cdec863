"""Benchmark: the latent-class model's NUTS draws as plug-in models, on every structure.

For house votes and penguins (70% train / 30% held out, stratified, per seed), each structure
(naive, TAN, k-DB) and ``C`` components per class:

- ``em``: held-out mean ``log p(x)`` per row under ``fit_latent_class(n_components=C)``'s plug-in;
- ``nuts``: the posterior-predictive ``log p(x)`` from ``run_mcmc(n_components=C)``'s draws,
  ``logsumexp`` over ``latent_class_draws``' fits of ``score_samples(X, latent=f)`` minus
  ``log(n_draws)`` (label-invariant);
- ``nuts - em`` (nats per row), the NUTS seconds, and the seconds of ``latent_class_draws``
  plus scoring every draw.

Usage::

    python benchmarks/bench_structure_latent_draws.py [--seeds 1] [--components 2] [--warmup 200] [--draws 100]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.model_selection import train_test_split

from bayesnb import NaiveBayes
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.generative.latent import latent_class_draws

STRUCTURES = ("naive", "tan", "kdb")


def tables():
    votes = load_house_votes()
    peng = load_penguins()
    return {"house votes": (votes.drop(columns="party"), votes["party"].to_numpy()),
            "penguins": (peng.drop(columns="species"), peng["species"].to_numpy())}


def run(X, y, structure, C, seed, warmup, draws):
    """``(em, nuts, nuts seconds, draws seconds)`` held-out mean log p(x) per row and timings."""
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    m = NaiveBayes(structure=structure).fit(Xtr, ytr)
    em = m.fit_latent_class(Xtr, ytr, n_components=C, random_state=seed)
    t0 = time.perf_counter()
    idata = m.run_mcmc(Xtr, ytr, n_components=C, num_warmup=warmup, num_samples=draws, num_chains=1,
                       random_state=seed)
    t1 = time.perf_counter()
    fits = latent_class_draws(m, idata)
    scores = np.array([m.score_samples(Xte, latent=f) for f in fits])
    t2 = time.perf_counter()
    pp = logsumexp(scores, axis=0) - np.log(len(fits))
    return float(m.score_samples(Xte, latent=em).mean()), float(pp.mean()), t1 - t0, t2 - t1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--components", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--draws", type=int, default=100)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; C={a.components}, {a.warmup} warmup + {a.draws} draws, "
          "one chain")
    print("| table | structure | seed | em log p(x) | nuts log p(x) | nuts - em | NUTS s | draws+scores s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (X, y) in tables().items():
        for structure in STRUCTURES:
            for seed in range(a.seeds):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    em, nuts, t_nuts, t_draws = run(X, y, structure, a.components, seed, a.warmup, a.draws)
                print(f"| {name} | {structure} | {seed} | {em:.3f} | {nuts:.3f} | {nuts - em:+.3f} | "
                      f"{t_nuts:.1f} | {t_draws:.1f} |", flush=True)


if __name__ == "__main__":
    main()
