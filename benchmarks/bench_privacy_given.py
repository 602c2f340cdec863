"""Cost of keeping the declared bounds in conditional samples of a private TAN / k-DB Synthesizer.

A learned structure's conditional sampler (``bayesnb.structure.constrained``) draws the free cells
without the bounds, so the private Synthesizer conditions on every bounded column's bounds
(``bayesnb._synth_private.whole_conditions``). This times ``sample(1000, forbid=...)`` with that
condition ("bounded") and without it ("unbounded": the cells out of bounds are counted), interleaved,
on penguins at epsilon 1. Run:

    .venv/bin/python benchmarks/bench_privacy_given.py --repeats 2
"""

import argparse
import time
import warnings

import bayesnb as bn
import bayesnb.synth as synth_module
from bayesnb import _synth_private
from bayesnb.datasets import load_penguins

BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
          "body_mass_g": (2500, 6500)}
CATS = {"island": ["Biscoe", "Dream", "Torgersen"], "sex": ["female", "male"], "year": [2007, 2008, 2009]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data = load_penguins()
    bounded = _synth_private.whole_conditions
    variants = {"unbounded": lambda model, given, forbid, dtypes, who="Synthesizer": (given, forbid),
                "bounded": bounded}
    print("| structure | variant | seconds per call | cells out of bounds |\n|---|---|---|---|")
    for structure in ("tan", "kdb"):
        dp = bn.DP(1.0, bounds=BOUNDS, classes=["Adelie", "Chinstrap", "Gentoo"], random_state=0)
        synth = bn.Synthesizer(target="species", structure=structure, privacy=dp, categories=CATS).fit(data)
        seconds, out_cells = {k: 0.0 for k in variants}, {k: 0 for k in variants}
        for _ in range(args.repeats):
            for name, fn in variants.items():
                synth_module.whole_conditions = fn
                start = time.perf_counter()
                out = synth.sample(args.rows, random_state=0, forbid=[{"island": "Dream"}])
                seconds[name] += time.perf_counter() - start
                out_cells[name] = int(sum(((out[c] < lo) | (out[c] > hi)).sum() for c, (lo, hi) in BOUNDS.items()))
        synth_module.whole_conditions = bounded
        for name in variants:
            print(f"| {structure} | {name} | {seconds[name] / args.repeats:.2f} | {out_cells[name]} |")


if __name__ == "__main__":
    main()
