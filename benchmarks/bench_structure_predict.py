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
  engine, so the script times the structure against the naive model only.

Timings are the best of ``--repeats`` runs, the models interleaved.

Run:  python benchmarks/bench_structure_predict.py [--rows N] [--repeats R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bayesnb
from bayesnb.datasets import load_house_votes


def _best(fns, repeats):
    """Best wall time (s) of each function, interleaved."""
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            f()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
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
    for label, rows in (("complete", X.notna().all(axis=1).to_numpy()), ("with missing", np.ones(len(X), bool))):
        Xr = X[rows]
        Xt = Xr.iloc[np.tile(np.arange(len(Xr)), -(-args.rows // len(Xr)))[:args.rows]]
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


if __name__ == "__main__":
    main()
