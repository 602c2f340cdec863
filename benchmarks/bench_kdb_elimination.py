"""k-DB with many missing cells: variable elimination against the enumeration it replaces beyond 4,096 states.

For each table, a k-DB model is fitted on the rows with cells hidden completely at random, and
``impute`` fills them (``strategy="auto"``) twice in one run: with the default switch
(``bayesnb.structure.elimination.ENUMERATE_UP_TO``: patterns of more joint states summed out by
elimination) and with every pattern enumerated as before (the switch raised to the old refusal
limit, 2**18; rows beyond it were refused, and are counted). Printed per table and ``k``: the rows,
the rows the old code refused, the seconds and traced peak memory (tracemalloc) of each, whether
both fills agree on the rows both could fill, and the accuracy of the categorical fills on the
hidden cells (TAN beside it).

Tables: the bundled house votes (16 yes/no columns, 50% hidden); with ``--data-dir DIR``, the
categorical columns of every ``NAME.csv`` there (read as text; ``?`` missing; the label column
``--target`` left out; at most ``--rows`` rows; 30% hidden), e.g. UCI mushroom.

Run:  python benchmarks/bench_kdb_elimination.py [--data-dir DIR --target edibility]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnb import NaiveBayes
from bayesnb._utils import one_class_on_purpose
from bayesnb.datasets import load_house_votes
from bayesnb.structure import elimination as VE
from bayesnb.structure import engine as MX


def tables(data_dir, target, rows):
    """``{name: (X, share hidden)}``: house votes, and the CSVs of ``data_dir``."""
    out = {"house votes": (load_house_votes().drop(columns="party"), 0.5)}
    for path in sorted(Path(data_dir).glob("*.csv")) if data_dir else ():
        frame = pd.read_csv(path, na_values="?")
        frame = frame.drop(columns=[target] if target in frame.columns else frame.columns[-1:])
        frame = frame[[c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]]
        if len(frame) > rows:
            frame = frame.sample(n=rows, random_state=0)
        out[path.stem] = (frame.reset_index(drop=True).astype(object).where(frame.notna(), None), 0.3)
    return out


def _fill(model, Xm, limit):
    """``(filled table or None, seconds, peak MiB traced)`` with patterns of more than ``limit`` joint states
    eliminated: timed once, then run again under tracemalloc (which sees NumPy's buffers, and slows the run)."""
    old = VE.ENUMERATE_UP_TO
    VE.ENUMERATE_UP_TO = limit
    try:
        start = time.perf_counter()
        try:
            filled = model.impute(Xm)
        except ValueError:
            filled = None
        seconds = time.perf_counter() - start
        tracemalloc.start()
        try:
            model.impute(Xm)
        except ValueError:
            pass
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    finally:
        VE.ENUMERATE_UP_TO = old
    return filled, seconds, peak


def accuracy(X, F, M):
    """Share of hidden categorical cells filled with their true value."""
    return float(np.mean([F.iat[i, j] == X.iat[i, j] for i, j in zip(*np.nonzero(M))]))


def run(data_dir=None, target=None, rows=5000, ks=(2, 3)):
    """Print one line per table and ``k`` (see the module docstring)."""
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    for name, (X, share) in tables(data_dir, target, rows).items():
        M = X.notna().to_numpy() & (np.random.default_rng(0).random(X.shape) < share)
        Xm = X.mask(M)
        with warnings.catch_warnings(), one_class_on_purpose():
            warnings.simplefilter("ignore")
            tan = NaiveBayes(structure="tan").fit(Xm, np.zeros(len(X), dtype=int))
            print(f"{name}: {len(X)} rows, {M.sum()} hidden cells; TAN accuracy {accuracy(X, tan.impute(Xm), M):.3f}")
            for k in ks:
                m = NaiveBayes(structure="kdb", k=k).fit(Xm, np.zeros(len(X), dtype=int))
                new, t_new, mem_new = _fill(m, Xm, VE.ENUMERATE_UP_TO)
                # the rows the old code could fill: at most MAX_ENUMERATION joint states of their missing cells
                states = np.log([max(Xm[c].nunique(), 1) for c in Xm.columns])
                ok = np.where(Xm.isna(), states, 0.0).sum(axis=1) <= np.log(MX.MAX_ENUMERATION) + 1e-9
                refused = int((~ok).sum())
                old, t_old, mem_old = _fill(m, Xm[ok], MX.MAX_ENUMERATION)
                same = old is not None and old.reset_index(drop=True).equals(new[ok].reset_index(drop=True))
                print(f"  k-DB k={k}: accuracy {accuracy(X, new, M):.3f}; elimination beyond "
                      f"{VE.ENUMERATE_UP_TO} states {t_new:.1f} s, peak {mem_new:.0f} MiB; enumeration as before "
                      f"{t_old:.1f} s, peak {mem_old:.0f} MiB, on the {int(ok.sum())} rows it could fill ({refused} "
                      f"refused); same fills there: {same}", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="folder of NAME.csv tables (none is shipped)")
    parser.add_argument("--target", default=None, help="label column of the CSVs, left out (default: the last)")
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--k", type=int, nargs="+", default=[2, 3])
    args = parser.parse_args(argv)
    run(args.data_dir, args.target, args.rows, tuple(args.k))


if __name__ == "__main__":
    main()
