"""Imputation benchmark: bayesnb configurations against scikit-learn imputers on bundled tables.

Tables (label in brackets): house votes (16 categorical, [party]), penguins (2 categorical,
5 numeric, [species]), sklearn diabetes (10 numeric, [target cut at its tertiles]) and
breast cancer (30 numeric, [diagnosis]); with ``--adult DIR``, a random subsample of UCI
Adult's ``adult.data`` (``--adult-rows``, default 5,000; only ``adult.data`` is needed;
8 categorical, 6 numeric, [income]; its own ``?`` cells stay missing and are not scored), the
public table the project has not seen; with ``--data-dir DIR``, every ``*.csv`` in ``DIR`` (label: the
column ``--target``, default each file's last; ``?`` missing; at most ``--adult-rows`` rows; a column read
as numbers is numeric with more than 10 distinct values, categorical otherwise), the public tables a
user downloads (none is shipped).

Masks, applied to the observed cells only (the label is never blanked):

- ``MCAR 10%`` / ``MCAR 30%``: each cell blanked with probability 0.1 / 0.3.
- ``MAR`` (missingness driven by another column): one driver column, the one with the fewest
  missing cells (the first of the tied; its name is printed), is never blanked; every other
  cell is blanked with probability 0.45 when its row's driver cell is "high" and 0.15
  otherwise (about 30% overall), where
  "high" is above the median for a numeric driver and equal to its most frequent value for a
  categorical one (a missing driver cell is not high). Missingness depends only on an
  observed cell of the same row, so it is missing at random, not completely at random.
- ``MNAR`` (self-masking, as issue 27 names it: a cell's missingness depends on its own value
  only): a numeric cell above its column's median is blanked with probability 0.45,
  one at or below it with probability 0.15; a categorical cell equal to its column's
  most frequent value with probability 0.45, any other with probability 0.15 (so about
  30% overall, and the blanked cells are not a random sample of the column).

Categorical and numeric columns are told apart by dtype: a column whose dtype is not numeric
is categorical.

Methods (``+y``: the label is given -- ``impute(..., y=y)`` for bayesnb, an extra
one-hot column for scikit-learn):

- bayesnb ``strategy="mode"`` / ``"mean"`` / ``"auto"`` (the default: each family's
  ``default_fill``), plain naive Bayes (``NaiveBayes()`` fitted on the blanked table);
- bayesnb structures (``--structures``): ``NaiveBayes(structure="tan")`` and
  ``NaiveBayes(structure="auto")`` (naive, TAN or k-DB(k=2) by closed-form evidence; its
  numeric columns Gaussian), ``impute(..., strategy="auto")``: exact inference given the
  observed cells (docs/structure.md "Mixed tables"); and, to separate the structure from the
  family choice, ``NaiveBayes`` with every numeric column ``Gaussian`` (``NB Gaussian``). A
  configuration that refuses a table (k-DB whose variable elimination would need a factor beyond
  ``bayesnb.structure.elimination.MAX_FACTOR``) is reported as refused;
- bayesnb ``impute_table(X, y)`` (``--select``; ``+y``: ``label_given=True``): per column the
  configuration (naive, latent class, TAN) that imputes hidden observed cells best; the chosen
  letters per column and the latent count ``C`` are printed per seed (a letter followed by ``o``: that
  configuration's predictive reweighted by the column's self-masking odds, ``impute_table(...).odds``);
- bayesnb latent class: ``fit_latent_class(X, y, n_components="auto")`` then
  ``impute(X, latent=fit)`` (strategy ``"auto"``);
- bayesnb ``impute_mnar(auto)`` (``--mnar``): ``impute_mnar(X, y, n_components="auto")``, the self-masking
  selection model (docs/mnar.md) on the latent-class model, numeric and categorical columns alike
  (``+y``: ``label_given=True``); on tables with numeric columns also ``impute_mnar(X, y, model="mvn")``
  (``impute_mnar(mvn)``: the numeric columns on the multivariate normal, the categorical ones on the naive
  model, both with their missingness nodes);
- bayesnb ``mvn`` (tables with numeric columns; not with ``--no-mvn``): ``impute_mvn(X, y)``, the
  class-conditional multivariate normal of :mod:`bayesnb.impute.mvn` (impute_table's ``"mvn"``);
- peers (``--peers [NAME ...]``, issue 27; implies ``--select``): missForest (Stekhoven &
  Buehlmann's algorithm with scikit-learn forests), miceforest, HyperImpute (only when named or
  with ``--hyperimpute-python PYTHON``, which runs it in that Python through files: it fails with
  scikit-learn >= 1.8), ``IterativeImputer(BayesianRidge)`` and
  ``IterativeImputer(ExtraTrees)`` on the one-hot table, each given the label as an observed
  column (``+y``); see ``_impute_peers.py`` for how each is run. A peer that is not installed is skipped with a message
  (``pip install -e .[bench]`` installs them);
- scikit-learn ``SimpleImputer`` (mean for numeric, most frequent for categorical
  columns), ``KNNImputer(5)`` on one-hot categorical and standardised numeric columns,
  ``IterativeImputer(ExtraTreesRegressor)`` (numeric tables only).

Metrics on the blanked cells: categorical accuracy; numeric NRMSE = RMSE / sd of the true
values, per column, averaged over columns; ``out``: imputed numeric values outside the
column's observed range by more than 1e-9 of it (summed over columns, mean over seeds);
``outside``: share of the blanked cells imputed with a value that no observed cell of the
column has (numeric: farther than 1e-9 of the range from every observed value; a rounded
column's fractional fills count); ``time x`` (with ``--select``): seconds divided by those of
the last ``impute_table`` run of the same table, mask and seed (``+y``, ``label_given=True``,
unless ``--select-no-y``), measured in the same process; run it with one thread per library
(``OMP_NUM_THREADS=1``) so that every method has the same. Mean +- sd over seeds.

Run:  python benchmarks/bench_impute.py [--quick] [--seeds N] [--structures] [--masks "MCAR 30%"]
      python benchmarks/bench_impute.py --adult DIR --tables adult --structures --seeds 2
      python benchmarks/bench_impute.py --adult DIR --tables adult --seeds 2 --no-latent --select  # impute_table
      python benchmarks/bench_impute.py --adult DIR --adult-rows 32561 --tables adult --seeds 1 --masks "MCAR 30%" \
          --no-latent --select --select-no-y --no-sklearn   # impute_table on the whole table
      python benchmarks/bench_impute.py --tables "house votes" penguins --masks "MCAR 30%" MAR MNAR --seeds 2 \
          --no-latent --no-sklearn --no-mvn --peers   # issue 27: peers beside impute_table
      python benchmarks/bench_impute.py --adult DIR --tables adult --masks MNAR --seeds 1 --no-latent --no-sklearn \
          --no-mvn --select-given --peers missForest miceforest "Iterative(BayesianRidge)"   # the census, one mask
      python benchmarks/bench_impute.py --tables penguins --masks "MCAR 30%" --seeds 1 --no-latent --no-sklearn \
          --no-mvn --select-given --peers --hyperimpute-python /work/hypervenv/bin/python   # with HyperImpute
      python benchmarks/bench_impute.py --data-dir DIR --target edibility --tables crx mushroom --masks "MCAR 30%" MAR \
          MNAR --seeds 3 --no-latent --no-sklearn --no-mvn --select-given --peers missForest   # public tables in DIR
      (``--quick``: 2 seeds, no MAR or MNAR, house votes and penguins only)
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
import pandas as pd
from _census import NOT_GIVEN, NUMERIC, TARGET, load_adult_train
import _impute_peers
from _impute_peers import DEFAULT_PEERS, PEERS, from_onehot, onehot_frame, peer_methods
from _tables import csv_tables, penguins_xy
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import ExtraTreesRegressor
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer, KNNImputer, SimpleImputer

from bayesnb import Categorical, Gaussian, NaiveBayes, impute_mnar, impute_table
from bayesnb.datasets import load_house_votes
from bayesnb.impute.mvn import impute_mvn


def adult_table(folder, n_rows):
    """A random ``n_rows`` subsample (seed 0) of adult.data: (X, income), numeric columns float; None if not given."""
    train = load_adult_train(folder)
    if train is None:
        print(NOT_GIVEN)
        return None
    rows = np.random.default_rng(0).choice(len(train), size=min(n_rows, len(train)), replace=False)
    sub = train.iloc[np.sort(rows)].reset_index(drop=True)
    X = sub.drop(columns=TARGET)
    X[NUMERIC] = X[NUMERIC].astype(float)
    return X, sub[TARGET].to_numpy(dtype=object)


def tables(quick, adult=None, adult_rows=5000, data_dir=None, target=None):
    out = {}
    if adult is not None:
        table = adult_table(adult, adult_rows)
        if table is not None:
            out["adult"] = table
    if data_dir is not None:  # the public tables a user downloads (UCI's "?" missing)
        for name, X, y in csv_tables(data_dir, target, adult_rows, na_values=["?"]):
            out[name] = (X, y.to_numpy(dtype=object))
    hv = load_house_votes()
    out["house votes"] = (hv.drop(columns="party"), hv["party"].to_numpy(dtype=object))
    out["penguins"] = penguins_xy()
    if quick:
        return out
    d = load_diabetes(as_frame=True)
    out["diabetes"] = (d.data, np.digitize(d.target, np.quantile(d.target, [1 / 3, 2 / 3])))
    b = load_breast_cancer(as_frame=True)
    out["breast cancer"] = (b.data, b.target.to_numpy())
    return out


def _high(col):
    """Bool: a numeric cell above its column's median, a categorical one equal to its most frequent value."""
    if pd.api.types.is_numeric_dtype(col):
        return (col > col.median()).to_numpy(dtype=bool)
    return (col == col.mode().iloc[0]).to_numpy(dtype=bool)


