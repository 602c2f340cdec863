"""features="auto" (families chosen by evidence) vs all-Gaussian numerics, on bundled tables.

Stratified 5-fold CV (seeded), accuracy and log loss of
- ``NaiveBayes()``: each numeric column's family chosen by closed-form evidence;
- ``NaiveBayes`` with every numeric column Gaussian (the 0.1 default);
- scikit-learn's ``GaussianNB`` (numeric columns only, missing cells mean-filled);
and, for synthetic rows of the auto model (as many as the training fold), the share of
numeric values outside the training range and of non-whole values in whole-number columns.
Diabetes is classed by the tertiles of its target.

With ``--adult DIR`` it also fits the UCI census table's official split (adult.data ->
adult.test; see ``_census.py``) and prints test accuracy, log loss and fit time of the same
models, and the family chosen for each numeric column.

    python benchmarks/bench_families.py [--adult DIR [--ablate]]   # prints markdown tables

Run it with ``PYTHONPATH`` pointing at another checkout to compare versions of bayesnb.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn import datasets as skd
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from bayesnb import NaiveBayes
from bayesnb.datasets import load_penguins
from bayesnb.estimators import auto_blocks, auto_features

try:
    from _census import NOT_GIVEN, TARGET, load_adult
except ImportError:  # run from another directory
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _census import NOT_GIVEN, TARGET, load_adult


def tables():
    pg = load_penguins()
    yield "penguins", pg.drop(columns="species"), pg["species"].to_numpy()
    for name, f in [("breast cancer", skd.load_breast_cancer), ("wine", skd.load_wine), ("iris", skd.load_iris),
                    ("digits", skd.load_digits)]:
        d = f(as_frame=True)
        yield name, d.data, d.target.to_numpy()
    d = skd.load_diabetes(as_frame=True)
    yield "diabetes (target tertiles)", d.data, np.digitize(d.target, np.quantile(d.target, [1 / 3, 2 / 3]))


def run(name, X, y, folds, seed):
    num = [c for c in X.columns if X[c].dtype.kind in "iuf"]
    rows = {"auto": [], "all Gaussian": [], "sklearn GaussianNB": []}
    outside = whole_bad = total = 0
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y[tr], y[te]
        auto = NaiveBayes().fit(Xtr, ytr)
        # the dtype rule without labels: every numeric column in one Gaussian block
        gauss = NaiveBayes(features={tuple(X.columns[j] for j in cols): fam
                                     for cols, fam in auto_blocks(Xtr)[0]}).fit(Xtr, ytr)
        fill = Xtr[num].astype(float).mean()
        sk = SkGaussianNB().fit(Xtr[num].astype(float).fillna(fill), ytr)
        for key, m, Xe in (("auto", auto, Xte), ("all Gaussian", gauss, Xte),
                           ("sklearn GaussianNB", sk, Xte[num].astype(float).fillna(fill))):
            P = m.predict_proba(Xe)
            rows[key].append((accuracy_score(yte, m.classes_[P.argmax(1)]), log_loss(yte, P, labels=m.classes_)))
        S, _ = auto.sample(len(tr), random_state=seed)
        for c in num:
            real = Xtr[c].astype(float).dropna().to_numpy()
            gen = S[c].astype(float).dropna().to_numpy()
            outside += int(((gen < real.min()) | (gen > real.max())).sum())
            if np.all(real == np.round(real)):
                whole_bad += int((gen != np.round(gen)).sum())
            total += gen.size
    out = []
    for key, vals in rows.items():
        a = np.array(vals)
        out.append(f"| {name} | {key} | {a[:, 0].mean():.4f} | {a[:, 1].mean():.3f} |")
    return out, outside / max(total, 1), whole_bad / max(total, 1)


def _models(Xtr, ytr):
    """The three models of :func:`run`, fitted, with their fit times."""
    out = {}
    t = time.perf_counter()
    auto = NaiveBayes().fit(Xtr, ytr)
    out["auto"] = (auto, time.perf_counter() - t)
    t = time.perf_counter()
    gauss = NaiveBayes(features={tuple(Xtr.columns[j] for j in cols): fam
                                 for cols, fam in auto_blocks(Xtr)[0]}).fit(Xtr, ytr)
    out["all Gaussian"] = (gauss, time.perf_counter() - t)
    return out


def _ablations(Xtr, ytr, Xte, yte):
    """``features="auto"`` with Histogram's grid cut down: which part of the grid matters."""
    full = (auto_features.HISTOGRAM_BINS, auto_features.HISTOGRAM_ALPHAS)
    print("\n| features='auto' with Histogram candidates | test accuracy | test log loss |\n|---|---|---|")
    cuts = [("bins='auto', alpha=1 only (the single Histogram of earlier versions)", ("auto",), (1.0,)),
            ("bins grid, alpha=1 only", full[0], (1.0,)),
            ("bins='auto', alpha grid only", ("auto",), full[1]),
            ("bins grid x alpha grid (the default)", *full)]
    try:
        for label, bins, alphas in cuts:
            auto_features.HISTOGRAM_BINS, auto_features.HISTOGRAM_ALPHAS = bins, alphas
            m = NaiveBayes().fit(Xtr, ytr)
            P = m.predict_proba(Xte)
            print(f"| {label} | {accuracy_score(yte, m.classes_[P.argmax(1)]):.4f} | "
                  f"{log_loss(yte, P, labels=m.classes_):.4f} |")
    finally:
        auto_features.HISTOGRAM_BINS, auto_features.HISTOGRAM_ALPHAS = full


