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
    python benchmarks/bench_mcmc.py --quick --precision float32,float64   # both, side by side
    python benchmarks/bench_mcmc.py --compare --num-warmup 1000 --num-samples 1000

``--compare`` runs, instead, bayesnb's NUTS, the same model hand-written in plain NumPyro and
PyMC (optional: ``pip install 'bayesnb[bench]'``) side by side on house votes, same warmup,
draws and chain: a first call (empty compile caches), a second call in the same process with a
new number of draws, and a new process with the caches the first call filled; compile and
sampling seconds, min bulk ESS, ESS/s excluding and including compile.

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
    from bayesnb.inference.draws import sample_posterior_draws

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


def bench_nuts(name, clf, X, y, likelihood, num_warmup, num_samples, exact, precision="float32"):
    from bayesnb import compare_posteriors

    rows = []
    for call in ("first", "second"):
        mc = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=num_samples, random_state=len(rows),
                          likelihood=likelihood, precision=precision)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = compare_posteriors(exact, mc, verbose=False)
        a = mc.attrs
        rows.append({
            "model": name, "likelihood": likelihood, "precision": precision, "call": call, "cache_hit": bool(a["cache_hit"]),
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


# --------------------------------------------------------------------------- --compare
# bayesnb's NUTS, the same model hand-written in plain NumPyro, and PyMC, side by side.
LIBS = ("bayesnb", "numpyro", "pymc")
_COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration",
                   "/jax/core/compile/backend_compile_duration", "/jax/compilation_cache/cache_retrieval_time_sec")
_JAX_COMPILE = {"on": False, "s": 0.0, "listening": False}


def votes_model():
    """House votes as the one model all three libraries sample.

    ``pi ~ Dirichlet(class_alpha)``, ``theta[k, j] ~ Dirichlet(alpha)`` over the categories of
    feature ``j``, and the likelihood on sufficient statistics (bayesnb's default
    ``likelihood="suffstats"``): ``sum_k n_k log pi_k + sum_kjv n_kjv log theta_kjv``, missing
    cells left out. Returns the fitted estimator, its data and the arrays of the model, with the
    exact posterior's mean and sd (flattened: ``pi`` then ``theta`` (class, feature, category)).
    """
    from bayesnb import CategoricalNB
    from bayesnb.datasets import load_house_votes

    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy()
    clf = CategoricalNB(alpha=1.0).fit(X, y)  # the naive default, explicit: the arrays below need the number
    classes = np.unique(y)
    cats = [np.unique(X[c].dropna().astype(str)) for c in X.columns]
    V = {len(c) for c in cats}
    if len(V) != 1:
        raise ValueError(f"expected the same number of categories in every column; received {sorted(V)}")
    counts = np.array([[[np.sum((y == k) & (X[c].astype(str) == v).to_numpy()) for v in cv]
                        for c, cv in zip(X.columns, cats)] for k in classes], dtype=float)
    class_count = np.array([np.sum(y == k) for k in classes], dtype=float)
    a_pi = clf.class_alpha + class_count
    a_th = clf.alpha + counts
    m_pi, m_th = a_pi / a_pi.sum(), a_th / a_th.sum(-1, keepdims=True)
    sd_pi = np.sqrt(m_pi * (1 - m_pi) / (a_pi.sum() + 1))
    sd_th = np.sqrt(m_th * (1 - m_th) / (a_th.sum(-1, keepdims=True) + 1))
    arrays = {"class_alpha": np.full(len(classes), float(clf.class_alpha)),
              "alpha": np.full(counts.shape, float(clf.alpha)), "counts": counts, "class_count": class_count}
    exact = (np.r_[m_pi, m_th.ravel()], np.r_[sd_pi, sd_th.ravel()])
    return clf, X, y, arrays, exact


def _numpyro_model(class_alpha, alpha, counts, class_count):
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    pi = numpyro.sample("pi", dist.Dirichlet(class_alpha))
    theta = numpyro.sample("theta", dist.Dirichlet(alpha).to_event(2))  # (class, feature, category)
    numpyro.factor("y", (class_count * jnp.log(pi)).sum())
    numpyro.factor("x", (counts * jnp.log(theta)).sum())


def _listen_jax_compile():
    """Add up JAX's tracing, lowering and compile events while ``_JAX_COMPILE["on"]`` (registered once)."""
    import jax.monitoring

    if _JAX_COMPILE["listening"]:
        return
    _JAX_COMPILE["listening"] = True

    def on(event, duration, **kw):
        if _JAX_COMPILE["on"] and event in _COMPILE_EVENTS:
            _JAX_COMPILE["s"] += duration

    jax.monitoring.register_event_duration_secs_listener(on)


def _flat(samples):
    """(chain, draw, ...) arrays -> one (chain, draw, n) array, in the order given."""
    return np.concatenate([np.asarray(v, dtype=float).reshape(v.shape[0], v.shape[1], -1) for v in samples], axis=-1)


def one_call(lib, ctx, num_warmup, num_samples, seed):
    """One call of ``lib``: wall, compile and sampling seconds, min bulk ESS and the largest
    ``|mean - exact mean| / exact sd`` over the 66 parameters."""
    from bayesnb.inference.mcmc_stats import ess_bulk

    clf, X, y, arr, (m_ex, sd_ex) = ctx
    t0 = time.perf_counter()
    if lib == "bayesnb":
        dt = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=num_samples, random_state=seed,
                          progress_bar=False)
        wall = time.perf_counter() - t0
        post = dt["posterior"]
        theta = [v for k, v in post.data_vars.items() if k != "pi"]
        if len(theta) != 1 or theta[0].shape[2:] != arr["counts"].shape:
            raise ValueError(f"unexpected posterior layout {dict(post.sizes)}")
        draws = _flat([post["pi"].values, theta[0].values])
        compile_s, sampling_s = dt.attrs["compile_seconds"], dt.attrs["sampling_seconds"]
    elif lib == "numpyro":
        import jax
        from numpyro.infer import MCMC, NUTS

        _JAX_COMPILE.update(on=True, s=0.0)
        try:
            mcmc = MCMC(NUTS(_numpyro_model), num_warmup=num_warmup, num_samples=num_samples, num_chains=1,
                        progress_bar=False)
            mcmc.run(jax.random.PRNGKey(seed), **{k: np.asarray(v, np.float32) for k, v in arr.items()})
            s = mcmc.get_samples(group_by_chain=True)
            draws = _flat([s["pi"], s["theta"]])
        finally:
            _JAX_COMPILE["on"] = False
        wall = time.perf_counter() - t0
        compile_s = min(_JAX_COMPILE["s"], wall)
        sampling_s = wall - compile_s
    else:
        import pymc as pm
        import pytensor.tensor as pt

        with pm.Model() as model:
            pi = pm.Dirichlet("pi", a=arr["class_alpha"])
            theta = pm.Dirichlet("theta", a=arr["alpha"])  # (class, feature, category)
            pm.Potential("y", (arr["class_count"] * pt.log(pi)).sum())
            pm.Potential("x", (arr["counts"] * pt.log(theta)).sum())
        dt = pm.sample(num_samples, tune=num_warmup, chains=1, cores=1, random_seed=seed, progressbar=False,
                       compute_convergence_checks=False, model=model)
        wall = time.perf_counter() - t0
        draws = _flat([dt["posterior"]["pi"].values, dt["posterior"]["theta"].values])
        sampling_s = float(dt["posterior"].attrs["sampling_time"])  # PyMC's own: tuning + draws
        compile_s = wall - sampling_s  # model compilation (PyTensor) and initialisation
    ess = float(ess_bulk(draws).min())
    return {"library": lib, "draws": int(draws.shape[1]), "wall_s": wall, "compile_s": compile_s,
            "sampling_s": sampling_s, "min_ess_bulk": ess, "ess_per_s_excl_compile": ess / sampling_s,
            "ess_per_s_incl_compile": ess / wall,
            "max_mean_err_sd": float(np.max(np.abs(draws.mean(axis=(0, 1)) - m_ex) / sd_ex))}


