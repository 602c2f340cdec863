"""Benchmark: what a researcher waits for across ``run_mcmc`` calls on house votes (CategoricalNB).

Three calls, wall time each (model setup, compilation and sampling, as seen by the caller):

1. the first call in a fresh process with an empty persistent compile cache;
2. a second call in the same process with a *different* ``num_samples`` (must not recompile);
3. a new process with the cache that call 1 filled (JAX's persistent compilation cache).

Usage::

    python benchmarks/bench_mcmc_calls.py [--num-warmup 500] [--num-samples 1000] [--json out.json]

The cache folder is a new temporary one (``--cache-dir`` to choose), so call 1 is cold.

``--sizes`` measures instead how compilation and warm sampling grow with the model: house votes
(66 parameters) against a simulated 2,000-row mixed table with ~600 parameters (8 categorical
columns of 12-78 values, 6 Gaussian columns on a raw scale of ~1e5 with sd ~1e5), each in a
fresh process with the persistent compile cache off (a cold compile), for the code of a git
revision (``--before``, default ``HEAD``; exported with ``git archive``) and the working tree,
side by side in one run, interleaved (house votes, mixed, house votes, mixed, ... for each
code in turn, ``--repeats`` times, default 3), with the load average beside each figure::

    python benchmarks/bench_mcmc_calls.py --sizes --before 0a9e7e9 [--repeats 3] [--json out.json]

``--processes`` measures the compile cache across processes: per repeat and code (``--before``
revision, working tree; interleaved), a new empty cache folder, a first process and a second
one, each timing one ``run_mcmc`` after its imports and ``fit``; second / first per pair::

    python benchmarks/bench_mcmc_calls.py --processes --before main [--repeats 3] [--json out.json]

Per model and code: compile seconds, warm sampling seconds (a second call in the same process,
same shapes), minimum bulk ESS per second of warm sampling, and ``compare_posteriors``' largest
|z| against 20,000 exact draws (both versions must sample the same posterior); the compile
ratio mixed / house votes as the median of the per-pair ratios (a pair: the two models of one
repeat and code, measured back to back) and as the ratio of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def one_call(num_warmup, num_samples, seed):
    """Wall seconds of one ``run_mcmc`` (house votes, fitted model) and its timing attributes."""
    import bayesnb.estimators._posterior_methods
    from bayesnb import CategoricalNB
    from bayesnb.datasets import load_house_votes

    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"]
    clf = CategoricalNB().fit(X, y)
    run_nuts, spent = bayesnb.inference.nuts.run_nuts, []

    def timed_run_nuts(*args, **kwargs):  # the call's time inside run_nuts (JAX's import included)
        t = time.perf_counter()
        out = run_nuts(*args, **kwargs)
        spent.append(time.perf_counter() - t)
        return out

    bayesnb.inference.nuts.run_nuts = timed_run_nuts
    try:
        t0 = time.perf_counter()
        dt = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=num_samples, random_state=seed,
                          progress_bar=False)
        wall = time.perf_counter() - t0
    finally:
        bayesnb.inference.nuts.run_nuts = run_nuts
    a = dt.attrs
    return {"wall_s": wall, "compile_s": a["compile_seconds"], "sampling_s": a["sampling_seconds"],
            "cache_hit": bool(a["cache_hit"]), "draws": int(dt["posterior"].sizes["draw"]),
            "program_cache": a.get("program_cache"), "run_nuts_s": sum(spent),
            "nuts_setup_s": sum(spent) - a["total_seconds"], "outside_run_nuts_s": wall - sum(spent)}


def _models():
    """(name, fitted estimator, X, y): house votes and the simulated ~600-parameter mixed table."""
    import numpy as np
    import pandas as pd

    from bayesnb import CategoricalNB, NaiveBayes
    from bayesnb.datasets import load_house_votes
    from bayesnb.families import Categorical, Gaussian

    df = load_house_votes()
    Xv, yv = df.drop(columns="party"), df["party"].to_numpy()
    rng = np.random.default_rng(0)
    n, vocab = 2000, (12, 18, 24, 30, 36, 42, 48, 78)
    y = rng.choice(["a", "b"], n, p=[0.6, 0.4])
    cols = {}
    for j, V in enumerate(vocab):  # class-dependent skewed value frequencies
        for k in ("a", "b"):
            p = rng.dirichlet(np.full(V, 0.7))
            idx = np.flatnonzero(y == k)
            cols.setdefault(f"c{j}", np.empty(n, dtype=object))[idx] = [f"v{v}" for v in rng.choice(V, idx.size, p=p)]
    for j in range(6):
        shift = np.where(y == "a", 0.0, 0.5e5 * (j + 1))
        cols[f"g{j}"] = 1e5 * (1 + j) + shift + 1e5 * (0.5 + 0.2 * j) * rng.standard_normal(n)
    X = pd.DataFrame(cols)
    mixed = NaiveBayes(features={tuple(f"c{j}" for j in range(len(vocab))): Categorical(),
                                 tuple(f"g{j}" for j in range(6)): Gaussian()}).fit(X, y)
    return [("house votes", CategoricalNB().fit(Xv, yv), Xv, yv), ("mixed 2000 rows", mixed, X, y)]


def size_child(name, num_warmup, num_samples):
    """One model in a fresh process: cold compile, then a warm second call; ESS/s and max |z|."""
    import warnings

    import numpy as np

    from bayesnb import compare_posteriors

    _, clf, X, y = next(m for m in _models() if m[0] == name)
    exact = clf.sample_posterior(20000, random_state=123)
    out = {}
    for call in ("first", "second"):
        dt = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=num_samples, random_state=1, progress_bar=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = compare_posteriors(exact, dt, verbose=False)
        a = dt.attrs
        out[call] = {"compile_s": a["compile_seconds"], "sampling_s": a["sampling_seconds"],
                     "min_ess_bulk": float(tab["ess_bulk"].min()), "max_abs_z": float(tab["z"].abs().max()),
                     "n_params": int(sum(np.isfinite(dt["posterior"][v].values[0, 0]).sum()  # pads are NaN
                                         for v in dt["posterior"].data_vars))}
    return out


def _loadavg():
    """The 1-minute load average (NaN where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return float("nan")


def _median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def sizes(args):
    """House votes vs the ~600-parameter mixed table, ``--before`` revision vs working tree, one run.

    Every measurement is a fresh process (persistent cache off). The order is interleaved,
    ``repeat x code x model`` (house votes, mixed, house votes, mixed, ...), so load drifts on a
    shared machine hit both models and both codes; a pair is the two models of one repeat and
    code, measured back to back, and the compile ratio is reported as the median of the pairs'
    ratios beside the ratio of the medians. The 1-minute load average is recorded per process.
    """
    import shutil

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    old = tempfile.mkdtemp(prefix="bayesnb-before-")
    archive = subprocess.run(["git", "-C", repo, "archive", args.before, "bayesnb"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", old], input=archive.stdout, check=True)
    codes = {f"before ({args.before})": old, "after (working tree)": repo}
    env = dict(os.environ, BAYESNB_JAX_CACHE="0")
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    models = ("house votes", "mixed 2000 rows")
    rows = []
    try:
        for rep in range(args.repeats):
            for code, path in codes.items():
                for model in models:  # house votes, mixed, house votes, mixed, ...: pairs back to back
                    load0 = _loadavg()
                    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--size-child", model,
                                          "--num-warmup", str(args.num_warmup), "--num-samples", str(args.num_samples)],
                                         capture_output=True, text=True, check=True,
                                         env=dict(env, PYTHONPATH=path), cwd=old)
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                    rows.append({"repeat": rep, "model": model, "code": code, "n_params": r["first"]["n_params"],
                                 "compile_s": r["first"]["compile_s"], "warm_sampling_s": r["second"]["sampling_s"],
                                 "min_ess_bulk": r["second"]["min_ess_bulk"],
                                 "ess_per_s": r["second"]["min_ess_bulk"] / r["second"]["sampling_s"],
                                 "max_abs_z": r["second"]["max_abs_z"], "load_1min": 0.5 * (load0 + _loadavg())})
                    print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(old, ignore_errors=True)
    loads = [r["load_1min"] for r in rows]
    print(f"\n{args.num_warmup} warmup + {args.num_samples} draws, 1 chain, cold compile (cache off); "
          f"median over {args.repeats} repeat(s), each a fresh process, interleaved; "
          f"1-minute load average {min(loads):.1f}-{max(loads):.1f} (median {_median(loads):.1f}) "
          f"on {os.cpu_count()} CPU(s)")
    print(f"{'model':18s} {'code':24s} {'params':>6s} {'compile s':>10s} {'warm sampling s':>16s} "
          f"{'min ESS':>8s} {'ESS/s':>8s} {'max|z|':>7s}")
    med = {}
    for model in models:
        for code in codes:
            sel = [r for r in rows if r["model"] == model and r["code"] == code]
            m = {k: _median([r[k] for r in sel]) for k in
                 ("compile_s", "warm_sampling_s", "min_ess_bulk", "ess_per_s", "max_abs_z")}
            med[model, code] = m
            print(f"{model:18s} {code:24s} {sel[0]['n_params']:6d} {m['compile_s']:10.2f} {m['warm_sampling_s']:16.2f} "
                  f"{m['min_ess_bulk']:8.0f} {m['ess_per_s']:8.0f} {m['max_abs_z']:7.2f}")
    for code in codes:
        pairs = [next(r["compile_s"] for r in rows if r["repeat"] == rep and r["code"] == code and r["model"] == models[1])
                 / next(r["compile_s"] for r in rows if r["repeat"] == rep and r["code"] == code and r["model"] == models[0])
                 for rep in range(args.repeats)]
        print(f"{code}: compile mixed / house votes = {_median(pairs):.2f}x (median of the {len(pairs)} pairs' ratios: "
              f"{', '.join(f'{p:.2f}' for p in pairs)}); ratio of the medians "
              f"{med[models[1], code]['compile_s'] / med[models[0], code]['compile_s']:.2f}x")
    return rows


def processes(args):
    """First vs second process on one compile-cache folder, ``--before`` revision vs working tree, one run.

    Per repeat and code (interleaved: before, after, before, after, ...): a new empty cache
    folder (``JAX_COMPILATION_CACHE_DIR``), a first process (cold: compiles and fills the cache)
    and then a second process (warm cache), each a fresh interpreter timing one ``run_mcmc``
    call after its imports and ``fit``. The ratio second / first is reported per pair (the two
    processes of one repeat and code, back to back) and as the median of those ratios.
    """
    import shutil

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    old = tempfile.mkdtemp(prefix="bayesnb-before-")
    archive = subprocess.run(["git", "-C", repo, "archive", args.before, "bayesnb"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", old], input=archive.stdout, check=True)
    codes = {f"before ({args.before})": old, "after (working tree)": repo}
    env = {k: v for k, v in os.environ.items() if k not in ("BAYESNB_JAX_CACHE", "JAX_COMPILATION_CACHE_DIR")}
    rows = []
    try:
        for rep in range(args.repeats):
            for code, path in codes.items():
                cache = tempfile.mkdtemp(prefix="bayesnb-jax-cache-")
                try:
                    pair = {}
                    for call in ("first", "second"):
                        load0 = _loadavg()
                        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--num-warmup",
                                              str(args.num_warmup), "--num-samples", str(args.num_samples)],
                                             capture_output=True, text=True, check=True, cwd=old,
                                             env=dict(env, PYTHONPATH=path, JAX_COMPILATION_CACHE_DIR=cache))
                        pair[call] = dict(json.loads(out.stdout.strip().splitlines()[-1]),
                                          load_1min=0.5 * (load0 + _loadavg()))
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
                first, second = pair["first"]["wall_s"], pair["second"]["wall_s"]
                rows.append({"repeat": rep, "code": code, "first_s": first, "second_s": second, "ratio": second / first,
                             "second_program_cache": pair["second"].get("program_cache"),
                             "second_parts": {k: pair["second"][k] for k in
                                              ("nuts_setup_s", "compile_s", "sampling_s", "outside_run_nuts_s")},
                             "load_1min": [pair["first"]["load_1min"], pair["second"]["load_1min"]]})
                print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(old, ignore_errors=True)
    loads = [x for r in rows for x in r["load_1min"]]
    print(f"\nhouse votes, {args.num_warmup} warmup + {args.num_samples} draws, 1 chain; run_mcmc wall seconds in a "
          f"first and a second fresh process on one new cache folder; {args.repeats} repeat(s), interleaved; "
          f"1-minute load average {min(loads):.1f}-{max(loads):.1f} (median {_median(loads):.1f}) "
          f"on {os.cpu_count()} CPU(s)")
    print(f"{'code':28s} {'first s':>8s} {'second s':>9s} {'second/first':>13s}  per pair")
    for code in codes:
        sel = [r for r in rows if r["code"] == code]
        print(f"{code:28s} {_median([r['first_s'] for r in sel]):8.2f} {_median([r['second_s'] for r in sel]):9.2f} "
              f"{_median([r['ratio'] for r in sel]):12.2f}x  {', '.join(format(r['ratio'], '.2f') for r in sel)}")
    print("second process, median s: run_nuts before the sampler (JAX's import, setup) / getting the sampler "
          "(key + load or trace + compile) / sampling / outside run_nuts (model arrays, DataTree with its imports)")
    for code in codes:
        parts = [_median([r["second_parts"][k] for r in rows if r["code"] == code])
                 for k in ("nuts_setup_s", "compile_s", "sampling_s", "outside_run_nuts_s")]
        print(f"{code:28s} " + " / ".join(f"{p:.2f}" for p in parts))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-warmup", type=int, default=500)
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sizes", action="store_true", help="house votes vs a ~600-parameter mixed table, before vs after")
    ap.add_argument("--processes", action="store_true",
                    help="first vs second process on one new cache folder, before vs after")
    ap.add_argument("--before", default="HEAD", help="git revision measured as 'before' by --sizes and --processes")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of each --sizes or --processes measurement")
    ap.add_argument("--size-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.size_child:
        print(json.dumps(size_child(args.size_child, args.num_warmup, args.num_samples)))
        return None
    if args.sizes or args.processes:
        rows = sizes(args) if args.sizes else processes(args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=2)
        return rows
    if args.child:  # the new process of call 3
        print(json.dumps(one_call(args.num_warmup, args.num_samples, 2)))
        return None
    cache = args.cache_dir or tempfile.mkdtemp(prefix="bayesnb-jax-cache-")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = cache  # read by JAX at import; bayesnb keeps it
    rows = {"first call (cold cache)": one_call(args.num_warmup, args.num_samples, 0),
            f"second call, num_samples={2 * args.num_samples}": one_call(args.num_warmup, 2 * args.num_samples, 1)}
    out = subprocess.run([sys.executable, __file__, "--child", "--num-warmup", str(args.num_warmup),
                          "--num-samples", str(args.num_samples)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, JAX_COMPILATION_CACHE_DIR=cache))
    rows["new process, warm cache"] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"house votes, {args.num_warmup} warmup, cache {cache}")
    print(f"{'call':40s} {'wall s':>8s} {'compile s':>10s} {'sampling s':>11s} {'draws':>6s} cache_hit")
    for name, r in rows.items():
        print(f"{name:40s} {r['wall_s']:8.2f} {r['compile_s']:10.2f} {r['sampling_s']:11.2f} {r['draws']:6d} "
              f"{r['cache_hit']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return rows


if __name__ == "__main__":
    main()