def census(folder, ablate=False):
    """Official split of the census table: accuracy, log loss, fit time; the chosen families."""
    data = load_adult(folder)
    if data is None:
        print(f"\n{NOT_GIVEN}")
        return
    train, test = data
    Xtr, ytr = train.drop(columns=TARGET), train[TARGET].to_numpy()
    Xte, yte = test.drop(columns=TARGET), test[TARGET].to_numpy()
    print("\nCensus table (UCI Adult), official split adult.data -> adult.test:\n")
    print("| model | test accuracy | test log loss | fit seconds |\n|---|---|---|---|")
    models = _models(Xtr, ytr)
    for key, (m, secs) in models.items():
        P = m.predict_proba(Xte)
        print(f"| {key} | {accuracy_score(yte, m.classes_[P.argmax(1)]):.4f} | "
              f"{log_loss(yte, P, labels=m.classes_):.4f} | {secs:.1f} |")
    scores = getattr(models["auto"][0], "family_scores_", None)
    if scores is not None:
        chosen = scores[scores.chosen]
        print("\n| column | chosen family | log evidence |\n|---|---|---|")
        for r in chosen.itertuples():
            print(f"| {r.column} | {r.family} | {r.log_evidence:.1f} |")
    if ablate:
        _ablations(Xtr, ytr, Xte, yte)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--adult", default=None, help="folder with UCI adult.data and adult.test (optional)")
    ap.add_argument("--only-adult", action="store_true", help="skip the bundled tables")
    ap.add_argument("--ablate", action="store_true",
                    help="census: also refit with Histogram's bins or alpha grid cut down")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if not args.only_adult:
        bundled(args)
    census(args.adult, args.ablate)


def bundled(args):
    """Cross-validated accuracy and log loss on the bundled tables; support of synthetic rows."""
    print("| table | model | accuracy | log loss |\n|---|---|---|---|")
    support = []
    for name, X, y in tables():
        lines, outside, frac = run(name, X, y, args.folds, args.seed)
        print("\n".join(lines))
        support.append(f"| {name} | {outside:.4f} | {frac:.4f} |")
    print("\nSynthetic rows of the auto model (numeric values):\n")
    print("| table | share outside the training range | share non-whole in whole-number columns |\n|---|---|---|")
    print("\n".join(support))


if __name__ == "__main__":
    main()
