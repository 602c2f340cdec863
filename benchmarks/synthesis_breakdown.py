"""Where do a synthetic table's column shapes and pair trends fall short? A breakdown of ``bench_synthesis`` runs.

Reads the per-column and per-pair tables that ``bench_synthesis.py --details DIR`` writes and
prints, for each method of one table and seed:

- the mean column shape of the numeric and of the categorical columns, and how much of the
  shortfall ``1 - shape`` (summed over columns) each kind holds;
- the mean pair trend of numeric x numeric, numeric x categorical and categorical x
  categorical pairs, and the share of the shortfall ``1 - trend`` each kind holds;
- the share of the trend shortfall in the five worst pairs.

Usage::

    python benchmarks/synthesis_breakdown.py DIR [--data census] [--seed 0]
"""

from __future__ import annotations

import argparse
import glob
import os

import pandas as pd


def breakdown(columns, pairs):
    """One dict of shortfalls by column kind and pair kind (see the module docstring).

    Parameters
    ----------
    columns, pairs : DataFrame
        ``SyntheticReport.columns`` and ``SyntheticReport.pairs`` as written by ``--details``.

    Returns
    -------
    dict
    """
    kind = dict(zip(columns.column, columns.kind))
    out = {"shape": columns["shape"].mean()}
    short = 1 - columns["shape"]
    for k in ("numeric", "categorical"):
        sel = columns.kind == k
        out[f"shape {k[:3]}"] = columns.loc[sel, "shape"].mean()
        out[f"shape gap {k[:3]} %"] = 100 * short[sel].sum() / short.sum()
    pairs = pairs.dropna(subset=["trend"]).copy()
    pairs["kinds"] = ["x".join(sorted(kind[a][:3] for a in (r.a, r.b))) for r in pairs.itertuples()]
    gap = 1 - pairs["trend"]
    out["trend"] = pairs["trend"].mean()
    for k in ("numxnum", "catxnum", "catxcat"):
        sel = pairs.kinds == k
        out[f"trend {k} (n={int(sel.sum())})"] = pairs.loc[sel, "trend"].mean()
        out[f"trend gap {k} %"] = 100 * gap[sel].sum() / gap.sum()
    out["trend gap in worst 5 pairs %"] = 100 * gap.nlargest(5).sum() / gap.sum()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder")
    p.add_argument("--data", default="census")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rows = {}
    prefix = os.path.join(args.folder, args.data.replace(" ", "_") + "_")
    for cols in sorted(glob.glob(prefix + f"*_{args.seed}_columns.csv")):
        method = cols[len(prefix):-len(f"_{args.seed}_columns.csv")]
        rows[method] = breakdown(pd.read_csv(cols), pd.read_csv(cols.replace("_columns.csv", "_pairs.csv")))
    table = pd.DataFrame(rows)  # one column per method
    print("| | " + " | ".join(table.columns) + " |")
    print("|---" * (len(table.columns) + 1) + "|")
    for name, r in table.iterrows():
        fmt = ".1f" if name.endswith("%") else ".4f"
        print(f"| {name} | " + " | ".join(format(v, fmt) for v in r) + " |")


if __name__ == "__main__":
    main()
