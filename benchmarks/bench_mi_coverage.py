"""Multiple-imputation simulation (issue 27, item 5): bias and 95% CI coverage of a known logistic model.

Each replicate draws ``n`` rows (default 500) of a known model, blanks covariate cells at
random given observed ones (MAR), imputes ``m`` tables (default 10), fits the analysis model on
each and pools with Rubin's rules (:func:`bayesnb.pool`, ``dfcom = n - p``). Over the replicates
it reports, per coefficient, the bias (mean estimate minus the true value), the coverage of the
95% interval (share of replicates whose interval holds the true value) and the mean interval
width. With ``R`` replicates the Monte-Carlo standard error of a coverage near 0.95 is
``sqrt(0.95 * 0.05 / R)`` (0.015 at R = 200).

The model (covariates mixed categorical and numeric; categorical columns have a non-numeric dtype)::

    x1 ~ Normal(0, 1)                                        always observed
    x2 in {a, b},     P(x2 = b) = logistic(0.8 x1)
    x3 in {u, v, w},  probabilities (0.5, 0.3, 0.2), independent of the rest
    x4 ~ Normal(0.6 x1 + 0.8 [x2 = b], 1)
    y  ~ Bernoulli(logistic(-0.5 + 0.8 x1 + 0.7 [x2 = b] - 0.6 [x3 = v] + 0.5 [x3 = w] + 0.6 x4))

    MAR: each cell of x2, x3, x4 blanked independently with probability
         logistic(-1.6 + 0.8 x1 + 0.8 y)   (about 25% of each column; x1 and y never blanked)

The analysis model is the true one: a logistic regression of y on an intercept, x1, [x2 = b],
[x3 = v], [x3 = w] and x4, fitted by Newton-Raphson (no penalty); its covariance is the inverse
observed information ``(Z' W Z)^-1``. The imputers (each imputes x2, x3, x4 given y and x1):

- ``bayesnb NB``: ``NaiveBayes().fit(X, y).impute(X, strategy="draw", n_imputations=m, y=y)``:
  proper multiple imputation (one exact posterior draw of the parameters per table), under
  the naive model (covariates independent given y);
- ``bayesnb TAN``: the same with ``NaiveBayes(structure="tan")`` (each covariate may have one
  other covariate as parent, numeric parents through quantile bins; docs/structure.md);
- ``bayesnb Imputer``: the default imputer, ``Imputer(label_given=True).fit(X, y).impute(X, y,
  strategy="draw", n_imputations=m)``: its draws come from one joint model of every column, the
  latent-class configuration (each class a mixture of naive-Bayes components, the count chosen by
  held-out log-likelihood), with one posterior draw of the parameters per table, unless its test of
  self-masking missingness chooses MNAR (the report counts its choices);
- ``miceforest``: ``ImputationKernel(X with y, num_datasets=m)``, 5 iterations of ``mice``
  (LightGBM with mean matching; x2 and x3 as pandas ``category``);
- ``IterativeImputer(sample_posterior=True)`` (``BayesianRidge``, ``max_iter=10``), run ``m``
  times with seeds 0..m-1, on x1, x2 as 0/1, x3 one-hot, x4 and y; x2 is rounded back to
  {a, b} and x3 is the largest of its one-hot values;

and as references, ``full data`` (the fit before blanking) and ``complete cases`` (rows with
no blank), with Wald intervals (normal quantile).

Run:  python benchmarks/bench_mi_coverage.py [--replicates 200] [--n 500] [--m 10] [--methods NB TAN ...]
      [--max-seconds S]   (stop after the replicate that passes S seconds; the report says how many ran)
"""

from __future__ import annotations

import argparse
import collections
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

from bayesnb import Imputer, NaiveBayes, pool

BETA = np.array([-0.5, 0.8, 0.7, -0.6, 0.5, 0.6])
NAMES = ["intercept", "x1", "x2=b", "x3=v", "x3=w", "x4"]
METHODS = ("NB", "TAN", "Imputer", "miceforest", "IterativeImputer")
INSTALL = "pip install -e .[bench]"


