"""Benchmark: the Categorical block's two NUTS sites, stick-breaking logits vs normalised Gammas.

Same model, two parameterisations of its Categorical site (``Categorical.STICK_MAX_VALUES``
set to a large number: sticks for every block; to 0: normalised Gammas for every block), on
simulated tables of 2,000 rows, 2 classes (60/40) and 8 categorical columns of ``V`` values
each, class-dependent value frequencies drawn from Dirichlet(0.7); ``--mixed`` adds the
simulated mixed table of ``bench_mcmc_calls.py --sizes`` (8 categorical columns of 12-78
values and 6 Gaussian columns). Per table and site: one call to compile, then ``--seeds``
warm ``run_nuts`` calls (500 warmup + 1,000 draws, one chain), the two sites interleaved seed
by seed in one process, each timed in CPU seconds of the process. Reported: medians over the
seeds of CPU seconds, leapfrog steps per draw, min bulk ESS over every parameter and ESS per
CPU second, and sticks / Gammas of the median ESS per second::

    python benchmarks/bench_categorical_site.py [--values 2,3,4,6,12,24] [--seeds 3] [--mixed]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def simulated(V, n=2000, d=8, seed=0):
    """A fitted NaiveBayes (one Categorical block) and its table: d columns of V values each."""
    import pandas as pd

    from bayesnb import NaiveBayes
    from bayesnb.families import Categorical

    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n, p=[0.6, 0.4])
    cols = {}
    for j in range(d):
        for k in ("a", "b"):
            p = rng.dirichlet(np.full(V, 0.7))
            idx = np.flatnonzero(y == k)
            cols.setdefault(f"c{j}", np.empty(n, dtype=object))[idx] = [f"v{v}" for v in rng.choice(V, idx.size, p=p)]
    X = pd.DataFrame(cols)
    return NaiveBayes(features={tuple(cols): Categorical()}).fit(X, y), X, y


def one_run(spec, priors, data, seed, W, S):
    """CPU seconds, mean leapfrog steps and min bulk ESS of one warm run_nuts call."""
    from bayesnb.inference.mcmc_stats import ess_bulk
    from bayesnb.inference import nuts

    t0 = time.process_time()
    samples, extra, timing = nuts.run_nuts(spec, priors, data, num_warmup=W, num_samples=S, seed=seed,
                                           progress_bar=False)
    cpu = time.process_time() - t0
    draws = nuts.mcmc_draws(spec, samples)
    flat = np.concatenate([np.asarray(v, float).reshape(1, v.shape[1], -1) for v in draws.values()], -1)
    ok = np.isfinite(flat).all(axis=(0, 1)) & (flat.std(axis=(0, 1)) > 0)
    return cpu, float(extra["num_steps"].mean()), float(ess_bulk(flat[..., ok]).min())


def bench(tables, seeds, W=500, S=1000):
    from bayesnb.families import Categorical

    forms = {"sticks": 10**9, "Gammas": 0}
    rows, default = [], Categorical.STICK_MAX_VALUES
    try:
        rows = _bench(tables, seeds, W, S, forms)
    finally:
        Categorical.STICK_MAX_VALUES = default
    return rows


def _bench(tables, seeds, W, S, forms):
    from bayesnb.families import Categorical
    from bayesnb.inference.numpyro_model import estimator_inputs

    rows = []
    for name, (clf, X, y) in tables:
        inputs = {}
        for form, limit in forms.items():  # each site's model inputs (and its compiled sampler)
            Categorical.STICK_MAX_VALUES = limit
            inputs[form] = estimator_inputs(clf, X, y)
            one_run(*inputs[form], 10_000, W, S)  # compile
        res = {form: [] for form in forms}
        for seed in range(1, seeds + 1):
            for form in forms:
                res[form].append(one_run(*inputs[form], seed, W, S))
        for form, r in res.items():
            r = np.array(r)
            rows.append((name, form, np.median(r[:, 0]), np.median(r[:, 1]), np.median(r[:, 2]),
                         np.median(r[:, 2] / r[:, 0])))
            print(f"  {name:14s} {form:7s} cpu {rows[-1][2]:.3f} s, leapfrog/draw {rows[-1][3]:.1f}, "
                  f"min ESS {rows[-1][4]:.0f}, ESS/cpu-s {rows[-1][5]:.0f}, load {os.getloadavg()[0]:.1f}", flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--values", default="2,3,4,6,12,24")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--mixed", action="store_true", help="also the mixed table of bench_mcmc_calls.py --sizes")
    args = ap.parse_args(argv)
    tables = [(f"V={V}", simulated(int(V))) for V in args.values.split(",") if V]
    if args.mixed:
        import sys

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_mcmc_calls import _models

        _, clf, X, y = _models()[1]
        tables.append(("mixed 12-78", (clf, X, y)))
    load0 = os.getloadavg()[0]
    rows = bench(tables, args.seeds)
    print(f"\n500 warmup + 1000 draws, 1 chain, float32, CPU seconds, median of {args.seeds} seeds; "
          f"1-minute load {load0:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| table | site | CPU s | leapfrog steps / draw | min bulk ESS | ESS / CPU s |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]:.1f} | {r[4]:.0f} | {r[5]:.0f} |")
    print("\nsticks / Gammas, ESS per CPU second:")
    for name in dict.fromkeys(r[0] for r in rows):
        a, b = (next(r[5] for r in rows if r[0] == name and r[1] == f) for f in ("sticks", "Gammas"))
        print(f"  {name}: {a / b:.2f}x")


if __name__ == "__main__":
    main()