def _child(lib, num_warmup, num_samples):
    """The new-process call: imports, data, then one timed call (the caches filled by the parent)."""
    t0 = time.perf_counter()
    _import(lib)
    ctx = votes_model()
    setup = time.perf_counter() - t0
    row = one_call(lib, ctx, num_warmup, num_samples, 2)
    row["import_and_data_s"] = setup
    print(json.dumps(row))


def _import(lib):
    """Import ``lib`` (and what its call needs) outside the timed call."""
    if lib == "pymc":
        import pymc  # noqa: F401
    else:
        import numpyro.infer  # noqa: F401

        import bayesnb.estimators._posterior_methods  # noqa: F401
        _listen_jax_compile()


def have_pymc():
    try:
        import pymc  # noqa: F401
    except ImportError:
        return False
    return True


def compare(num_warmup, num_samples, second_samples, libs):
    """First call, second call (``second_samples`` draws) and a new process, for each library."""
    import subprocess
    import sys

    if "pymc" in libs and not have_pymc():
        print("PyMC not installed: its rows are left out (pip install 'bayesnb[bench]').")
        libs = [lib for lib in libs if lib != "pymc"]
    for lib in libs:
        _import(lib)
    ctx = votes_model()
    rows = []
    for lib in libs:
        for call, n, seed in (("first call", num_samples, 0), (f"second call ({second_samples} draws)",
                                                               second_samples, 1)):
            r = one_call(lib, ctx, num_warmup, n, seed)
            r["call"] = call
            rows.append(r)
            print(f"  {lib:8s} {call:28s} wall {r['wall_s']:7.2f} s", flush=True)
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", lib, "--num-warmup",
                              str(num_warmup), "--num-samples", str(num_samples)],
                             capture_output=True, text=True, env=dict(os.environ), check=False)
        if out.returncode:
            raise RuntimeError(f"the new-process {lib} call failed:\n{out.stderr[-3000:]}")
        r = json.loads(out.stdout.strip().splitlines()[-1])
        r["call"] = "new process, warm cache"
        rows.append(r)
        print(f"  {lib:8s} {r['call']:28s} wall {r['wall_s']:7.2f} s", flush=True)
    return rows


