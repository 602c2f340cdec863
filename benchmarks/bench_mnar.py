"""Imputation under self-masking MNAR: bayesnb MAR vs MNAR (``impute_mnar``) vs scikit-learn.

Tables (label in brackets): penguins (5 numeric, 2 categorical, [species]), sklearn diabetes
(10 numeric, [target cut at its tertiles]) and breast cancer (30 numeric, [diagnosis]); with
``--adult DIR``, the 5,000-row subsample (seed 0) of UCI Adult's ``adult.data`` that bench_impute.py
uses (6 numeric, 8 categorical, [income]; its own ``?`` cells stay missing and are not scored).

Masks (numeric cells only; the label and categorical cells are never blanked), each cell's
probability of being hidden depending on its own value (self-masking):

- ``self 45/15``: above its column's median with probability 0.45, at or below it with 0.15
  (the numeric part of bench_impute.py's MNAR mask);
- ``self top``: above its column's 3rd quartile with probability 0.7, else 0.05.

Methods (``+y``: the label is used when imputing -- ``label_given=True`` / ``impute(..., y=y)``
for bayesnb, an extra one-hot column for scikit-learn; every bayesnb model is fitted with the label):

- ``bayesnb MAR``: ``NaiveBayes().fit(X, y).impute(X)`` (strategy ``"auto"``, MAR);
- ``bayesnb MNAR``: ``impute_mnar(X, y)`` (selection model, ``p(missing | own bin)`` shared by the classes);
- ``bayesnb MNAR latent auto``: ``impute_mnar(X, y, n_components=C)`` (the latent-class model with the
  missingness nodes), ``C`` chosen once per seed under MAR by ``fit_latent_class(X, y, n_components="auto")``
  (what ``impute_mnar(n_components="auto")`` does); ``bayesnb MAR latent auto``: that latent-class
  model's MAR imputation (the result's ``mar_table``);
- ``bayesnb mvn``: ``impute_mvn(X, y)``, the class-conditional multivariate normal (impute_table's ``"mvn"``
  configuration, MAR); ``bayesnb MNAR mvn``: ``impute_mnar(X, y, model="mvn")``, the same model with the
  self-masking missingness nodes (:mod:`bayesnb.impute.mvn_mnar`);
- ``bayesnb impute_table``: ``impute_table(X, y)`` (``+y``: ``label_given=True``), the package's default
  imputer (MAR), per column the configuration that imputes hidden observed cells best;
- ``IterativeImputer(ExtraTrees)`` (``ExtraTreesRegressor(n_estimators=20)``, ``max_iter=5``) and
  ``IterativeImputer(BayesianRidge)`` (its default) on the standardised numeric columns and the one-hot
  categorical ones. The MNAR options of ExtraTrees: ``add_indicator=True`` (scikit-learn's option; it
  appends the missingness indicators to the *output* only, so its imputations are the plain ones), and
  ``indicators``: the numeric columns' missingness indicators appended to the *input* as complete
  predictors (the usual "missing indicator" MNAR device: another column's missingness informs the fill).

Metric: NRMSE = RMSE / sd of the true values of the hidden cells, per column, averaged over columns;
mean ± sd over seeds.

Run:  python benchmarks/bench_mnar.py [--seeds 3] [--tables penguins diabetes "breast cancer"] [--no-latent]
      [--no-table] [--adult DIR --tables adult]

A method that raises (the latent MNAR fit refusing a diverged answer) is reported as ``raised``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import ExtraTreesRegressor
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer
from sklearn.linear_model import BayesianRidge

from _tables import penguins_xy

from bayesnb import NaiveBayes, impute_mnar, impute_table

MASKS = {"self 45/15": (0.5, 0.45, 0.15), "self top": (0.75, 0.7, 0.05)}


def tables(names, adult=None):
    out = {}
    if "adult" in names and adult is not None:
        from bench_impute import adult_table
        table = adult_table(adult, 5000)
        if table is not None:
            out["adult"] = table
    if "penguins" in names:
        out["penguins"] = penguins_xy()
    if "diabetes" in names:
        d = load_diabetes(as_frame=True)
        out["diabetes"] = (d.data, np.digitize(d.target, np.quantile(d.target, [1 / 3, 2 / 3])))
    if "breast cancer" in names:
        b = load_breast_cancer(as_frame=True)
        out["breast cancer"] = (b.data, b.target.to_numpy())
    return out


def mask(X, nums, kind, rng):
    """Bool (n, d): numeric cells to hide, each with a probability set by its own value."""
    q, hi, lo = MASKS[kind]
    M = np.zeros(X.shape, dtype=bool)
    for j, c in enumerate(X.columns):
        if c in nums:
            v = X[c].to_numpy(dtype=float)
            p = np.where(v > np.nanquantile(v, q), hi, lo)
            M[:, j] = np.isfinite(v) & (rng.random(len(v)) < p)
    return M


def blank(X, M):
    Xm = X.copy()
    for j, c in enumerate(X.columns):
        if M[:, j].any():
            Xm.loc[M[:, j], c] = np.nan
    return Xm


def sklearn_fill(Xm, nums, cats, y, estimator, seed, add_indicator=False, indicators=False):
    """IterativeImputer on standardised numerics + one-hot categoricals (+ one-hot y) (+ the numeric
    columns' missingness indicators as predictors); numeric columns back."""
    mu, sd = Xm[nums].mean(), Xm[nums].std().replace(0, 1.0)
    parts = [((Xm[nums] - mu) / sd).to_numpy(dtype=float)]
    if cats:
        parts.append(pd.get_dummies(Xm[cats], dummy_na=False).to_numpy(dtype=float))
    if y is not None:
        parts.append(np.eye(len(np.unique(y)))[np.unique(y, return_inverse=True)[1]])
    if indicators:
        miss = Xm[nums].isna().to_numpy()
        parts.append(miss[:, miss.any(axis=0)].astype(float))
    A = np.hstack(parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        it = IterativeImputer(estimator, max_iter=5, random_state=seed, skip_complete=True, add_indicator=add_indicator)
        F = it.fit_transform(A)[:, :len(nums)]
    return pd.DataFrame(F * sd.to_numpy() + mu.to_numpy(), columns=nums, index=Xm.index)


def nrmse(X, F, M, nums):
    out = []
    for j, c in enumerate(X.columns):
        if c in nums and M[:, j].sum() > 1:
            t = X[c].to_numpy(dtype=float)[M[:, j]]
            v = np.asarray(F[c], dtype=float)[M[:, j]]
            out.append(np.sqrt(np.mean((v - t) ** 2)) / (np.std(t) or 1.0))
    return float(np.mean(out))


def _timed(res, secs, name, call):
    """Run ``call``; its table (or None when it raised a ValueError) into ``res``, its seconds into ``secs``."""
    t = time.perf_counter()
    try:
        res[name] = call()
    except ValueError as err:
        print(f"  {name} raised: {str(err)[:160]}", flush=True)
        res[name] = None
    secs[name] = time.perf_counter() - t


def methods(Xm, y, nums, cats, seed, latent=True, table=True):
    res, secs = {}, {}
    nb = NaiveBayes().fit(Xm, y)
    C = None
    if latent:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SearchEdgeWarning of the component search
            C = nb.fit_latent_class(Xm, y, n_components="auto", random_state=seed).n_components
    for tag, given in (("", False), (" +y", True)):
        yy = y if given else None
        _timed(res, secs, f"bayesnb MAR{tag}", lambda: nb.impute(Xm, y=yy))
        _timed(res, secs, f"bayesnb MNAR{tag}", lambda: impute_mnar(Xm, y, label_given=given).table)
        if latent:
            r = {}
            _timed(r, secs, f"bayesnb MNAR latent auto{tag}",
                   lambda: impute_mnar(Xm, y, label_given=given, n_components=C, random_state=seed))
            res[f"bayesnb MAR latent auto{tag}"] = nb.impute(Xm, y=yy, latent=nb.fit_latent_class(
                Xm, y, n_components=C, random_state=seed)) if r[f"bayesnb MNAR latent auto{tag}"] is None else \
                r[f"bayesnb MNAR latent auto{tag}"].mar_table
            res[f"bayesnb MNAR latent auto{tag}"] = getattr(r[f"bayesnb MNAR latent auto{tag}"], "table", None)
        r = {}
        _timed(r, secs, f"bayesnb MNAR mvn{tag}",
               lambda: impute_mnar(Xm, y, label_given=given, model="mvn", random_state=seed))
        res[f"bayesnb mvn{tag}"] = r[f"bayesnb MNAR mvn{tag}"].mar_table
        res[f"bayesnb MNAR mvn{tag}"] = r[f"bayesnb MNAR mvn{tag}"].table
        if table:
            _timed(res, secs, f"bayesnb impute_table{tag}",
                   lambda: impute_table(Xm, y, label_given=given, random_state=seed).table)
        for name, kw in (("", {}), (" add_indicator", {"add_indicator": True}), (" indicators", {"indicators": True})):
            _timed(res, secs, f"sklearn Iterative(ExtraTrees{name}){tag}", lambda: sklearn_fill(
                Xm, nums, cats, yy, ExtraTreesRegressor(n_estimators=20, random_state=seed), seed, **kw))
        _timed(res, secs, f"sklearn Iterative(BayesianRidge){tag}",
               lambda: sklearn_fill(Xm, nums, cats, yy, BayesianRidge(), seed))
    return res, C, secs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--tables", nargs="+", default=["penguins", "diabetes", "breast cancer"])
    ap.add_argument("--masks", nargs="+", default=list(MASKS))
    ap.add_argument("--no-latent", action="store_true", help="leave out the latent-class models (slow)")
    ap.add_argument("--no-table", action="store_true", help="leave out impute_table")
    ap.add_argument("--adult", default=None, metavar="DIR", help="folder with UCI's adult.data (table 'adult')")
    args = ap.parse_args(argv)
    for name, (X, y) in tables(args.tables, args.adult).items():
        nums = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
        cats = [c for c in X.columns if c not in nums]
        scores, seconds, comps = {}, {}, {}
        for kind in args.masks:
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                M = mask(X, nums, kind, rng) & X.notna().to_numpy()  # the table's own missing cells are not scored
                res, C, secs = methods(blank(X, M), y, nums, cats, seed, not args.no_latent, not args.no_table)
                for meth, F in res.items():
                    scores.setdefault((meth, kind), []).append(np.nan if F is None else nrmse(X, F, M, nums))
                    seconds.setdefault(meth, []).append(secs.get(meth, np.nan))
                comps.setdefault(kind, []).append(C)
                print(f"  {name} | {kind} | seed {seed} | C={C} | " + "; ".join(
                    f"{m} {scores[(m, kind)][-1]:.3f}" for m in res), flush=True)
        print(f"\n### {name} ({X.shape[0]} rows, {len(nums)} numeric), NRMSE mean ± sd over {args.seeds} seeds\n")
        print("| method | " + " | ".join(args.masks) + " | seconds |")
        print("|---" * (len(args.masks) + 2) + "|")
        for meth in dict.fromkeys(m for m, _ in scores):
            cells = []
            for k in args.masks:
                v = np.asarray(scores[(meth, k)])
                ok = np.isfinite(v)
                cells.append("raised" if not ok.any() else f"{np.mean(v[ok]):.3f} ± {np.std(v[ok]):.3f}"
                             + ("" if ok.all() else f" (raised {int((~ok).sum())})"))
            sec = np.asarray(seconds[meth], dtype=float)
            print(f"| {meth} | " + " | ".join(cells) + (f" | {np.nanmean(sec):.1f} |" if np.isfinite(sec).any()
                                                          else " | |"))
        print(f"\n(seconds: mean per seed and mask, the MAR rows of a fit that also gives MNAR: with it; latent "
              f"components per seed: {comps})", flush=True)


if __name__ == "__main__":
    main()
