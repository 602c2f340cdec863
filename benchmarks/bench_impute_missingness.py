"""impute_table's ``missingness="auto"`` (the default) against ``"mar"`` (no test), on bench_impute.py's tables.

For each table, mask (MCAR 30%, MAR, MNAR: ``bench_impute.py``'s ``mask`` and ``blank``) and seed, fits
``Imputer(label_given=True, columns="missing", missingness=M)`` for ``M`` in ``"mar"`` and ``"auto"`` with the
same seed and prints the hidden cells' mean accuracy (categorical columns) and NRMSE (numeric columns), the
test's choice and gain (``loglik_mnar - loglik_mar`` against ``k/2 log n``), how many columns the self-masking
model fills, and the seconds of each. Then a summary per table and mask: right choices (MNAR under the MNAR
mask, MAR otherwise; a run where no column could take the self-masking model counts as MAR) and the mean
scores.

Usage::

    python benchmarks/bench_impute_missingness.py [--tables "house votes" penguins] [--seeds 3]
    python benchmarks/bench_impute_missingness.py --tables "breast cancer" diabetes --seeds 2
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_impute as BI  # noqa: E402
from probe_mnar_evidence import MASKS, hidden_scores  # noqa: E402

from bayesnb import Imputer  # noqa: E402


def run(X, y, kind, seed, missingness):
    """``(accuracy, NRMSE, missingness_, columns filled by "mnar", seconds)`` of one imputation."""
    M = BI.mask(X, kind, np.random.default_rng(seed))
    Xm = BI.blank(X, M)
    t = time.perf_counter()
    imp = Imputer(label_given=True, random_state=seed, missingness=missingness, columns="missing").fit(Xm, y)
    out = imp.impute(Xm, y, random_state=seed)
    took = time.perf_counter() - t
    acc, nrmse = hidden_scores(X, M, out)
    return acc, nrmse, imp.missingness_, sum(v == "mnar" for v in imp.chosen_.values()), took


def main(argv=None):
    """Print one line per table, mask and seed, then the summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=["house votes", "penguins"])
    ap.add_argument("--masks", nargs="+", default=list(MASKS))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--adult", default=None, metavar="DIR", help="folder with UCI's adult.data (table 'adult')")
    ap.add_argument("--adult-rows", type=int, default=5000)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    tabs = BI.tables(False, args.adult, args.adult_rows)
    print("table | mask | seed | mar acc / NRMSE | auto acc / NRMSE | choice (dll / k/2 log n) | mnar columns | "
          "seconds mar / auto")
    summary = {}
    for name in args.tables:
        X, y = tabs[name]
        for kind in args.masks:
            for seed in range(args.seeds):
                a0, n0, _, _, t0 = run(X, y, kind, seed, "mar")
                a1, n1, ev, cols, t1 = run(X, y, kind, seed, "auto")
                choice = "MNAR" if ev is not None and ev["choice"] == "MNAR" and cols else "MAR"
                test = "no column" if ev is None else (
                    f"{ev['choice']} ({ev['loglik_mnar'] - ev['loglik_mar']:.1f} / {ev['penalty']:.1f})")
                print(f"{name} | {kind} | {seed} | {a0:.3f} / {n0:.3f} | {a1:.3f} / {n1:.3f} | {test} | {cols} | "
                      f"{t0:.1f} / {t1:.1f}", flush=True)
                ok = choice == ("MNAR" if kind == "MNAR" else "MAR")
                summary.setdefault((name, kind), []).append((ok, a0, n0, a1, n1, t0, t1))
    print("\ntable | mask | right choices | mar acc / NRMSE | auto acc / NRMSE | seconds mar / auto (mean)")
    for (name, kind), rows in summary.items():
        r = np.array(rows, dtype=float)
        m = np.nanmean(r, axis=0) if r.size else r
        print(f"{name} | {kind} | {int(r[:, 0].sum())}/{len(r)} | {m[1]:.3f} / {m[2]:.3f} | {m[3]:.3f} / {m[4]:.3f} "
              f"| {m[5]:.1f} / {m[6]:.1f}")


if __name__ == "__main__":
    main()
