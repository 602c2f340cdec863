"""Semi-supervised naive Bayes on 20 Newsgroups (Nigam, McCallum, Thrun & Mitchell 2000).

A few labelled documents per class plus the rest of the training set unlabelled:
``MultinomialNB().fit(X, y)`` with the missing labels marked ``None`` runs EM with the
closed-form conjugate M-step. Reported: test accuracy with the labelled documents only
(plain fit) vs with the unlabelled ones (EM, ``unlabeled_weight`` 1 and 0.1), and EM's
iterations and objective (which never decreases).

Run:  python examples/semisupervised_20news.py [--small] [--data DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from bayesnb import MultinomialNB

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load(path):
    tr_x, tr_y, te_x, te_y = [], [], [], []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            (tr_x if r["split"] == "train" else te_x).append(r["text"])
            (tr_y if r["split"] == "train" else te_y).append(r["label"])
    return tr_x, np.array(tr_y, dtype=object), te_x, np.array(te_y, dtype=object)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="one seed, fewer settings, smaller vocabulary")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    path = args.data / "20news-bydate.jsonl.gz"
    if not path.exists():
        print(f"{path} not found; skipped.")
        return
    t0 = time.perf_counter()
    tr_x, tr_y, te_x, te_y = load(path)
    vec = CountVectorizer(max_features=10000 if args.small else 20000, stop_words="english", min_df=2)
    Xtr = vec.fit_transform(tr_x).astype(np.float64)
    Xte = vec.transform(te_x).astype(np.float64)
    print(f"20 Newsgroups: {Xtr.shape[0]} train / {Xte.shape[0]} test documents, {Xtr.shape[1]} words")
    per_class = [3, 10] if args.small else [1, 3, 10, 30]
    seeds = [0] if args.small else [0, 1, 2]
    classes = np.unique(tr_y)
    print(f"{'labels/class':>12s} {'labelled only':>14s} {'+ unlabelled (w=1)':>19s} {'+ unlabelled (w=0.1)':>21s}"
          f" {'EM iters':>9s}")
    for m in per_class:
        accs = {"sup": [], "em1": [], "em01": []}
        iters = []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            lab = np.concatenate([rng.choice(np.flatnonzero(tr_y == c), m, replace=False) for c in classes])
            y = np.full(len(tr_y), None, dtype=object)
            y[lab] = tr_y[lab]
            sup = MultinomialNB(alpha=0.1).fit(Xtr[lab], tr_y[lab])
            accs["sup"].append(np.mean(sup.predict(Xte) == te_y))
            for key, w in [("em1", 1.0), ("em01", 0.1)]:
                em = MultinomialNB(alpha=0.1).fit_semi_supervised(Xtr, y, unlabeled_weight=w, max_iter=30, tol=1e-5)
                h = np.asarray(em.em_objective_)
                assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])), "EM objective decreased"
                accs[key].append(np.mean(em.predict(Xte) == te_y))
                iters.append(em.n_iter_)
        f = {k: f"{np.mean(v):.3f}+-{np.std(v):.3f}" for k, v in accs.items()}
        print(f"{m:>12d} {f['sup']:>14s} {f['em1']:>19s} {f['em01']:>21s} {np.mean(iters):>9.1f}")
    full = MultinomialNB(alpha=0.1).fit(Xtr, tr_y)
    print(f"all {Xtr.shape[0]} labels: {np.mean(full.predict(Xte) == te_y):.3f}")
    print(f"({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