def mar_driver(X):
    """The MAR mask's driver: the column with the fewest missing cells (the first of the tied)."""
    return X.columns[int(np.argmin(X.isna().sum().to_numpy()))]


def mask(X, kind, rng):
    """Bool (n, d): cells to blank (observed cells only), as the module docstring says."""
    obs = X.notna().to_numpy()
    u = rng.random(X.shape)
    if kind.startswith("MCAR"):
        p = float(kind.split()[1].rstrip("%")) / 100
        return obs & (u < p)
    if kind == "MAR":
        driver = mar_driver(X)
        P = np.repeat(np.where(_high(X[driver]), 0.45, 0.15)[:, None], X.shape[1], axis=1)
        P[:, list(X.columns).index(driver)] = 0.0
        return obs & (u < P)
    if kind != "MNAR":
        raise ValueError(f"unknown mask {kind!r}: 'MCAR <p>%', 'MAR' or 'MNAR'")
    P = np.column_stack([np.where(_high(X[c]), 0.45, 0.15) for c in X.columns])
    return obs & (u < P)


def blank(X, M):
    Xm = X.copy()
    for j, c in enumerate(X.columns):
        if M[:, j].any():
            Xm.loc[M[:, j], c] = np.nan if pd.api.types.is_numeric_dtype(X[c]) else None
    return Xm



