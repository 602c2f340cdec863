"""Diagnostic (issue 27, not a feature): self-masking odds on a MAR model's predictive for every categorical column.

``Imputer(missingness="auto")`` gives a self-masking node only to categorical columns with at most as many
values as classes (``bayesnb.impute.mnar_config.identified_values``): fitted jointly with the latent
components by EM, the nodes of census's many-valued columns put the missing cells on rare values. This script
measures a two-stage alternative on the benchmark's masks (``bench_impute.mask``): per categorical column
``j``, the predictive ``p_obs(v | x_-j)`` of a TAN fitted on the masked table, and self-masking
probabilities ``rho_v`` of the column's values fitted by maximum likelihood (with ``--prior A``, a
Beta(A rbar, A (1 - rbar)) prior on each, ``rbar`` the column's missing share). Under self-masking
``p(missing | x_-j) = 1 - 1 / sum_v p_obs(v | x_-j) / (1 - rho_v)`` (the observed values carry
``p_obs`` itself), and a missing cell's predictive is ``p_obs(v | x_-j) rho_v / (1 - rho_v)``
normalised. Printed per table and mask, categorical accuracy on the hidden cells of:

- ``mar``: the argmax of ``p_obs`` (the TAN's own fill);
- ``mnar``: the argmax of the reweighted predictive, every column;
- ``test``: the reweighted one only where the likelihood-ratio test against equal ``rho_v`` (one rate per
  column) exceeds BIC's ``(V - 1) / 2 log n``, and (when the table has fully observed columns) the model
  also has a lower BIC than a logistic regression of the column's missingness on them (a categorical
  column one-hot, a numeric one by its standardised value and its square);

- ``lr``: the reweighted one where the likelihood-ratio test against one rate per column alone exceeds BIC's
  penalty (no MAR competitor);
- ``bic``: the reweighted one where the model's BIC is below that of MAR given the other columns, partly observed
  ones included (``bayesnb.impute.mnar_odds.mar_given_columns``, without the label: the rule ``Imputer`` adopted
  in stop 53, there on the chosen configuration's predictive, with a prior and the label among the drivers);

and how many columns the test, ``lr`` and ``bic`` chose. ``oracle`` reweights by the mask's own probabilities
(0.45 for the column's most frequent value, 0.15 for the others; the MNAR mask only).

Run:  python benchmarks/diag_mnar_odds.py [--data-dir DIR --target edibility] [--adult DIR] [--prior 20]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from bench_impute import masked_runs, tables
from scipy.optimize import minimize
from scipy.special import logsumexp
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import OneHotEncoder

from bayesnb import NaiveBayes
from bayesnb.impute.mnar_odds import mar_given_columns


def fit_rho(P, observed, prior=0.0, rbar=0.3):
    """``(rho, loglik, loglik_tied)``: self-masking probabilities per value of predictive ``P`` (n, V),
    ``observed`` (n,) bool; the log-likelihood of the missingness at ``rho`` and at one shared rate."""
    def loglik(t):
        odds = 1 + np.exp(t)  # 1 / (1 - rho) >= 1
        c = P @ odds
        ll = (-np.log(c[observed]).sum() + np.log(np.maximum(c[~observed] - 1, 1e-300)).sum()
              - np.log(c[~observed]).sum())
        rho = 1 - 1 / odds
        if prior:
            ll += ((prior * rbar - 1) * np.log(np.maximum(rho, 1e-300))
                   + (prior * (1 - rbar) - 1) * np.log1p(-rho)).sum()
        return ll

    V = P.shape[1]
    fits = [minimize(lambda t: -loglik(t), t0, method="L-BFGS-B", bounds=[(-12, 12)] * V)
            for t0 in (np.zeros(V), np.full(V, -1.0))]
    best = min(fits, key=lambda r: r.fun)
    tied = minimize(lambda t: -loglik(np.full(V, t[0])), [0.0], method="L-BFGS-B", bounds=[(-12, 12)])
    return 1 - 1 / (1 + np.exp(best.x)), -best.fun, -tied.fun


def _observed_mar_bic(Xm, column, missing):
    """BIC of a logistic regression of ``missing`` on the one-hot fully observed columns (None: there are none)."""
    full = [c for c in Xm.columns if c != column and Xm[c].notna().all()]
    if not full:
        return None
    parts = [OneHotEncoder().fit_transform(Xm[[c]].astype(str)).toarray() if not pd.api.types.is_numeric_dtype(Xm[c])
             else np.column_stack([z := (Xm[c].to_numpy(float) - Xm[c].mean()) / (Xm[c].std() or 1.0), z ** 2])
             for c in full]  # a numeric column: its standardised value and square
    Z = np.hstack(parts)
    p = np.clip(LogisticRegression(C=1e4, max_iter=2000).fit(Z, missing).predict_proba(Z)[:, 1], 1e-12, 1 - 1e-12)
    return -2 * np.where(missing, np.log(p), np.log1p(-p)).sum() + Z.shape[1] * np.log(len(missing))


def run(tabs, names, masks, prior=0.0):
    """One row per table and mask: accuracies of ``mar``, ``mnar``, ``test``, ``oracle`` and the columns tested in."""
    rows = []
    for name, X, y, cats, _, kind, _, M, Xm in masked_runs(tabs, names, masks, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = NaiveBayes(structure="tan").fit(Xm, y)
        hits = {"mar": [], "mnar": [], "test": [], "lr": [], "bic": [], "oracle": []}
        chosen, n_lr, n_bic, n = 0, 0, 0, len(X)
        for j, c in enumerate(X.columns):
            if c not in cats or not M[:, j].any():
                continue
            values = np.array(sorted(Xm[c].dropna().unique()), dtype=object)
            S = np.column_stack([model.score_samples(Xm.assign(**{c: v})) for v in values])
            P = np.exp(S - logsumexp(S, axis=1, keepdims=True))
            observed = Xm[c].notna().to_numpy()
            rho, ll, ll_tied = fit_rho(P, observed, prior, float((~observed).mean()))
            guard = _observed_mar_bic(Xm, c, ~observed)
            lr = ll - ll_tied > (len(values) - 1) / 2 * np.log(n)
            use = lr and (guard is None or -2 * ll + len(values) * np.log(n) < guard)
            chosen += bool(use)
            ll_mar, k_mar, _ = mar_given_columns(Xm, c, ~observed)
            bic = -ll + len(values) / 2 * np.log(n) < -ll_mar + (k_mar + 1) / 2 * np.log(n)
            n_lr, n_bic = n_lr + bool(lr), n_bic + bool(bic)
            hidden = M[:, j]
            truth = X[c].to_numpy(dtype=object)[hidden]
            mode = X[c].mode().iloc[0]
            fills = {"mar": P[hidden], "mnar": P[hidden] * rho / (1 - rho),
                     "oracle": P[hidden] * np.where(values == mode, 0.45, 0.15)}
            fills["test"] = fills["mnar"] if use else fills["mar"]
            fills["lr"] = fills["mnar"] if lr else fills["mar"]
            fills["bic"] = fills["mnar"] if bic else fills["mar"]
            for key, Q in fills.items():
                hits[key] += list(values[np.argmax(Q, axis=1)] == truth)
        row = {"table": name, "mask": kind, **{k: round(float(np.mean(v)), 4) for k, v in hits.items()},
               "columns tested in": chosen, "lr in": n_lr, "bic in": n_bic}
        if kind != "MNAR":
            row["oracle"] = None
        rows.append(row)
        print(row, flush=True)
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--target", default=None)
    parser.add_argument("--adult", default=None, help="folder with adult.data (5,000 rows)")
    parser.add_argument("--tables", nargs="+", default=None)
    parser.add_argument("--masks", nargs="+", default=["MCAR 30%", "MAR", "MNAR"])
    parser.add_argument("--prior", type=float, default=0.0, help="Beta prior strength A on each rho (0: none)")
    args = parser.parse_args(argv)
    tabs = tables(True, adult=args.adult, data_dir=args.data_dir, target=args.target)
    names = args.tables or list(tabs)
    print(run(tabs, names, args.masks, args.prior).to_string(index=False))


if __name__ == "__main__":
    main()
