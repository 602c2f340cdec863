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

Usage::

    python benchmarks/bench_privacy.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

import bayesnb as bn
from bayesnb.datasets import load_house_votes, load_penguins

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
    args = parser.parse_args()
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
