"""Semi-supervised naive Bayes on 20 Newsgroups (Nigam, McCallum, Thrun & Mitchell 2000).

A few labelled documents per class plus the rest of the training set unlabelled:
``MultinomialNB().fit(X, y)`` with the missing labels marked ``None`` runs EM with the
closed-form conjugate M-step. Reported: test accuracy with the labelled documents only
(plain fit) vs with the unlabelled ones (EM, ``unlabeled_weight`` 1 and 0.1), and EM's
iterations and objective (which never decreases).

Prints the table and saves ``semisupervised_20news.png`` (test accuracy vs labelled
documents per class, with and without the unlabelled rows) into ``--out``.

Run:  python examples/semisupervised_20news.py [--out DIR] [--quick] [--data DIR]
      (``--quick``, alias ``--small``: one seed, 3 and 10 labels per class, a 10000-word
      vocabulary, instead of 3 seeds, 1/3/10/30 labels and 20000 words)
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from _common import parser, plotting, save
from bayesnb import MultinomialNB
from bayesnb.datasets import read_20newsgroups

DATA = Path(os.environ.get("BAYESNB_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def load(path):
    return read_20newsgroups(path)


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding 20news-bydate.jsonl.gz")
    args = ap.parse_args(argv)
    path = args.data / "20news-bydate.jsonl.gz"
    if not path.exists():
        print(f"{path} not found; skipped (pass --data DIR, the folder holding 20news-bydate.jsonl.gz).")
        return
    t0 = time.perf_counter()
    tr_x, tr_y, te_x, te_y = load(path)
    vec = CountVectorizer(max_features=10000 if args.quick else 20000, stop_words="english", min_df=2)
    Xtr = vec.fit_transform(tr_x).astype(np.float64)
    Xte = vec.transform(te_x).astype(np.float64)
    print(f"20 Newsgroups: {Xtr.shape[0]} train / {Xte.shape[0]} test documents, {Xtr.shape[1]} words")
    per_class = [3, 10] if args.quick else [1, 3, 10, 30]
    seeds = [0] if args.quick else [0, 1, 2]
    classes = np.unique(tr_y)
    print(f"{'labels/class':>12s} {'labelled only':>14s} {'+ unlabelled (w=1)':>19s} {'+ unlabelled (w=0.1)':>21s}"
          f" {'EM iters':>9s}")
    curves = {}  # labels per class -> {key: accuracies over seeds}
    for m in per_class:
        accs = curves[m] = {"sup": [], "em1": [], "em01": []}
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
    acc_full = np.mean(full.predict(Xte) == te_y)
    print(f"all {Xtr.shape[0]} labels: {acc_full:.3f}")
    print(f"({time.perf_counter() - t0:.1f} s)")
    if plotting() is not None:
        save(figure(curves, acc_full, Xtr.shape[0], len(seeds)), args.out, "semisupervised_20news.png")


def figure(curves, acc_full, n_train, n_seeds):
    """Test accuracy vs labelled documents per class: labelled only vs + unlabelled (EM)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per_class = list(curves)
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label, style in [("sup", "labelled only", "o--"),
                              ("em1", "+ unlabelled, EM (weight 1)", "s-"),
                              ("em01", "+ unlabelled, EM (weight 0.1)", "^-")]:
        ax.errorbar(per_class, [np.mean(curves[m][key]) for m in per_class],
                    yerr=[np.std(curves[m][key]) for m in per_class], fmt=style, capsize=3, label=label)
    ax.axhline(acc_full, color="0.5", lw=0.8, ls=":", label=f"all {n_train} labels")
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(per_class)
    ax.set_xticklabels([str(m) for m in per_class])
    ax.set_ylim(0, 1)
    ax.set_xlabel("labelled documents per class")
    ax.set_ylabel("test accuracy")
    ax.set_title(f"20 Newsgroups, semi-supervised MultinomialNB ({n_seeds} seed(s))", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    main()
