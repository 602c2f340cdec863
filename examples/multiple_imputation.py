"""Multiple imputation with bayesnb: m completed tables, one regression on each, Rubin's rules.

The analysis: ordinary least squares of a penguin's body mass on its bill length, bill
depth, flipper length and sex (Palmer penguins, ``bayesnb.datasets.load_penguins``).

1. The complete-data fit: OLS on the rows with every analysis column observed.
2. Blank 20% of those cells at random (MCAR; the species is kept and given to the
   imputation model as the label).
3. Fit ``NaiveBayes()`` on the blanked table and draw ``m`` completed tables with
   ``impute(X, y=species, strategy="draw", n_imputations=m)`` (one exact posterior draw of
   the parameters per table: proper multiple imputation), and again from a latent-class
   model (``fit_latent_class(n_components="auto")``, then ``impute(..., latent=fit)``).
   Naive-Bayes draws are independent given the species, so they break the within-species
   dependence the regression measures (body mass and sex, flipper length...): its
   coefficients are pulled towards 0. The latent-class model keeps much of that
   dependence; compare both with the complete-data fit.
4. On each completed table, OLS (scikit-learn ``LinearRegression``) and its closed-form
   covariance ``s^2 (X'X)^-1``; pool with :func:`bayesnb.pool` (Rubin's rules, Barnard-Rubin
   degrees of freedom with ``dfcom = n - p``) and compare with the complete-data fit and
   with a complete-case fit of the blanked table.

Prints the tables (estimate, standard error; df and fmi for the pooled ones).

Run:  python examples/multiple_imputation.py [--out DIR] [--quick] [--m M]
      (``--quick``: m = 5, the default; ``--out`` is accepted for uniformity: no figure)
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

from _common import parser
import bayesnb
from bayesnb import NaiveBayes
from bayesnb.datasets import load_penguins

PREDICTORS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "sex"]
OUTCOME = "body_mass_g"


def design(df):
    """Predictor matrix (sex as a 0/1 ``male`` column) and outcome of a complete table."""
    X = df[PREDICTORS[:-1]].astype(float).to_numpy()
    male = (df["sex"].astype(str) == "male").astype(float).to_numpy()[:, None]
    return np.hstack([X, male]), df[OUTCOME].astype(float).to_numpy()


def ols(df):
    """OLS estimates (intercept first) and their closed-form variances ``s^2 diag((X'X)^-1)``."""
    X, y = design(df)
    lr = LinearRegression().fit(X, y)
    A = np.hstack([np.ones((X.shape[0], 1)), X])
    resid = y - lr.predict(X)
    s2 = resid @ resid / (A.shape[0] - A.shape[1])
    cov = s2 * np.linalg.inv(A.T @ A)
    return np.concatenate([[lr.intercept_], lr.coef_]), np.diag(cov), A.shape[0] - A.shape[1]


NAMES = ["intercept", *PREDICTORS[:-1], "sex=male"]


def table(est, var):
    return pd.DataFrame({"estimate": est, "std_error": np.sqrt(var)}, index=NAMES)


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=5, help="number of imputed tables (default 5)")
    ap.add_argument("--frac", type=float, default=0.2, help="fraction of cells blanked (default 0.2)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    df = load_penguins()
    cols = PREDICTORS + [OUTCOME, "island"]
    full = df[["species", *cols]].dropna().reset_index(drop=True)
    for c in full.columns:
        if str(full[c].dtype) == "Int64":
            full[c] = full[c].astype(float)
    species = full["species"].to_numpy(dtype=object)
    X = full[cols]
    pd.set_option("display.float_format", lambda v: f"{v:.4g}")

    est, var, dfcom = ols(full)
    print(f"Complete data ({X.shape[0]} penguins): OLS of {OUTCOME} on {', '.join(PREDICTORS)}")
    print(table(est, var).to_string(), "\n")

    rng = np.random.default_rng(args.seed)
    M = rng.random(X.shape) < args.frac
    Xm = X.copy()
    for j, c in enumerate(cols):
        Xm.loc[M[:, j], c] = np.nan if c not in ("sex", "island") else None
    print(f"Blanked {M.mean():.0%} of the cells at random (MCAR); {int((~M[:, :5].any(1)).sum())} complete "
          f"cases remain for the analysis columns.")
    cc = Xm[~M[:, :5].any(1)]
    est_cc, var_cc, _ = ols(cc)
    print("Complete-case fit of the blanked table:")
    print(table(est_cc, var_cc).to_string(), "\n")

    nb = NaiveBayes().fit(Xm, species)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bayesnb.SearchEdgeWarning)
        latent = nb.fit_latent_class(Xm, species, n_components="auto", random_state=args.seed)
    summary = {}
    for label, model in (("naive-Bayes", None), (f"latent-class ({latent.n_components} components per species)",
                                                  latent)):
        tables = nb.impute(Xm, y=species, strategy="draw", n_imputations=args.m, random_state=args.seed,
                           latent=model)
        fits = [ols(t) for t in tables]
        pooled = bayesnb.pool(np.array([f[0] for f in fits]), np.array([f[1] for f in fits]), dfcom=dfcom,
                              names=NAMES)
        print(f"Multiple imputation, m = {args.m} tables of {label} draws, pooled with bayesnb.pool "
              "(Rubin's rules):")
        show = pooled[["estimate", "std_error", "df", "fmi"]].copy()
        show["complete-data"] = est
        show["|MI - complete| / SE"] = np.abs(pooled["estimate"].to_numpy() - est) / np.sqrt(var)
        show["|CC - complete| / SE"] = np.abs(est_cc - est) / np.sqrt(var)
        print(show.to_string(), "\n")
        summary[label] = show["|MI - complete| / SE"].mean()
    print("mean |estimate - complete-data estimate| in complete-data standard errors:")
    for label, v in summary.items():
        print(f"  multiple imputation, {label}: {v:.2f}")
    print(f"  complete cases: {show['|CC - complete| / SE'].mean():.2f}")

if __name__ == "__main__":
    main()
