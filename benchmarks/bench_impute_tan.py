"""impute_table's two tree configurations alone on one table: "tan" (BDeu forest) and "tan-mi" (Chow-Liu tree).

Each configuration imputes the whole blanked table by itself (``impute_table(..., configurations=cfg,
label_given=True)``), so its accuracy is that of its tree; the learned parents are printed, and per column the
accuracy (categorical) or NRMSE (numeric) on the blanked cells. This is the measurement behind the census
MCAR 30% regression of issue 27 (the BDeu edge score made the binned ``education-num`` the parent of
``education``; docs/benchmarks.md).

Run:  python benchmarks/bench_impute_tan.py --adult DIR [--tables adult penguins "house votes"] [--seeds 1]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from bench_impute import masked_runs, score, tables

from bayesnb import NaiveBayes, impute_table

EDGE = {"tan": "bdeu", "tan-mi": "mi"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adult", default=None, metavar="DIR", help="folder with UCI's adult.data")
    ap.add_argument("--tables", nargs="+", default=["adult"])
    ap.add_argument("--masks", nargs="+", default=["MCAR 30%"])
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args(argv)
    tabs = tables(False, args.adult)
    names = [n for n in tabs if n in args.tables]
    for name, X, y, cats, nums, kind, seed, M, Xm in masked_runs(tabs, names, args.masks, args.seeds):
        for cfg in ("tan", "tan-mi"):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                F = impute_table(Xm, y, configurations=cfg, label_given=True, random_state=seed).table
            acc, nrmse = score(X, F, M, cats, nums)[:2]
            per = {}
            for j, c in enumerate(X.columns):
                m = M[:, j]
                t_, v = X[c].to_numpy()[m], F[c].to_numpy()[m]
                per[c] = (np.mean(v.astype(str) == t_.astype(str)) if c in cats else
                          np.sqrt(np.mean((v.astype(float) - t_.astype(float)) ** 2)) / np.std(t_.astype(float)))
            parents = NaiveBayes(structure="tan", edge_score=EDGE[cfg]).fit(Xm, y).structure_
            print(f"{name} {kind} seed {seed} {cfg}: accuracy {acc:.4f}, NRMSE {nrmse:.4f} "
                  f"({time.perf_counter() - t:.0f} s)")
            print("  per column: " + ", ".join(f"{c} {v:.3f}" for c, v in per.items()))
            print("  parents: " + ", ".join(f"{c} <- {p[0]}" for c, p in parents.items() if p))


if __name__ == "__main__":
    main()
