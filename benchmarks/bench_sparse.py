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
(``VmHWM`` after resetting it and ``malloc_trim``, Linux) over the call: that includes memory tracemalloc does not see.

Run::

    PYTHONPATH=. python benchmarks/bench_sparse.py [--quick] [--rss]
    PYTHONPATH=. python benchmarks/bench_sparse.py --20news [--split-classes 2] [--rss]

``--quick`` uses a 1,000 x 50,000 matrix (same density) and 250-row calls. ``--20news``
fits instead on the 20 Newsgroups training split (``../shared/data/20news-bydate.jsonl.gz``
beside the repository root, or ``--data``) vectorised by scikit-learn's ``CountVectorizer``
with unigrams and bigrams (``ngram_range=(1, 2)``, other settings default: 11,314 x 1,181,803),
and measures ``sample(1000)`` only; ``--split-classes S`` splits each newsgroup into S
classes by row position (K = 20 S), to see the memory against K.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import subprocess
import sys
import time
import tracemalloc

from pathlib import Path

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


def news_data(path, split_classes=1):
    """20 Newsgroups training split: unigram + bigram counts (CSR) and labels (K = 20 * split_classes)."""
    from sklearn.feature_extraction.text import CountVectorizer

    from bayesnb.datasets import read_20newsgroups

    texts, labels, _, _ = read_20newsgroups(path)
    X = CountVectorizer(ngram_range=(1, 2)).fit_transform(texts)
    y = np.asarray([f"{lab}/{i % split_classes}" for i, lab in enumerate(labels)])
    return X, y


def _news_path(arg):
    p = Path(arg) if arg else Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.jsonl.gz"
    if not p.exists():
        sys.exit(f"bench_sparse: data file not found: {p} (use --data)")
    return p


def _setup(a, size):
    """(model, X, Xm, rows per call) of the run's data."""
    if a.news:
        X, y = news_data(_news_path(a.data), a.split_classes)
        return MultinomialNB().fit(X, y), X, None, 1000
    X, y, Xm = make_data(**size)
    return MultinomialNB().fit(X, y), X, Xm, size["calls"]


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


def one_rss(a, size, name):
    """Run one call in this (fresh) process; print the growth of peak RSS in MiB as JSON."""
    model, X, Xm, m = _setup(a, size)
    fn = calls(model, X, Xm, m)[name]
    gc.collect()
    try:  # hand the heap's free memory back (glibc), so that the call's memory shows as growth
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
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
    p.add_argument("--20news", dest="news", action="store_true",
                   help="sample(1000) of a model of 20 Newsgroups' training split with bigrams")
    p.add_argument("--data", help="the 20 Newsgroups file (default ../shared/data/20news-bydate.jsonl.gz)")
    p.add_argument("--split-classes", type=int, default=1, help="with --20news: classes per newsgroup (K = 20 S)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    size = QUICK if a.quick else FULL
    if a.one:
        return one_rss(a, size, a.one)
    model, X, Xm, m = _setup(a, size)
    K, d = len(model.classes_), X.shape[1]
    what = "20 Newsgroups train, unigrams + bigrams" if a.news else "a simulated"
    print(f"MultinomialNB on {what} {X.shape[0]} x {d} CSR, {X.nnz} non-zeros, K = {K}; calls on {m} rows "
          f"(one dense float64 block of them: {m * d * 8 / 2**20:.0f} MiB; one K x d float64 array: "
          f"{K * d * 8 / 2**20:.0f} MiB)")
    print(f"{'call':<28}{'peak MiB':>10}{'seconds':>10}{'RSS MiB':>10}  output")
    todo = calls(model, X, Xm, m)
    for name, fn in ({"sample": todo["sample"]} if a.news else todo).items():
        peak, seconds, kind = measure(fn)
        rss = ""
        if a.rss:
            extra = ["--quick"] if a.quick else []
            if a.news:
                extra = ["--20news", "--split-classes", str(a.split_classes)] + (["--data", a.data] if a.data else [])
            cmd = [sys.executable, __file__, "--one", name] + extra
            res = subprocess.run(cmd, capture_output=True, text=True, check=True)
            rss = f"{json.loads(res.stdout.strip().splitlines()[-1])['rss_mib']:.0f}"
        print(f"{name:<28}{peak:>10.1f}{seconds:>10.2f}{rss:>10}  {kind}")


if __name__ == "__main__":
    main()
