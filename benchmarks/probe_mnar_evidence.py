"""Diagnostic: does ``impute_mnar``'s EM gain tell self-masking MNAR from MCAR and MAR?

For each table and mask of ``bench_impute.py`` (MCAR 30%, MAR, MNAR; its ``mask`` and ``blank``),
fits ``impute_mnar(X, y)`` and prints the EM objective's gain from its first iteration (the naive
model, the missingness independent of the values) to its last (self-masking selection nodes), the
number of iterations, and the accuracy (categorical) and NRMSE (numeric) of the hidden cells under
the MNAR fill and under the same fit's MAR fill (``mar_table``). A gain far above ``k/2 log n``
(``k`` the selection parameters added) is evidence of self-masking, if the first iteration is the
MAR model's optimum: on house votes (categorical only) that holds; on penguins (numeric columns,
binned selection nodes) EM also refits the columns' models, so the gain is large under every mask.

Usage: ``python benchmarks/probe_mnar_evidence.py [--seeds 2]`` (about 10 s).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_impute as BI  # noqa: E402

import bayesnb as bn  # noqa: E402
from bayesnb.datasets import load_house_votes, load_penguins  # noqa: E402

MASKS = ("MCAR 30%", "MAR", "MNAR")


def tables():
    """``{name: (X, y)}``: house votes and penguins' complete rows."""
    votes = load_house_votes()
    pg = load_penguins().dropna().reset_index(drop=True)
    return {"house votes": (votes.drop(columns="party"), votes["party"]),
            "penguins": (pg.drop(columns="species"), pg["species"])}


def hidden_scores(X, M, table):
    """Mean accuracy over the categorical columns and mean NRMSE over the numeric ones, on the hidden cells."""
    acc, nrmse = [], []
    for j, c in enumerate(X.columns):
        if not M[:, j].any():
            continue
        truth, got = X[c][M[:, j]], table[c][M[:, j]]
        if X[c].dtype.kind in "fi":
            nrmse.append(np.sqrt(np.mean((got.astype(float) - truth) ** 2)) / X[c].std())
        else:
            acc.append((got == truth).mean())
    return (float(np.mean(acc)) if acc else np.nan, float(np.mean(nrmse)) if nrmse else np.nan)


def main(argv=None):
    """Print one line per table, mask and seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("table | mask | seed | EM gain (nats) | iterations | MNAR fill acc / NRMSE | MAR fill acc / NRMSE | s")
    for name, (X, y) in tables().items():
        for kind in MASKS:
            for seed in range(args.seeds):
                M = BI.mask(X, kind, np.random.default_rng(seed))
                t = time.perf_counter()
                res = bn.impute_mnar(BI.blank(X, M), y, random_state=seed)
                obj = res.em_objective
                mnar, mar = hidden_scores(X, M, res.table), hidden_scores(X, M, res.mar_table)
                print(f"{name} | {kind} | {seed} | {obj[-1] - obj[0]:.1f} | {len(obj)} | {mnar[0]:.3f} / {mnar[1]:.3f} | "
                      f"{mar[0]:.3f} / {mar[1]:.3f} | {time.perf_counter() - t:.1f}", flush=True)


if __name__ == "__main__":
    main()
