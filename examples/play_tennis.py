"""The play-tennis walk-through of the lecture notes, with bayesnb.

Reproduces the lecture's numbers and says where one of them is wrong:

1. alpha -> 0 (maximum likelihood): the scores of <Sunny, Cool, High, Strong> are
   P(Yes) prod P(x_j | Yes) = 0.0053 and P(No) prod P(x_j | No) = 0.0206 -> No.
2. the zero-frequency problem (P(Overcast | No) = 0) and the m-estimate
   (n_c + m p) / (n + m), which is a Dirichlet prior with alpha = m p.
   The lecture's "P(overcast | no) = 1/6 with m = 1, p = 1/3" is arithmetically
   (0 + 1/3) / (5 + 1) = 1/18; 1/6 needs m = 5.
3. the numeric temperature with Gaussian class-conditionals: maximum likelihood
   (n convention) sigmas 2.22 / 6.34, and the reference prior (the lecture's n - 1
   convention) sigmas 2.35 / 7.09, means 21.64 / 23.88.

Run: python examples/play_tennis.py [--out DIR] [--quick]
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from _common import parser, plotting, save
from bayesnb import Categorical, CategoricalNB, GaussianNB, NaiveBayes
from bayesnb.datasets import load_play_tennis, load_temperature


def main(argv=None):
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    df = load_play_tennis()
    X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    print(df.to_string(index=False), "\n")

    # 1. maximum likelihood: alpha=0 and class_alpha=0 are the raw frequencies of the notes
    query = pd.DataFrame([{"Outlook": "Sunny", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"}])
    mle = CategoricalNB(alpha=0.0, class_alpha=0.0).fit(X, y)
    scores = np.exp(mle.predict_joint_log_proba(query))[0]
    print("1. alpha -> 0 (maximum likelihood), query <Sunny, Cool, High, Strong>")
    for c, s in zip(mle.classes_, scores):
        print(f"   P({c}) * prod_j P(x_j | {c}) = {s:.4f}")
    print(f"   -> predict {mle.predict(query)[0]}; normalised P(No | x) = {scores[0] / scores.sum():.3f}")
    assert round(scores[1], 4) == 0.0053 and round(scores[0], 4) == 0.0206

    # 2. zero frequency and the m-estimate
    overcast = pd.DataFrame([{"Outlook": "Overcast", "Temperature": "Cool", "Humidity": "High", "Wind": "Strong"}])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p_no = np.exp(mle.predict_log_proba(overcast))[0, 0]
    print("\n2. the zero-frequency problem: Overcast never occurs with No, so under MLE")
    print(f"   P(No | Overcast, ...) = {p_no:.3f} whatever the other features say")
    for m in (1, 5):
        est = NaiveBayes(features={"Outlook": Categorical.m_estimate(m=m, p=1 / 3),
                                   ("Temperature", "Humidity", "Wind"): Categorical(alpha=0.0)},
                         class_alpha=0.0).fit(X, y)
        b = est.posterior_.blocks[0]  # the Outlook block (first in features)
        cats = [str(v) for v in b.state.categories[0]]
        conc = b.posterior.concentration[0]
        p = conc[0, cats.index("Overcast")] / conc[0].sum()
        print(f"   m-estimate m={m}, p=1/3 (Dirichlet alpha = m p = {m / 3:.3f}): "
              f"P(Overcast | No) = (0 + {m}/3) / (5 + {m}) = {p:.4f} = 1/{1 / p:.0f}")
    print("   The lecture's 'P(overcast|no) = 1/6 with m = 1, p = 1/3' is arithmetically 1/18;")
    print("   1/6 needs m = 5 (or p = 1 with m = 1).")

    # 3. numeric temperature, Gaussian class-conditionals
    t = load_temperature()
    Xt, yt = t[["Temperature"]], t["PlayTennis"]
    print("\n3. Temperature (deg C) with Gaussian class-conditionals")
    for prior, label in ((None, "prior=None (maximum likelihood, divide by n)"),
                         ("reference", "prior='reference' (1/sigma^2 prior: divide by n - 1, the lecture)")):
        g = GaussianNB(prior=prior, class_alpha=0.0).fit(Xt, yt)
        sd = np.sqrt(g.var_[:, 0])
        print(f"   {label}:")
        for k, c in enumerate(g.classes_):
            print(f"      {c}: mean {g.theta_[k, 0]:.2f}, sigma {sd[k]:.2f}")
    ref = GaussianNB(prior="reference", class_alpha=0.0).fit(Xt, yt)
    q = pd.DataFrame({"Temperature": [15.0, 22.0, 29.0]})
    print("   P(Yes | temperature) with the lecture's sigmas:",
          ", ".join(f"{v:.0f}C: {p:.3f}" for v, p in zip(q.Temperature, ref.predict_proba(q)[:, 1])))

    plot = plotting()
    if plot is not None:
        save(plot.class_conditionals(CategoricalNB().fit(X, y), ncols=4), args.out, "play_tennis_conditionals.png")
        save(plot.class_conditionals(ref, ncols=1), args.out, "play_tennis_temperature.png")


if __name__ == "__main__":
    main()