def masked_runs(tabs, names, masks, seeds):
    """Each named table's rows blanked by each mask and seed (the loop of the diagnosis scripts).

    Yields
    ------
    tuple
        ``(name, X, y, cats, nums, kind, seed, M, Xm)``: the complete table, its categorical and
        numeric columns, the mask kind and seed, the boolean mask and the blanked table.
    """
    for name in names:
        X, y = tabs[name]
        cats = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        nums = [c for c in X.columns if c not in cats]
        for kind in masks:
            for seed in range(seeds):
                M = mask(X, kind, np.random.default_rng(seed))
                yield name, X, y, cats, nums, kind, seed, M, blank(X, M)

def sklearn_methods(Xm, cats, nums, y, seed):
    res = {}
    f = Xm.copy()
    for c in nums:
        f[c] = SimpleImputer(strategy="mean").fit_transform(Xm[[c]])[:, 0]
    for c in cats:
        f[c] = Xm[c].fillna(Xm[c].mode().iloc[0])
    res["sklearn Simple (mean / most frequent)"] = f
    for tag, yy in (("", None), (" +y", y)):
        A, layout = onehot_frame(Xm, cats, nums, yy)
        res[f"sklearn KNN(5){tag}"] = from_onehot(KNNImputer(n_neighbors=5).fit_transform(A), layout, Xm.index)
        if not cats:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                it = IterativeImputer(ExtraTreesRegressor(n_estimators=20, random_state=seed), max_iter=5,
                                      random_state=seed)
                res[f"sklearn Iterative(ExtraTrees){tag}"] = from_onehot(it.fit_transform(A), layout, Xm.index)
        elif nums:
            A, layout = onehot_frame(Xm, cats, nums, yy)
            A[:, len(nums):] = np.nan_to_num(A[:, len(nums):])  # a missing category: all-zero one-hot
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                it = IterativeImputer(ExtraTreesRegressor(n_estimators=20, random_state=seed), max_iter=5,
                                      random_state=seed, skip_complete=True)
                F = from_onehot(it.fit_transform(A), layout, Xm.index)
            res[f"sklearn Iterative(ExtraTrees) numeric{tag}"] = F[nums]
    return res


