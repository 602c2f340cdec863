"""Do imputed cells take values their column takes? (issue 27)

For each table and imputation method, on the cells blanked at random (MCAR, ``--missing``, default
20%; the label is never blanked), per kind of numeric column:

- ``coded out``: share of imputed cells of *coded* columns (at most 20 distinct observed values,
  :data:`bayesnb.generative.values.MAX_CODES`) that are not among the column's observed values;
- ``mass out``: share of imputed cells of columns with a *point mass* (a value holding at least 10%
  of the observed cells) outside the column's support: the masses, or the range of its other
  observed values (whole numbers only in a whole-number column);
- ``mass share``: share of those cells imputed at a mass, beside ``true``: the share of the blanked
  cells' true values at a mass;
- ``NRMSE``: RMSE over the sd of the true values, per numeric column, averaged (the cost, if any, of
  keeping to the values: the conditional mean is the squared-loss optimum over the real line);
- ``MAE*``: mean absolute error over the mean absolute deviation from the median, averaged over the
  point-mass columns (the loss a median minimises: the survey's debt and diabetes' ``s4`` are filled by
  their conditional median, their masses holding more than half of their cells,
  :func:`bayesnb.generative.values.median_filled`).

The supports are computed here from the blanked table (not imported from bayesnb), so the same
script measures any version of the package (e.g. ``PYTHONPATH=<old checkout>``).

Tables: ``survey`` (generated: a 7-code income scale with non-contiguous codes 10..100 that depends on
the label and on an education code, a debt column that is 82% zeros, a real column, a categorical
column, 3,000 rows), penguins (bundled) and scikit-learn's diabetes (its ``sex`` is coded, ``s4``
is heaped on a few values).

Methods: ``NaiveBayes()`` ``impute`` with ``strategy="auto"`` (the default), ``"mean"`` and three
``"draw"`` imputations (pooled); ``+y``: the label given; ``structure="tan"``; ``impute_mvn``;
``impute_table`` over ``("naive", "tan", "mvn")`` (``+y``: ``label_given=True``).

Run:  python benchmarks/bench_impute_values.py [--seeds 2] [--missing 0.2] [--tables survey penguins diabetes]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes

from bayesnb import NaiveBayes, impute_table
from bayesnb.datasets import load_penguins
from bayesnb.impute.mvn import impute_mvn

CODES, SHARE = 20, 0.1


def survey(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    edu = rng.integers(0, 5, n) + 2 * y
    codes = np.array([10, 20, 30, 40, 50, 75, 100], dtype=float)
    income = codes[np.clip(edu + rng.integers(-1, 2, n), 0, 6)]
    debt = np.where(rng.random(n) < 0.82, 0.0, np.round(np.exp(rng.normal(8 + y, 1, n)), 2))
    X = pd.DataFrame({"edu": edu.astype(float), "income": income, "debt": debt,
                      "hours": np.round(rng.normal(38 + 4 * y, 6, n), 1),
                      "region": rng.choice(["n", "s", "e", "w"], n)})
    return X, y


def tables(names):
    out = {}
    if "survey" in names:
        out["survey"] = survey()
    if "penguins" in names:
        pg = load_penguins().dropna(subset=["species"]).reset_index(drop=True)
        out["penguins"] = (pg.drop(columns="species"), pg["species"].to_numpy())
    if "diabetes" in names:
        d = load_diabetes(as_frame=True)
        out["diabetes"] = (d.data, np.digitize(d.target, np.quantile(d.target, [1 / 3, 2 / 3])))
    return out


def kinds(X):
    """Per numeric column: ("coded", values) or ("mass", (masses, lo, hi, integer)) or ("other", None)."""
    out = {}
    for c in X.columns:
        if not pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]):
            continue
        x = X[c].dropna().to_numpy(dtype=float)
        vals, counts = np.unique(x, return_counts=True)
        integer = bool(np.all(vals == np.round(vals)))
        if vals.size <= CODES:
            out[c] = ("coded", vals)
            continue
        heavy = counts >= SHARE * x.size
        rest = vals[~heavy]
        out[c] = ("mass", (vals[heavy], rest.min(), rest.max(), integer)) if heavy.any() else ("other", None)
    return out


def methods(Xm, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nb = NaiveBayes().fit(Xm, y)
        tan = NaiveBayes(structure="tan").fit(Xm, y)
        yield "NB auto", [nb.impute(Xm)]
        yield "NB auto +y", [nb.impute(Xm, y=y)]
        yield "NB mean", [nb.impute(Xm, strategy="mean")]
        yield "NB draw x3", nb.impute(Xm, strategy="draw", n_imputations=3, random_state=0)
        yield "TAN auto", [tan.impute(Xm)]
        yield "TAN auto +y", [tan.impute(Xm, y=y)]
        yield "TAN draw x3", tan.impute(Xm, strategy="draw", n_imputations=3, random_state=0)
        yield "mvn", [impute_mvn(Xm, y)]
        cfg = ("naive", "tan", "mvn")
        yield "impute_table", [impute_table(Xm, y, configurations=cfg, random_state=0).table]
        yield "impute_table +y", [impute_table(Xm, y, configurations=cfg, label_given=True, random_state=0).table]


def measure(X, Xm, fills, kind):
    coded_out, mass_out, at_mass, true_mass, nrmse, mae = [], [], [], [], [], []
    for c, (k, info) in kind.items():
        m = Xm[c].isna().to_numpy() & X[c].notna().to_numpy()
        if not m.any():
            continue
        t = X[c].to_numpy(dtype=float)[m]
        for F in fills:
            v = pd.to_numeric(F[c], errors="coerce").to_numpy(dtype=float)[m]
            sd = np.std(t)
            nrmse.append(np.sqrt(np.mean((v - t) ** 2)) / (sd if sd > 0 else 1.0))
            if k == "coded":
                coded_out.append(np.mean(~np.isin(v, info)))
            elif k == "mass":
                masses, lo, hi, integer = info
                inside = (v >= lo) & (v <= hi) & ((not integer) | (v == np.round(v)))
                mass_out.append(np.mean(~(inside | np.isin(v, masses))))
                at_mass.append(np.mean(np.isin(v, masses)))
                true_mass.append(np.mean(np.isin(t, masses)))
                scale = np.mean(np.abs(t - np.median(t)))
                mae.append(np.mean(np.abs(v - t)) / (scale if scale > 0 else 1.0))
    mean = lambda a: float(np.mean(a)) if a else float("nan")  # noqa: E731
    return {"coded out": mean(coded_out), "mass out": mean(mass_out), "mass share": mean(at_mass),
            "true": mean(true_mass), "NRMSE": mean(nrmse), "MAE*": mean(mae)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--missing", type=float, default=0.2)
    ap.add_argument("--tables", nargs="+", default=["survey", "penguins", "diabetes"])
    args = ap.parse_args(argv)
    for name, (X, y) in tables(args.tables).items():
        rows = {}
        t0 = time.perf_counter()
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            Xm = X.mask(rng.random(X.shape) < args.missing)
            kind = kinds(Xm)
            for method, fills in methods(Xm, y):
                rows.setdefault(method, []).append(measure(X, Xm, fills, kind))
        kind = kinds(X)
        desc = ", ".join(f"{k}: {[c for c, (kk, _) in kind.items() if kk == k]}" for k in ("coded", "mass"))
        print(f"\n{name} ({X.shape[0]} rows; {desc}; MCAR {args.missing:.0%}, {args.seeds} seeds, "
              f"{time.perf_counter() - t0:.0f} s)")
        table = pd.DataFrame({m: pd.DataFrame(r).mean() for m, r in rows.items()}).T
        print(table.to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
