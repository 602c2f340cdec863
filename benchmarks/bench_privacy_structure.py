"""Benchmark: private structure (docs/privacy.md, "Private structure"): private naive vs private TAN and k-DB.

On house votes (CategoricalNB, every vote declared ``n``/``y``) and penguins (Gaussian numeric
columns with declared bounds, declared categories), at epsilon 1 and 5 (Laplace), for each seed
its own 70/30 stratified split and noise: test accuracy of private naive, TAN and k-DB (k=2), and
TAN at the other structure shares of epsilon given by ``--shares`` (``STRUCTURE_SHARE`` patched
per fit: the experiment behind the default). ``inf (no privacy)`` rows: the same estimators
without privacy (NaiveBayes with a structure then needs ``features="auto"``, so its families
differ from the private rows'). With ``--adult-file FILE`` (UCI's ``adult.data``, not shipped),
the census rows too (a 70/30 split of that file, the codebook categories and bounds of
``bench_privacy.py``). ``--diagnose`` prints where private TAN loses instead: census without
noise, on its categorical columns alone, with every edge forbidden (the engine must then
reproduce the naive model), with numeric nodes taking parents (``NUMERIC_PARENTLESS`` patched), with
the numeric columns cut into ``BINS`` equal-width bins between their declared bounds and fitted as
Categorical columns (declared categories), and penguins at epsilon 5 with and without numeric parents.

Usage::

    python benchmarks/bench_privacy_structure.py [--seeds 5] [--shares 0.2 0.3] [--adult-file FILE]
    python benchmarks/bench_privacy_structure.py --diagnose [--seeds 5] [--adult-file FILE]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd
from _census import TARGET, _read
from bench_privacy import ADULT_CATEGORIES, ADULT_CLASSES, adult_features, penguins, votes
from sklearn.model_selection import train_test_split

import bayesnb as bn
from bayesnb.structure import private_fit


def structure_run(dataset, seeds, shares, epsilons=(1.0, 5.0)):
    """Private naive, TAN and k-DB (and TAN at other structure shares): test accuracy per seed."""
    df, target, make, bounds = dataset()
    classes = sorted(df[target].unique())
    default = private_fit.STRUCTURE_SHARE
    fits = [("naive", "naive", default), ("tan", "tan", default), ("kdb (k=2)", "kdb", default)]
    fits += [(f"tan, share {sh:g}", "tan", sh) for sh in shares if sh != default]
    rows = []
    for eps in (*epsilons, math.inf):
        for seed in range(seeds):
            train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
            X, y = train.drop(columns=[target]), train[target]
            for name, structure, share in fits:
                if math.isinf(eps) and share != default:
                    continue
                dp = None if math.isinf(eps) else bn.DP(eps, bounds=bounds, classes=classes, random_state=1000 + seed)
                model = make(dp)
                if structure != "naive" and math.isinf(eps) and isinstance(model, bn.NaiveBayes):
                    model = bn.NaiveBayes(structure=structure)  # no privacy: features="auto" (a structure's own)
                else:
                    model.set_params(structure=structure)
                private_fit.STRUCTURE_SHARE = share
                try:
                    t0 = time.perf_counter()
                    model.fit(X, y)
                    fit_s = time.perf_counter() - t0
                finally:
                    private_fit.STRUCTURE_SHARE = default
                acc = float((model.predict(test.drop(columns=[target])) == test[target]).mean())
                rows.append({"epsilon": eps, "model": name, "accuracy": acc, "fit s": fit_s})
    return pd.DataFrame(rows)


def adult_file_dataset(path):
    """UCI's adult.data alone as a dataset of :func:`structure_run` (codebook categories and bounds)."""
    def dataset():
        df = _read(path)
        features, bounds = adult_features(False)
        return df, TARGET, lambda dp: bn.NaiveBayes(features, privacy=dp), bounds
    return dataset