def structure_methods(Xm, y, cats, nums, kinds=("tan", "auto")):
    """The structure rows (and the all-Gaussian naive model they build on); None where refused."""
    res, picked = {}, {}
    models = {}
    if nums:
        feats = {**({tuple(cats): Categorical()} if cats else {}), tuple(nums): Gaussian()}
        models["bayesnb NB Gaussian"] = NaiveBayes(features=feats).fit(Xm, y)
    for s in kinds:
        models[f"bayesnb structure={s}"] = m = NaiveBayes(structure=s).fit(Xm, y)
        picked[s] = m.structure_kind_
    for name, m in models.items():
        for tag, yy in (("", None), (" +y", y)):
            try:
                res[f"{name} auto{tag}"] = m.impute(Xm, strategy="auto", y=yy)
            except ValueError as e:  # k-DB: too many joint states to enumerate
                res[f"{name} auto{tag}"] = None
                print(f"  ({name}{tag} refused: {str(e)[:90]}...)")
    return res, picked


def bayesnb_methods(Xm, y, seed, latent=True):
    res, chosen = {}, {}
    nb = NaiveBayes().fit(Xm, y)
    for tag, yy in (("", None), (" +y", y)):
        for s in ("mode", "mean", "auto"):
            res[f"bayesnb NB {s}{tag}"] = nb.impute(Xm, strategy=s, y=yy)
        if latent:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SearchEdgeWarning is reported through `chosen`
                fit = nb.fit_latent_class(Xm, yy, n_components="auto", random_state=seed)
            chosen[tag] = fit.n_components
            res[f"bayesnb latent-class auto{tag}"] = nb.impute(Xm, y=yy, latent=fit)
    return res, chosen


