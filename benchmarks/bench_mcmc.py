"""Benchmark: NUTS vs exact conjugate draws on the house-votes model (and iris, Gaussian).

For each model and likelihood form (sufficient statistics / per row) it reports the
wall time of a first ``run_mcmc`` call split into compile and sampling (the sampler is
compiled ahead of the run), the same for a second call with the same shapes (cached sampler), min bulk
ESS per second of sampling, divergences, max |MCMC mean - exact mean|, the largest |z|
of the mean and sd checks, and ``compare_posteriors``' verdict (AGREE/DISAGREE against its
Bonferroni limit ``z_limit``: the pass/fail mark); and exact conjugate draws per second.

Usage::

    python benchmarks/bench_mcmc.py [--num-samples 1000] [--num-warmup 500] [--json out.json]
    python benchmarks/bench_mcmc.py --quick     # house votes, suffstats only

bayesnb's persistent compilation cache is on by default: run with ``BAYESNB_JAX_CACHE=0`` (and no
``JAX_COMPILATION_CACHE_DIR``) to measure cold compiles, as in the docs' table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings

import numpy as np


def bench_exact(clf, n_draws=1000, repeats=20):
    clf.sample_posterior(n_draws, random_state=0)  # warm up (imports)
    from bayesnb.model import sample_posterior_draws

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(repeats):
        sample_posterior_draws(clf.posterior_, n_draws, rng)
    raw = (time.perf_counter() - t0) / repeats
    t0 = time.perf_counter()
    for _ in range(5):
        clf.sample_posterior(n_draws, random_state=0)
    with_dt = (time.perf_counter() - t0) / 5
    return {"exact_ms_per_1000_draws": 1000 * raw * 1000 / n_draws, "exact_draws_per_s": n_draws / raw,
            "exact_ms_per_1000_draws_with_datatree": 1000 * with_dt * 1000 / n_draws}


def bench_nuts(name, clf, X, y, likelihood, num_warmup, num_samples, exact):
    from bayesnb import compare_posteriors

    rows = []
    for call in ("first", "second"):
        mc = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=num_samples, random_state=len(rows),
                          likelihood=likelihood)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = compare_posteriors(exact, mc, verbose=False)
        a = mc.attrs
        rows.append({
            "model": name, "likelihood": likelihood, "call": call, "cache_hit": bool(a["cache_hit"]),
            "total_s": a["total_seconds"], "compile_s": a["compile_seconds"], "sampling_s": a["sampling_seconds"],
            "min_ess_bulk": float(tab["ess_bulk"].min()),
            "min_ess_per_s": float(tab["ess_bulk"].min() / a["sampling_seconds"]),
            "divergences": int(mc["sample_stats"]["diverging"].values.sum()),
            "max_abs_mean_diff": float((tab["mcmc_mean"] - tab["exact_mean"]).abs().max()),
            "max_abs_z": float(tab["z"].abs().max()),
            "max_abs_z_sd": float(tab["z_sd"].abs().max()),
            "z_limit": float(tab.attrs["limit"]),
            "max_sd_rel_diff": float(tab["sd_rel_diff"].abs().max()),
            "n_params": len(tab), "verdict": "AGREE" if tab.attrs["ok"] else "DISAGREE",
            "verdict_text": tab.attrs["verdict"],
        })
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-warmup", type=int, default=500)
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--json", default=None, help="write the results to this JSON file")
    ap.add_argument("--quick", action="store_true", help="house votes only, sufficient-statistics likelihood")
    args = ap.parse_args(argv)

    import jax
    import pandas as pd
    from sklearn.datasets import load_iris

    from bayesnb import CategoricalNB, GaussianNB
    from bayesnb.datasets import load_house_votes

    df = load_house_votes()
    Xv, yv = df.drop(columns="party"), df["party"].to_numpy()
    iris = load_iris()
    Xi, yi = pd.DataFrame(iris.data, columns=iris.feature_names), iris.target_names[iris.target]
    models = [("house votes (CategoricalNB, 66 params, 435 rows)", CategoricalNB().fit(Xv, yv), Xv, yv),
              ("iris (GaussianNB, 27 params, 150 rows)", GaussianNB().fit(Xi, yi), Xi, yi)]
    if args.quick:
        models = models[:1]
    results = {"machine": {"python": platform.python_version(), "jax": jax.__version__,
                           "devices": str(jax.devices()), "cpus": os.cpu_count(),
                           "persistent_cache": os.environ.get("JAX_COMPILATION_CACHE_DIR") or "off"},
               "num_warmup": args.num_warmup, "num_samples": args.num_samples, "nuts": [], "exact": []}
    for name, clf, X, y in models:
        exact = clf.sample_posterior(20000, random_state=123)
        ex = bench_exact(clf)
        ex["model"] = name
        results["exact"].append(ex)
        for form in ("suffstats",) if args.quick else ("suffstats", "rows"):
            results["nuts"].extend(bench_nuts(name, clf, X, y, form, args.num_warmup, args.num_samples, exact))

    nuts = pd.DataFrame(results["nuts"])
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    print(f"NUTS: num_warmup={args.num_warmup}, num_samples={args.num_samples}, 1 chain; {results['machine']}")
    print(nuts.drop(columns=["n_params", "verdict_text"]).round(4).to_string(index=False))
    for row in results["nuts"]:
        print(f"{row['model']}, {row['likelihood']}, {row['call']} call: {row['verdict_text']}")
    print()
    print(pd.DataFrame(results["exact"]).round(2).to_string(index=False))
    for name, *_ in models if not args.quick else []:
        sub = nuts[(nuts.model == name) & (nuts.call == "second")].set_index("likelihood")
        ex = next(e for e in results["exact"] if e["model"] == name)
        print(f"{name}: suff-stat vs per-row sampling time {sub.loc['rows', 'sampling_s'] / sub.loc['suffstats', 'sampling_s']:.1f}x; "
              f"exact draws vs NUTS (suffstats) ESS/s: {ex['exact_draws_per_s'] / sub.loc['suffstats', 'min_ess_per_s']:.0f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return results


if __name__ == "__main__":
    main()
