"""Hierarchical smoothing of Histogram nodes under k-DB (issue 25): what it changes.

Run the same command on two checkouts (``PYTHONPATH`` before / after) and compare:

- penguins (bundled), scikit-learn's wine and breast cancer: 5-fold stratified CV (shuffled,
  ``random_state=0``) log loss and accuracy of ``NaiveBayes(structure="kdb")`` (alpha unset:
  k-DB's hierarchical default), mean +- standard error over the folds, and how many Histogram
  nodes have a feature parent in the model fitted on all rows;
- with ``--census DIR`` (UCI ``adult.data``, ``_census.py``): ``NaiveBayes(structure="kdb")``
  fitted on every row of ``adult.data`` (target ``income``), 20,000 rows sampled
  (``random_state=0``); for ``hours-per-week``: its parents, the share of rows at exactly 40
  hours (real and synthetic) and the column shape (1 - KS statistic); the mean column shape
  over all columns (1 - KS for numeric, 1 - total variation for categorical, a missing cell a
  category of its own);
- with ``--census DIR --synthesizer`` also issue 26's setting: ``Synthesizer(target="income",
  latent=None, random_state=0)`` fitted on the census training rows of ``bench_synthesis.py``
  (a stratified holdout of ``adult.data`` with TabDiff's test share, seed 0, a missing
  categorical cell the category ``?``), as many rows sampled (``random_state=0``), the same figures.

Run:  python benchmarks/bench_hier_histogram.py [--census DIR [--synthesizer]] [--no-cv]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold

import bayesnb
from bayesnb.datasets import load_penguins

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _census import COLUMNS, NUMERIC, TARGET, load_adult_train  # noqa: E402


def _tables():
    from sklearn.datasets import load_breast_cancer, load_wine

    d = load_penguins()
    yield "penguins", d.drop(columns="species"), d["species"].to_numpy()
    for name, loader in (("wine", load_wine), ("breast cancer", load_breast_cancer)):
        b = loader(as_frame=True)
        yield name, b.data, b.target.to_numpy()


def _histogram_nodes_with_parents(model):
    m = model._mixed
    return sum(1 for j, nd in enumerate(m.nodes) if type(nd.family).__name__ == "Histogram" and m.parents[j]), \
        sum(1 for nd in m.nodes if type(nd.family).__name__ == "Histogram")


def cv_table(name, X, y, folds=5):
    """Mean and standard error of the folds' log loss and accuracy."""
    ll, acc = [], []
    for tr, te in StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y):
        m = bayesnb.NaiveBayes(structure="kdb").fit(X.iloc[tr], y[tr])
        p = m.predict_proba(X.iloc[te])
        ll.append(log_loss(y[te], p, labels=m.classes_))
        acc.append(accuracy_score(y[te], m.classes_[p.argmax(1)]))
    full = bayesnb.NaiveBayes(structure="kdb").fit(X, y)
    hp, hn = _histogram_nodes_with_parents(full)
    se = lambda v: np.std(v, ddof=1) / np.sqrt(len(v))  # noqa: E731
    print(f"| {name} | {np.mean(ll):.4f} ± {se(ll):.4f} | {np.mean(acc):.4f} ± {se(acc):.4f} | {hp} of {hn} |",
          flush=True)


def _shape(real, synth, numeric):
    if numeric:
        a, b = real.dropna().to_numpy(float), pd.to_numeric(synth, errors="coerce").dropna().to_numpy(float)
        return 1.0 - ks_2samp(a, b).statistic
    p = real.astype(object).where(real.notna(), "<missing>").value_counts(normalize=True)
    q = synth.astype(object).where(synth.notna(), "<missing>").value_counts(normalize=True)
    return 1.0 - 0.5 * p.subtract(q, fill_value=0).abs().sum()


def census(folder, n=20_000):
    train = load_adult_train(folder)
    X, y = train.drop(columns=TARGET), train[TARGET].to_numpy()
    t = time.perf_counter()
    m = bayesnb.NaiveBayes(structure="kdb").fit(X, y)
    fit_s = time.perf_counter() - t
    Xs, ys = m.sample(n, random_state=0)
    Xs = pd.DataFrame(Xs, columns=X.columns)
    j = m._node_names(m._mixed.nodes).index("hours-per-week")
    nd, prior = m._mixed.nodes[j], m._mixed.priors[j].concentration[0]
    print(f"hours-per-week: family {nd.family!r}, parents {m.structure_['hours-per-week']}, "
          f"contexts {prior.shape[0]}, prior pseudo-counts per context: median {np.median(prior.sum(1)):.1f}")
    _report(X, Xs, y, ys)
    print(f"fit {fit_s:.1f} s")


def _report(real, synth, y_real, y_synth):
    h = "hours-per-week"
    real40 = float((real[h] == 40).mean())
    syn40 = float((pd.to_numeric(synth[h]) == 40).mean())
    print(f"share at 40 hours: real {real40:.4f}, sampled {syn40:.4f}")
    shapes = {c: _shape(real[c], synth[c], c in NUMERIC) for c in COLUMNS if c != TARGET}
    shapes[TARGET] = _shape(pd.Series(y_real), pd.Series(y_synth), False)
    print(f"hours-per-week shape (1 - KS): {shapes[h]:.4f}")
    print(f"mean column shape ({len(shapes)} columns): {np.mean(list(shapes.values())):.5f}; "
          f"numeric: {', '.join(f'{c} {shapes[c]:.4f}' for c in NUMERIC)}")


def synthesizer_census(folder):
    """Issue 26's setting: the Synthesizer (latent=None) on bench_synthesis.py's census training rows."""
    from bench_synthesis import census_tables

    train, _, note = census_tables(str(Path(folder) / "adult.data"), None, 0, False)
    t = time.process_time()
    s = bayesnb.Synthesizer(target=TARGET, random_state=0, verbose=False, latent=None).fit(train)
    print(f"Synthesizer: {note}; chose {s.chosen_}; fit {time.process_time() - t:.1f} CPU s")
    syn = s.sample(len(train), random_state=0)
    _report(train, syn, train[TARGET], syn[TARGET])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--census", default=None, help="folder with UCI adult.data")
    ap.add_argument("--no-cv", action="store_true", help="skip the CV tables")
    ap.add_argument("--synthesizer", action="store_true", help="with --census: also the Synthesizer (issue 26)")
    args = ap.parse_args(argv)
    print(f"bayesnb from {Path(bayesnb.__file__).parent}")
    if not args.no_cv:
        print("| table | log loss | accuracy | Histogram nodes with parents |\n|---|---|---|---|")
        for name, X, y in _tables():
            cv_table(name, X, y)
    if args.census:
        census(args.census)
        if args.synthesizer:
            synthesizer_census(args.census)


if __name__ == "__main__":
    main()