def outside_share(X, F, M, nums):
    """Share of the blanked cells whose imputed value is not among the column's observed values.

    Numeric: farther than 1e-9 of the column's observed range from every observed value;
    categorical: a value (or None) no observed cell of the column has.
    """
    bad, total = 0, 0
    for j, c in enumerate(X.columns):
        m = M[:, j]
        if not m.any() or c not in F.columns:
            continue
        seen = X[c][~m & X[c].notna().to_numpy()]
        v = np.asarray(F[c])[m]
        if c in nums:
            u = np.unique(seen.to_numpy(dtype=float))
            v = v.astype(float)
            k = np.clip(np.searchsorted(u, v), 1, len(u) - 1) if len(u) > 1 else np.zeros(len(v), dtype=int)
            near = np.minimum(np.abs(v - u[k]), np.abs(v - u[k - 1])) if len(u) > 1 else np.abs(v - u[0])
            bad += int(np.sum(~(near <= 1e-9 * (np.ptp(u) or 1.0))))
        else:
            bad += int(np.sum(~pd.Series(v).isin(set(seen.tolist())).to_numpy()))
        total += int(m.sum())
    return bad / total if total else np.nan


def score(X, F, M, cats, nums):
    """(categorical accuracy, mean NRMSE, cells outside the observed range, share outside the observed values)."""
    acc = [np.asarray(F[c])[M[:, j]].astype(str) == np.asarray(X[c])[M[:, j]].astype(str)
           for j, c in enumerate(X.columns) if c in cats and c in F.columns and M[:, j].any()]
    nrmse, out = [], 0
    for j, c in enumerate(X.columns):
        if c in nums and M[:, j].sum() > 1:
            t = X[c].to_numpy(dtype=float)[M[:, j]]
            v = np.asarray(F[c], dtype=float)[M[:, j]]
            nrmse.append(np.sqrt(np.mean((v - t) ** 2)) / (np.std(t) or 1.0))
            seen = X[c].to_numpy(dtype=float)[~M[:, j] & X[c].notna().to_numpy()]
            tol = 1e-9 * (seen.max() - seen.min())  # not the float error of a standardise/unstandardise round trip
            out += int(((v < seen.min() - tol) | (v > seen.max() + tol)).sum())
    return (float(np.mean(np.concatenate(acc))) if acc else np.nan,
            float(np.mean(nrmse)) if nrmse else np.nan, out, outside_share(X, F, M, nums))


