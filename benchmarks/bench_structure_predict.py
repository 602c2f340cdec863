"""predict_proba under a structure: the one structure engine, timed on an all-categorical table.

House votes (435 rows, 16 categorical columns, [party]), rows repeated to about 20,000: once
only its complete rows (direct table lookup), once every row (most rows have missing cells:
sum-product on TAN, enumeration per missing pattern on k-DB). For TAN and k-DB (k=2):

- ``CategoricalNB(structure=s).predict_proba`` against ``CategoricalNB().predict_proba`` (the
  naive model: what a structure costs over it);
- only while a second, categorical-only engine existed (``bayesnb.structured``, deleted since;
  the script detects it): its time against the one engine's (``NaiveBayes(structure=s)``, the
  same model on the same columns, same parents and probabilities), the ratio new / old, target
  <= 1.1 (docs/benchmarks.md keeps that run's figures). Today both estimators run on the one
  engine, so the script times the structure against the naive model;
- with ``--old-engine FILE``, a copy of the deleted engine (``git show
  4553258:bayesnb/structured.py > FILE``): the engines alone (encoding excluded, the one engine's
  ``node_data`` included), CPU time (``time.process_time``, steadier than wall time on a loaded
  machine), checked equal to 1e-12, and the ratio one / old.

Timings are the best of ``--repeats`` runs, the models interleaved.

Run:  python benchmarks/bench_structure_predict.py [--rows N] [--repeats R] [--old-engine FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time

import numpy as np

import bayesnb
from bayesnb.structure import infer as _si
from bayesnb.structure import engine as _mx
from bayesnb.datasets import load_house_votes


def _best(fns, repeats, clock=time.perf_counter):
    """Best time (s) of each function by ``clock``, interleaved."""
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for i, f in enumerate(fns):
            t0 = clock()
            f()
            best[i] = min(best[i], clock() - t0)
    return best


def _engines(path, X, y, tables, repeats):
    """The deleted categorical engine (a copy at ``path``) against the one engine, CPU time of each."""
    spec = importlib.util.spec_from_file_location("bayesnb._structured_old", path)
    old = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = old
    spec.loader.exec_module(old)
    print("\n| rows | structure | old engine CPU ms | one engine CPU ms | one / old |")
    print("|---|---|---:|---:|---:|")
    for label, Xt in tables:
        for s in ("tan", "kdb"):
            m = bayesnb.CategoricalNB(structure=s, k=2).fit(X, y)
            blk = m.posterior_.blocks[0]
            n_values = [len(v) for v, _ in blk.family.value_columns(blk.state)]
            ycodes = np.searchsorted(m.classes_, y)
            fitted = old.fit_tables(blk.family, blk.state, m._encoded(X)[0], ycodes, np.ones(len(y)),
                                    len(m.classes_), m._mixed.parents, n_values)
            enc = m._encoded(Xt)
            fns = [lambda: old.log_likelihood(fitted, enc[0]),
                   lambda: _si.log_likelihood(m._mixed, _mx.node_data(m._mixed.nodes, enc))]
            np.testing.assert_allclose(fns[1](), fns[0](), rtol=1e-12)
            t = _best(fns, repeats, time.process_time)
            print(f"| {label} ({len(Xt):,}) | {s} | {1e3 * t[0]:.1f} | {1e3 * t[1]:.1f} | {t[1] / t[0]:.2f}x |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--old-engine", help="a copy of the deleted bayesnb/structured.py, to time the engines alone")
    args = ap.parse_args(argv)
    d = load_house_votes()
    X, y = d.drop(columns="party"), d["party"]
    two = hasattr(bayesnb, "structured")  # the second engine still exists
    print(f"# predict_proba under a structure: house votes, rows repeated to ~{args.rows:,}, best of "
          f"{args.repeats}\n")
    head = "| rows | structure | structure ms | naive ms | structure / naive |"
    if two:
        head += " old engine ms | one engine ms | new / old | max abs dproba |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    naive = bayesnb.CategoricalNB().fit(X, y)
    tables = []
    for label, rows in (("complete", X.notna().all(axis=1).to_numpy()), ("with missing", np.ones(len(X), bool))):
        Xr = X[rows]
        tables.append((label, Xr.iloc[np.tile(np.arange(len(Xr)), -(-args.rows // len(Xr)))[:args.rows]]))
    for label, Xt in tables:
        for s in ("tan", "kdb"):
            cat = bayesnb.CategoricalNB(structure=s, k=2).fit(X, y)
            fns = [lambda: cat.predict_proba(Xt), lambda: naive.predict_proba(Xt)]
            if two:
                one = bayesnb.NaiveBayes(structure=s, k=2).fit(X, y)
                assert one.structure_ == cat.structure_, "the two engines learned different parents"
                fns.append(lambda: one.predict_proba(Xt))
            t = _best(fns, args.repeats)
            line = f"| {label} ({len(Xt):,}) | {s} | {1e3 * t[0]:.1f} | {1e3 * t[1]:.1f} | {t[0] / t[1]:.2f}x |"
            if two:
                gap = np.abs(one.predict_proba(Xt) - cat.predict_proba(Xt)).max()
                line += f" {1e3 * t[0]:.1f} | {1e3 * t[2]:.1f} | {t[2] / t[0]:.2f}x | {gap:.1e} |"
            print(line)
    if args.old_engine:
        _engines(args.old_engine, X, y, tables, args.repeats)


if __name__ == "__main__":
    main()
