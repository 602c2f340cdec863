"""Memory and time of the generative paths on sparse counts (MultinomialNB).

A MultinomialNB is fitted on a simulated CSR matrix of word-like counts (default
4,000 x 200,000 with 0.02% non-zeros; counts ``1 + Poisson(0.5)``, 4 classes), then,
one call at a time:

- ``sample(1000)``
- ``impute`` of 1,000 training rows with 2% of their stored cells set to NaN
- ``feature_log_contributions`` of 1,000 training rows

For each call: the peak extra memory traced by ``tracemalloc`` during the call, the wall
time (a separate untraced run), and the output type. With ``--rss`` each call is also
run in a fresh subprocess, which reports the growth of its peak resident set size
(``VmHWM`` after resetting it, Linux) over the call: that includes memory tracemalloc does not see.

Run::

    PYTHONPATH=. python benchmarks/bench_sparse.py [--quick] [--rss]

``--quick`` uses a 1,000 x 50,000 matrix (same density) and 250-row calls.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

from bayesnb import MultinomialNB

FULL = {"n": 4000, "d": 200_000, "density": 2e-4, "calls": 1000}
QUICK = {"n": 1000, "d": 50_000, "density": 2e-4, "calls": 250}


def make_data(n, d, density, calls, seed=0):
    """Simulated counts, labels, and the rows to impute (2% of stored cells NaN)."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=float)
    X.data = 1.0 + rng.poisson(0.5, X.nnz)
    y = rng.integers(0, 4, n)
    Xm = X[:calls].copy()
    hide = rng.choice(Xm.nnz, size=max(1, int(0.02 * Xm.nnz)), replace=False)
    Xm.data[hide] = np.nan
    return X, y, Xm


def calls(model, X, Xm, m):
    """The three calls, by name."""
    return {
        "sample": lambda: model.sample(m, random_state=0)[0],
        "impute": lambda: model.impute(Xm, random_state=0),
        "feature_log_contributions": lambda: model.feature_log_contributions(X[:m]),
    }


def measure(fn):
    """``(peak traced MiB, seconds, output type)`` of one call."""
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    del out
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    kind = f"{type(out).__name__}" + (f" {out.format}" if sp.issparse(out) else "")
    return peak / 2**20, seconds, kind


def _status_mib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def one_rss(size, name):
    """Run one call in this (fresh) process; print the growth of peak RSS in MiB as JSON."""
    X, y, Xm = make_data(**size)
    model = MultinomialNB().fit(X, y)
    fn = calls(model, X, Xm, size["calls"])[name]
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:  # reset the peak RSS (VmHWM) to the current RSS
        f.write("5")
    before = _status_mib("VmRSS")
    fn()
    after = _status_mib("VmHWM")
    print(json.dumps({"rss_mib": after - before}))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a 1,000 x 50,000 matrix and 250-row calls")
    p.add_argument("--rss", action="store_true", help="also peak RSS growth of each call in a fresh subprocess")
    p.add_argument("--one", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    size = QUICK if a.quick else FULL
    if a.one:
        return one_rss(size, a.one)
    X, y, Xm = make_data(**size)
    model = MultinomialNB().fit(X, y)
    dense_mib = size["calls"] * size["d"] * 8 / 2**20
    print(f"MultinomialNB on a {size['n']} x {size['d']} CSR, {X.nnz} non-zeros; calls on {size['calls']} rows "
          f"(one dense float64 block of them: {dense_mib:.0f} MiB)")
    print(f"{'call':<28}{'peak MiB':>10}{'seconds':>10}{'RSS MiB':>10}  output")
    for name, fn in calls(model, X, Xm, size["calls"]).items():
        peak, seconds, kind = measure(fn)
        rss = ""
        if a.rss:
            cmd = [sys.executable, __file__, "--one", name] + (["--quick"] if a.quick else [])
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            rss = f"{json.loads(res.stdout.strip().splitlines()[-1])['rss_mib']:.0f}"
        print(f"{name:<28}{peak:>10.1f}{seconds:>10.2f}{rss:>10}  {kind}")


if __name__ == "__main__":
    main()
