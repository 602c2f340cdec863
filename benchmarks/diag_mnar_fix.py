"""A trial fix for self-masking MNAR in ``impute_table`` (issue 27): detect, then reweight categorical fills.

1. Evidence: the gain in log posterior of ``impute_mnar``'s selection model (naive Bayes under missingness nodes
   whose parent is the cell's own value) over the flat selection, against the best MAR explanation of each
   column's missingness (its rate per class, or per level / quantile bin of a fully observed column), each
   penalised by ``0.5 * log(n)`` per free probability (BIC). ``--by-class``: the selection model's probabilities
   per (class, value) instead, nested over the per-class MAR model.
2. When the selection model wins, each missing categorical cell's fill is the value maximising
   ``q(v) * p(missing | v)``: ``q`` the share of ``DRAWS`` draws of the configuration ``impute_table`` chose for
   its column, ``p(missing | v)`` the fitted selection. Numeric columns keep ``impute_table``'s fills.

    .venv/bin/python benchmarks/diag_mnar_fix.py --tables "house votes" penguins --masks MNAR "MCAR 30%" MAR --seeds 2 [--by-class]

The reweighted accuracy is printed whatever the evidence says (to see what the reweighting costs where
the mask is not MNAR).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from bench_impute import masked_runs, score, tables
from diag_mnar_test import selection_fits

from bayesnb import Imputer, impute_mnar
from bayesnb.impute.configs import fill_config
from bayesnb.generative.mnar import fit_selection
from bayesnb.inference.em import allowed_states
from bayesnb.impute.selfmasking import _fit

DRAWS = 40


def _bern_ll(m, groups):
    ll = 0.0
    for g in np.unique(groups):
        k = m[groups == g]
        r = k.mean()
        if 0 < r < 1:
            ll += k.sum() * np.log(r) + (k.size - k.sum()) * np.log1p(-r)
    return ll, len(np.unique(groups))


def evidence(Xm, y, seed, by_class=False):
    rng = np.random.default_rng(seed)
    model, encoded, fit, codes, flat = selection_fits(Xm, y, rng)
    allowed = allowed_states(fit.group, codes)
    n = Xm.shape[0]
    pen = 0.5 * np.log(n)
    mnar = fit.em_objective[-1] - flat.em_objective[0] - pen * sum(len(sc.edges) for sc in fit.columns)
    if by_class:  # the selection per (class, value): nested over the class-only MAR model
        K = len(model.classes_)
        model, encoded, fit, codes, _ = _fit(Xm, y, "diag", estimator=None, n_bins=5, alpha=1.0, tol=1e-6,
                                             max_iter=200, by_class=True, n_components=1, rng=rng)
        flat = fit_selection(model.posterior_, encoded, fit.columns, fit.group, allowed, np.ones(n),
                             (model.class_alpha, model.fit_prior, model.class_prior), max_iter=0, starts=("flat",),
                             by_state=True)
        mnar = fit.em_objective[-1] - flat.em_objective[0] - pen * sum(K * (len(sc.edges) + 1) - 1
                                                                       for sc in fit.columns)
    full = [c for c in Xm.columns if Xm[c].notna().all()]
    drivers = [np.asarray(pd.Index(np.unique(y)).get_indexer(y))]
    for c in full:
        v = Xm[c]
        drivers.append(np.digitize(v, np.quantile(v, [0.2, 0.4, 0.6, 0.8])) if pd.api.types.is_numeric_dtype(v)
                       else pd.factorize(v)[0])
    mar = 0.0
    for c in Xm.columns:
        m = Xm[c].isna().to_numpy().astype(float)
        if not m.any():
            continue
        base, _ = _bern_ll(m, np.zeros(n))
        best = 0.0
        for g in drivers:
            ll, k = _bern_ll(m, g)
            best = max(best, ll - base - pen * (k - 1))
        mar += best
    sel = impute_mnar(Xm, y, label_given=True, random_state=seed).selection
    return mnar, mar, sel


def reweighted(imp, Xm, y, sel, seed):
    rng = np.random.default_rng(seed)
    out = imp.impute(Xm, y)
    for c, cfg in imp.chosen_.items():
        if pd.api.types.is_numeric_dtype(Xm[c]) or c not in sel:
            continue
        miss = Xm[c].isna().to_numpy()
        draws = fill_config(cfg, imp.models_[cfg], Xm, y, rng, strategy="draw", n_imputations=DRAWS)
        D = np.stack([d[c].to_numpy(dtype=object)[miss] for d in draws])
        rho = sel[c].iloc[0]
        values = list(rho.index)
        q = np.stack([(D == v).mean(0) for v in values])  # (V, cells)
        w = q * rho.to_numpy(dtype=float)[:, None]
        out.loc[miss, c] = np.asarray(values, dtype=object)[np.argmax(w, 0)]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", nargs="+", default=["house votes"])
    ap.add_argument("--masks", nargs="+", default=["MNAR", "MCAR 30%", "MAR"])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--by-class", action="store_true", help="the MNAR evidence from the selection per (class, value)")
    args = ap.parse_args(argv)
    tabs = tables(True)
    warnings.simplefilter("ignore")
    for name, X, y, cats, nums, kind, seed, M, Xm in masked_runs(tabs, args.tables, args.masks, args.seeds):
        mnar, mar, sel = evidence(Xm, y, seed, args.by_class)
        imp = Imputer(label_given=True, random_state=seed, columns="missing").fit(Xm, y)
        t = imp.impute(Xm, y)
        r = reweighted(imp, Xm, y, sel, seed)
        st, sr = score(X, t, M, cats, nums)[:2], score(X, r, M, cats, nums)[:2]
        print(f"{name} {kind} seed {seed}: evidence MNAR {mnar:.1f} vs MAR {mar:.1f} -> "
              f"{'MNAR' if mnar > mar else 'MAR'}; impute_table acc/NRMSE {st[0]:.3f}/{st[1]:.3f}, "
              f"reweighted {sr[0]:.3f}", flush=True)


if __name__ == "__main__":
    main()
