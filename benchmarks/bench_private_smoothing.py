"""Benchmark: what limits private TAN on the binned census table (docs/privacy.md, "Private structure").

The binned census table of ``bench_private_synthesis.py`` (``tan-binned``: every numeric column in
20 declared equal-width bins, Categorical), Laplace, at one epsilon: mean 2-way TVD and TSTR
accuracy of private TAN with

- the noise-aware smoothing (the default) and the smoothing that ignores the noise (``flat``);
- the structure's share of epsilon (``STRUCTURE_SHARE``) at 0.05, 0.1 (the default) and 0.2;
- ``exact picks``: the parents chosen without noise (the exponential mechanism given epsilon 1e9),
  the tables with the default budget. **Not private**: a diagnostic of what the noisy picks cost.

Usage::

    python benchmarks/bench_private_smoothing.py --data /tmp/hier/data [--seeds 2] [--epsilon 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_private_synthesis as bps  # noqa: E402

from bayesnb.structure import private_fit  # noqa: E402


def arms():
    """(label, structure share, noise-aware, exact picks)."""
    return [("naive-binned", None, True, False), ("tan, noise-aware", 0.1, True, False), ("tan, flat", 0.1, False, False),
            ("tan, share 0.05", 0.05, True, False), ("tan, share 0.2", 0.2, True, False),
            ("tan, exact picks (not private)", 0.1, True, True)]


def run_arm(train, test, real, edges, dom, eps, seed, share, aware, exact):
    """One fit: (TSTR acc, 2-way TVD)."""
    old = (private_fit.STRUCTURE_SHARE, private_fit.private_parents)
    try:
        if share is not None:
            private_fit.STRUCTURE_SHARE = share
        if exact:
            def exact_parents(*a, **k):
                a = list(a)
                a[6] = 1e9  # the selection's epsilon: the picks without noise
                return old[1](*a, **k)
            private_fit.private_parents = exact_parents
        method = "naive-binned" if share is None else "tan-binned" if aware else "tan-binned-flat"  # sets the smoothing
        synth, _ = bps.bayesnb_fit(method, train, eps, seed, edges, dom)
    finally:
        private_fit.STRUCTURE_SHARE, private_fit.private_parents = old
    return bps.tstr(synth, test)[0], bps.two_way_tvd(real, bps.encode(synth, edges, dom), dom)


def projection_bias(train, edges, dom, eps, seed, column="capital-gain"):
    """``--diagnose``: per context of ``column``'s TAN node, its rows, the true share of its first bin and
    the released (projected) share, for the class and parent of that node (one fit, seed ``seed``)."""
    captured = {}
    release = private_fit.private_structure_release

    def spy(*a, **k):
        captured["out"] = out = release(*a, **k)
        return out

    import bayesnb.estimators._private_structure as ps
    ps.private_structure_release = spy
    try:
        bps.bayesnb_fit("tan-binned", train, eps, seed, edges, dom)
    finally:
        ps.private_structure_release = release
    rel = captured["out"][2]
    order = list(bps.ADULT_CATEGORIES) + list(bps.NUMERIC)  # the features dict's blocks: categorical, then binned
    j = order.index(column)
    (p,) = rel["parents"][j]
    parent = order[p]
    counts = rel["stats"][j].counts[0]
    codes = bps.encode(train, edges, dom)
    classes = sorted(codes[bps.TARGET].unique())
    lines = [f"| context ({bps.TARGET}, {parent}) | rows | true share of bin 0 | released share |", "|---|---|---|---|"]
    npar = counts.shape[0] // len(classes)
    for c in range(counts.shape[0]):
        k, u = divmod(c, npar)
        rows = codes[(codes[bps.TARGET] == classes[k]) & (codes[parent] == u)][column]
        tot = counts[c].sum()
        lines.append(f"| ({k}, {u}) | {len(rows)} | {(rows == 0).mean() if len(rows) else float('nan'):.3f} | "
                     f"{counts[c, 0] / tot if tot > 0 else float('nan'):.3f} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--seeds", type=int, default=2)
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--diagnose", action="store_true", help="the projection's bias in capital-gain's contexts")
    args = p.parse_args(argv)
    train, test = bps.load(args.data)
    edges = bps.bin_edges(20)
    dom = bps.domains(edges)
    if args.diagnose:
        print(projection_bias(train, edges, dom, args.epsilon, 0))
        return
    real = bps.encode(train, edges, dom)
    rows = []
    for seed in range(args.seeds):
        for label, share, aware, exact in arms():
            acc, tvd = run_arm(train, test, real, edges, dom, args.epsilon, seed, share, aware, exact)
            rows.append({"arm": label, "seed": seed, "TSTR acc": acc, "2-way TVD": tvd})
            print(f"  {label} seed={seed}: acc {acc:.4f} TVD {tvd:.4f}", file=sys.stderr, flush=True)
    f = pd.DataFrame(rows).groupby("arm", sort=False)[["TSTR acc", "2-way TVD"]].agg(["mean", "std"])
    print(f"| arm (epsilon {args.epsilon:g}, {args.seeds} seeds) | TSTR acc | 2-way TVD |\n|---|---|---|")
    for arm, r in f.iterrows():
        print(f"| {arm} | {r[('TSTR acc', 'mean')]:.4f} ± {np.nan_to_num(r[('TSTR acc', 'std')]):.4f} | "
              f"{r[('2-way TVD', 'mean')]:.4f} ± {np.nan_to_num(r[('2-way TVD', 'std')]):.4f} |")


if __name__ == "__main__":
    main()
