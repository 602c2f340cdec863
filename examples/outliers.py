"""Novelty detection with log p(x): train on one class, flag the other.

- SMS Spam Collection (../shared/data/SMSSpamCollection.tsv): fit a multinomial (and a
  Bernoulli) naive-Bayes model on ham messages only (word counts), score held-out ham and
  spam with ``-score_samples`` (= -log p(x)), report the ROC AUC for spam, against
  scikit-learn's IsolationForest on the same encoding.
- House votes: fit on democrats, score held-out democrats and republicans.

A length-normalised score (``-log p(x) / tokens``) is also reported for SMS: the raw
multinomial log-probability of a message falls with its length.

Prints the ROC AUCs (mean +- sd over seeds) and saves ``outliers_roc.png`` (ROC curves of
bayesnb and IsolationForest, first seed) into ``--out``. Without the SMS file the house-votes
part (bundled data) still runs and the SMS part is reported as skipped.

Run:  python examples/outliers.py [--out DIR] [--quick] [--data DIR]
      (``--quick``, alias ``--small``: one seed and a 2000-word vocabulary instead of 3 and 5000)
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import IsolationForest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.model_selection import train_test_split

from _common import parser, plotting, save
from bayesnb import BernoulliNB, CategoricalNB, MultinomialNB, NBOutlierDetector
from bayesnb.datasets import load_house_votes

DATA = Path(os.environ.get("BAYESNB_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


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
    curves = {}  # name -> (is_spam, score) for the ROC figure
    m = MultinomialNB().fit(Xtr, y_tr)
    s = -m.score_samples(Xte)
    curves["bayesnb MultinomialNB -log p(x)"] = (is_spam, s)
    out["bayesnb MultinomialNB  -log p(x)"] = roc_auc_score(is_spam, s)
    tokens = np.maximum(np.asarray(Xte.sum(1)).ravel(), 1)
    out["bayesnb MultinomialNB  -log p(x) / tokens"] = roc_auc_score(is_spam, s / tokens)
    mm = MultinomialNB(predictive="marginal").fit(Xtr, y_tr)
    out["bayesnb MultinomialNB  Polya -log p(x)"] = roc_auc_score(is_spam, -mm.score_samples(Xte))
    b = BernoulliNB().fit(Xtr, y_tr)
    out["bayesnb BernoulliNB    -log p(x)"] = roc_auc_score(is_spam, -b.score_samples(Xte))
    curves["bayesnb BernoulliNB -log p(x)"] = (is_spam, -b.score_samples(Xte))
    iso = IsolationForest(random_state=seed).fit(Xtr)
    out["sklearn IsolationForest (counts)"] = roc_auc_score(is_spam, -iso.score_samples(Xte))
    curves["sklearn IsolationForest"] = (is_spam, -iso.score_samples(Xte))
    det = NBOutlierDetector(b, contamination=0.05, range_tails=False, statistic="density").fit(Xtr)  # fitted b
    flagged = det.predict(Xte) == -1
    out["  BernoulliNB at 5% train contamination: spam recall"] = flagged[is_spam].mean()
    out["  BernoulliNB at 5% train contamination: ham false-positive rate"] = flagged[~is_spam].mean()
    return out, curves


def votes(seed: int):
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy(dtype=object)
    dem = np.flatnonzero(y == "democrat")
    tr, te_dem = train_test_split(dem, test_size=0.3, random_state=seed)
    te = np.concatenate([te_dem, np.flatnonzero(y == "republican")])
    is_rep = y[te] == "republican"
    clf = CategoricalNB().fit(X.iloc[tr], y[tr])
    s = -clf.score_samples(X.iloc[te])
    n_obs = np.maximum(X.iloc[te].notna().sum(axis=1).to_numpy(), 1)
    out = {"bayesnb CategoricalNB -log p(x) (missing marginalised)": roc_auc_score(is_rep, s),
           "bayesnb CategoricalNB -log p(x) / observed votes": roc_auc_score(is_rep, s / n_obs)}
    # IsolationForest needs complete numbers: y=1, n=0, missing=0.5
    enc = X.replace({"y": 1.0, "n": 0.0}).astype(float).fillna(0.5).to_numpy()
    iso = IsolationForest(random_state=seed).fit(enc[tr])
    out["sklearn IsolationForest (y=1, n=0, missing=0.5)"] = roc_auc_score(is_rep, -iso.score_samples(enc[te]))
    curves = {"bayesnb CategoricalNB -log p(x)": (is_rep, s),
              "sklearn IsolationForest": (is_rep, -iso.score_samples(enc[te]))}
    return out, curves


def figure(panels):
    """One ROC panel per data set: bayesnb's -log p(x) vs IsolationForest (first seed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.2), squeeze=False)
    for ax, (title, curves) in zip(axes[0], panels):
        for name, (truth, score) in curves.items():
            fpr, tpr, _ = roc_curve(truth, score)
            ax.plot(fpr, tpr, label=f"{name} (AUC {roc_auc_score(truth, score):.3f})",
                    ls="--" if name.startswith("sklearn") else "-")
        ax.plot([0, 1], [0, 1], color="0.7", lw=0.8)
        ax.set_xlabel("false-positive rate (inliers flagged)")
        ax.set_ylabel("true-positive rate (outliers flagged)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
        ax.set_aspect("equal")
    fig.tight_layout()
    return fig


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding SMSSpamCollection.tsv")
    args = ap.parse_args(argv)
    seeds = [0] if args.quick else [0, 1, 2]
    t0 = time.perf_counter()
    panels = []
    for name, short, fn in [("House votes: train on democrats, ROC AUC for republicans",
                             "house votes: democrats vs republicans", votes),
                            ("SMS spam: train on ham, ROC AUC for spam", "SMS: ham vs spam", None)]:
        if fn is None:
            path = args.data / "SMSSpamCollection.tsv"
            if not path.exists():
                print(f"\nSMS spam part skipped: {path} not found "
                      "(pass --data DIR, the folder holding SMSSpamCollection.tsv)")
                continue
            fn = lambda s: sms(args.data, s, 2000 if args.quick else 5000)  # noqa: E731
        rs = [fn(s) for s in seeds]
        print(f"\n{name} ({len(seeds)} seed(s), mean +- sd):")
        for k in rs[0][0]:
            v = [r[k] for r, _ in rs]
            print(f"  {k:62s} {np.mean(v):.4f} +- {np.std(v):.4f}")
        panels.append((f"{short} (seed {seeds[0]})", rs[0][1]))
    print(f"\n({time.perf_counter() - t0:.1f} s)")
    if plotting() is not None:
        save(figure(panels), args.out, "outliers_roc.png")


if __name__ == "__main__":
    main()
