"""Novelty detection with log p(x): train on one class, flag the other.

- SMS Spam Collection (../shared/data/SMSSpamCollection.tsv): fit a multinomial (and a
  Bernoulli) naive-Bayes model on ham messages only (word counts), score held-out ham and
  spam with ``outlier_scores`` (= -log p(x)), report the ROC AUC for spam, against
  scikit-learn's IsolationForest on the same encoding.
- House votes: fit on democrats, score held-out democrats and republicans.

A length-normalised score (``-log p(x) / tokens``) is also reported for SMS: the raw
multinomial log-probability of a message falls with its length.

Run:  python examples/outliers.py [--small] [--data DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import IsolationForest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from bayesnb import BernoulliNB, CategoricalNB, MultinomialNB
from bayesnb.datasets import load_house_votes

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def sms(data_dir: Path, seed: int, max_features: int):
    df = pd.read_csv(data_dir / "SMSSpamCollection.tsv", sep="\t", header=None, names=["label", "text"],
                     quoting=3, dtype=str)
    ham = df[df.label == "ham"]
    spam = df[df.label == "spam"]
    ham_tr, ham_te = train_test_split(ham, test_size=0.3, random_state=seed)
    vec = CountVectorizer(max_features=max_features).fit(ham_tr.text)
    Xtr = vec.transform(ham_tr.text)
    test = pd.concat([ham_te, spam])
    Xte = vec.transform(test.text)
    is_spam = (test.label == "spam").to_numpy()
    y_tr = np.zeros(Xtr.shape[0], dtype=int)
    out = {}
    m = MultinomialNB().fit(Xtr, y_tr)
    s = m.outlier_scores(Xte)
    out["bayesnb MultinomialNB  -log p(x)"] = roc_auc_score(is_spam, s)
    tokens = np.maximum(np.asarray(Xte.sum(1)).ravel(), 1)
    out["bayesnb MultinomialNB  -log p(x) / tokens"] = roc_auc_score(is_spam, s / tokens)
    mm = MultinomialNB(predictive="marginal").fit(Xtr, y_tr)
    out["bayesnb MultinomialNB  Polya -log p(x)"] = roc_auc_score(is_spam, mm.outlier_scores(Xte))
    b = BernoulliNB().fit(Xtr, y_tr)
    out["bayesnb BernoulliNB    -log p(x)"] = roc_auc_score(is_spam, b.outlier_scores(Xte))
    iso = IsolationForest(random_state=seed).fit(Xtr)
    out["sklearn IsolationForest (counts)"] = roc_auc_score(is_spam, -iso.score_samples(Xte))
    b.set_outlier_threshold(Xtr, contamination=0.05)
    flagged = b.is_outlier(Xte)
    out["  BernoulliNB at 5% train contamination: spam recall"] = flagged[is_spam].mean()
    out["  BernoulliNB at 5% train contamination: ham false-positive rate"] = flagged[~is_spam].mean()
    return out


def votes(seed: int):
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    dem = np.flatnonzero(y == "democrat")
    tr, te_dem = train_test_split(dem, test_size=0.3, random_state=seed)
    te = np.concatenate([te_dem, np.flatnonzero(y == "republican")])
    is_rep = y[te] == "republican"
    clf = CategoricalNB().fit(X.iloc[tr], y[tr])
    s = clf.outlier_scores(X.iloc[te])
    n_obs = np.maximum(X.iloc[te].notna().sum(axis=1).to_numpy(), 1)
    out = {"bayesnb CategoricalNB -log p(x) (missing marginalised)": roc_auc_score(is_rep, s),
           "bayesnb CategoricalNB -log p(x) / observed votes": roc_auc_score(is_rep, s / n_obs)}
    # IsolationForest needs complete numbers: y=1, n=0, missing=0.5
    enc = X.replace({"y": 1.0, "n": 0.0}).astype(float).fillna(0.5).to_numpy()
    iso = IsolationForest(random_state=seed).fit(enc[tr])
    out["sklearn IsolationForest (y=1, n=0, missing=0.5)"] = roc_auc_score(is_rep, -iso.score_samples(enc[te]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="one seed, smaller vocabulary")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    seeds = [0] if args.small else [0, 1, 2]
    t0 = time.perf_counter()
    for name, fn in [("House votes: train on democrats, ROC AUC for republicans", votes),
                     ("SMS spam: train on ham, ROC AUC for spam", None)]:
        if fn is None:
            if not (args.data / "SMSSpamCollection.tsv").exists():
                print(f"\n(SMS data not found in {args.data}; skipped)")
                continue
            fn = lambda s: sms(args.data, s, 2000 if args.small else 5000)  # noqa: E731
        rs = [fn(s) for s in seeds]
        print(f"\n{name} ({len(seeds)} seed(s), mean +- sd):")
        for k in rs[0]:
            v = [r[k] for r in rs]
            print(f"  {k:62s} {np.mean(v):.4f} +- {np.std(v):.4f}")
    print(f"\n({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