def simulate(n, rng):
    """One replicate: the full table X (x1..x4), the labels y (0/1) and the MAR-blanked table.

    Parameters
    ----------
    n : int
        Rows.
    rng : numpy.random.Generator

    Returns
    -------
    X : DataFrame of shape (n, 4)
        x1, x4 float; x2, x3 object.
    y : ndarray of shape (n,) of int
    Xm : DataFrame of shape (n, 4)
        X with cells of x2, x3, x4 blanked (NaN / None) as the module docstring says.
    """
    x1 = rng.normal(size=n)
    x2 = np.where(rng.random(n) < expit(0.8 * x1), "b", "a").astype(object)
    x3 = rng.choice(np.array(["u", "v", "w"], dtype=object), size=n, p=[0.5, 0.3, 0.2])
    x4 = rng.normal(0.6 * x1 + 0.8 * (x2 == "b"), 1.0)
    X = pd.DataFrame({"x1": x1, "x2": x2, "x3": x3, "x4": x4})
    y = (rng.random(n) < expit(design(X) @ BETA)).astype(int)
    p_miss = expit(-1.6 + 0.8 * x1 + 0.8 * y)
    Xm = X.copy()
    for c in ("x2", "x3", "x4"):
        Xm.loc[rng.random(n) < p_miss, c] = np.nan if c == "x4" else None
    return X, y, Xm


def design(X):
    """The analysis model's design matrix, shape (n, 6): intercept, x1, [x2=b], [x3=v], [x3=w], x4."""
    x2, x3 = X["x2"].to_numpy(dtype=object), X["x3"].to_numpy(dtype=object)
    return np.column_stack([np.ones(len(X)), X["x1"].to_numpy(dtype=float), x2 == "b", x3 == "v", x3 == "w",
                            X["x4"].to_numpy(dtype=float)]).astype(float)


def logistic_fit(Z, y, tol=1e-10, max_iter=50):
    """Maximum-likelihood logistic regression by Newton-Raphson.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Design matrix.
    y : ndarray of shape (n,) of 0/1

    Returns
    -------
    beta : ndarray of shape (p,)
    var : ndarray of shape (p,)
        Diagonal of the inverse observed information ``(Z' W Z)^-1`` at ``beta``.
    """
    beta = np.zeros(Z.shape[1])
    for _ in range(max_iter):
        mu = expit(Z @ beta)
        info = Z.T @ (Z * (mu * (1 - mu))[:, None])
        step = np.linalg.solve(info, Z.T @ (y - mu))
        beta += step
        if np.max(np.abs(step)) < tol:
            break
    mu = expit(Z @ beta)
    return beta, np.diag(np.linalg.inv(Z.T @ (Z * (mu * (1 - mu))[:, None])))


def impute_bayesnb(Xm, y, m, seed, structure):
    nb = NaiveBayes(structure=structure).fit(Xm, y)
    return nb.impute(Xm, strategy="draw", n_imputations=m, y=y, random_state=seed)


#: The default imputer's self-masking test (``missingness="auto"``): its choice in each replicate.
TEST_CHOICES = collections.Counter()


def impute_imputer(Xm, y, m, seed):
    imp = Imputer(label_given=True, random_state=seed).fit(Xm, y)
    TEST_CHOICES[(imp.missingness_ or {}).get("choice", "not run")] += 1
    return imp.impute(Xm, y, strategy="draw", n_imputations=m, random_state=seed)


def impute_miceforest(Xm, y, m, seed):
    import miceforest as mf

    Z = Xm.assign(y=y.astype(str))
    for c in ("x2", "x3", "y"):
        Z[c] = Z[c].astype("category")
    kernel = mf.ImputationKernel(Z, num_datasets=m, random_state=seed)
    kernel.mice(5, num_threads=1)
    return [kernel.complete_data(dataset=i).drop(columns="y").astype({"x2": object, "x3": object}) for i in range(m)]


