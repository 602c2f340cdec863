"""Synthetic rows from the posterior predictive (the model is generative).

Fits Naive Bayes to the 1984 House votes, draws synthetic members with
``model.sample`` (one exact posterior draw of the parameters per call, then ancestral
sampling: party, then every vote given the party), and checks them two ways:

- the vote frequencies per party of real and synthetic members;
- "train on synthetic, test on real": a model fitted only to synthetic rows,
  scored on the real ones, next to the model fitted to the real rows.

Run: python examples/synthetic_data.py [--out DIR] [--quick]
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from _common import parser, plotting, save
from bayesnb import CategoricalNB
from bayesnb.datasets import load_house_votes


def main(argv=None):
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy()
    model = CategoricalNB().fit(X, y)
    n = 435 if args.quick else 5000
    Xs, ys = model.sample(n, random_state=0)
    Xs = Xs if hasattr(Xs, "columns") else pd.DataFrame(Xs, columns=X.columns)
    ys = np.asarray(ys)
    print(f"{n} synthetic members; parties: " + ", ".join(f"{c} {int((ys == c).sum())}" for c in np.unique(ys)))
    print(Xs.assign(party=ys).iloc[:5, list(range(5)) + [-1]].to_string(), "\n")
    rows = []
    for c in model.classes_:
        real = (X[y == c] == "y").sum() / X[y == c].notna().sum()
        syn = (Xs[ys == c] == "y").mean()
        rows.append(pd.DataFrame({"party": c, "vote": X.columns, "real P(y)": real.to_numpy(),
                                  "synthetic P(y)": syn.to_numpy()}))
    freq = pd.concat(rows, ignore_index=True)
    diff = (freq["real P(y)"] - freq["synthetic P(y)"]).abs()
    print(f"P('y' vote | party), real vs synthetic: mean |difference| {diff.mean():.3f}, max {diff.max():.3f}")
    print(freq.head(6).round(3).to_string(index=False))
    tstr = CategoricalNB().fit(Xs, ys).score(X, y)
    print(f"\ntrain on synthetic, test on real: accuracy {tstr:.3f} "
          f"(train on real, test on real: {model.score(X, y):.3f})")
    plot = plotting()
    if plot is not None:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(4.2, 4.2))
        for c in model.classes_:
            f = freq[freq.party == c]
            ax.plot(f["real P(y)"], f["synthetic P(y)"], "o", label=c)
        ax.plot([0, 1], [0, 1], "--", color="0.6")
        ax.set_xlabel("real P('y' | party)")
        ax.set_ylabel("synthetic P('y' | party)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        save(fig, args.out, "synthetic_vs_real.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
