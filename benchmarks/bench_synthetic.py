"""Benchmark: how faithful are bayesnb's synthetic rows, next to a Gaussian copula?

On the bundled house votes (target ``party``) and penguins (target ``species``), for each
seed: split the real rows 70/30 (stratified), fit on the 70% and draw as many synthetic
rows with

- ``bayesnb NB``: ``NaiveBayes()`` (default features), ``model.sample(n)``;
- ``bayesnb latent``: the same model's latent-class sampler,
  ``model.sample(n, latent=model.fit_latent_class(X, y, n_components="auto"))``;
- ``Gaussian copula``: empirical marginals and a normal copula (below, scipy/numpy only);

then :func:`bayesnb.synthetic_report` against the 70% with the 30% as ``real_test``.
Printed as a markdown table, mean ± sd over the seeds.

Usage::

    python benchmarks/bench_synthetic.py [--seeds 5] [--quick] [--adult DIR]

``--adult DIR`` adds UCI Adult (the census table, not shipped: see ``benchmarks/_census.py``)
with issue 14's protocol for naive Bayes, ``NaiveBayes(structure="tan" | "kdb" (k=2) | "auto")``
(ancestral draws over the learned structure), the latent-class sampler (``--latent-components``,
default 8 per class) and the copula: fit on ``adult.data``, draw 10,000 synthetic rows, train a
HistGradientBoosting classifier on them and test it on ``adult.test`` (TSTR), next to the same
classifier trained on 10,000 real rows of ``adult.data`` (TRTR); the marginals and pairs are
compared with those 10,000 real rows, the support (numeric range, integer values, categories)
with the whole of ``adult.data``; and the share of "Husband & Female" rows
(``relationship == "Husband"`` and ``sex == "Female"``; 0 in real data) shows a dependence
that does not go through the class.

The copula: every column (the target too) is mapped to normal scores: a categorical
column (missing a category) to the midpoint of its value's interval of the empirical CDF,
a numeric column to ``(rank - 1/2) / n`` of its observed values, placed above a mass for
missing cells. The scores' correlation matrix is the copula; a synthetic row is a draw
``z ~ N(0, R)`` mapped back through ``Phi`` and each column's empirical quantile function
(a category, a missing cell, or an observed real value: numerics stay in the real support).
"""

from __future__ import annotations

import argparse
import time
import warnings

import _census
import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.model_selection import train_test_split

from bayesnb import NaiveBayes, synthetic_report
from bayesnb.datasets import load_house_votes, load_penguins

METRICS = [("mean_tvd", "mean TVD"), ("mean_ks", "mean KS"), ("mean_abs_cramers_v_diff", "mean abs V diff"),
           ("pmse_ratio", "pMSE ratio"), ("tstr", "TSTR acc"), ("trtr", "TRTR acc")]


# ------------------------------------------------------------------------------ copula
class GaussianCopula:
    """Gaussian copula with empirical marginals (categoricals at their CDF-interval midpoints)."""

    def fit(self, df):
        self.columns, self.margins, Z = list(df.columns), [], []
        for c in df.columns:
            x = df[c]
            miss = x.isna().to_numpy()
            p_miss = miss.mean()
            if pd.api.types.is_numeric_dtype(x.dtype) and not pd.api.types.is_bool_dtype(x.dtype):
                obs = x[~miss].to_numpy(dtype=float)
                ranks = pd.Series(obs).rank(method="average").to_numpy()
                u = np.full(len(x), p_miss / 2)
                u[~miss] = p_miss + (1 - p_miss) * (ranks - 0.5) / len(obs)
                self.margins.append(("numeric", np.sort(obs), p_miss))
            else:
                vals = x.astype(object).where(~miss, None)
                freq = vals.value_counts(dropna=False, normalize=True)
                hi = np.cumsum(freq.to_numpy())
                lo = hi - freq.to_numpy()
                mid = dict(zip(freq.index, (lo + hi) / 2))
                u = np.array([mid[v] for v in vals])
                self.margins.append(("categorical", list(freq.index), hi))
            Z.append(norm.ppf(u))
        R = np.corrcoef(np.column_stack(Z), rowvar=False)
        w, V = np.linalg.eigh(np.nan_to_num(R))
        self.R = (V * np.clip(w, 1e-9, None)) @ V.T
        return self

    def sample(self, n, rng):
        u = norm.cdf(rng.multivariate_normal(np.zeros(len(self.columns)), self.R, size=n, method="eigh"))
        out = {}
        for c, (kind, a, b), uj in zip(self.columns, self.margins, u.T):
            if kind == "numeric":  # a: sorted observed values, b: missing share
                q = np.clip((uj - b) / (1 - b), 0, 1)
                v = np.quantile(a, q, method="inverted_cdf")
                out[c] = np.where(uj < b, np.nan, v)
            else:  # a: categories, b: upper CDF ends
                idx = np.minimum(np.searchsorted(b, uj, side="right"), len(a) - 1)
                out[c] = np.array(a, dtype=object)[idx]
        return pd.DataFrame(out)