def structure_diagnosis(adult_file, seeds):
    """Where private TAN loses (census): no noise, the categorical columns alone, every edge forbidden,
    and numeric nodes with parents (``NUMERIC_PARENTLESS`` patched) on census (one split) and penguins."""
    rows = []

    def acc(model, X, y, Xt, yt):
        return float((model.fit(X, y).predict(Xt) == yt).mean())

    if adult_file:
        df, target, make, bounds = adult_file_dataset(adult_file)()
        train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=0)
        X, y, Xt, yt = train.drop(columns=[target]), train[target], test.drop(columns=[target]), test[target]
        cats = list(ADULT_CATEGORIES)
        cols = list(X.columns)
        every = [(a, b) for i, a in enumerate(cols) for b in cols[i + 1:]]
        cat_features = {tuple(cats): bn.Categorical(categories=list(ADULT_CATEGORIES.values()))}
        for eps in (1e6, 1.0, 5.0):
            dp = bn.DP(eps, bounds=bounds, classes=ADULT_CLASSES, random_state=0)
            dpc = bn.DP(eps, classes=ADULT_CLASSES, random_state=0)
            for name, model, Xa, Xb in (
                    ("census: naive", make(dp), X, Xt),
                    ("census: tan", make(dp).set_params(structure="tan"), X, Xt),
                    ("census: tan, every edge forbidden", make(dp).set_params(structure="tan",
                                                                              forbidden_edges=every), X, Xt),
                    ("census, categorical columns: naive", bn.NaiveBayes(cat_features, privacy=dpc), X[cats],
                     Xt[cats]),
                    ("census, categorical columns: tan", bn.NaiveBayes(cat_features, structure="tan", privacy=dpc),
                     X[cats], Xt[cats])):
                rows.append({"what": name, "epsilon": eps, "seed": 0, "accuracy": acc(model, Xa, y, Xb, yt)})
            binned, bcats = declared_bins(X, bounds), declared_bins(Xt, bounds)
            edges_cats = [ADULT_CATEGORIES[c] if c in ADULT_CATEGORIES else list(range(BINS)) for c in cols]
            binned_features = {tuple(cols): bn.Categorical(categories=edges_cats)}
            for name, structure in (("census, numeric in declared bins: naive", "naive"),
                                    ("census, numeric in declared bins: tan", "tan")):
                model = bn.NaiveBayes(binned_features, structure=structure, privacy=dpc)
                rows.append({"what": name, "epsilon": eps, "seed": 0, "accuracy": acc(model, binned, y, bcats, yt)})
            if eps == 1.0:
                private_fit.NUMERIC_PARENTLESS = False
                try:
                    rows.append({"what": "census: tan, numeric nodes with parents", "epsilon": eps, "seed": 0,
                                 "accuracy": acc(make(dp).set_params(structure="tan"), X, y, Xt, yt)})
                finally:
                    private_fit.NUMERIC_PARENTLESS = True
    df, target, make, bounds = penguins()
    for seed in range(seeds):
        train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
        X, y, Xt, yt = train.drop(columns=[target]), train[target], test.drop(columns=[target]), test[target]
        for parentless in (True, False):
            private_fit.NUMERIC_PARENTLESS = parentless
            try:
                dp = bn.DP(5.0, bounds=bounds, classes=SPECIES_CLASSES, random_state=1000 + seed)
                rows.append({"what": f"penguins: tan, numeric nodes {'parentless' if parentless else 'with parents'}",
                             "epsilon": 5.0, "seed": seed,
                             "accuracy": acc(make(dp).set_params(structure="tan"), X, y, Xt, yt)})
            finally:
                private_fit.NUMERIC_PARENTLESS = True
    frame = pd.DataFrame(rows)
    out = frame.groupby(["what", "epsilon"], sort=False)["accuracy"].agg(["mean", "std", "count"]).reset_index()
    lines = ["| what | epsilon | accuracy (mean ± sd) | seeds |", "|---|---|---|---|"]
    for r in out.itertuples():
        sd = 0.0 if r.count < 2 else r.std
        lines.append(f"| {r.what} | {r.epsilon:g} | {r.mean:.4f} ± {sd:.4f} | {r.count} |")
    return "\n".join(lines)


SPECIES_CLASSES = ["Adelie", "Chinstrap", "Gentoo"]

#: equal-width bins of a numeric column between its declared bounds (``--diagnose``)
BINS = 10


def declared_bins(X, bounds):
    """``X`` with each numeric column replaced by its bin (0..BINS-1) of BINS equal-width bins between
    its declared bounds (values clipped to them): a Categorical column with declared categories."""
    out = X.copy()
    for c, (lo, hi) in bounds.items():
        v = out[c].to_numpy(float)
        code = np.clip(np.floor((np.clip(v, lo, hi) - lo) / (hi - lo) * BINS), 0, BINS - 1)
        out[c] = pd.array(np.where(np.isnan(v), np.nan, code)).astype("Int64").astype(object)
        out[c] = out[c].where(out[c].notna(), None)
    return out


def structure_table(frame):
    lines = ["| epsilon | model | accuracy (mean ± sd) | worst seed | fit s (mean) |", "|---|---|---|---|---|"]
    for (eps, model), g in frame.groupby(["epsilon", "model"], sort=False):
        sd = g["accuracy"].std(ddof=1) if len(g) > 1 else 0.0
        lines.append(f"| {'inf (no privacy)' if math.isinf(eps) else f'{eps:g}'} | {model} | "
                     f"{g['accuracy'].mean():.3f} ± {sd:.3f} | {g['accuracy'].min():.3f} | {g['fit s'].mean():.2f} |")
    return "\n".join(lines)


def structure_main(seeds, shares, adult_file=None):
    sets = [("house votes (435 rows, CategoricalNB)", votes),
            ("penguins (333 complete rows, Gaussian + Categorical)", penguins)]
    if adult_file:
        sets.append(("census adult.data (70/30 split of 32,561 rows)", adult_file_dataset(adult_file)))
    for name, dataset in sets:
        t0 = time.perf_counter()
        frame = structure_run(dataset, seeds, shares)
        print(f"\n### {name}: {seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
        print(structure_table(frame))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--shares", type=float, nargs="*", default=[], help="TAN at other structure shares")
    parser.add_argument("--adult-file", default=None, help="UCI's adult.data (split 70/30)")
    parser.add_argument("--diagnose", action="store_true", help="where private TAN loses")
    parser.add_argument("--flat-smoothing", action="store_true",
                        help="the smoothing that ignores the noise (private_fit.NOISE_AWARE_SMOOTHING = False)")
    args = parser.parse_args()
    private_fit.NOISE_AWARE_SMOOTHING = not args.flat_smoothing
    if args.diagnose:
        print(structure_diagnosis(args.adult_file, args.seeds))
        return
    structure_main(args.seeds, args.shares, args.adult_file)


if __name__ == "__main__":
    main()
