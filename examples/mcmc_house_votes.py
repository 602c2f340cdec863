"""Exact conjugate posterior vs NUTS on the 1984 House votes, with an ArviZ plot.

Naive Bayes with Dirichlet priors has a closed-form posterior; the same plate model
run through NumPyro's NUTS must give the same answer. This script

1. fits ``CategoricalNB`` (Laplace smoothing = Dirichlet(1, 1) priors) to the votes,
2. draws the exact posterior (``sample_posterior``) and runs NUTS (``run_mcmc``),
3. prints ``bayesnb.compare_posteriors``' table summary and verdict,
4. shows the uncertainty of p(republican | votes) for a few members and the
   log-odds weights of the votes with 94% credible intervals,
5. saves a forest plot (exact vs NUTS, via ``arviz_plots``) to ``--out``.

Usage::

    python examples/mcmc_house_votes.py [--out ./bayesnb-report/] [--quick] [--num-samples 2000]

``--quick`` runs NUTS with 300 warmup and 1500 kept draws instead of 500 and 2000
(explicit ``--num-warmup`` / ``--num-samples`` win). Most of the run time is JAX's one-off
compilation of the sampler, so this saves little. Short single-chain runs often show
r-hat above 1.01 on Monte-Carlo noise alone: ``compare_posteriors`` warns, but its verdict
is the calibrated mean and sd checks (keep ESS above ~300 for them).
"""

from __future__ import annotations

import argparse
import os


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="./bayesnb-report/", help="directory for the PNG (created)")
    ap.add_argument("--quick", action="store_true", help="fewer NUTS draws (300 warmup, 1500 kept)")
    ap.add_argument("--num-warmup", type=int, default=None, help="NUTS warmup draws (default 500; --quick 300)")
    ap.add_argument("--num-samples", type=int, default=None, help="NUTS kept draws (default 2000; --quick 1500)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.num_warmup is None:
        args.num_warmup = 300 if args.quick else 500
    if args.num_samples is None:
        args.num_samples = 1500 if args.quick else 2000

    import matplotlib

    matplotlib.use("Agg")
    import arviz as az
    import matplotlib.pyplot as plt
    import numpy as np

    from bayesnb import CategoricalNB, compare_posteriors
    from bayesnb.datasets import load_house_votes
    from bayesnb.inference.draws import credible_interval

    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"]
    clf = CategoricalNB(alpha=1.0).fit(X, y)

    exact = clf.sample_posterior(n_draws=20000, random_state=args.seed)
    mcmc = clf.run_mcmc(X, y, num_warmup=args.num_warmup, num_samples=args.num_samples,
                        random_state=args.seed + 1)
    print(f"NUTS ({args.num_warmup} warmup + {args.num_samples} draws): "
          f"compile {mcmc.attrs['compile_seconds']:.1f} s, sampling {mcmc.attrs['sampling_seconds']:.2f} s, "
          f"exact draws: {exact.attrs['sampling_seconds'] * 1000:.1f} ms for 20000")
    table = compare_posteriors(exact, mcmc)  # prints the one-line verdict
    cols = ["element", "exact_mean", "mcmc_mean", "exact_sd", "mcmc_sd", "z", "ess_bulk", "r_hat"]
    print(table.reindex(table["z"].abs().sort_values(ascending=False).index)[cols].head(5).round(4).to_string(index=False))

    # p(republican | votes): a credible interval per member
    k = list(clf.classes_).index("republican")
    p_all = clf.predict_proba(X)[:, k]
    pick = np.argsort(np.abs(p_all - 0.5))[:4]  # the members the model is least sure about
    rows = X.iloc[pick]
    lo, hi = credible_interval(clf.predict_proba_draws(rows, n_draws=2000, random_state=args.seed), ci=0.94)
    p = clf.predict_proba(rows)
    print("\np(republican | votes) for the least certain members: plug-in and 94% interval over draws:")
    for i, (idx, party) in enumerate(zip(rows.index, y.iloc[pick])):
        print(f"  member {idx:3d} ({party:10s}): {p[i, k]:.4f}  [{lo[i, k]:.4f}, {hi[i, k]:.4f}]")

    # NB as a linear classifier: log-odds weight of each vote value
    w = clf.coef_[0]
    wlo, whi = credible_interval(clf.coef_draws(4000, random_state=args.seed)[0], ci=0.94)
    order = np.argsort(-np.abs(w))[:6]
    print("\nlargest log-odds weights (republican vs democrat), 94% intervals:")
    for j in order:
        print(f"  {clf.coef_names_[j]:45s} {w[j]:+.2f}  [{wlo[j]:+.2f}, {whi[j]:+.2f}]")

    # ArviZ forest plot: p(vote = y | republican) per bill, exact and NUTS side by side
    os.makedirs(args.out, exist_ok=True)
    exact_plot = clf.sample_posterior(n_draws=args.num_samples, random_state=args.seed + 2)  # same size as NUTS
    pc = az.plot_forest({"exact": exact_plot, "NUTS": mcmc}, var_names=["theta_categorical"],
                        coords={"category": "y", "class": "republican"}, combined=True,
                        backend="matplotlib", aes={"color": ["model"]})
    pc.add_legend("model")
    path = os.path.join(args.out, "house_votes_exact_vs_nuts.png")
    pc.savefig(path, dpi=100)
    plt.close("all")
    print(f"\nsaved {path}")
    return path


if __name__ == "__main__":
    main()
