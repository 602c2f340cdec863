"""Why a method wins or loses alpha-precision / beta-recall: radii and the columns of the misses.

Reads the synthetic rows that ``bench_synthesis.py --details DIR`` wrote (``census_<method>_<seed>_
synthetic.csv``) and the same census split, and for each method prints, on seeded subsamples of
``--max-rows`` rows of each table (as ``synthetic_report``; not the very same subsample, so the
shares can differ from the report's in the third digit):

- ``r_alpha``: the 0.95-quantile of the real rows' distances to their 5th-nearest other real row
  (the same for every method), and ``r_beta``: the same quantile of the *synthetic* rows' own
  5-NN distances, the radius beta-recall uses. A generator whose rows are spread out has a large
  ``r_beta``, so its balls cover more real rows whatever their place;
- ``alpha-P`` / ``beta-R`` as ``synthetic_report`` defines them, and the median distance from a
  synthetic row to its nearest real row and from a real row to its nearest synthetic row;
- for the synthetic rows outside the real alpha-support (alpha misses) and the real rows outside
  the synthetic beta-support (beta misses): the column that contributes most to the squared
  distance to the nearest row of the other table, counted over the misses (the top five).

The real holdout (the test rows) is scored as a method of its own ("real holdout"), as the
reference of what fresh real rows read. Column shapes and pair trends depend on the table's size
(sampling noise lowers both), and the holdout has fewer rows than a synthetic table; so ``shape
@n`` / ``trend @n`` also score a seeded subsample of each synthetic table of the holdout's size.

Usage::

    python benchmarks/synthesis_alpha_beta.py --census adult.data --details DIR [--seed 0]
"""

from __future__ import annotations

import argparse
import glob
import os
import sys

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_synthesis as bench  # noqa: E402

from bayesnb import synthetic_report  # noqa: E402
from bayesnb.synth.distance import encode, nearest_distances  # noqa: E402
from bayesnb.synth.quality import _prepare  # noqa: E402


def _width(prep):
    """The column of each encoded feature (numerics may carry a missing indicator)."""
    names = []
    for name, (kind, *arrays) in prep.items():
        if kind == "categorical":
            names += [name] * len(set(np.concatenate(arrays).tolist()))
        else:
            names += [name] * (2 if any(np.isnan(a).any() for a in arrays) else 1)
    return np.array(names)


def analyse(train, syn, seed, max_rows, n_equal, k=5, q=0.95):
    """The radii, scores and the columns of the misses of one synthetic table (a dict)."""
    sub = syn.sample(min(n_equal, len(syn)), random_state=seed) if len(syn) > n_equal else syn
    s = synthetic_report(train, sub, metrics=()).summary
    prep = _prepare(train, (syn, "synthetic"))
    real, points = encode(list(prep.values()))
    cols = _width(prep)
    rng = np.random.default_rng(seed)
    real = real[np.sort(rng.choice(len(real), min(max_rows, len(real)), replace=False))]
    points = points[np.sort(rng.choice(len(points), min(max_rows, len(points)), replace=False))]
    r_alpha = np.quantile(nearest_distances(real, real, k, exclude_self=True), q)
    r_beta = np.quantile(nearest_distances(points, points, k, exclude_self=True), q)
    out = {"r_alpha": r_alpha, "r_beta": r_beta, "shape @n": s["column_shapes"], "trend @n": s["column_pair_trends"]}
    for label, a, b, r in (("alpha", points, real, r_alpha), ("beta", real, points, r_beta)):
        d, idx = NearestNeighbors(n_neighbors=1).fit(b).kneighbors(a)
        d, idx = d[:, 0], idx[:, 0]
        miss = d > r
        out[f"{label} score"] = float(np.mean(~miss))
        out[f"{label} median nn"] = float(np.median(d))
        sq = (a[miss] - b[idx[miss]]) ** 2
        per_col = pd.DataFrame(sq, columns=cols).T.groupby(level=0).sum().T  # (misses, columns)
        top = per_col.idxmax(axis=1).value_counts(normalize=True).head(5) if len(per_col) else pd.Series(dtype=float)
        out[f"{label} misses by column"] = ", ".join(f"{c} {v:.0%}" for c, v in top.items())
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--census", required=True, metavar="FILE")
    p.add_argument("--details", required=True, metavar="DIR", nargs="+")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-rows", type=int, default=10000)
    args = p.parse_args(argv)
    train, test, _ = bench.census_tables(args.census, None, args.seed, keep_missing=False)
    tables = {"real holdout": test}
    for folder in args.details:
        for f in sorted(glob.glob(os.path.join(folder, f"census_*_{args.seed}_synthetic.csv"))):
            name = os.path.basename(f)[len("census_"):-len(f"_{args.seed}_synthetic.csv")].replace("_", " ")
            if name.startswith("real holdout"):
                continue
            tables[name] = pd.read_csv(f).astype(train.dtypes.to_dict())
    rows = []
    for name, syn in tables.items():
        rows.append({"method": name, **analyse(train, syn, args.seed, args.max_rows, len(test))})
        print(rows[-1], flush=True)
    res = pd.DataFrame(rows)
    print()
    keys = ["shape @n", "trend @n", "r_alpha", "r_beta", "alpha score", "beta score", "alpha median nn",
            "beta median nn"]
    print("| method | " + " | ".join(keys) + " |\n" + "|---" * (len(keys) + 1) + "|")
    for r in rows:
        print(f"| {r['method']} | " + " | ".join(f"{r[k]:.3f}" for k in keys) + " |")
    print()
    for r in rows:
        print(f"- {r['method']}: alpha misses {r['alpha misses by column'] or '–'}; "
              f"beta misses {r['beta misses by column'] or '–'}")


if __name__ == "__main__":
    main()