def impute_iterative(Xm, y, m, seed):
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer

    x2, x3 = Xm["x2"].to_numpy(dtype=object), Xm["x3"].to_numpy(dtype=object)
    oh = np.column_stack([x3 == v for v in ("u", "v", "w")]).astype(float)
    oh[pd.isna(x3)] = np.nan
    A = np.column_stack([Xm["x1"], np.where(pd.isna(x2), np.nan, x2 == "b"), oh, Xm["x4"], y]).astype(float)
    out = []
    for i in range(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter
            B = IterativeImputer(sample_posterior=True, random_state=seed * 1000 + i).fit_transform(A)
        out.append(pd.DataFrame({"x1": B[:, 0], "x2": np.where(B[:, 1] >= 0.5, "b", "a").astype(object),
                                 "x3": np.array(["u", "v", "w"], dtype=object)[np.argmax(B[:, 2:5], axis=1)],
                                 "x4": B[:, 5]}))
    return out


def pooled(tables, y):
    """Rubin's rules over the analysis of each completed table: (estimate, lower, upper) of shape (p,) each."""
    fits = [logistic_fit(design(T), y) for T in tables]
    r = pool(np.array([f[0] for f in fits]), np.array([f[1] for f in fits]), dfcom=len(y) - len(BETA))
    return r["estimate"].to_numpy(), r["lower"].to_numpy(), r["upper"].to_numpy()


def wald(X, y):
    beta, var = logistic_fit(design(X), y)
    half = stats.norm.ppf(0.975) * np.sqrt(var)
    return beta, beta - half, beta + half


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=200)
    ap.add_argument("--n", type=int, default=500, help="rows per replicate")
    ap.add_argument("--m", type=int, default=10, help="imputed tables per replicate")
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS)
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop after the replicate that passes this many seconds (the report states how many ran)")
    args = ap.parse_args(argv)
    TEST_CHOICES.clear()
    runs = {"full data": None, "complete cases": None}
    runs.update({f"bayesnb {k}" if k in ("NB", "TAN", "Imputer") else k: k for k in args.methods})
    fns = {"NB": lambda Xm, y, s: impute_bayesnb(Xm, y, args.m, s, "naive"),
           "TAN": lambda Xm, y, s: impute_bayesnb(Xm, y, args.m, s, "tan"),
           "Imputer": lambda Xm, y, s: impute_imputer(Xm, y, args.m, s),
           "miceforest": lambda Xm, y, s: impute_miceforest(Xm, y, args.m, s),
           "IterativeImputer": lambda Xm, y, s: impute_iterative(Xm, y, args.m, s)}
    est = {k: [] for k in runs}
    cover = {k: [] for k in runs}
    width = {k: [] for k in runs}
    secs = dict.fromkeys(runs, 0.0)
    skipped, share_missing = set(), []
    t0 = time.perf_counter()
    for rep in range(args.replicates):
        X, y, Xm = simulate(args.n, np.random.default_rng(rep))
        share_missing.append(Xm[["x2", "x3", "x4"]].isna().mean().to_numpy())
        for name, key in runs.items():
            t = time.perf_counter()
            if key is None:
                b, lo, hi = wald(X if name == "full data" else Xm.dropna(), y if name == "full data"
                                 else y[Xm.notna().all(axis=1).to_numpy()])
            else:
                try:
                    b, lo, hi = pooled(fns[key](Xm, y, rep), y)
                except ImportError as e:
                    if name not in skipped:
                        print(f"({name} skipped: it is not installed ({e}); install it with `{INSTALL}`)")
                        skipped.add(name)
                    continue
            secs[name] += time.perf_counter() - t
            est[name].append(b)
            cover[name].append((lo <= BETA) & (BETA <= hi))
            width[name].append(hi - lo)
        if (rep + 1) % 10 == 0:
            print(f"  [{rep + 1} replicates, {time.perf_counter() - t0:.0f} s]", flush=True)
        if args.max_seconds is not None and time.perf_counter() - t0 > args.max_seconds:
            print(f"  [stopped by --max-seconds after {rep + 1} of {args.replicates} replicates]")
            break
    R = len(share_missing)
    print(f"\n{R} replicates, n = {args.n}, m = {args.m}; missing share of x2, x3, x4: "
          + ", ".join(f"{v:.3f}" for v in np.mean(share_missing, axis=0))
          + f"; Monte-Carlo se of a coverage of 0.95: {np.sqrt(0.95 * 0.05 / R):.3f}\n")
    print("| method | " + " | ".join(f"{c} (true {b:+.1f})" for c, b in zip(NAMES, BETA)) + " | s / replicate |")
    print("|---" * (len(NAMES) + 2) + "|")
    for name in runs:
        if not est[name]:
            continue
        bias = np.mean(est[name], axis=0) - BETA
        cov, wid = np.mean(cover[name], axis=0), np.mean(width[name], axis=0)
        cells = [f"{b:+.3f} / {c:.3f} / {w:.2f}" for b, c, w in zip(bias, cov, wid)]
        print(f"| {name} | " + " | ".join(cells) + f" | {secs[name] / len(est[name]):.2f} |")
    print("\n(cells: bias / coverage of the 95% interval / mean interval width)")
    covered = {n: np.mean(cover[n], axis=0).min() for n in runs if runs[n] is not None and est[n]}
    print("lowest coverage per imputer: " + ", ".join(f"{n} {v:.3f}" for n, v in covered.items()))
    if TEST_CHOICES:
        print("bayesnb Imputer's self-masking test chose: " + ", ".join(f"{k} in {v}" for k, v in
                                                                       sorted(TEST_CHOICES.items())) + " replicates")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