# ------------------------------------------------------------------------------ methods
def synth_nb(train, target, n, seed):
    m = NaiveBayes().fit(train.drop(columns=target), train[target])
    X, y = m.sample(n, random_state=seed)
    return X.assign(**{target: y})[list(train.columns)]


def synth_latent(train, target, n, seed):
    X0, y0 = train.drop(columns=target), train[target]
    m = NaiveBayes().fit(X0, y0)
    fit = m.fit_latent_class(X0, y0, n_components="auto", random_state=seed)
    X, y = m.sample(n, latent=fit, random_state=seed)
    return X.assign(**{target: y})[list(train.columns)]


def synth_copula(train, target, n, seed):
    return GaussianCopula().fit(train).sample(n, np.random.default_rng(seed))


METHODS = {"bayesnb NB": synth_nb, "bayesnb latent": synth_latent, "Gaussian copula": synth_copula}


def run(name, df, target, seeds):
    rows = []
    for seed in seeds:
        train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
        for method, make in METHODS.items():
            t0 = time.perf_counter()
            syn = make(train, target, len(train), seed)
            dt = time.perf_counter() - t0
            s = synthetic_report(train, syn, target=target, real_test=test, random_state=seed).summary
            rows.append({"data": name, "method": method, "seed": seed, "seconds": dt, **s})
    return pd.DataFrame(rows)


def fmt(x):
    x = x.dropna()
    if x.empty:
        return "–"
    return f"{x.mean():.3f} ± {x.std(ddof=1):.3f}" if len(x) > 1 else f"{x.mean():.3f}"


# ------------------------------------------------------------------------------ census
def support_checks(train, syn, target):
    """Support and dtype of ``syn`` against the whole training table ``train``."""
    out = {"out_of_range": 0, "non_integer": 0, "non_int_dtype": 0, "unseen_category": 0}
    for c in train.columns:
        r, s = train[c], syn[c]
        if pd.api.types.is_numeric_dtype(r.dtype):
            v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
            v = v[np.isfinite(v)]
            out["out_of_range"] += int(np.sum((v < r.min()) | (v > r.max())))
            if pd.api.types.is_integer_dtype(r.dtype):
                out["non_integer"] += int(np.sum(v != np.round(v)))
                out["non_int_dtype"] += int(not pd.api.types.is_integer_dtype(s.dtype))
        else:
            seen = set(r.dropna())
            out["unseen_category"] += int(sum(1 for x in s.dropna() if x not in seen))
    return out


def husband_female(df):
    return float(np.mean((df["relationship"] == "Husband") & (df["sex"] == "Female")))


def synth_latent_c(components):
    def make(train, target, n, seed):
        X0, y0 = train.drop(columns=target), train[target]
        m = NaiveBayes().fit(X0, y0)
        fit = m.fit_latent_class(X0, y0, n_components=components, random_state=seed)
        X, y = m.sample(n, latent=fit, random_state=seed)
        return X.assign(**{target: y})[list(train.columns)]
    return make


def synth_structure(structure, k=2):
    """``NaiveBayes(structure=structure, k=k).fit(...).sample(n)``: ancestral draws over a learned structure."""
    def make(train, target, n, seed):
        m = NaiveBayes(structure=structure, k=k).fit(train.drop(columns=target), train[target])
        if structure == "auto":
            print(f"  structure='auto' chose {m.structure_kind_!r}:\n{m.structure_scores_.to_string(index=False)}")
        X, y = m.sample(n, random_state=seed)
        return X.assign(**{target: y})[list(train.columns)]
    return make


