"""Monte-Carlo noise of ``impute_mnar(model="mvn")``: its NRMSE for ``random_state`` 0, 1, 2 on one mask.

The masks, tables and metric are bench_mnar.py's (seed 0 of each mask); the numbers are the NRMSE,
the EM iterations and whether EM stopped by its tolerance, per ``random_state``.

Run:  python benchmarks/bench_mnar_noise.py [--tables penguins diabetes]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

import bench_mnar as B
from bayesnb import impute_mnar


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=["penguins", "diabetes"])
    ap.add_argument("--random-states", type=int, default=3)
    args = ap.parse_args(argv)
    for name, (X, y) in B.tables(args.tables).items():
        nums = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
        for kind in B.MASKS:
            M = B.mask(X, nums, kind, np.random.default_rng(0))
            Xm = B.blank(X, M)
            out = []
            for rs in range(args.random_states):
                r = impute_mnar(Xm, y, model="mvn", random_state=rs)
                out.append(f"{B.nrmse(X, r.table, M, nums):.3f} ({len(r.em_objective)} it, converged {r.converged})")
            print(f"{name} | {kind} | " + " / ".join(out), flush=True)


if __name__ == "__main__":
    main()
