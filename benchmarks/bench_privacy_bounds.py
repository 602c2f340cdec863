"""Do a private model's values stay inside the declared bounds, and does a Hurdle keep its zeros?

For private naive, TAN and k-DB models (docs/privacy.md: "A private model's values stay inside the
declared bounds"), counts the numeric cells outside ``DP(bounds=...)`` in ``sample``,
``sample(given={category})``, ``sample(given={column: (low, high)})`` with a range wider than the
bounds, and ``impute`` (drawn and mean fills), on penguins (four Gaussian columns); and, on a
simulated table with a ``Hurdle(LogNormal())`` column whose positive part is bounded by (1, 1000),
the share of zeros drawn by ``sample`` and by drawn fills against the released share (the hurdle's
posterior mean of ``pi``, averaged over the rows' classes).

Usage::

    python benchmarks/bench_privacy_bounds.py [--epsilon 0.5] [--rows 2000]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

import bayesnb as bn
from bayesnb.datasets import load_penguins

BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
          "body_mass_g": (2500, 6500)}
CATS = [["Biscoe", "Dream", "Torgersen"], ["female", "male"], [2007, 2008, 2009]]


def outside(frame):
    return int(sum((~frame[c].between(lo, hi)).sum() for c, (lo, hi) in BOUNDS.items()))


def penguin_rows(eps, n):
    df = load_penguins().dropna().reset_index(drop=True)
    X, y = df.drop(columns=["species"]), df["species"]
    holes = X.copy()
    holes.loc[::2, list(BOUNDS)] = np.nan
    rows = []
    for structure in ("naive", "tan", "kdb"):
        m = bn.NaiveBayes({tuple(BOUNDS): bn.Gaussian(), ("island", "sex", "year"): bn.Categorical(categories=CATS)},
                          structure=structure, privacy=bn.DP(eps, bounds=BOUNDS, classes=sorted(set(y)),
                                                             random_state=0)).fit(X, y)
        rows.append({"model": structure, "numeric cells per sample": 4 * n, "missing cells imputed": int(holes[list(BOUNDS)].isna().sum().sum()),
                     "sample": outside(m.sample(n, random_state=1)[0]),
                     "given island": outside(m.sample(n, random_state=1, given={"island": "Dream"})[0]),
                     "given range (0, 100)": outside(m.sample(n, random_state=1, given={"bill_length_mm": (0, 100)})[0]),
                     "impute draw": outside(m.impute(holes, random_state=0, strategy="draw")),
                     "impute mean": outside(m.impute(holes, random_state=0, strategy="mean"))})
    return pd.DataFrame(rows)


def hurdle_rows(eps, n):
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b"], n)
    zero = rng.random(n) < np.where(y == "a", 0.7, 0.4)
    df = pd.DataFrame({"c": rng.choice(["u", "v", "w"], n),
                       "gain": np.where(zero, 0.0, np.clip(rng.lognormal(3, 1, n), 1, 1000))})
    holes = df.assign(gain=np.nan)
    rows = []
    for structure in ("naive", "tan", "kdb"):
        m = bn.NaiveBayes({"c": bn.Categorical(categories=[["u", "v", "w"]]), "gain": bn.Hurdle(bn.LogNormal())},
                          structure=structure, privacy=bn.DP(eps, classes=["a", "b"], bounds={"gain": (1, 1000)},
                                                             random_state=0)).fit(df, y)
        post = (m.posterior_.blocks[1].posterior if m.structure_kind_ == "naive" else
                m._mixed.posteriors[[type(nd.family).__name__ for nd in m._mixed.nodes].index("Hurdle")])
        pi = post.a[:, 0] / (post.a[:, 0] + post.b[:, 0])
        Xs, ys = m.sample(n, random_state=1, parameter_uncertainty=False)
        fills = m.impute(holes, random_state=0, strategy="draw", parameter_uncertainty=False)["gain"]
        rows.append({"model": structure, "released zero share": float(np.mean(pi[(np.asarray(ys) == "b").astype(int)])),
                     "sample zero share": float(np.mean(Xs["gain"] == 0)),
                     "drawn fills zero share": float(np.mean(fills == 0)),
                     "cells outside {0} and [1, 1000]": int((~((Xs["gain"] == 0) | Xs["gain"].between(1, 1000))).sum())})
    return pd.DataFrame(rows)


def markdown(frame):
    """A markdown table (no tabulate dependency)."""
    fmt = [lambda v: f"{v:.3f}" if isinstance(v, float) else str(v)] * frame.shape[1]
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|---" * frame.shape[1] + "|"]
    lines += ["| " + " | ".join(f(v) for f, v in zip(fmt, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epsilon", type=float, default=0.5)
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    print(f"### penguins, epsilon {args.epsilon:g}: numeric cells outside the declared bounds\n")
    print(markdown(penguin_rows(args.epsilon, args.rows)))
    print(f"\n### Hurdle(LogNormal) gain, bounds (1, 1000), {args.rows} rows, epsilon {args.epsilon:g}\n")
    print(markdown(hurdle_rows(args.epsilon, args.rows)))


if __name__ == "__main__":
    main()
