"""Imputer against a fitted model's own impute, and against impute_table (issue 27, "One imputer").

On each table, per seed: 30% of the feature cells hidden completely at random (MCAR); then

- ``NaiveBayes.impute``: ``NaiveBayes().fit(Xm, y).impute(Xm)``, a fitted model's default
  imputation (what ``bayesnb impute MODEL DATA`` did with a model from ``bayesnb fit``);
  ``+y``: ``impute(Xm, y=y)``, each row's label given;
- ``Imputer``: ``Imputer(random_state=seed).fit(Xm, y).impute(Xm)``; ``+y``:
  ``Imputer(label_given=True, ...).fit(Xm, y).impute(Xm, y)``.

Scores on the hidden cells: categorical accuracy and numeric NRMSE (RMSE over the sd of the
hidden true values), mean ± sd over seeds, and the seconds of fit + impute. Two checks per run,
printed as counts of runs: the Imputer's table equals ``impute_table(Xm, y, ...).table`` with the
same arguments (cell for cell), and an Imputer saved and loaded back imputes the same table.

Tables: penguins (bundled, without ``year``; species the label), house votes (bundled, party the
label) and, with ``--adult DIR``, the census table (a random ``--adult-rows`` subsample of UCI
Adult's ``adult.data``, seed 0, as ``bench_impute.py`` draws it; income the label; :mod:`_census`).

``--mode fitted`` (issue 27's bar, "a fitted model's default impute equals impute_table quality"):
per table and seed, the same 30% MCAR mask, then

- ``NaiveBayes.impute`` (plain fit): ``NaiveBayes().fit(Xm, y).impute(Xm)``, a model fitted without
  imputation in mind, as before;
- ``fit(impute=) .impute``: ``NaiveBayes().fit(Xm, y, impute=Imputer(random_state=seed)).impute(Xm)``,
  a model fitted for imputation (``bayesnb fit --for-imputation``), its default ``impute``;
- ``impute_table``: ``impute_table(Xm, y, random_state=seed).table``;

and prints, per run, whether the fitted model's table equals impute_table's cell for cell, and the
largest gap between the two in categorical accuracy and in NRMSE (the bar: within 0.01). Tables there
also: ``diabetes`` (scikit-learn's, 10 numeric; target cut at its tertiles) and ``breast_cancer``
(scikit-learn's, 30 numeric; diagnosis), as ``bench_impute.py`` loads them.

Run::

    python benchmarks/bench_imputer.py                    # penguins and house votes, seeds 0-2
    python benchmarks/bench_imputer.py --adult DIR --adult-rows 5000 --seeds 1 --tables adult
    python benchmarks/bench_imputer.py --mode fitted --tables penguins,house_votes,diabetes,breast_cancer
    python benchmarks/bench_imputer.py --mode fitted --adult DIR --tables adult --seeds 1
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes

from _census import NUMERIC, TARGET, load_adult_train
from _tables import penguins_xy

from bayesnb import Imputer, NaiveBayes, impute_table
from bayesnb._utils import is_numeric_column
from bayesnb.datasets import load_house_votes


def tables(names, adult=None, adult_rows=5000):
    out = {}
    if "penguins" in names:
        out["penguins"] = penguins_xy()
    if "house_votes" in names:
        hv = load_house_votes()
        out["house_votes"] = hv.drop(columns="party"), hv["party"].to_numpy(dtype=object)
    if "diabetes" in names:
        d = load_diabetes(as_frame=True)
        out["diabetes"] = d.data, np.digitize(d.target, np.quantile(d.target, [1 / 3, 2 / 3]))
    if "breast_cancer" in names:
        b = load_breast_cancer(as_frame=True)
        out["breast_cancer"] = b.data, b.target.to_numpy()
    if "adult" in names and adult is not None:  # bench_impute.py's subsample: seed 0, sorted rows
        train = load_adult_train(adult)
        rows = np.random.default_rng(0).choice(len(train), size=min(adult_rows, len(train)), replace=False)
        sub = train.iloc[np.sort(rows)].reset_index(drop=True)
        X = sub.drop(columns=TARGET)
        X[NUMERIC] = X[NUMERIC].astype(float)
        out["adult"] = X, sub[TARGET].to_numpy(dtype=object)
    return out


def score(X, F, M):
    """(categorical accuracy, mean NRMSE over numeric columns) on the hidden cells ``M`` that were observed."""
    acc, nrmse = [], []
    for j, c in enumerate(X.columns):
        m = M[:, j] & X[c].notna().to_numpy()
        if not m.any():
            continue
        if is_numeric_column(X[c]):
            if m.sum() > 1:
                t, v = X[c].to_numpy(dtype=float)[m], F[c].to_numpy(dtype=float)[m]
                nrmse.append(np.sqrt(np.mean((v - t) ** 2)) / (np.std(t) or 1.0))
        else:
            acc.append(F[c].to_numpy(dtype=object)[m].astype(str) == X[c].to_numpy(dtype=object)[m].astype(str))
    return (float(np.mean(np.concatenate(acc))) if acc else np.nan, float(np.mean(nrmse)) if nrmse else np.nan)


def run(X, y, seed, folder):
    """Scores, seconds and the two checks of one table and seed."""
    M = np.random.default_rng(seed).random(X.shape) < 0.3
    Xm = X.mask(M)
    res, checks = {}, {}
    for tag, given in (("", False), (" +y", True)):
        t0 = time.perf_counter()
        model = NaiveBayes().fit(Xm, y)
        F = model.impute(Xm, y=y if given else None)
        res[f"NaiveBayes.impute{tag}"] = (*score(X, F, M), time.perf_counter() - t0)
        t0 = time.perf_counter()
        imp = Imputer(label_given=given, random_state=seed).fit(Xm, y)
        F = imp.impute(Xm, y)
        res[f"Imputer{tag}"] = (*score(X, F, M), time.perf_counter() - t0)
        checks[f"equals impute_table{tag}"] = F.equals(impute_table(Xm, y, label_given=given, random_state=seed).table)
        path = os.path.join(folder, f"imputer-{seed}{tag.strip()}.bnb")
        imp.save(path, overwrite=True)
        checks[f"saved and loaded imputes the same{tag}"] = Imputer.load(path).impute(Xm, y).equals(F)
    return res, checks


def run_fitted(X, y, seed, folder=None):
    """``--mode fitted``: scores and seconds of the plain model, the model fitted for imputation and
    impute_table, and the checks (equal tables, the gaps between the last two)."""
    M = np.random.default_rng(seed).random(X.shape) < 0.3
    Xm = X.mask(M)
    res, tabs = {}, {}
    for name, make in (("NaiveBayes.impute (plain fit)", lambda: NaiveBayes().fit(Xm, y).impute(Xm)),
                       ("fit(impute=) .impute", lambda: NaiveBayes().fit(
                           Xm, y, impute=Imputer(random_state=seed)).impute(Xm)),
                       ("impute_table", lambda: impute_table(Xm, y, random_state=seed).table)):
        t0 = time.perf_counter()
        tabs[name] = make()
        res[name] = (*score(X, tabs[name], M), time.perf_counter() - t0)
    a, b = res["fit(impute=) .impute"], res["impute_table"]
    checks = {"fitted model's table equals impute_table's": tabs["fit(impute=) .impute"].equals(tabs["impute_table"]),
              "accuracy gap": abs(a[0] - b[0]) if np.isfinite(a[0]) else 0.0,
              "NRMSE gap": abs(a[1] - b[1]) if np.isfinite(a[1]) else 0.0}
    return res, checks


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 (default 3)")
    ap.add_argument("--tables", default="penguins,house_votes",
                    help="comma-separated: penguins, house_votes, diabetes, breast_cancer, adult")
    ap.add_argument("--mode", choices=["imputer", "fitted"], default="imputer",
                    help="imputer: the Imputer against a plain model (default); fitted: a model fitted with "
                         "fit(impute=) against impute_table")
    ap.add_argument("--adult", default=None, metavar="DIR", help="folder with UCI's adult.data")
    ap.add_argument("--adult-rows", type=int, default=5000, help="rows of the census train split (default 5000)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    folder = tempfile.mkdtemp()
    for name, (X, y) in tables(args.tables.split(","), args.adult, args.adult_rows).items():
        rows, checks = {}, {}
        for seed in range(args.seeds):
            res, chk = (run if args.mode == "imputer" else run_fitted)(X, y, seed, folder)
            for k, v in res.items():
                rows.setdefault(k, []).append(v)
            for k, v in chk.items():
                checks.setdefault(k, []).append(v)
        print(f"\n{name} ({X.shape[0]} rows x {X.shape[1]} columns), 30% MCAR, seeds 0-{args.seeds - 1}")
        print(f"  {'method':<30} {'cat. accuracy':>15} {'numeric NRMSE':>15} {'seconds':>8}")
        for k, v in rows.items():
            a = np.asarray(v)
            cells = [f"{np.mean(a[:, i]):.3f} ± {np.std(a[:, i]):.3f}" if np.isfinite(a[:, i]).all() else "-"
                     for i in (0, 1)]
            print(f"  {k:<30} {cells[0]:>15} {cells[1]:>15} {np.mean(a[:, 2]):8.2f}")
        for k, v in checks.items():
            print(f"  {k}: " + (f"{sum(v)} of {len(v)} runs" if isinstance(v[0], bool | np.bool_) else
                                f"largest {max(v):.4f} over {len(v)} runs"))


if __name__ == "__main__":
    main()
