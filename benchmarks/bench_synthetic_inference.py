"""Benchmark: inference from ``Synthesizer`` tables pooled by ``bayesnb.pool_synthetic``.

A known population: ``group`` in {a, b, c} (shares 0.5, 0.3, 0.2), ``smoker`` ~ Bernoulli with a
probability that depends on the group, ``age`` ~ Normal(40 + 5 [group b] + 10 [group c], 10),
``income`` ~ Normal(20 + 0.5 age - 4 smoker, 5), rounded to one decimal. Each replicate draws
``--n`` real rows, fits ``Synthesizer(latent=None)`` (the structure evidence chooses, everything
else at its defaults) and draws ``--m`` synthetic tables of as many rows, from the plug-in
(``sample``'s default: ``method="simple"``) and with one posterior draw each
(``parameter_uncertainty=True``: ``"proper"``). On every table the analysis estimates

- the mean income (its standard error ``s / sqrt(k)``), and
- the slope of income on age in an ordinary least-squares fit of ``income ~ age + smoker``
  (its usual standard error),

and ``pool_synthetic`` pools them. Printed per estimand and kind of table: the 95% intervals'
coverage of the population value over the replicates, their mean width relative to the real
rows' own interval, the bias of the pooled estimate, and the coverage when the tables are
treated as real data (the standard error ``sqrt(Ubar)``). The population values are 20 + 0.5 E[age]
- 4 P(smoker) for the mean and 0.5 for the slope.

Usage::

    python benchmarks/bench_synthetic_inference.py [--reps 200] [--n 500] [--m 5] [--seed 0]

A rule's coverage is only as good as the synthesis model: a relation the model does not carry
(here, income's dependence on age, which the Synthesizer represents through binned parents)
biases every table alike, and no combining rule repairs a bias.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

from bayesnb import Synthesizer, pool_synthetic

GROUPS, SHARES = np.array(["a", "b", "c"]), np.array([0.5, 0.3, 0.2])
SMOKING = {"a": 0.2, "b": 0.3, "c": 0.4}
AGE_SHIFT = {"a": 0.0, "b": 5.0, "c": 10.0}


def population_values():
    """The estimands' population values: mean income and the slope of income on age."""
    mean_age = 40 + sum(s * AGE_SHIFT[g] for g, s in zip(GROUPS, SHARES))
    p_smoke = sum(s * SMOKING[g] for g, s in zip(GROUPS, SHARES))
    return {"mean income": 20 + 0.5 * mean_age - 4 * p_smoke, "slope on age": 0.5}


def draw_table(n, rng):
    """``n`` rows of the population."""
    group = rng.choice(GROUPS, size=n, p=SHARES)
    smoker = rng.random(n) < np.vectorize(SMOKING.get)(group)
    age = rng.normal(40 + np.vectorize(AGE_SHIFT.get)(group), 10)
    income = np.round(rng.normal(20 + 0.5 * age - 4 * smoker, 5), 1)
    return pd.DataFrame({"group": group, "smoker": np.where(smoker, "yes", "no"), "age": np.round(age, 1),
                         "income": income})


def analyse(table):
    """``{estimand: (estimate, squared standard error)}`` of one table."""
    inc = table["income"].to_numpy(float)
    X = np.column_stack([np.ones(len(table)), table["age"].to_numpy(float), (table["smoker"] == "yes").to_numpy(float)])
    beta, *_ = np.linalg.lstsq(X, inc, rcond=None)
    resid = inc - X @ beta
    sigma2 = resid @ resid / (len(inc) - X.shape[1])
    cov = sigma2 * np.linalg.inv(X.T @ X)
    return {"mean income": (inc.mean(), inc.var(ddof=1) / len(inc)), "slope on age": (beta[1], cov[1, 1])}


def run(reps, n, m, seed):
    rng = np.random.default_rng(seed)
    truth = population_values()
    z = stats.norm.ppf(0.975)
    rows = []
    for r in range(reps):
        real = draw_table(n, rng)
        real_fit = analyse(real)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synth = Synthesizer(latent=None, random_state=int(rng.integers(2**31))).fit(real)
            for method, pu in (("simple", False), ("proper", True)):
                fits = [analyse(synth.sample(n, random_state=rng, parameter_uncertainty=pu)) for _ in range(m)]
                for name, value in truth.items():
                    q = [f[name][0] for f in fits]
                    u = [f[name][1] for f in fits]
                    p = pool_synthetic(q, u, n_original=n, method=method).iloc[0]
                    rows.append({"estimand": name, "tables": method, "rep": r,
                                 "covered": p["lower"] <= value <= p["upper"],
                                 "as real": abs(p["estimate"] - value) <= z * np.sqrt(p["ubar"]),
                                 "width ratio": p["std_error"] / np.sqrt(real_fit[name][1]),
                                 "error": p["estimate"] - value,
                                 "real covered": abs(real_fit[name][0] - value) <= z * np.sqrt(real_fit[name][1])})
    return pd.DataFrame(rows)


def summary(res):
    g = res.groupby(["estimand", "tables"])
    return pd.DataFrame({"coverage": g["covered"].mean(), "as real": g["as real"].mean(),
                         "width / real": g["width ratio"].mean(), "bias": g["error"].mean(),
                         "real rows' coverage": g["real covered"].mean()}).round(3)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=200, help="replicates (populations samples), default 200")
    p.add_argument("--n", type=int, default=500, help="real rows per replicate, default 500")
    p.add_argument("--m", type=int, default=5, help="synthetic tables per replicate, default 5")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    t = time.perf_counter()
    res = run(args.reps, args.n, args.m, args.seed)
    print(summary(res).to_string())
    print(f"\n({args.reps} replicates of {args.n} rows, m = {args.m}, {time.perf_counter() - t:.0f} s; "
          f"population values {population_values()})")


if __name__ == "__main__":
    main()
