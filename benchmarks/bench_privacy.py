"""Benchmark: what differential privacy costs, at epsilon in {0.1, 0.5, 1, 2, 5, inf}.

On the bundled house votes (target ``party``; every vote declared as ``n``/``y``) and
penguins (target ``species``, rows with a missing cell dropped; the numeric columns with
bounds declared from the domain, not read from the data), for each seed: split 70/30
(stratified), fit on the 70% with ``privacy=bayesnb.DP(epsilon, bounds=..., classes=...)``
(Laplace; ``inf`` = no privacy), then

- ``accuracy``: on the 30%;
- synthetic fidelity: ``model.sample(n_train)`` against the 70% with
  :func:`bayesnb.synthetic_report` (the 30% as ``real_test``): mean per-column TVD, mean
  absolute difference of the pairwise Cramér's V, TSTR accuracy (train on synthetic, test
  on real);
- ``diffprivlib GaussianNB`` (penguins' numeric columns, the same bounds and epsilon), when
  diffprivlib imports (0.6.6 does not import with scikit-learn 1.9: its tree module reads
  ``sklearn.tree._tree.DOUBLE``; the column is then left out and the reason printed).

Printed as a markdown table, mean ± sd over the seeds. A third table is the issue's
30,000-row check: 30,000 training and 10,000 test rows drawn from the exact house-votes model
(fitted on all 435 rows; no bundled table has 30,000 rows), accuracy only.

With ``--text``, count data instead (MultinomialNB, the block's budget on one count vector
per row): 20 Newsgroups (its bydate split, 11,314 train / 7,532 test documents, 20 classes)
and SMS spam (5,574 messages, 70/30 stratified split), read from ``../shared/data`` (skipped,
with the reason printed, when absent). Words are hashed (``HashingVectorizer``, 2**14 columns,
no sign, raw counts): the columns are public and no vocabulary is read from the training
text. Every row is scaled down to ``DP(row_length=L)`` tokens, ``L`` declared (``--row-length``,
default 20; see docs/privacy.md). Per epsilon: test
accuracy (mean ± sd over the noise seeds), plus two references: ``inf (no privacy)``, the
ordinary fit on raw counts, and ``inf, rows scaled to L``, the same without noise (the cost
of the row-length bound alone).

Usage::

    python benchmarks/bench_privacy.py [--seeds 5]
    python benchmarks/bench_privacy.py --text [--seeds 3] [--row-length 1]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.model_selection import train_test_split

import bayesnb as bn
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.families._private import scale_rows

EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, math.inf]
PENGUIN_BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
                  "body_mass_g": (2500, 6500)}
DIFFPRIVLIB_MISSING: set = set()
PENGUIN_CATEGORIES = [["Biscoe", "Dream", "Torgersen"], ["female", "male"], [2007, 2008, 2009]]


def votes():
    """House votes: (table, target, model for a DP setting or None)."""
    df = load_house_votes()
    d = df.shape[1] - 1
    return df, "party", lambda dp: bn.CategoricalNB(categories=[["n", "y"]] * d, privacy=dp), None


def penguins():
    """Penguins (complete rows): (table, target, model for a DP setting or None, bounds)."""
    df = load_penguins().dropna().reset_index(drop=True)
    features = {tuple(PENGUIN_BOUNDS): bn.Gaussian(),
                ("island", "sex", "year"): bn.Categorical(categories=PENGUIN_CATEGORIES)}
    return df, "species", lambda dp: bn.NaiveBayes(features, privacy=dp), PENGUIN_BOUNDS


def diffprivlib_accuracy(train, test, target, eps, seed):
    """diffprivlib's GaussianNB on the numeric columns (None when diffprivlib is not installed)."""
    try:
        from diffprivlib.models import GaussianNB
    except ImportError as e:
        DIFFPRIVLIB_MISSING.add(f"{type(e).__name__}: {e}")
        return None
    cols = list(PENGUIN_BOUNDS)
    lo = [PENGUIN_BOUNDS[c][0] for c in cols]
    hi = [PENGUIN_BOUNDS[c][1] for c in cols]
    classes = sorted(train[target].unique())
    if math.isinf(eps):
        from sklearn.naive_bayes import GaussianNB as SkGNB

        m = SkGNB().fit(train[cols].to_numpy(float), train[target])
    else:
        m = GaussianNB(epsilon=eps, bounds=(lo, hi), classes=classes, random_state=seed)
        m.fit(np.clip(train[cols].to_numpy(float), lo, hi), train[target])
    return float((m.predict(test[cols].to_numpy(float)) == test[target]).mean())


