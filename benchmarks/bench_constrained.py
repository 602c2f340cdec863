"""Benchmark: exact constrained sampling, time per 10k rows against unconditional sampling.

On the bundled house votes (target ``party``) and penguins (target ``species``), under
``structure="naive"`` and ``structure="tan"``, for each condition: the median seconds of
``sample(10_000)`` and of ``sample(10_000, given=..., forbid=...)`` over ``--repeats`` calls, timed in turn
(one exact posterior draw per call, as by default), their ratio, the probability of the condition
(``return_probability=True``, under the posterior predictive) and the share of drawn rows that
meet it (100% by construction: no rejection).

Conditions:

- house votes: a set (``physician-fee-freeze`` in {y}), and a set with two forbidden combinations;
- penguins: a range of ~1% probability (``bill_length_mm >= its 99th training percentile``), and a
  set on ``island`` with a range on ``body_mass_g`` and one forbidden (sex, flipper range) pair.

Usage::

    python benchmarks/bench_constrained.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bayesnb import NaiveBayes
from bayesnb.datasets import load_house_votes, load_penguins


def _conditions(name, X):
    if name == "house votes":
        return [
            ("set", {"physician-fee-freeze": {"y"}}, None,
             lambda S: S["physician-fee-freeze"] == "y"),
            ("set + forbid", {"el-salvador-aid": {"y", "n"}},
             [{"physician-fee-freeze": "y", "education-spending": "n"}, {"crime": "n", "superfund-right-to-sue": "y"}],
             lambda S: S["el-salvador-aid"].isin(["y", "n"])
             & ~((S["physician-fee-freeze"] == "y") & (S["education-spending"] == "n"))
             & ~((S["crime"] == "n") & (S["superfund-right-to-sue"] == "y"))),
        ]
    q99 = float(np.nanquantile(X["bill_length_mm"].astype(float), 0.99))
    return [
        ("range ~1%", {"bill_length_mm": (q99, None)}, None, lambda S: S["bill_length_mm"].astype(float) >= q99),
        ("set + range + forbid", {"island": {"Biscoe", "Dream"}, "body_mass_g": (3500, 5000)},
         [{"sex": "male", "flipper_length_mm": (None, 195)}],
         lambda S: S["island"].isin(["Biscoe", "Dream"]) & S["body_mass_g"].astype(float).between(3500, 5000)
         & ~((S["sex"] == "male") & (S["flipper_length_mm"].astype(float) <= 195))),
    ]


def _median_seconds(fs, repeats):
    """Median seconds of each of the callables ``fs``, timed in turn within each repeat (the machine's load
    then weighs on each alike)."""
    times = np.zeros((repeats, len(fs)))
    for r in range(repeats):
        for i, f in enumerate(fs):
            t = time.perf_counter()
            f()
            times[r, i] = time.perf_counter() - t
    return np.median(times, axis=0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rows", type=int, default=10_000)
    args = ap.parse_args(argv)
    tables = {"house votes": (load_house_votes(), "party"), "penguins": (load_penguins(), "species")}
    print("| data | structure | condition | p(condition) | rows meeting it | unconditional s | conditional s | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (df, target) in tables.items():
        X, y = df.drop(columns=target), df[target]
        for structure in ("naive", "tan"):
            m = NaiveBayes(structure=structure).fit(X, y)
            m.sample(100, random_state=0)  # warm caches
            for label, given, forbid, check in _conditions(name, X):
                S, _, p = m.sample(args.rows, given=given, forbid=forbid, random_state=2, return_probability=True)
                met = float(np.mean(np.asarray(check(S), dtype=bool)))
                base, cond = _median_seconds([lambda: m.sample(args.rows, random_state=1),
                                              lambda: m.sample(args.rows, given=given, forbid=forbid, random_state=1)],
                                             args.repeats)
                print(f"| {name} | {structure} | {label} | {p:.4f} | {100 * met:.1f}% | {base:.3f} | {cond:.3f} | "
                      f"{cond / base:.2f} |")


if __name__ == "__main__":
    main()
