"""The structure draws' grouping of equal rows (``bayesnb.structure._logdraw.distinct_rows``) against
``np.unique(axis=0)`` on the keys a TAN ``impute`` really groups (review of issue 27's speed change).

The keys are recorded from ``NaiveBayes(structure="tan").fit(Xm, y).impute(Xm, strategy=...)`` on the
census table (``DIR`` holding UCI's adult.data, 5,000 rows) or, without ``DIR``, the house votes,
MCAR 30%. Per recorded key: its rows, distinct rows, distinct 64-bit hashes (fewer: collisions, and the
exact fallback to ``np.unique`` runs), and the median seconds of each grouping over 7 interleaved runs.

Run:  python benchmarks/bench_distinct_rows.py [DIR]
"""
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.simplefilter("ignore")
import bayesnb.structure.exact_impute as si  # noqa: E402
from bayesnb import NaiveBayes  # noqa: E402
from bayesnb.structure import _logdraw  # noqa: E402

if len(sys.argv) > 1:
    from bench_impute import adult_table
    X, y = adult_table(sys.argv[1], 5000)
else:
    from bayesnb.datasets import load_house_votes
    hv = load_house_votes()
    X, y = hv.drop(columns="party"), hv["party"].to_numpy()
Xm = X.mask(np.random.default_rng(0).random(X.shape) < 0.3)
keys, inner = [], si.distinct_rows
si.distinct_rows = lambda key: keys.append(np.array(key)) or inner(key)
model = NaiveBayes(structure="tan").fit(Xm, y)
for strategy in ("auto", "draw"):
    model.impute(Xm, strategy=strategy, random_state=0)
si.distinct_rows = inner
print(f"{len(keys)} keys recorded")
for key in sorted(keys, key=len, reverse=True)[:6]:
    bits = np.ascontiguousarray(key + 0.0).view(np.uint64)
    t_hash, t_unique = [], []
    for _ in range(7):
        t = time.perf_counter()
        _logdraw.distinct_rows(key)
        t_hash.append(time.perf_counter() - t)
        t = time.perf_counter()
        np.unique(key, axis=0, return_index=True, return_inverse=True)
        t_unique.append(time.perf_counter() - t)
    print(f"rows {key.shape[0]} x {key.shape[1]}: distinct rows {len(np.unique(key + 0.0, axis=0))}, "
          f"distinct hashes {len(np.unique(_logdraw._row_hash(bits)))}; seconds distinct_rows "
          f"{np.median(t_hash):.4f}, np.unique {np.median(t_unique):.4f}, ratio {np.median(t_unique) / np.median(t_hash):.2f}")
