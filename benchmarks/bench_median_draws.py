"""Structured median draws beyond a chunk of distinct rows: copies of a row drawn together or one by one.

``median_draws`` (:mod:`bayesnb.generative.values`) imputes the rows with missing cells ``S`` times
(``np.tile``) under ``strategy="draw"``. Under a structure (TAN) the copies of a row can be drawn from
one set of factors (pieces of at most ``_CHUNK`` distinct rows, :func:`bayesnb.structure.exact_impute.impute_nodes`)
or row by row in contiguous chunks of ``_CHUNK`` rows (``_distinct_rows`` and ``_draw_windows`` turned off:
the path taken before, less its full-size key). Both are timed, interleaved, on the census table with
MCAR cells (more distinct rows than ``_CHUNK``): the same law, the ratio is the speed-up.

    .venv/bin/python benchmarks/bench_median_draws.py --adult /tmp/hier/data --draws 11
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
import sys

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _census import NOT_GIVEN, TARGET, load_adult_train  # noqa: E402

import bayesnb.structure.exact_impute as structure_impute  # noqa: E402
from bayesnb import NaiveBayes  # noqa: E402
from bayesnb.generative.values import median_draws  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adult", default=None)
    ap.add_argument("--draws", type=int, default=11, help="copies S of each row")
    ap.add_argument("--missing", type=float, default=0.3)
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args(argv)
    if a.adult is None:
        print(NOT_GIVEN)
        return
    frame = load_adult_train(a.adult)
    X = frame.drop(columns=TARGET)
    X = X.mask(np.random.default_rng(0).random(X.shape) < a.missing)
    model = NaiveBayes(structure="tan").fit(X, frame[TARGET].to_numpy())
    rows = np.flatnonzero(X.isna().any(axis=1).to_numpy())
    print(f"rows {len(X)}, with missing cells {rows.size} (chunk {structure_impute._CHUNK}), draws S={a.draws}: "
          f"{rows.size * a.draws} rows drawn")
    draws = median_draws(model, X)
    inner, windows = structure_impute._distinct_rows, structure_impute._draw_windows
    times, outs = {"together": [], "row by row": []}, {}
    for _ in range(a.reps):
        for name in times:
            structure_impute._distinct_rows = inner if name == "together" else (lambda data, logw: None)
            structure_impute._draw_windows = windows if name == "together" else (lambda data, logw: None)
            t = time.perf_counter()
            out = outs[name] = draws(rows, a.draws)
            times[name].append(time.perf_counter() - t)
            print(f"  {name}: {times[name][-1]:.2f} s, mean of the numeric draws {np.nanmean(out):.4f}")
    structure_impute._distinct_rows, structure_impute._draw_windows = inner, windows
    best = {k: min(v) for k, v in times.items()}
    print("the same draws (the same uniforms on the same probabilities; False: drawn in another order):",
          np.array_equal(outs["together"], outs["row by row"], equal_nan=True))
    print(f"best: together {best['together']:.2f} s, row by row {best['row by row']:.2f} s, "
          f"ratio {best['row by row'] / best['together']:.2f}x")


if __name__ == "__main__":
    main()