def fmt(vals):
    v = np.asarray(vals, dtype=float)
    return "" if np.all(np.isnan(v)) else f"{np.nanmean(v):.3f} ± {np.nanstd(v):.3f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1 (default 0)")
    ap.add_argument("--no-latent", action="store_true", help="skip the latent-class configurations")
    ap.add_argument("--structures", action="store_true", help="add the structure rows (tan, auto)")
    ap.add_argument("--structure-kinds", nargs="+", default=("tan", "auto"), help="structures to add (tan, auto)")
    ap.add_argument("--select", nargs="*", default=None,
                    help="add impute_table (per-column choice by self-validation) among these configurations "
                         "(default, no value: 'auto', all of bayesnb.impute.table.CONFIGURATIONS)")
    ap.add_argument("--select-no-y", action="store_true",
                    help="run impute_table without the label given only (default: without and with, label_given=True)")
    ap.add_argument("--select-given", action="store_true",
                    help="run impute_table with the label given only (label_given=True; the peers' counterpart)")
    ap.add_argument("--no-mvn", action="store_true", help="skip the multivariate-normal (mvn) rows")
    ap.add_argument("--missingness", choices=("mar", "auto", "mnar"), default="auto",
                    help="impute_table's missingness (default auto, its default)")
    ap.add_argument("--mnar", action="store_true",
                    help="add impute_mnar(X, y, n_components='auto') (self-masking selection model, numeric and "
                         "categorical columns; docs/mnar.md), without and with the label given")
    ap.add_argument("--no-sklearn", action="store_true", help="skip the scikit-learn imputers")
    ap.add_argument("--masks", nargs="+", default=None, help='e.g. "MCAR 30%%" (default: all)')
    ap.add_argument("--tables", nargs="+", default=None, help='e.g. penguins "breast cancer" (default: all)')
    ap.add_argument("--adult", default=None, metavar="DIR", help="folder with UCI's adult.data")
    ap.add_argument("--adult-rows", type=int, default=5000,
                    help="rows sampled from adult.data and from each --data-dir table (default 5000)")
    ap.add_argument("--data-dir", default=None, metavar="DIR",
                    help="also every *.csv in this folder (label: --target; '?' missing; see _tables.csv_tables)")
    ap.add_argument("--target", default=None, help="label column of the --data-dir tables (default: each one's last)")
    ap.add_argument("--peers", nargs="*", default=None, choices=PEERS, metavar="PEER",
                    help=f"add these peers (no value: {', '.join(DEFAULT_PEERS)}); implies --select")
    ap.add_argument("--hyperimpute-python", default=None, metavar="PYTHON",
                    help="run HyperImpute in this Python (an environment where it works) through files, never "
                         "importing it here; adds HyperImpute to the default peers")
    ap.add_argument("--hyperimpute-options", default=None, metavar="JSON",
                    help="keyword arguments of HyperImpute's plugin, a JSON object, e.g. "
                         "'{\"class_threshold\": 50}' (default: its defaults)")
    args = ap.parse_args(argv)
    if args.hyperimpute_options is not None:
        try:
            options = json.loads(args.hyperimpute_options)
        except ValueError:
            options = None
        if not isinstance(options, dict) or "random_state" in options:
            ap.error("--hyperimpute-options must be a JSON object of HyperImpute's keyword arguments other than "
                     f"random_state (the seed); received {args.hyperimpute_options!r}")
        _impute_peers.HYPERIMPUTE_OPTIONS = options
        print(f"(HyperImpute with {options})")
    if args.hyperimpute_python:
        _impute_peers.HYPERIMPUTE_PYTHON = args.hyperimpute_python
        if args.peers == []:
            args.peers = list(DEFAULT_PEERS) + ["HyperImpute"]
    if args.peers is not None and args.select is None:
        args.select = []
    seeds = range(args.first_seed, args.first_seed + (args.seeds or (2 if args.quick else 3)))
    masks = args.masks or ["MCAR 10%", "MCAR 30%"] + ([] if args.quick else ["MAR", "MNAR"])
    t0 = time.perf_counter()
    for name, (X, y) in tables(args.quick, args.adult, args.adult_rows, args.data_dir, args.target).items():
        if args.tables and name not in args.tables:
            continue
        cats = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        nums = [c for c in X.columns if c not in cats]
        results, picks = {}, {}
        if "MAR" in masks:
            print(f"  [{name}: the MAR driver column is {mar_driver(X)!r}]")
        for kind in masks:
            for seed in seeds:
                rng = np.random.default_rng(seed)
                M = mask(X, kind, rng)
                Xm = blank(X, M)
                t1 = time.perf_counter()
                methods, chosen = bayesnb_methods(Xm, y, seed, latent=not args.no_latent)
                t2 = time.perf_counter()
                if not args.no_sklearn:
                    methods.update(sklearn_methods(Xm, cats, nums, y, seed))
                t3 = time.perf_counter()
                print(f"  [{name} {kind} seed {seed}: bayesnb naive/latent {t2 - t1:.0f} s, scikit-learn {t3 - t2:.0f} s]",
                      flush=True)
                if nums and not args.no_mvn:
                    for tag, given in (("", False), (" +y", True)):
                        methods[f"bayesnb mvn{tag}"] = impute_mvn(Xm, y, label_given=given)
                    print(f"  [mvn {time.perf_counter() - t3:.0f} s]", flush=True)
                    t3 = time.perf_counter()
                times, ref = {}, None
                if args.select is not None:
                    args.select = args.select or "auto"
                    labels = (("", False), (" +y", True))
                    for tag, given in labels[:1] if args.select_no_y else labels[1:] if args.select_given else labels:
                        t4 = time.perf_counter()
                        r = impute_table(Xm, y, configurations=args.select, label_given=given, random_state=seed,
                                         missingness=args.missingness)
                        ref = (f"bayesnb impute_table({'/'.join(args.select) if args.select != 'auto' else 'auto'}"
                               + (f", missingness={args.missingness}" if args.missingness != "auto" else "") + f"){tag}")
                        methods[ref], times[ref] = r.table, time.perf_counter() - t4
                        picks.setdefault((kind, f" impute_table{tag}"), []).append(
                            "".join({"tan-mi": "T", "mnar": "M"}.get(v, v[0]) + ("o" if c in r.odds else "")
                                    for c, v in r.chosen.items())
                            + (f" C={r.n_components}" if r.n_components is not None else ""))
                    print(f"  [impute_table {time.perf_counter() - t3:.0f} s]", flush=True)
                    t3 = time.perf_counter()
                if args.mnar:
                    for tag, given in (("", False), (" +y", True)):
                        t4 = time.perf_counter()
                        m = f"bayesnb impute_mnar(auto){tag}"
                        methods[m] = impute_mnar(Xm, y, n_components="auto", label_given=given, random_state=seed).table
                        times[m] = time.perf_counter() - t4
                        if nums:
                            t4 = time.perf_counter()
                            m = f"bayesnb impute_mnar(mvn){tag}"
                            methods[m] = impute_mnar(Xm, y, model="mvn", label_given=given, random_state=seed).table
                            times[m] = time.perf_counter() - t4
                    print(f"  [impute_mnar {time.perf_counter() - t3:.0f} s]", flush=True)
                    t3 = time.perf_counter()
                if args.structures:
                    extra, kinds = structure_methods(Xm, y, cats, nums, args.structure_kinds)
                    print(f"  [structures {time.perf_counter() - t3:.0f} s]", flush=True)
                    methods.update(extra)
                    for k, v in kinds.items():
                        picks.setdefault((kind, f" structure={k} learned"), []).append(v)
                if args.peers is not None:
                    for m, (F, sec) in peer_methods(Xm, cats, nums, y, seed, args.peers).items():
                        methods[m], times[m] = F, sec
                        print(f"  [{m} {sec:.1f} s]", flush=True)
                for k, v in chosen.items():
                    picks.setdefault((kind, k), []).append(v)
                for m, F in methods.items():  # time: a ratio to the last impute_table run (+y) of this run
                    ratio = times[m] / times[ref] if m in times and ref in times else np.nan
                    results.setdefault(m, {}).setdefault(kind, []).append(
                        (np.nan,) * 4 + (ratio,) if F is None else score(X, F, M, cats, nums) + (ratio,))
        print(f"\n### {name} ({X.shape[0]} rows; {len(cats)} categorical, {len(nums)} numeric; "
              f"{len(seeds)} seeds)\n")
        metric = (([("accuracy", 0)] if cats else []) + ([("NRMSE", 1), ("out", 2)] if nums else [])
                  + [("outside", 3)] + ([("time x", 4)] if args.select is not None else []))
        head = [f"{kind} {m}" for kind in masks for m, _ in metric]
        print("| method | " + " | ".join(head) + " |")
        print("|---" * (len(head) + 1) + "|")
        for m, by in results.items():
            cells = []
            for kind in masks:
                r = by[kind]
                for mname, i in metric:
                    cells.append(f"{np.mean([x[i] for x in r]):.1f}" if mname == "out" else fmt([x[i] for x in r]))
            print(f"| {m} | " + " | ".join(cells) + " |")
        if picks:
            print("\nchosen per seed (latent-class components; learned structures): "
                  + "; ".join(f"{kind}{tag or ' no y'}: {v}" for (kind, tag), v in picks.items()))
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
