"""Can the data tell self-masking MNAR from MCAR/MAR?  A likelihood-ratio check of the selection model (issue 27).

For each table, mask and seed (``bench_impute.py``'s masks), fits ``impute_mnar``'s selection model (naive Bayes
under missingness nodes, the label as the class) and reports ``2 * (objective at convergence - objective of the
flat selection)``, against the chi-square 0.99 quantile with one degree of freedom per free selection
probability, beside the accuracy / NRMSE of ``impute_table(label_given=True)`` and ``impute_mnar(label_given=True)``.

    .venv/bin/python benchmarks/diag_mnar_test.py --tables "house votes" penguins --masks MNAR "MCAR 30%" MAR --seeds 2
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from bench_impute import masked_runs, score, tables
from scipy.stats import chi2

from bayesnb import impute_mnar, impute_table
from bayesnb.generative.mnar import fit_selection
from bayesnb.inference.em import allowed_states
from bayesnb.impute.selfmasking import _fit


def selection_fits(Xm, y, rng):
    """impute_mnar's fitted selection model and the flat one (no value effect) on the same rows:
    ``(model, encoded, fit, codes, flat)`` (``rng``: a Generator, used by the fit)."""
    model, encoded, fit, codes, _ = _fit(Xm, y, "diag", estimator=None, n_bins=5, alpha=1.0, tol=1e-6,
                                         max_iter=200, by_class=False, n_components=1, rng=rng)
    allowed = allowed_states(fit.group, codes)
    flat = fit_selection(model.posterior_, encoded, fit.columns, fit.group, allowed, np.ones(Xm.shape[0]),
                         (model.class_alpha, model.fit_prior, model.class_prior), max_iter=0, starts=("flat",))
    return model, encoded, fit, codes, flat


def lr_statistic(Xm, y, seed):
    """``(2 * log-ratio, degrees of freedom)`` of the fitted selection against the flat one."""
    model, encoded, fit, codes, flat = selection_fits(Xm, y, np.random.default_rng(seed))
    df = sum(len(sc.edges) for sc in fit.columns)
    return 2.0 * (fit.em_objective[-1] - flat.em_objective[0]), df


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", nargs="+", default=["house votes"])
    ap.add_argument("--masks", nargs="+", default=["MNAR", "MCAR 30%", "MAR"])
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args(argv)
    tabs = tables(True)
    warnings.simplefilter("ignore")
    for name, X, y, cats, nums, kind, seed, M, Xm in masked_runs(tabs, args.tables, args.masks, args.seeds):
        stat, df = lr_statistic(Xm, y, seed)
        crit = chi2.ppf(0.99, df)
        t = impute_table(Xm, y, label_given=True, random_state=seed).table
        m = impute_mnar(Xm, y, label_given=True, random_state=seed).table
        st, sm = score(X, t, M, cats, nums), score(X, m, M, cats, nums)
        print(f"{name} {kind} seed {seed}: 2 log LR {stat:.1f} (df {df}, chi2 0.99 {crit:.1f}) "
              f"impute_table {st} impute_mnar {sm}")


if __name__ == "__main__":
    main()