def print_compare(rows, num_warmup, num_samples):
    print(f"\nhouse votes, 66 parameters, suff-stat likelihood; {num_warmup} warmup, 1 chain; "
          f"load avg {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("| library | call | draws | compile s | sampling s | wall s | min ESS | ESS/s excl. compile "
          "| ESS/s incl. compile | max abs(mean - exact)/sd |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['library']} | {r['call']} | {r['draws']} | {r['compile_s']:.2f} | {r['sampling_s']:.2f} | "
              f"{r['wall_s']:.2f} | {r['min_ess_bulk']:.0f} | {r['ess_per_s_excl_compile']:.0f} | "
              f"{r['ess_per_s_incl_compile']:.0f} | {r['max_mean_err_sd']:.3f} |")
    by = {(r["library"], r["call"]): r for r in rows}
    libs = list(dict.fromkeys(r["library"] for r in rows))
    warm = "new process, warm cache"
    print("\nratios, measured side by side in this run:")
    if "numpyro" in libs:
        sec = next(c for (lib, c) in by if lib == "bayesnb" and c.startswith("second"))
        print(f"  warm ESS/s of the second call less its compile events (NumPyro's per-call setup counted as "
              f"sampling; the pure loops: bench_nuts_loop.py), bayesnb / plain NumPyro: "
              f"{by[('bayesnb', sec)]['ess_per_s_excl_compile'] / by[('numpyro', sec)]['ess_per_s_excl_compile']:.2f}x")
        print(f"  compile, first call, bayesnb / plain NumPyro: "
              f"{by[('bayesnb', 'first call')]['compile_s'] / by[('numpyro', 'first call')]['compile_s']:.2f}x")
    for lib in libs[1:]:
        sec = next(c for (lb, c) in by if lb == lib and c.startswith("second"))
        print(f"  wall, second call in the same process, bayesnb / {lib}: "
              f"{by[('bayesnb', sec)]['wall_s'] / by[(lib, sec)]['wall_s']:.2f}x")
        print(f"  total wall ({num_warmup} warmup + {num_samples} draws, new process, warm cache), bayesnb / {lib}: "
              f"{by[('bayesnb', warm)]['wall_s'] / by[(lib, warm)]['wall_s']:.2f}x "
              f"({by[('bayesnb', warm)]['wall_s']:.2f} s vs {by[(lib, warm)]['wall_s']:.2f} s)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-warmup", type=int, default=500)
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--json", default=None, help="write the results to this JSON file")
    ap.add_argument("--quick", action="store_true", help="house votes only, sufficient-statistics likelihood")
    ap.add_argument("--precision", default="float32",
                    help="precision(s) of run_mcmc in the exact-vs-NUTS table: float32, float64 or both, "
                         "comma-separated (run side by side)")
    ap.add_argument("--compare", action="store_true",
                    help="instead: bayesnb vs plain NumPyro vs PyMC on house votes (first, second, new process)")
    ap.add_argument("--libs", default=",".join(LIBS), help="--compare: libraries, comma-separated")
    ap.add_argument("--second-samples", type=int, default=2000, help="--compare: draws of the second call")
    ap.add_argument("--keep-caches", action="store_true",
                    help="--compare: use the configured compile caches instead of new empty ones")
    ap.add_argument("--child", choices=LIBS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.num_warmup, args.num_samples)
        return None
    if args.compare:
        if not args.keep_caches:  # empty caches, read by JAX and PyTensor when they are imported
            import tempfile

            tmp = tempfile.mkdtemp(prefix="bayesnb-bench-mcmc-")
            os.environ["JAX_COMPILATION_CACHE_DIR"] = os.path.join(tmp, "jax")
            os.environ["PYTENSOR_FLAGS"] = ",".join(filter(None, [os.environ.get("PYTENSOR_FLAGS"),
                                                                  f"base_compiledir={tmp}/pytensor"]))
            print(f"empty compile caches in {tmp} (JAX and PyTensor)")
        rows = compare(args.num_warmup, args.num_samples, args.second_samples, args.libs.split(","))
        print_compare(rows, args.num_warmup, args.num_samples)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=2)
        return rows

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
            for precision in args.precision.split(","):
                if precision not in ("float32", "float64"):
                    raise SystemExit(f"--precision: expected float32 and/or float64; received {precision!r}")
                results["nuts"].extend(bench_nuts(name, clf, X, y, form, args.num_warmup, args.num_samples, exact,
                                                  precision))

    nuts = pd.DataFrame(results["nuts"])
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    print(f"NUTS: num_warmup={args.num_warmup}, num_samples={args.num_samples}, 1 chain; {results['machine']}")
    print(nuts.drop(columns=["n_params", "verdict_text"]).round(4).to_string(index=False))
    for row in results["nuts"]:
        print(f"{row['model']}, {row['likelihood']}, {row['precision']}, {row['call']} call: {row['verdict_text']}")
    print()
    print(pd.DataFrame(results["exact"]).round(2).to_string(index=False))
    precisions = args.precision.split(",")
    if len(precisions) > 1:
        p = nuts.set_index(["model", "likelihood", "call", "precision"])
        for (name, form, call), _ in nuts.groupby(["model", "likelihood", "call"], sort=False):
            a, b = (p.loc[(name, form, call, q)] for q in ("float64", "float32"))
            comp = f"{a['compile_s'] / b['compile_s']:.2f}x" if b["compile_s"] > 0 else "n/a (cached)"
            print(f"{name}, {form}, {call} call: float64 / float32 compile {comp}, "
                  f"sampling {a['sampling_s'] / b['sampling_s']:.2f}x, min ESS/s {a['min_ess_per_s'] / b['min_ess_per_s']:.2f}x")
    for name, *_ in models if not args.quick else []:
        sub = nuts[(nuts.model == name) & (nuts.call == "second") & (nuts.precision == precisions[0])]
        sub = sub.set_index("likelihood")
        ex = next(e for e in results["exact"] if e["model"] == name)
        print(f"{name}: suff-stat vs per-row sampling time {sub.loc['rows', 'sampling_s'] / sub.loc['suffstats', 'sampling_s']:.1f}x; "
              f"exact draws vs NUTS (suffstats) ESS/s: {ex['exact_draws_per_s'] / sub.loc['suffstats', 'min_ess_per_s']:.0f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return results


if __name__ == "__main__":
    main()
