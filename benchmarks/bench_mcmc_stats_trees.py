"""bayesnb.inference.mcmc_stats of two source trees: bit-identical outputs, and the time of each, interleaved.

Loads ``bayesnb/inference/mcmc_stats.py`` of the old tree and of this one (the module imports only NumPy
and SciPy), checks that ``ess``, ``ess_bulk``, ``ess_tail``, ``rhat_rank`` and ``bulk_ess_and_rhat``
return the same bits on draws of several shapes (ties, a constant element, a NaN), then times
``_ess_chains`` and ``bulk_ess_and_rhat`` + ``ess`` on (2, 1000, 1000) draws (the size of
``tests/test_verdict.py``'s large sparse posterior), old and new alternating, medians over rounds.

Usage::

    git -C /path/to/repo archive main | tar -x -C /tmp/old
    .venv/bin/python benchmarks/bench_mcmc_stats_trees.py --old /tmp/old --rounds 7
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODULE = Path("bayesnb") / "inference" / "mcmc_stats.py"


def _load(tree: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, tree / MODULE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    """Check the two trees' outputs are identical and print the timings."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, type=Path, help="the tree before the change")
    ap.add_argument("--rounds", type=int, default=5, help="timing rounds (default 5)")
    args = ap.parse_args(argv)
    old, new = _load(args.old, "old_mcmc_stats"), _load(ROOT, "new_mcmc_stats")
    rng = np.random.default_rng(0)
    cases = [rng.gamma(0.5, size=(2, 1000, 1000)), rng.normal(size=(4, 99, 37)), rng.normal(size=(1, 7, 3)),
             rng.integers(0, 3, size=(4, 200, 20)).astype(float), np.ones((4, 50, 2)), rng.normal(size=(3, 1001, 5))]
    cases[-1][0, 3, 1] = np.nan
    for x in cases:
        for f in ("ess", "ess_bulk", "ess_tail", "rhat_rank", "bulk_ess_and_rhat"):
            a, b = getattr(old, f)(x), getattr(new, f)(x)
            a, b = (a, b) if f != "bulk_ess_and_rhat" else (np.concatenate(a), np.concatenate(b))
            assert np.array_equal(a, b, equal_nan=True), (f, x.shape)
    print(f"identical outputs on {len(cases)} draw arrays; load {os.getloadavg()[0]:.2f}")
    x = cases[0]
    for label, call in (("_ess_chains", lambda m: m._ess_chains(x)),
                        ("bulk_ess_and_rhat + ess", lambda m: (m.bulk_ess_and_rhat(x), m.ess(x)))):
        t_old, t_new = [], []
        for _ in range(args.rounds):
            for m, ts in ((old, t_old), (new, t_new)):
                t = time.perf_counter()
                call(m)
                ts.append(time.perf_counter() - t)
        o, n = np.median(t_old), np.median(t_new)
        print(f"{label:<25} old {o:.3f} s  new {n:.3f} s  new/old {n / o:.2f}")
    print(f"load after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
