"""Time of structure learning's edge scores: BDeu log Bayes factors against mutual informations.

On a simulated table of ``--rows`` rows (default 100,000) and ``--cols`` columns (default 20),
``--levels`` values each (default 5, and one column of ``--wide`` values, default 50), 2 classes,
5% of the cells missing: best of ``--repeat`` interleaved runs of

- ``conditional_mutual_information`` (``edge_score="mi"``), and
- ``edge_log_bayes_factors`` (``edge_score="bdeu"``),

each over all pairs of columns (one bincount per column), and of ``learn_parents`` (TAN) with
each edge score, the class mutual informations included.

Run:  python benchmarks/bench_structure_learn.py [--rows N] [--cols D] [--levels V] [--wide W] [--repeat R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bayesnb.structure import learn as S


def table(n, d, levels, wide, seed=0):
    """Codes (n, d) with a chain of dependences, ``-1`` in 5% of the cells; class codes; cardinalities."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    V = [levels] * d
    V[-1] = wide
    codes = np.empty((n, d), np.int64)
    codes[:, 0] = (rng.integers(0, levels, n) + y) % levels
    for j in range(1, d):
        codes[:, j] = np.where(rng.random(n) < 0.5, codes[:, j - 1] % V[j], rng.integers(0, V[j], n))
    codes[rng.random((n, d)) < 0.05] = -1
    return codes, y, V


def best(fs, repeat):
    """Best time of each function over ``repeat`` rounds, the functions interleaved within a round
    (so that a change in the machine's load falls on all of them alike)."""
    times = [[] for _ in fs]
    for _ in range(repeat):
        for f, t in zip(fs, times):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--cols", type=int, default=20)
    ap.add_argument("--levels", type=int, default=5)
    ap.add_argument("--wide", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    codes, y, V = table(args.rows, args.cols, args.levels, args.wide)
    print(f"{args.rows} rows x {args.cols} columns ({args.levels} values, one of {args.wide}), 2 classes, "
          f"5% missing; best of {args.repeat}")
    t_mi, t_bf, l_mi, l_bf = best([lambda: S.conditional_mutual_information(codes, y, V, 2),
                                   lambda: S.edge_log_bayes_factors(codes, y, V, 2),
                                   lambda: S.learn_parents(codes, y, V, 2, "tan", edge_score="mi"),
                                   lambda: S.learn_parents(codes, y, V, 2, "tan", edge_score="bdeu")], args.repeat)
    print(f"{'':34s}{'mi':>9s}{'bdeu':>9s}{'bdeu/mi':>9s}")
    print(f"{'pairwise edge weights (s)':34s}{t_mi:9.3f}{t_bf:9.3f}{t_bf / t_mi:9.2f}")
    print(f"{'learn_parents(structure=tan) (s)':34s}{l_mi:9.3f}{l_bf:9.3f}{l_bf / l_mi:9.2f}")


if __name__ == "__main__":
    main()
