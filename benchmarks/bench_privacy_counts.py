"""The private Synthesizer's count post-processing: the synthetic missing share per projection.

``bayesnb.synth.private_synth.COUNT_PROJECTION``: None (the released counts as they are: negative noise set
to 0, positive kept), ``"capped"`` (counts that sum to more than their class count projected onto
that total) and ``"simplex"`` (projected onto the class count up as well). For each noise seed,
a private Synthesizer (epsilon = 1, every row) draws 3000 rows; the table gives the mean and sd of
their share of missing cells against the real one. Run:

    .venv/bin/python benchmarks/bench_privacy_counts.py --seeds 12
"""

import argparse
import time
import warnings

import numpy as np

import bayesnb as bn
from bayesnb.synth import private_synth as _synth_private
from bayesnb.datasets import load_house_votes, load_penguins

BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
          "body_mass_g": (2500, 6500)}
PENGUIN_CATS = {"island": ["Biscoe", "Dream", "Torgersen"], "sex": ["female", "male"], "year": [2007, 2008, 2009]}


def tables():
    """``(name, data, target, DP keywords, categories)`` of each table."""
    votes = load_house_votes()
    return [("penguins", load_penguins(), "species", {"bounds": BOUNDS, "classes": ["Adelie", "Chinstrap", "Gentoo"]},
             PENGUIN_CATS),
            ("house votes", votes, "party", {"classes": ["democrat", "republican"]},
             {c: ["n", "y"] for c in votes.columns if c != "party"})]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    print("| table | real missing share | projection | synthetic missing share |\n|---|---|---|---|")
    for name, data, target, dp_kw, cats in tables():
        real = data.drop(columns=target).isna().to_numpy().mean()
        for projection in (None, "capped", "simplex"):
            _synth_private.COUNT_PROJECTION = projection
            shares = []
            for seed in range(args.seeds):
                dp = bn.DP(args.epsilon, random_state=100 + seed, **dp_kw)
                synth = bn.Synthesizer(target=target, privacy=dp, categories=cats).fit(data)
                shares.append(synth.sample(3000, random_state=seed).drop(columns=target).isna().to_numpy().mean())
            print(f"| {name} | {real:.3f} | {projection} | {np.mean(shares):.3f} ± {np.std(shares, ddof=1):.3f} |")
    print(f"\n({args.seeds} seeds, epsilon {args.epsilon:g}, {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