def run(dataset, seeds):
    df, target, make, bounds = dataset()
    classes = sorted(df[target].unique())
    rows = []
    for eps in EPSILONS:
        for seed in range(seeds):
            train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
            X, y = train.drop(columns=[target]), train[target]
            dp = None if math.isinf(eps) else bn.DP(eps, bounds=bounds, classes=classes, random_state=1000 + seed)
            model = make(dp).fit(X, y)
            acc = float((model.predict(test.drop(columns=[target])) == test[target]).mean())
            Xs, ys = model.sample(len(train), random_state=seed)
            synth = Xs.assign(**{target: ys})[train.columns]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rep = bn.synthetic_report(train, synth, target, real_test=test, random_state=seed).summary
            row = {"epsilon": eps, "accuracy": acc, "mean TVD": rep["mean_tvd"],
                   "mean abs V diff": rep["mean_abs_cramers_v_diff"], "TSTR acc": rep["tstr"]}
            if bounds is not None:
                row["diffprivlib GaussianNB acc"] = diffprivlib_accuracy(train, test, target, eps, seed)
            rows.append(row)
    return pd.DataFrame(rows)


def large(seeds, n_train=30_000, n_test=10_000):
    """Accuracy on rows simulated from the exact house-votes model, private and not."""
    df, target, make, _ = votes()
    source = make(None).fit(df.drop(columns=[target]), df[target])
    classes = sorted(df[target].unique())
    rows = []
    for seed in range(seeds):
        Xtr, ytr = source.sample(n_train, random_state=seed)
        Xte, yte = source.sample(n_test, random_state=10_000 + seed)
        for eps in EPSILONS:
            dp = None if math.isinf(eps) else bn.DP(eps, classes=classes, random_state=1000 + seed)
            model = make(dp).fit(Xtr, ytr)
            rows.append({"epsilon": eps, "seed": seed, "accuracy": float((model.predict(Xte) == yte).mean())})
    frame = pd.DataFrame(rows)
    exact = frame[np.isinf(frame["epsilon"])].set_index("seed")["accuracy"]
    frame["accuracy - exact (same seed)"] = frame["accuracy"] - frame["seed"].map(exact)
    return frame.drop(columns=["seed"])


DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def newsgroups():
    """20 Newsgroups bydate: (train texts, train labels, test texts, test labels) or a reason it is absent."""
    path = DATA / "20news-bydate.jsonl.gz"
    if not path.exists():
        return f"{path} not found"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    tr = [r for r in recs if r["split"] == "train"]
    te = [r for r in recs if r["split"] == "test"]
    return ([r["text"] for r in tr], np.array([r["label"] for r in tr]),
            [r["text"] for r in te], np.array([r["label"] for r in te]))


def sms_spam():
    """SMS spam, 70/30 stratified split (seed 0), or a reason it is absent."""
    path = DATA / "SMSSpamCollection.tsv"
    if not path.exists():
        return f"{path} not found"
    df = pd.read_csv(path, sep="\t", header=None, names=["label", "text"], quoting=3)
    tr, te = train_test_split(df, test_size=0.3, stratify=df["label"], random_state=0)
    return list(tr["text"]), tr["label"].to_numpy(), list(te["text"]), te["label"].to_numpy()


