"""Benchmark: the default ``Synthesizer``'s choice and fit CPU seconds (the latent-class search's cost).

Fits ``Synthesizer(target=..., random_state=seed)`` at its defaults on every row of house votes
and the penguins (seeds 0 and 1), on a generated table where a latent-class model must win
(``tests/test_synth_select.py``'s two-component-per-class mixture, 3,000 rows) and, with
``--census FILE``, on the census training rows of ``bench_synthesis.py`` (seed 0, ``?`` a
category). Prints the choice, the latent candidate and its held-out score, the fit's CPU seconds
(``time.process_time``) and ``selection_["note"]`` where there is one.

To compare two versions, run it once per checkout in one shell line (the same load)::

    PYTHONPATH=/path/to/old python benchmarks/bench_synth_search.py --census adult.data
    PYTHONPATH=. python benchmarks/bench_synth_search.py --census adult.data
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bayesnb import Synthesizer  # noqa: E402
from bayesnb.datasets import load_house_votes, load_penguins  # noqa: E402


def mixture_table(n, seed):
    """Two classes, each a two-component mixture of 8 columns of 4 values that follow their component."""
    rng = np.random.default_rng(seed)
    y, z = rng.integers(0, 2, n), rng.integers(0, 2, n)
    cols = {}
    for j in range(8):  # the draws in the order of the test's table, so the tables are equal
        noise = rng.integers(0, 4, n)
        cols[f"c{j}"] = np.where(rng.random(n) < 0.85, (2 * y + z + j) % 4, noise).astype(str)
    return pd.DataFrame({"y": y.astype(str), **cols})


def run(name, data, target, seed):
    t = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer(target=target, random_state=seed, verbose=False).fit(data)
    cpu = time.process_time() - t
    sel = synth.selection_
    latent = sel[sel["candidate"].str.startswith("latent class")].iloc[0]
    print(f"{name} seed {seed}: chosen {synth.chosen_!r}; {latent['candidate']} held out "
          f"{latent['holdout_loglik']:.4f}; fit CPU {cpu:.1f} s", flush=True)
    if "note" in sel and isinstance(latent.get("note"), str):
        print(f"    note: {latent['note']}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--census", metavar="FILE", help="UCI adult.data")
    args = p.parse_args(argv)
    for name, data, target in (("house votes", load_house_votes(), "party"), ("penguins", load_penguins(), "species"),
                               ("mixture 3000", mixture_table(3000, 0), "y")):
        for seed in (0, 1):
            run(name, data, target, seed)
    if args.census:
        from bench_synthesis import census_tables
        train, _, _ = census_tables(args.census, None, 0, False)
        run(f"census {len(train)} rows", train, "income", 0)


if __name__ == "__main__":
    main()
