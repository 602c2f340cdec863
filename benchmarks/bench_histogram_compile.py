"""Histogram fits with the same shapes but other data: does the second NUTS run reuse the compiled sampler?

The issue-31 review (M5): a Histogram block's ``numpyro_static`` carried the tails' end-bin ``n`` (a training
statistic), so the in-memory and on-disk compile caches, keyed by the model's static structure, missed for every
new data set of the same shape. Now the static structure is the bin counts only. The script fits ``--fits``
weighted two-column Histogram models on fresh data (same shapes), runs a short NUTS chain on each, and prints
each run's seconds and the in-memory cache size (a hit leaves it unchanged).

    .venv/bin/python benchmarks/bench_histogram_compile.py --fits 3
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from bayesnb import Histogram, NaiveBayes
from bayesnb.inference import nuts


def _fit(seed, n=80):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(0, 1, n), rng.exponential(2.0, n)])
    y = rng.integers(0, 2, n)
    model = NaiveBayes(features={(0, 1): Histogram(bins=5)}).fit(X, y, sample_weight=rng.integers(1, 4, n))
    return model, X, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fits", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--samples", type=int, default=50)
    args = parser.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average)")
    warnings.simplefilter("ignore")
    for seed in range(args.fits):
        model, X, y = _fit(seed)
        t = time.perf_counter()
        model.run_mcmc(X, y, num_warmup=args.warmup, num_samples=args.samples, random_state=0)
        print(f"fit {seed}: run_mcmc {time.perf_counter() - t:.2f} s, in-memory compiled programs {len(nuts._CACHE)}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
