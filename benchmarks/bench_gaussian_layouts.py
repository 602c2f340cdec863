"""GaussianNB fit on Fortran-ordered, unaligned, float32 and DataFrame input, relative to C-ordered input, interleaved.

Times ``bayesnb.GaussianNB().fit`` on the same values in several layouts, one call of each in
turn per round (so that the load of a busy machine falls on all alike), and prints each layout's
best time and its ratio to the C-ordered array's. Run it in two checkouts to compare them::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_gaussian_layouts.py --rows 100000 --repeats 15
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import bayesnb


def _unaligned(A):
    """A copy of ``A`` whose data start one byte past an aligned address (as a Dask partition may)."""
    raw = np.empty(A.nbytes + 1, dtype=np.uint8)
    out = raw[1:].view(A.dtype).reshape(A.shape)
    out[...] = A
    return out


def main(argv=None):
    """Print the best fit time per layout and its ratio to C order."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--classes", type=int, default=3)
    p.add_argument("--repeats", type=int, default=15)
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    y = rng.integers(0, a.classes, a.rows)
    X = rng.normal(size=(a.rows, a.features)) + y[:, None] * 0.3
    cells = {"C": X, "Fortran": np.asfortranarray(X), "unaligned": _unaligned(X),
             "float32": X.astype(np.float32), "DataFrame": pd.DataFrame(np.asfortranarray(X))}
    best = dict.fromkeys(cells, np.inf)
    for A in cells.values():
        bayesnb.GaussianNB().fit(A, y)  # imports and caches out of the measurement
    for _ in range(a.repeats):
        for name, A in cells.items():
            t = time.perf_counter()
            bayesnb.GaussianNB().fit(A, y)
            best[name] = min(best[name], time.perf_counter() - t)
    print(f"GaussianNB fit, {a.rows} x {a.features}, {a.classes} classes, best of {a.repeats}; "
          f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for name, s in best.items():
        print(f"  {name:10s} {s * 1e3:7.2f} ms  {s / best['C']:.2f}x C")


if __name__ == "__main__":
    main()
