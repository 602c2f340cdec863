"""Benchmark: the latent-class components' prior, ``component_prior="class"`` against ``"hierarchical"``.

Held-out ``log p(x, y)`` per row (missing cells marginalised, the missing indicators scored) of
``NaiveBayes().fit_latent_class(..., n_components=C, component_prior=...)`` on the table the
``Synthesizer`` models (its missing-indicator columns added, ``Synthesizer.model_table``):

- house votes and penguins: fitted on 70%, scored on the other 30%, stratified, mean over the
  splits of ``--seeds`` seeds;
- census (``--census PATH`` to ``adult.data``): fitted on 5,000 stratified rows, scored on 3,000
  other rows, per seed.

Also the largest per-column error of the model's own missing rate (``sum_s w_s p(missing | s)``,
posterior means, on all rows of the bundled tables).

Usage::

    python benchmarks/bench_latent_prior.py [--seeds 5] [--census adult.data]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from bayesnb import NaiveBayes, Synthesizer
from bayesnb.synth.search import holdout_rows
from bayesnb.datasets import load_house_votes, load_penguins

PRIORS = ("class", "hierarchical")


def model_table(df, target):
    """The Synthesizer's table of ``df`` (missing indicators added) and its forbidden edges."""
    s = Synthesizer(target=target, structure="naive", latent=None, random_state=0).fit(df)
    return s, getattr(s, "_forbidden", None)


def heldout(train, test, target, C, seed):
    """``{prior: (mean held-out log p(x, y), fit seconds)}``."""
    s, forbidden = model_table(train, target)
    (X, y), (Xte, yte) = s.model_table(train), s.model_table(test)
    base = NaiveBayes(forbidden_edges=forbidden).fit(X, y)
    codes = pd.Index(base.classes_).get_indexer(yte)
    out = {}
    for prior in PRIORS:
        t0 = time.perf_counter()
        fit = base.fit_latent_class(X, y, n_components=C, random_state=seed, component_prior=prior)
        out[prior] = (float(holdout_rows(base, Xte, codes, latent=fit).mean()), time.perf_counter() - t0)
    return out


def missing_rate_error(df, target, C):
    """``{prior: largest |model's missing rate - data's|}`` of the latent model fitted on all of ``df``."""
    s, forbidden = model_table(df, target)
    X, y = s.model_table(df)
    ind = [j for j, c in enumerate(X.columns) if c in set(s.missing_indicators_.values())]
    base = NaiveBayes(forbidden_edges=forbidden).fit(X, y)
    out = {}
    for prior in PRIORS:
        fit = base.fit_latent_class(X, y, n_components=C, random_state=0, component_prior=prior)
        w = np.exp(fit.posterior.class_log_prior)
        errs = []
        for b in fit.posterior.blocks:
            for k, j in enumerate(b.columns):
                if j in ind:
                    a = b.posterior.concentration[k]
                    true = list(b.state.categories[k]).index(True)
                    errs.append(abs(w @ (a[:, true] / a.sum(1)) - X.iloc[:, j].mean()))
        out[prior] = max(errs)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5, help="splits of the bundled tables (default 5)")
    p.add_argument("--census", default=None, help="path to adult.data (census rows; skipped without it)")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| table | C | split | held out, class | held out, hierarchical | difference | fit s (class / hier.) |")
    print("|---|---|---|---|---|---|---|")
    for name, df, target, counts in (("house votes", load_house_votes(), "party", (6, 8)),
                                     ("penguins", load_penguins(), "species", (2, 4))):
        for C in counts:
            runs = []
            for seed in range(args.seeds):
                tr, te = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
                runs.append(heldout(tr, te, target, C, seed))
            a, b = (np.mean([r[q][0] for r in runs]) for q in PRIORS)
            wins = sum(r["hierarchical"][0] > r["class"][0] for r in runs)
            secs = " / ".join(f"{np.mean([r[q][1] for r in runs]):.1f}" for q in PRIORS)
            print(f"| {name} | {C} | 70/30, {args.seeds} seeds (hier. higher on {wins}) | {a:.3f} | {b:.3f} | "
                  f"{b - a:+.3f} | {secs} |", flush=True)
    if args.census:
        import sys
        from pathlib import Path
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_synthesis import TARGET, _read
        full = _read(args.census)
        for seed in range(min(args.seeds, 2)):
            tr, rest = train_test_split(full, train_size=5000, stratify=full[TARGET], random_state=seed)
            te = rest.sample(3000, random_state=seed)
            for C in (8, 16):
                r = heldout(tr, te, TARGET, C, seed)
                print(f"| census | {C} | 5,000 / 3,000, seed {seed} | {r['class'][0]:.3f} | "
                      f"{r['hierarchical'][0]:.3f} | {r['hierarchical'][0] - r['class'][0]:+.3f} | "
                      f"{r['class'][1]:.1f} / {r['hierarchical'][1]:.1f} |", flush=True)
    print()
    print("| table | C | model's missing-rate error, class | hierarchical |")
    print("|---|---|---|---|")
    for name, df, target, C in (("house votes", load_house_votes(), "party", 6),
                                ("penguins", load_penguins(), "species", 4)):
        e = missing_rate_error(df, target, C)
        print(f"| {name} | {C} | {e['class']:.4f} | {e['hierarchical']:.4f} |", flush=True)


if __name__ == "__main__":
    main()
