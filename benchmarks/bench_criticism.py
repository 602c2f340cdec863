"""Calibration and power of ``check_independence``, and what it flags on real house votes.

- **false alarms**: a ``CategoricalNB`` fitted on the bundled house votes simulates a
  dataset of the same size and class labels (one posterior draw per dataset, the real
  table's missing cells blanked); a new ``CategoricalNB`` is fitted on it and checked.
  Every feature pair in both classes is independent given the class there, so the share
  of p-values <= 0.05 is the false-alarm rate (pairs of one dataset share its posterior,
  so the Monte-Carlo standard error given is a binomial one over all p-values, a lower
  bound).
- **detection**: the same, but within each class feature b copies feature a with
  probability ``copy`` (default 0.5) for ``--pairs`` disjoint pairs; the detection rate is
  the share of (dataset, class, injected pair) with p < 0.05.
- **house votes**: the most severe pairs of the real table.

Run:  python benchmarks/bench_criticism.py [--quick] [--datasets N] [--replicates R]
      (``--quick``: 6 datasets, 100 replicates)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bayesnb import CategoricalNB, check_independence
from bayesnb.datasets import load_house_votes


def simulate(model, X, y, rng, pairs=(), copy=0.5):
    """A dataset from ``model`` with ``X``'s missing cells, labels ``y``; b copies a w.p. ``copy``."""
    Xs, _ = model.sample(len(y), y=y, random_state=rng)
    Xs = Xs.astype(object)
    for a, b in pairs:
        take = rng.random(len(y)) < copy
        Xs.iloc[take, b] = Xs.iloc[take, a].to_numpy()
    return Xs.where(X.notna().to_numpy(), None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--datasets", type=int, default=None)
    ap.add_argument("--replicates", type=int, default=None)
    ap.add_argument("--copy", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    D = args.datasets or (6 if args.quick else 40)
    R = args.replicates or (100 if args.quick else 200)
    rng = np.random.default_rng(args.seed)
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy()
    model = CategoricalNB().fit(X, y)
    names = list(X.columns)
    injected = [(0, 1), (2, 3), (4, 5), (6, 7)]

    t0 = time.perf_counter()
    null_p = []
    for _ in range(D):
        Xs = simulate(model, X, y, rng)
        table = check_independence(CategoricalNB().fit(Xs, y), Xs, y, n_replicates=R, random_state=rng)
        null_p.append(table["p_value"].to_numpy())
    null_p = np.concatenate(null_p)
    rate = float(np.mean(null_p <= 0.05))
    se = float(np.sqrt(0.05 * 0.95 / null_p.size))
    t_null = time.perf_counter() - t0

    t0 = time.perf_counter()
    hits = []
    other = []
    for _ in range(D):
        Xs = simulate(model, X, y, rng, injected, args.copy)
        table = check_independence(CategoricalNB().fit(Xs, y), Xs, y, n_replicates=R, random_state=rng)
        is_inj = np.zeros(len(table), dtype=bool)
        for a, b in injected:
            is_inj |= (table["feature_a"] == names[a]).to_numpy() & (table["feature_b"] == names[b]).to_numpy()
        hits.append(table["p_value"].to_numpy()[is_inj] < 0.05)
        other.append(table["p_value"].to_numpy()[~is_inj] <= 0.05)
    hits, other = np.concatenate(hits), np.concatenate(other)
    t_alt = time.perf_counter() - t0

    t0 = time.perf_counter()
    real = check_independence(model, X, y, n_replicates=R, random_state=args.seed)
    t_real = time.perf_counter() - t0

    print(f"house votes, CategoricalNB, {D} simulated datasets x {R} replicates "
          f"({len(null_p) // D} (class, pair) p-values each)")
    print(f"false-alarm rate at 0.05: {rate:.4f} (binomial MC se {se:.4f}; {int(np.sum(null_p <= 0.05))}"
          f"/{null_p.size}); mean p {null_p.mean():.3f}  [{t_null:.1f} s]")
    print(f"detection rate (b copies a w.p. {args.copy}): {hits.mean():.4f} ({int(hits.sum())}/{hits.size}); "
          f"false alarms on the other pairs {other.mean():.4f}  [{t_alt:.1f} s]")
    print(f"real house votes: {int(np.sum(real['p_value'] <= 0.05))}/{len(real)} (class, pair) p-values <= 0.05 "
          f"[{t_real:.2f} s]; top 8:")
    print(real.head(8)[["class", "feature_a", "feature_b", "statistic", "replicated_mean", "p_value", "effect"]]
          .to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
