"""20 Newsgroups text classification: multinomial vs Bernoulli vs scikit-learn vs logistic regression.

Reads ``20news-bydate.jsonl.gz`` (the "bydate" train/test split) from ``--data``
(default: ``../shared/data`` beside the repository), builds word counts with
scikit-learn's CountVectorizer, and reports test accuracy and fit time of

- bayesnb MultinomialNB (alpha=0.01 and alpha="auto", the evidence-maximising value)
- bayesnb BernoulliNB
- scikit-learn MultinomialNB at the same alpha (the posterior mean is the same model)
- logistic regression trained by SGD on the log loss (the discriminative counterpart)

Run: python examples/text_20news.py [--data DIR] [--out DIR] [--quick]
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

from _common import parser, plotting, save
from bayesnb.datasets import read_20newsgroups

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "data")


def load(path, max_docs=None):
    """(train texts, train labels, test texts, test labels) from the JSON-lines file."""
    tr_x, tr_y, te_x, te_y = read_20newsgroups(path)
    tr_y, te_y = list(tr_y), list(te_y)
    if max_docs:
        rng = np.random.default_rng(0)
        i = rng.permutation(len(tr_x))[:max_docs]
        j = rng.permutation(len(te_x))[: max_docs // 2]
        tr_x, tr_y = [tr_x[k] for k in i], [tr_y[k] for k in i]
        te_x, te_y = [te_x[k] for k in j], [te_y[k] for k in j]
    return tr_x, np.array(tr_y), te_x, np.array(te_y)


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--data", default=os.environ.get("BAYESNB_SHARED_DATA", DEFAULT_DATA),
                   help="folder holding 20news-bydate.jsonl.gz")
    args = p.parse_args(argv)
    path = os.path.join(args.data, "20news-bydate.jsonl.gz")
    if not os.path.exists(path):
        print(f"{path} not found: pass --data DIR (the folder with 20news-bydate.jsonl.gz)", file=sys.stderr)
        return 2
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import SGDClassifier
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

    from bayesnb import BernoulliNB, MultinomialNB

    tr_x, tr_y, te_x, te_y = load(path, max_docs=2000 if args.quick else None)
    vec = CountVectorizer(min_df=2 if args.quick else 1)
    Xtr = vec.fit_transform(tr_x)
    Xte = vec.transform(te_x)
    print(f"20 Newsgroups: {Xtr.shape[0]} train / {Xte.shape[0]} test documents, {Xtr.shape[1]} words, "
          f"{len(np.unique(tr_y))} groups")
    models = {
        "bayesnb MultinomialNB alpha=0.01": MultinomialNB(alpha=0.01),
        "bayesnb MultinomialNB alpha=auto": MultinomialNB(alpha="auto"),
        "sklearn MultinomialNB alpha=0.01": SkMultinomialNB(alpha=0.01),
        "bayesnb BernoulliNB alpha=0.01": BernoulliNB(alpha=0.01),
        "logistic regression (SGD, log loss)": SGDClassifier(loss="log_loss", alpha=1e-5, max_iter=20 if args.quick else 50,
                                                             tol=None, random_state=0),
    }
    results = []
    for name, m in models.items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.fit(Xtr, tr_y)
        fit_s = time.perf_counter() - t0
        acc = float(np.mean(m.predict(Xte) == te_y))
        extra = f" (alpha_ = {m.alpha_:.4g})" if name.endswith("auto") else ""
        results.append((name, acc, fit_s))
        print(f"  {name:<36} accuracy {acc:.4f}   fit {fit_s * 1000:8.0f} ms{extra}")
    a = models["bayesnb MultinomialNB alpha=0.01"].predict_proba(Xte)
    b = models["sklearn MultinomialNB alpha=0.01"].predict_proba(Xte)
    print(f"bayesnb vs scikit-learn MultinomialNB, same alpha: max |P difference| = {np.abs(a - b).max():.2e} "
          "(sklearn's class prior is the MLE; bayesnb's default class_alpha=1 smooths it)")
    plot = plotting()
    if plot is not None:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 2.8))
        ax.barh([r[0] for r in results], [r[1] for r in results])
        for i, r in enumerate(results):
            ax.text(r[1], i, f" {r[1]:.3f} ({r[2] * 1000:.0f} ms)", va="center", fontsize=8)
        ax.set_xlim(0, 1.15)
        ax.set_xlabel("test accuracy (fit time)")
        ax.invert_yaxis()
        fig.tight_layout()
        save(fig, args.out, "text_20news.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
