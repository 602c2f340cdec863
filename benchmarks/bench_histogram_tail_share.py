"""The Histogram tail's share of its end bin on every path (review of the out-of-range tail).

An integer column 0..3 (cells 0, 1, 1, 2, 2, 2, 3, 3, 3, 3: the last bin holds 4), ``Histogram(alpha=0.01)``,
one class; the value 5 lies beyond the range. For the posterior, one exact draw (``gen_point``), an MCMC-style
point (``posterior_from_params``), and the posterior and a draw with their contexts tiled 10 and 50 times
(as ``structure.exact_impute.drawn_models`` repeats contexts over draws), prints ``log p(5)`` and the tail's own term
``log p(5) - log p(3)`` by ``log_likelihood`` and by ``gen_cell_log_lik`` (the generative cell likelihood of
``feature_log_contributions``). With the share ``1 / (n + 1)``, n = 4, scale 0.5 and distance 1.5, the tail
term is ``-(log(5 * 0.5) + 3) = -3.916`` on every path; ``log p(5)`` differs only by the draw's end-bin mass.

Run the same command on two checkouts (``PYTHONPATH`` before / after) and compare.

Run:  python benchmarks/bench_histogram_tail_share.py
"""

from __future__ import annotations

import numpy as np

from bayesnb import Histogram
from bayesnb.structure.columns import take_contexts


def main():
    fam = Histogram(alpha=0.01)
    X = np.array([0, 1, 1, 2, 2, 2, 3, 3, 3, 3], float)[:, None]
    blk, st = fam.encode(X)
    stats = fam.stats(blk, np.ones((X.shape[0], 1)), st)
    prior = fam.make_prior(stats, st)
    post = fam.update(prior, stats)
    T, _ = fam.encode(np.array([[5.0], [3.0]]), st)
    rng = np.random.default_rng(0)
    rows = [("posterior", prior, post), ("one draw", prior, fam.gen_point(prior, post, rng)),
            ("MCMC point", prior, fam.posterior_from_params(fam.point_params(post)))]
    for tiles in (10, 50):
        idx = np.zeros(tiles, dtype=int)
        tp, tq = take_contexts(prior, idx), take_contexts(post, idx)
        rows += [(f"posterior tiled {tiles}x", tp, tq), (f"draw tiled {tiles}x", tp, fam.gen_point(tp, tq, rng))]
    print(f"{'path':<22}{'log p(5)':>10}{'tail term':>11}{'gen cell':>10}")
    for name, pr, pt in rows:
        ll = fam.log_likelihood(pr, pt, T, "mean")
        cells = fam.gen_cell_log_lik(pr, pt, T, np.eye(ll.shape[1])[[0, 0]])[:, 0]
        print(f"{name:<22}{ll[0, 0]:>10.3f}{ll[0, 0] - ll[1, 0]:>11.3f}{cells[0] - cells[1]:>10.3f}")


if __name__ == "__main__":
    main()
