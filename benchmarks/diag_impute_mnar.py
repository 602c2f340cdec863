"""Why ``impute_table`` loses most under self-masking MNAR on house votes (issue 27): a diagnosis.

For each table, mask and seed (the masks of ``bench_impute.py``), with the label given:

- the categorical accuracy on the blanked cells of each single configuration (``naive``, ``latent``,
  ``tan``, ``tan-mi``), of ``impute_table``'s per-column choice (``auto``), and of the *oracle* per-column
  choice (the configuration that is best on the blanked cells themselves: what a selection that knew the
  missing values would pick);
- ``mode share``: among the blanked categorical cells, the share whose true value is its column's most
  frequent value, the share among the observed cells, and the share of ``impute_table``'s fills that are it
  (self-masking hides the most frequent value 3 times as often, so the observed cells under-represent it);
- ``impute_mnar(X, y, label_given=True)`` (the self-masking selection model, docs/mnar.md).

Run from the repository root::

    .venv/bin/python benchmarks/diag_impute_mnar.py --tables "house votes" --masks MNAR "MCAR 30%" MAR --seeds 1
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from bench_impute import blank, mask, tables

from bayesnb import impute_mnar, impute_table

CONFIGS = ("naive", "latent", "tan", "tan-mi")


def _acc(X, F, M, cats):
    hit = tot = 0
    for j, c in enumerate(X.columns):
        if c in cats and M[:, j].any():
            hit += int((F[c].to_numpy(dtype=object)[M[:, j]] == X[c].to_numpy(dtype=object)[M[:, j]]).sum())
            tot += int(M[:, j].sum())
    return hit / max(tot, 1)


def _col_acc(X, F, M, j):
    c = X.columns[j]
    return float(np.mean(F[c].to_numpy(dtype=object)[M[:, j]] == X[c].to_numpy(dtype=object)[M[:, j]]))


def run(name, X, y, kind, seed):
    cats = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    M = mask(X, kind, np.random.default_rng(seed))
    Xm = blank(X, M)
    out, fills = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cfg in CONFIGS:
            fills[cfg] = impute_table(Xm, y, configurations=cfg, label_given=True, random_state=seed).table
            out[cfg] = _acc(X, fills[cfg], M, cats)
        res = impute_table(Xm, y, label_given=True, random_state=seed)
        out["auto (impute_table)"] = _acc(X, res.table, M, cats)
        mn = impute_mnar(Xm, y, label_given=True, random_state=seed).table
        out["impute_mnar"] = _acc(X, mn, M, cats)
    cj = [j for j, c in enumerate(X.columns) if c in cats and M[:, j].any()]
    oracle = {X.columns[j]: max(CONFIGS, key=lambda cfg: _col_acc(X, fills[cfg], M, j)) for j in cj}
    orc = X.copy()
    for c, cfg in oracle.items():
        orc[c] = fills[cfg][c]
    out["oracle per-column choice"] = _acc(X, orc, M, cats)
    agree = np.mean([res.chosen.get(c) == oracle[c] for c in oracle]) if oracle else float("nan")
    # mode shares
    t_m = o_m = f_m = n_m = n_o = 0
    for j in cj:
        c = X.columns[j]
        mode = X[c].mode().iloc[0]
        v = X[c].to_numpy(dtype=object)
        obs = Xm[c].notna().to_numpy()
        t_m += int((v[M[:, j]] == mode).sum())
        f_m += int((res.table[c].to_numpy(dtype=object)[M[:, j]] == mode).sum())
        n_m += int(M[:, j].sum())
        o_m += int((v[obs] == mode).sum())
        n_o += int(obs.sum())
    print(f"\n{name} {kind} seed {seed}: chosen {''.join(res.chosen[c][0] if res.chosen[c] != 'tan-mi' else 'T' for c in X.columns if c in res.chosen)}, "
          f"agreement with the oracle choice {agree:.2f}")
    print(f"  mode share: blanked cells' truth {t_m / max(n_m, 1):.3f}, observed cells {o_m / max(n_o, 1):.3f}, "
          f"impute_table's fills {f_m / max(n_m, 1):.3f}")
    for k, v in out.items():
        print(f"  {k:28s} {v:.3f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=["house votes"])
    ap.add_argument("--masks", nargs="+", default=["MNAR"])
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args(argv)
    tabs = tables(True)
    for name in args.tables:
        X, y = tabs[name]
        for kind in args.masks:
            for seed in range(args.seeds):
                run(name, X, y, kind, seed)


if __name__ == "__main__":
    main()
