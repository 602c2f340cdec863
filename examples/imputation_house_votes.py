"""House votes: imputation benchmark and classification with missing values.

1. Imputation: hide 20% of the observed votes at random (several seeds), impute them,
   report the accuracy on the hidden votes for most-frequent-value imputation,
   scikit-learn's KNNImputer and IterativeImputer, plain naive-Bayes imputation
   (``CategoricalNB.impute``) and the latent-class model (``n_components="auto"``:
   each party a mixture of naive-Bayes components, count chosen by held-out
   likelihood). Every method sees the party label (a column for sklearn, ``y=`` for
   bayesnb).
2. Classification: repeated stratified 5-fold CV of party prediction with the missing
   votes left in (bayesnb marginalises them) vs scikit-learn trained on complete cases or
   on imputed data.

Prints both tables and saves ``imputation_house_votes.png`` (both accuracies per method,
mean and sd across seeds / folds as error bars) into ``--out``.

Run:  python examples/imputation_house_votes.py [--out DIR] [--quick]
      (``--quick``, alias ``--small``: 2 seeds and 1 CV repeat instead of 5 and 5)
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer, KNNImputer, SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

from _common import parser, plotting, save
from bayesnb import CategoricalNB
from bayesnb.datasets import load_house_votes


def to01(X: pd.DataFrame) -> np.ndarray:
    return X.replace({"y": 1.0, "n": 0.0}).astype(float).to_numpy()


def imputation_benchmark(seeds, frac=0.2, fixed_components=()):
    df = load_house_votes()
    X, party = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    p01 = (party == "republican").astype(float)[:, None]
    obs = X.notna().to_numpy()
    rows, cols = np.nonzero(obs)
    res = {k: [] for k in ["most frequent", "KNNImputer (k=5)", "IterativeImputer", "bayesnb NB",
                           "bayesnb latent-class (auto)"] + [f"bayesnb latent-class C={c}" for c in fixed_components]}
    chosen = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        hide = rng.random(rows.size) < frac
        hr, hc = rows[hide], cols[hide]
        Xm = X.copy()
        for j in np.unique(hc):
            Xm.iloc[hr[hc == j], j] = None
        truth = to01(X)[hr, hc]
        A = np.hstack([to01(Xm), p01])  # sklearn sees the party as a column

        def acc(filled01):
            return float(np.mean(np.round(filled01[hr, hc]) == truth))

        res["most frequent"].append(acc(SimpleImputer(strategy="most_frequent").fit_transform(A)))
        res["KNNImputer (k=5)"].append(acc(KNNImputer(n_neighbors=5).fit_transform(A)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res["IterativeImputer"].append(acc(IterativeImputer(max_iter=20, random_state=seed).fit_transform(A)))
        clf = CategoricalNB().fit(Xm, party)
        res["bayesnb NB"].append(acc(to01(clf.impute(Xm, y=party))))
        fit = clf.fit_latent_class(Xm, party, n_components="auto", random_state=seed)
        chosen.append(fit.n_components)
        res["bayesnb latent-class (auto)"].append(acc(to01(clf.impute(Xm, y=party, latent=fit))))
        for c in fixed_components:
            fit = clf.fit_latent_class(Xm, party, n_components=c, random_state=seed)
            res[f"bayesnb latent-class C={c}"].append(acc(to01(clf.impute(Xm, y=party, latent=fit))))
    return res, chosen


def classification_benchmark(n_repeats):
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    X01 = to01(X)
    complete = ~np.isnan(X01).any(axis=1)
    res = {k: [] for k in ["bayesnb CategoricalNB, missing left in",
                           "sklearn CategoricalNB, complete-case train, mode-imputed test",
                           "sklearn CategoricalNB, mode-imputed",
                           "sklearn LogisticRegression, mean-imputed"]}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=0)
    for tr, te in cv.split(X01, y):
        res["bayesnb CategoricalNB, missing left in"].append(
            np.mean(CategoricalNB().fit(X.iloc[tr], y[tr]).predict(X.iloc[te]) == y[te]))
        mode = SimpleImputer(strategy="most_frequent").fit(X01[tr])
        cc = tr[complete[tr]]
        sk = SkCategoricalNB(min_categories=2).fit(X01[cc].astype(int), y[cc])
        res["sklearn CategoricalNB, complete-case train, mode-imputed test"].append(
            np.mean(sk.predict(mode.transform(X01[te]).astype(int)) == y[te]))
        sk = SkCategoricalNB(min_categories=2).fit(mode.transform(X01[tr]).astype(int), y[tr])
        res["sklearn CategoricalNB, mode-imputed"].append(
            np.mean(sk.predict(mode.transform(X01[te]).astype(int)) == y[te]))
        mean = SimpleImputer(strategy="mean").fit(X01[tr])
        lr = LogisticRegression(max_iter=1000).fit(mean.transform(X01[tr]), y[tr])
        res["sklearn LogisticRegression, mean-imputed"].append(np.mean(lr.predict(mean.transform(X01[te])) == y[te]))
    return res, int(complete.sum())


def figure(imp, n_seeds, cls, n_folds):
    """Two bar charts, mean +- sd: imputation accuracy per method, CV accuracy per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 3.4), gridspec_kw={"width_ratios": [1, 1.3]})
    for ax, res, title, xlabel in (
            (axes[0], imp, f"imputation of 20% hidden votes ({n_seeds} seeds)", "accuracy on the hidden votes"),
            (axes[1], cls, f"party prediction, stratified 5-fold CV ({n_folds} folds)", "test accuracy")):
        names = list(res)
        means = [np.mean(res[k]) for k in names]
        ax.barh(names, means, xerr=[np.std(res[k]) for k in names], capsize=3,
                color=["C0" if k.startswith("bayesnb") else "C7" for k in names])
        for i, m in enumerate(means):
            ax.text(0.01, i, f"{m:.3f}", va="center", fontsize=8, color="white")
        ax.set_xlim(0, 1)
        ax.set_xlabel(xlabel)
        ax.set_title(title, fontsize=10)
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    return fig


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=None, help="number of seeds (default 5, 2 with --quick)")
    ap.add_argument("--n-components", type=int, nargs="*", default=[],
                    help="also evaluate the latent-class model at these fixed component counts")
    args = ap.parse_args(argv)
    seeds = range(args.seeds if args.seeds else (2 if args.quick else 5))
    t0 = time.perf_counter()
    imp, chosen = imputation_benchmark(seeds, fixed_components=args.n_components)
    print(f"Imputation of 20% hidden observed votes, {len(seeds)} seeds (accuracy, mean +- sd; per seed):")
    for k, v in imp.items():
        print(f"  {k:32s} {np.mean(v):.4f} +- {np.std(v):.4f}   [{', '.join(f'{a:.3f}' for a in v)}]")
    print(f"  latent-class components chosen per seed: {chosen}")
    cls, n_complete = classification_benchmark(1 if args.quick else 5)
    print(f"\nParty prediction, repeated stratified 5-fold CV ({n_complete}/435 complete rows):")
    for k, v in cls.items():
        print(f"  {k:62s} {np.mean(v):.4f} +- {np.std(v):.4f}")
    print(f"\n({time.perf_counter() - t0:.1f} s)")
    if plotting() is not None:
        save(figure(imp, len(seeds), cls, len(next(iter(cls.values())))), args.out, "imputation_house_votes.png")


if __name__ == "__main__":
    main()
