"""NUTS against the exact posterior on mixed structures (``NaiveBayes(structure=...).run_mcmc``).

On the bundled penguins table (344 rows; island, sex categorical; the other columns numeric;
[species]), for each case: the learned structure is fitted, ``run_mcmc`` samples it with NUTS
(one chain), and :func:`bayesnb.compare_posteriors` compares the draws with the closed-form
moments of every context's posterior (``_exact_moments``; elements with no finite posterior
variance are left unchecked) and with 4,000 exact draws (``sample_posterior``). Prints the
compile and sampling seconds (``run_nuts``'s, compile 0 on a cache hit) and both verdicts.

Cases: TAN on 3 columns (the test's), TAN on every column, k-DB (k=2) on 4 columns with a fixed
class prior (no ``pi``; sparse contexts, some with a Gaussian variance of infinite variance).

Run:  python benchmarks/bench_mixed_nuts.py [--warmup N] [--draws N] [--seed S] [--target-accept P]
"""

from __future__ import annotations

import argparse
import time
import warnings

import bayesnb
from bayesnb.datasets import load_penguins

CASES = [
    ("tan, 3 columns", ["island", "bill_depth_mm", "flipper_length_mm"], {"structure": "tan"}),
    ("tan, every column", None, {"structure": "tan"}),
    ("kdb k=2, 4 columns, fixed class prior", ["island", "bill_length_mm", "sex", "body_mass_g"],
     {"structure": "kdb", "k": 2, "class_prior": [0.3, 0.3, 0.4]}),
]


def main(argv=None):
    """Run every case and print its timings and verdicts."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warmup", type=int, default=400)
    ap.add_argument("--draws", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target-accept", type=float, default=0.8, help="NUTS target acceptance (default 0.8)")
    args = ap.parse_args(argv)
    d = load_penguins()
    y = d["species"]
    for name, cols, params in CASES:
        X = d.drop(columns="species") if cols is None else d[cols]
        m = bayesnb.NaiveBayes(**params).fit(X, y)
        t0 = time.perf_counter()
        mc = m.run_mcmc(X, y, num_warmup=args.warmup, num_samples=args.draws, random_state=args.seed,
                        target_accept_prob=args.target_accept)
        wall = time.perf_counter() - t0
        a = mc.attrs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # r-hat warnings of one chain: the verdict says it
            closed = bayesnb.compare_posteriors(m._exact_moments(), mc, verbose=False, rhat_threshold=1.1)
            drawn = bayesnb.compare_posteriors(m.sample_posterior(4000, random_state=0), mc, verbose=False,
                                               rhat_threshold=1.1)
        print(f"== {name}: {m.structure_}")
        print(f"   {X.shape[0]} rows x {X.shape[1]} columns; NUTS {args.warmup} warmup + {args.draws} draws: "
              f"compile {a['compile_seconds']:.1f} s, sampling {a['sampling_seconds']:.1f} s, wall {wall:.1f} s")
        print(f"   vs closed-form moments: {closed.attrs['verdict']}")
        print(f"   vs 4000 exact draws:    {drawn.attrs['verdict']}")


if __name__ == "__main__":
    main()
