"""bayesnb vs scikit-learn on dense data: wall time and peak memory, side by side.

GaussianNB (real features) and CategoricalNB (integer codes, 5 categories per
feature), 3 classes, on ``N x 20`` simulated data without missing cells. For each
call (``fit``, ``predict``, ``predict_proba``) the script takes the best of 3 wall
times (``time.perf_counter``) and the peak of ``tracemalloc`` over one call, for
bayesnb and scikit-learn in the same process, and prints their ratios. It also
reports the peak of ``GaussianNB.impute`` on the plain array with 1% of cells set
to NaN, relative to the input's size.

Targets (issue 11): fit and predict_proba <= 1.0x scikit-learn in time and peak
memory; predict <= 0.8x.

Usage::

    .venv/bin/python benchmarks/bench_dense.py            # 1,000,000 x 20
    .venv/bin/python benchmarks/bench_dense.py --quick    # 100,000 x 20
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
import tracemalloc

import numpy as np
import sklearn
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

import bayesnb

MIB = 2.0**20


def measure(call, repeats=3):
    """(best wall time in s, peak tracemalloc in MiB) of ``call()``."""
    times = []
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    gc.collect()
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return min(times), peak / MIB


def data(n, d, seed=0):
    """Real features, integer codes and 3 labels, (n, d) each."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    Xg = rng.normal(size=(n, d)) + y[:, None] * 0.3
    Xc = np.minimum(rng.poisson(1.0 + y[:, None] * 0.5, size=(n, d)), 4).astype(np.int64)
    return Xg, Xc, y


def compare(name, ours, theirs, X, y, rows):
    for call in ("fit", "predict", "predict_proba"):
        if call == "fit":
            a = measure(lambda: ours.fit(X, y))
            b = measure(lambda: theirs.fit(X, y))
        else:
            a = measure(lambda c=call: getattr(ours, c)(X))
            b = measure(lambda c=call: getattr(theirs, c)(X))
        rows.append((name, call, a, b))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 rows instead of 1,000,000")
    parser.add_argument("--rows", type=int, default=None)
    args = parser.parse_args()
    n = args.rows or (100_000 if args.quick else 1_000_000)
    d = 20
    Xg, Xc, y = data(n, d)
    print(f"# bench_dense: {n:,} x {d}, 3 classes; bayesnb {bayesnb.__version__}, scikit-learn "
          f"{sklearn.__version__}, numpy {np.__version__}, Python {platform.python_version()}")
    rows = []
    compare("GaussianNB", bayesnb.GaussianNB(), SkGaussianNB(), Xg, y, rows)
    compare("CategoricalNB", bayesnb.CategoricalNB(), SkCategoricalNB(), Xc, y, rows)
    print("| estimator | call | bayesnb time (s) | sklearn time (s) | time ratio "
          "| bayesnb peak (MiB) | sklearn peak (MiB) | memory ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, call, (ta, ma), (tb, mb) in rows:
        print(f"| {name} | {call} | {ta:.3f} | {tb:.3f} | {ta / tb:.2f}x | {ma:.1f} | {mb:.1f} | {ma / mb:.2f}x |")
    rng = np.random.default_rng(1)
    Xm = Xg.copy()
    Xm[rng.random(Xm.shape) < 0.01] = np.nan
    model = bayesnb.GaussianNB().fit(Xg, y)
    t, peak = measure(lambda: model.impute(Xm), repeats=1)
    size = Xm.nbytes / MIB
    print(f"\nGaussianNB.impute on the plain array ({size:.1f} MiB, 1% NaN): peak {peak:.1f} MiB "
          f"= {peak / size:.2f}x the input; {t:.3f} s")


if __name__ == "__main__":
    main()