def text_run(data, seeds, row_length, n_features=2**14):
    """Accuracy of MultinomialNB per epsilon on hashed word counts (see the module docstring)."""
    texts_tr, ytr, texts_te, yte = data
    hv = HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)
    Xtr, Xte = hv.transform(texts_tr), hv.transform(texts_te)
    classes = sorted(set(ytr))
    rows = [{"epsilon": math.inf, "fit": "inf (no privacy)",
             "accuracy": float((bn.MultinomialNB().fit(Xtr, ytr).predict(Xte) == yte).mean())},
            {"epsilon": math.inf, "fit": f"inf, rows scaled to L={row_length:g}",
             "accuracy": float((bn.MultinomialNB().fit(scale_rows(Xtr, row_length), ytr).predict(Xte) == yte).mean())}]
    for eps in EPSILONS[:-1]:
        for seed in range(seeds):
            dp = bn.DP(eps, row_length=row_length, classes=classes, random_state=1000 + seed)
            model = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
            rows.append({"epsilon": eps, "fit": f"{eps:g}", "accuracy": float((model.predict(Xte) == yte).mean())})
    frame = pd.DataFrame(rows)
    exact = rows[0]["accuracy"]
    lines = ["| epsilon | accuracy | accuracy - no privacy |", "|---|---|---|"]
    for fit, g in frame.groupby("fit", sort=False):
        acc = g["accuracy"]
        sd = acc.std(ddof=1) if len(acc) > 1 else 0.0
        lines.append(f"| {fit} | {acc.mean():.3f} ± {sd:.3f} | {acc.mean() - exact:+.3f} |")
    majority = pd.Series(yte).value_counts(normalize=True).iloc[0]
    lines.append(f"\n(majority class of the test set: {majority:.3f}; {Xtr.shape[0]} train / {Xte.shape[0]} test rows, "
                 f"{len(classes)} classes, median row length {np.median(np.asarray(Xtr.sum(axis=1)).ravel()):g} tokens)")
    return "\n".join(lines)


def text_main(seeds, row_length):
    for name, load in (("20 Newsgroups (bydate)", newsgroups), ("SMS spam", sms_spam)):
        t0 = time.perf_counter()
        data = load()
        if isinstance(data, str):
            print(f"\n### {name}: skipped ({data})")
            continue
        out = text_run(data, seeds, row_length)
        print(f"\n### {name}, MultinomialNB, L={row_length:g}: {seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
        print(out)


def table(frame):
    cols = [c for c in frame.columns if c != "epsilon" and frame[c].notna().any()]
    lines = ["| epsilon | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for eps, g in frame.groupby("epsilon", sort=False):
        cells = [f"{g[c].mean():.3f} ± {g[c].std(ddof=1) if len(g) > 1 else 0.0:.3f}" for c in cols]
        lines.append(f"| {'inf (no privacy)' if math.isinf(eps) else f'{eps:g}'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--text", action="store_true", help="count data: 20 Newsgroups and SMS spam")
    parser.add_argument("--row-length", type=float, default=20.0, help="DP(row_length=L) of --text")
    args = parser.parse_args()
    if args.text:
        text_main(args.seeds, args.row_length)
        return
    for name, dataset in (("house votes (435 rows, CategoricalNB)", votes),
                          ("penguins (333 complete rows, Gaussian + Categorical)", penguins)):
        t0 = time.perf_counter()
        frame = run(dataset, args.seeds)
        print(f"\n### {name}: {args.seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
        print(table(frame))
    t0 = time.perf_counter()
    frame = large(args.seeds)
    print(f"\n### 30,000 rows simulated from the house-votes model (10,000 test rows): {args.seeds} seeds, "
          f"{time.perf_counter() - t0:.1f} s\n")
    print(table(frame))
    for why in sorted(DIFFPRIVLIB_MISSING):
        print(f"\n(diffprivlib GaussianNB left out: {why[:160]})")


if __name__ == "__main__":
    main()