def run_adult(folder, n_synth, seed, latent_components):
    data = _census.load_adult(folder)
    if data is None:
        print(_census.NOT_GIVEN)
        return None
    train, test = data
    target = _census.TARGET
    real = train.sample(n=min(n_synth, len(train)), random_state=seed).reset_index(drop=True)
    methods = {"bayesnb NB": synth_nb,
               'bayesnb structure="tan"': synth_structure("tan"),
               'bayesnb structure="kdb" (k=2)': synth_structure("kdb", 2),
               'bayesnb structure="auto"': synth_structure("auto"),
               f"bayesnb latent (C={latent_components})": synth_latent_c(latent_components),
               "Gaussian copula": synth_copula}
    rows = []
    for method, make in methods.items():
        t0 = time.perf_counter()
        syn = make(train, target, n_synth, seed)
        dt = time.perf_counter() - t0
        report = synthetic_report(real, syn, target=target, real_test=test, random_state=seed)
        s = report.summary
        rows.append({"method": method, "seconds": dt, **s, **support_checks(train, syn, target),
                     "husband_female": husband_female(syn)})
        worst = report.columns.sort_values("value", ascending=False).head(3)
        print(f"  {method}: TSTR {s['tstr']:.3f} ({dt:.1f} s); largest column distances: "
              + ", ".join(f"{r.column} {r.metric} {r.value:.3f}" for r in worst.itertuples()), flush=True)
    rows.append({"method": "real rows (10,000 of adult.data)", "husband_female": husband_female(real),
                 "tstr": rows[0]["trtr"], **support_checks(train, real, target)})
    res = pd.DataFrame(rows)
    cols = [("mean_ks", "mean KS", 3), ("mean_tvd", "mean TVD", 3), ("mean_abs_cramers_v_diff", "mean abs V diff", 3),
            ("pmse_ratio", "pMSE ratio", 2), ("tstr", "TSTR acc", 3), ("husband_female", "Husband & Female", 4),
            ("out_of_range", "out of range", 0), ("non_integer", "non-integer", 0),
            ("non_int_dtype", "int cols not int dtype", 0), ("unseen_category", "unseen categories", 0),
            ("seconds", "fit+sample s", 1)]
    print(f"\nUCI Adult: fit on adult.data ({len(train)} rows), {n_synth} synthetic rows, compared with "
          f"{len(real)} real rows; TSTR/TRTR tested on adult.test ({len(test)} rows); TRTR "
          f"(HGB on {len(real)} real rows) = {rows[0]['trtr']:.3f}\n")
    print("| method | " + " | ".join(label for _, label, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for r in res.itertuples(index=False):
        d = r._asdict()
        cells = ["–" if pd.isna(d.get(k)) else f"{float(d[k]):.{p}f}" for k, _, p in cols]
        print(f"| {r.method} | " + " | ".join(cells) + " |")
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (default 5)")
    p.add_argument("--quick", action="store_true", help="2 seeds")
    p.add_argument("--adult", metavar="DIR", default=None,
                   help="folder with UCI's adult.data and adult.test (census part skipped without it)")
    p.add_argument("--adult-only", action="store_true", help="only the census part")
    p.add_argument("--n-synth", type=int, default=10_000, help="census: synthetic (and real TRTR) rows")
    p.add_argument("--latent-components", default="8",
                   help="census: components per class of the latent-class sampler (int or 'auto')")
    args = p.parse_args(argv)
    seeds = range(2 if args.quick else args.seeds)
    warnings.simplefilter("ignore")  # convergence chatter of the propensity model
    lc = args.latent_components if args.latent_components == "auto" else int(args.latent_components)
    if args.adult_only:
        run_adult(args.adult, args.n_synth, 0, lc)  # prints NOT_GIVEN without the table
        return 0
    if args.adult is None:
        print(_census.NOT_GIVEN)
    res = pd.concat([run("house votes", load_house_votes(), "party", seeds),
                     run("penguins", load_penguins(), "species", seeds)])
    head = ["data", "method"] + [label for _, label in METRICS] + ["fit+sample s"]
    print(f"{len(seeds)} seed(s); mean ± sd; synthetic rows = training rows (70%), tested on the other 30%\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (data, method), g in res.groupby(["data", "method"], sort=False):
        cells = [fmt(g[key].astype(float)) for key, _ in METRICS] + [f"{g['seconds'].mean():.2f}"]
        print(f"| {data} | {method} | " + " | ".join(cells) + " |")
    if args.adult is not None:
        run_adult(args.adult, args.n_synth, 0, lc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
