"""Scale of structure learning plus fit against the naive fit: wall time and peak memory, side by side.

On a generated mixed table of ``--rows`` rows (default 200,000) x 20 columns, 3 classes:
10 categorical columns (pandas ``category``) of 2 to 20 levels, in chains of dependence given
the class, and 10 numeric columns (4 real, 3 positive real, 3 counts) that depend on the class
and on a categorical column; 2% of the cells missing. Four fits of ``NaiveBayes`` on it:

- ``naive``: ``NaiveBayes()`` (``features="auto"``, ``structure="naive"``), the reference;
- ``tan``: ``NaiveBayes(structure="tan")``: structure learning (edge scores, Chow-Liu forest)
  plus the fit of every node on its contexts;
- ``auto``: ``NaiveBayes(structure="auto")``: naive, TAN and k-DB (flat and hierarchical)
  compared by evidence, with the 5-fold cross-validation check against naive (``auto_cv=True``);
- ``auto_nocv``: the same with ``auto_cv=False``.

For each, the script reports

- time: the best of ``--repeat`` wall times (``time.perf_counter``), the fits interleaved
  within each round so that a change in the machine's load falls on all of them alike;
- tracemalloc: the peak of ``tracemalloc`` over one fit (Python and NumPy allocations),
  the data made before tracing starts;
- RSS (``--rss``): the growth of the resident set over one fit in a fresh subprocess per
  fit (``VmHWM`` after the fit, the high-water mark reset before it through
  ``/proc/self/clear_refs``, minus the resident set before the fit);

and each one's ratio to ``naive``, with the machine's load average before and after.
The bar of issue 25 at 1,000,000 x 20: ``tan``/``auto`` time <= 3x naive, peak memory <= 1.2x.

Usage::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_structure_scale.py                 # 2e5 rows
    PYTHONPATH=. .venv/bin/python benchmarks/bench_structure_scale.py --rows 1000000 --repeat 1 --rss
    PYTHONPATH=. .venv/bin/python benchmarks/bench_structure_scale.py --fits naive,tan   # a subset
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

import bayesnb
from bench_dense import rss_growth as rss_of_call
from bench_dense import tracemalloc_peak

MIB = 2.0**20
FITS = {
    "naive": lambda: bayesnb.NaiveBayes(),
    "tan": lambda: bayesnb.NaiveBayes(structure="tan"),
    "auto": lambda: bayesnb.NaiveBayes(structure="auto"),
    "auto_nocv": lambda: bayesnb.NaiveBayes(structure="auto", auto_cv=False),
}
#: the levels of the 10 categorical columns (2 to 20)
LEVELS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20)


def table(n, seed=0, missing=0.02):
    """``(X, y)``: a DataFrame of ``n`` rows (10 categorical, 10 numeric columns) and 3 labels."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols = {}
    prev = None
    for j, v in enumerate(LEVELS):
        # a chain given the class: half the rows copy (a function of) the previous column
        own = (rng.integers(0, v, n) + y) % v
        codes = own if prev is None else np.where(rng.random(n) < 0.5, (prev * 7 + y) % v, own)
        prev = codes
        cols[f"c{j}"] = codes
    for j in range(10):
        parent = cols[f"c{j}"]
        if j < 4:
            x = rng.normal(loc=y * 0.5 + parent * 0.3, scale=1.0)
        elif j < 7:
            x = rng.lognormal(mean=0.2 * y + 0.1 * parent, sigma=0.5)
        else:
            x = rng.poisson(1.0 + 0.5 * y + 0.2 * parent).astype(np.float64)
        cols[f"x{j}"] = x
    X = pd.DataFrame(cols)
    for j, v in enumerate(LEVELS):
        codes = X[f"c{j}"].to_numpy()
        codes = np.where(rng.random(n) < missing, -1, codes)
        X[f"c{j}"] = pd.Categorical.from_codes(codes, [f"v{k}" for k in range(v)])
    for j in range(10):
        x = X[f"x{j}"].to_numpy(copy=True)
        x[rng.random(n) < missing] = np.nan
        X[f"x{j}"] = x
    return X, np.array(["a", "b", "c"])[y]


def fit(name, X, y):
    """Fit one model, its warnings (few rows, search edges) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FITS[name]().fit(X, y)


def interleaved(names, X, y, repeats):
    """``{name: best wall time}``, the fits interleaved within each round; the last fitted models."""
    best, models = {m: np.inf for m in names}, {}
    for _ in range(repeats):
        for m in names:
            gc.collect()
            t = time.perf_counter()
            models[m] = fit(m, X, y)
            best[m] = min(best[m], time.perf_counter() - t)
            print(f"  {m}: {time.perf_counter() - t:.2f} s", file=sys.stderr, flush=True)
    return best, models


# ------------------------------------------------------------------ RSS in a fresh process
def child(name, n):
    """Run in a fresh process: print the RSS growth (MiB) of one fit as JSON."""
    X, y = table(n)
    fit("naive", X.iloc[:1000], y[:1000])  # imports and first-call caches out of the measure
    got = rss_of_call(lambda: fit(name, X, y))  # bench_dense's measure: the high-water mark reset first
    print(json.dumps({"rss": got["rss_peak_mib"] if got["reset"] else float("nan")}))


def rss_growth(name, n):
    out = subprocess.run([sys.executable, __file__, "--child", name, "--rows", str(n)], capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return json.loads(out.stdout.strip().splitlines()[-1])["rss"]


def load():
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--fits", default=",".join(FITS), help="comma-separated subset of " + ", ".join(FITS))
    ap.add_argument("--rss", action="store_true", help="also the RSS growth of each fit in a fresh process")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child, args.rows)
    names = [m for m in args.fits.split(",") if m]
    if names[0] != "naive":
        names = ["naive"] + [m for m in names if m != "naive"]
    X, y = table(args.rows)
    fit("naive", X.iloc[:1000], y[:1000])  # imports and first-call caches out of the measure
    print(f"{args.rows:,} rows x {X.shape[1]} columns (10 categorical of 2-20 levels, 10 numeric), 3 classes, "
          f"2% missing; best of {args.repeat}; {os.cpu_count()} CPUs; load average (1, 5, 15 min) before: {load()}")
    times, models = interleaved(names, X, y, args.repeat)
    peaks, rss = {}, {}
    for m in names:
        peaks[m] = tracemalloc_peak(lambda m=m: fit(m, X, y))
        print(f"  {m}: tracemalloc peak {peaks[m]:.0f} MiB", file=sys.stderr, flush=True)
    for m in names if args.rss else ():
        rss[m] = rss_growth(m, args.rows)
        print(f"  {m}: RSS growth {rss[m]:.0f} MiB", file=sys.stderr, flush=True)
    head = f"{'fit':10s}{'chosen':>8s}{'time s':>9s}{'x naive':>9s}{'peak MiB':>10s}{'x naive':>9s}"
    print(head + (f"{'RSS MiB':>9s}{'x naive':>9s}" if rss else ""))
    for m in names:
        line = (f"{m:10s}{models[m].structure_kind_:>8s}{times[m]:9.2f}{times[m] / times['naive']:9.2f}"
                f"{peaks[m]:10.0f}{peaks[m] / peaks['naive']:9.2f}")
        if rss:
            line += f"{rss[m]:9.0f}{rss[m] / rss['naive']:9.2f}"
        print(line)
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
