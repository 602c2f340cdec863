"""Benchmark: what a researcher waits for across ``run_mcmc`` calls on house votes (CategoricalNB).

Three calls, wall time each (model setup, compilation and sampling, as seen by the caller):

1. the first call in a fresh process with an empty persistent compile cache;
2. a second call in the same process with a *different* ``num_samples`` (must not recompile);
3. a new process with the cache that call 1 filled (JAX's persistent compilation cache).

Usage::

    python benchmarks/bench_mcmc_calls.py [--num-warmup 500] [--num-samples 1000] [--json out.json]

The cache folder is a new temporary one (``--cache-dir`` to choose), so call 1 is cold.
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
    from bayesnb import CategoricalNB
    from bayesnb.datasets import load_house_votes

    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"]
    clf = CategoricalNB().fit(X, y)
    t0 = time.perf_counter()
    dt = clf.run_mcmc(X, y, num_warmup=num_warmup, num_samples=num_samples, random_state=seed, progress_bar=False)
    wall = time.perf_counter() - t0
    a = dt.attrs
    return {"wall_s": wall, "compile_s": a["compile_seconds"], "sampling_s": a["sampling_seconds"],
            "cache_hit": bool(a["cache_hit"]), "draws": int(dt["posterior"].sizes["draw"])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-warmup", type=int, default=500)
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
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
