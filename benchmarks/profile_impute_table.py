"""Where ``impute_table`` spends its time: seconds per configuration's fit and fill, and a cProfile.

The census table (UCI Adult, ``--adult DIR``, a ``--rows`` subsample as in bench_impute.py) with
the bench's MCAR mask, ``impute_table(X, y, label_given=True)``: prints each configuration's fit
(selection pass on the table with hidden cells, then the real table) and fill time, the latent
count chosen, and the ``--top`` functions by cumulative time.

Run:  python benchmarks/profile_impute_table.py --adult DIR --rows 1500 [--mask "MCAR 30%"] [--seed 0]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_impute import adult_table, blank, mask  # noqa: E402

import bayesnb.impute.imputer as imputer_mod  # noqa: E402
from bayesnb import impute_table  # noqa: E402


def timed(log, name, f):
    def wrapper(cfg, *a, **k):
        t = time.perf_counter()
        out = f(cfg, *a, **k)
        log.append((name, cfg, time.perf_counter() - t))
        return out
    return wrapper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--adult", required=True, metavar="DIR")
    ap.add_argument("--rows", type=int, default=1500)
    ap.add_argument("--mask", default="MCAR 30%")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--sort", default="cumulative", help="pstats order: cumulative, tottime, ...")
    ap.add_argument("--no-profile", action="store_true", help="phase times only (no cProfile overhead)")
    args = ap.parse_args()
    X, y = adult_table(args.adult, args.rows)
    Xm = blank(X, mask(X, args.mask, np.random.default_rng(args.seed)))
    log = []
    imputer_mod.fit_config = timed(log, "fit", imputer_mod.fit_config)
    imputer_mod.fill_config = timed(log, "fill", imputer_mod.fill_config)
    prof = None if args.no_profile else cProfile.Profile()
    t, cpu = time.perf_counter(), time.process_time()
    if prof is not None:
        prof.enable()
    r = impute_table(Xm, y, label_given=True, random_state=args.seed)
    if prof is not None:
        prof.disable()
    total, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"impute_table: {total:.1f} s wall, {cpu:.1f} s CPU; chosen {r.chosen}; C = {r.n_components}")
    for what, cfg, sec in log:
        print(f"  {what:5s} {cfg:7s} {sec:8.1f} s")
    if prof is not None:
        pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
