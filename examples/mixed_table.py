"""A mixed-type table: favourite dish, words known, movie, hours of sleep.

The lecture's example of a table whose columns need different families, in one model::

    dish   (categorical)     -> Categorical (Dirichlet prior)
    words  (3 count columns) -> Multinomial (one Dirichlet over the block)
    movie  (categorical)     -> Categorical with the m-estimate (alpha = m p)
    sleep  (hours, real)     -> Gaussian (Normal-Inverse-Gamma prior)

The class is a (made-up) student's study programme. The data are simulated from a
known naive-Bayes model so the fitted posterior can be checked against the truth.

Run: python examples/mixed_table.py [--out DIR] [--quick]
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pandas as pd

from _common import parser, plotting, save
import bayesnb
from bayesnb import Categorical, Gaussian, Multinomial, NaiveBayes


def simulate(n, seed=0):
    """Rows of (dish, words_*, movie, sleep) and a programme label from a known model."""
    rng = np.random.default_rng(seed)
    programmes = np.array(["arts", "cs", "medicine"])
    dishes = np.array(["pasta", "sushi", "tacos", "curry"])
    movies = np.array(["comedy", "documentary", "sci-fi"])
    p_dish = {"arts": [.4, .2, .2, .2], "cs": [.1, .3, .4, .2], "medicine": [.2, .4, .1, .3]}
    p_word = {"arts": [.6, .2, .2], "cs": [.1, .7, .2], "medicine": [.2, .2, .6]}
    p_movie = {"arts": [.5, .4, .1], "cs": [.2, .1, .7], "medicine": [.3, .5, .2]}
    sleep = {"arts": (7.5, 1.0), "cs": (6.0, 1.2), "medicine": (6.5, 0.8)}
    y = rng.choice(programmes, size=n, p=[.3, .4, .3])
    rows = []
    for c in y:
        w = rng.multinomial(rng.poisson(20) + 1, p_word[c])
        rows.append({"dish": rng.choice(dishes, p=p_dish[c]), "words_poetry": w[0], "words_code": w[1],
                     "words_anatomy": w[2], "movie": rng.choice(movies, p=p_movie[c]),
                     "sleep": rng.normal(*sleep[c])})
    df = pd.DataFrame(rows)
    df.loc[rng.random(n) < 0.05, "sleep"] = np.nan  # some missing answers
    df.loc[rng.random(n) < 0.05, "movie"] = None
    return df, y


def main(argv=None):
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    n = 300 if args.quick else 3000
    X, y = simulate(n, seed=0)
    Xte, yte = simulate(1000, seed=1)
    print(X.head().to_string(), "\n")
    model = NaiveBayes(features={
        "dish": Categorical(alpha=1.0),
        ("words_poetry", "words_code", "words_anatomy"): Multinomial(alpha=1.0),
        "movie": Categorical.m_estimate(m=3),
        "sleep": Gaussian(),
    }).fit(X, y)
    for names, fam in model.blocks_:
        print(f"block {fam!r}: {names}")
    print(f"\ntrain rows {n}; test accuracy {model.score(Xte, yte):.3f} "
          f"(missing sleep/movie answers are marginalised)")
    print(f"log evidence log p(X, y) = {model.log_evidence_:.1f}")
    g = model.posterior_.blocks[3]
    print("posterior mean of the sleep hours per programme (truth 7.5 / 6.0 / 6.5):",
          ", ".join(f"{c}: {m:.2f}" for c, m in zip(model.classes_, g.posterior.mu[:, 0])))
    # one row, explained
    row = Xte.iloc[[0]]
    print("\nrow:", {k: (v.item() if hasattr(v, "item") else v) for k, v in row.to_dict("records")[0].items()})
    print("P(programme | row):", ", ".join(f"{c} {p:.3f}" for c, p in zip(model.classes_, model.predict_proba(row)[0])))
    # save / load round trip
    path = os.path.join(tempfile.mkdtemp(), "mixed.bnb")
    model.save(path)
    again = bayesnb.load(path)
    same = np.array_equal(again.predict_proba(Xte), model.predict_proba(Xte))
    print(f"saved to {path} ({os.path.getsize(path)} bytes); loaded model predicts identically: {same}")
    plot = plotting()
    if plot is not None:
        save(plot.class_conditionals(model, ncols=4), args.out, "mixed_table_conditionals.png")


if __name__ == "__main__":
    main()
