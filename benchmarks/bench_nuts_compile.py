"""Benchmark: the cold cost of NUTS (build, trace, lower, compile, first run) in two source trees, and whether they draw alike.

Each case is one ``run_nuts`` / ``run_mcmc`` call of the test suite's kind, made first in a fresh
process with an empty compile cache (``JAX_COMPILATION_CACHE_DIR``, which also holds bayesnb's
program cache), then again with the same shapes and another seed (an in-process cache hit: only
sampling). Both are timed in CPU seconds of the process (every thread): on a machine shared with
other work, wall seconds measure the scheduler more than the work. The cases:

- ``votes``: CategoricalNB on house votes, the counts likelihood, 500 warmup steps, 200 draws;
- ``votes_bar``: the same model with a progress bar (calls of 100 steps), 150 warmup, 130 draws;
- ``votes64``: the same model in float64, 100 warmup, 50 draws;
- ``gauss_vec``: GaussianNB, 2 vectorized chains, 200 warmup, 100 draws;
- ``bern_rows``: BernoulliNB on house votes, the rows likelihood, 100 warmup, 100 draws;
- ``latent_tan``: a TAN on a third of penguins with 2 latent components (started at the EM fit),
  60 warmup, 20 draws.

With ``--old DIR`` the cases run in both trees, in one fresh subprocess per tree and round (the
trees interleaved, the order swapped each round), and the table gives the median CPU seconds and
whether every draw of every case is bit for bit the same in both trees.

Usage::

    .venv/bin/python benchmarks/bench_nuts_compile.py --old /tmp/old [--rounds 2]
    .venv/bin/python benchmarks/bench_nuts_compile.py            # this tree only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ("votes", "votes_bar", "votes64", "gauss_vec", "bern_rows", "latent_tan")


def _cases():
    """``{name: callable returning {site: draws}}``: each call of a case draws with a seed given to it."""
    import numpy as np

    from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, NaiveBayes
    from bayesnb.datasets import load_house_votes, load_penguins
    from bayesnb.inference.numpyro_model import estimator_inputs
    from bayesnb.inference.nuts import run_nuts

    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"]
    spec, priors, data = estimator_inputs(CategoricalNB().fit(X, y), X, y)
    rng = np.random.default_rng(0)
    Xg, yg = np.r_[rng.normal(0, 1, (60, 2)), rng.normal(2, 1.5, (60, 2))], np.repeat([0, 1], 60)
    g = GaussianNB().fit(Xg, yg)
    Xb = (X == "y").astype(int)
    b = BernoulliNB().fit(Xb, y)
    dp = load_penguins().iloc[::3]
    Xp, yp = dp[["island", "sex", "bill_length_mm", "flipper_length_mm"]], dp["species"].to_numpy()
    m = NaiveBayes(structure="tan", k=2).fit(Xp, yp)

    def posterior(dt):
        return {k: v.values for k, v in dt["posterior"].data_vars.items()}

    return {
        "votes": lambda s: run_nuts(spec, priors, data, num_warmup=500, num_samples=200, seed=s, progress_bar=False)[0],
        "votes_bar": lambda s: run_nuts(spec, priors, data, num_warmup=150, num_samples=130, seed=s,
                                        progress_bar=True)[0],
        "votes64": lambda s: run_nuts(spec, priors, data, num_warmup=100, num_samples=50, seed=s, progress_bar=False,
                                      precision="float64")[0],
        "gauss_vec": lambda s: posterior(g.run_mcmc(Xg, yg, num_warmup=200, num_samples=100, num_chains=2,
                                                    chain_method="vectorized", random_state=s, progress_bar=False)),
        "bern_rows": lambda s: posterior(b.run_mcmc(Xb, y, num_warmup=100, num_samples=100, likelihood="rows",
                                                    random_state=s, progress_bar=False)),
        "latent_tan": lambda s: posterior(m.run_mcmc(Xp, yp, n_components=2, num_warmup=60, num_samples=20,
                                                     random_state=s, progress_bar=False)),
    }


def run_here(draws_file):
    """Run every case in this process (cold, then warm); print one JSON line of CPU seconds; save the draws."""
    import numpy as np

    cases = _cases()
    cold, warm, draws = {}, {}, {}
    for name in CASES:
        t = time.process_time()
        out = cases[name](0)
        cold[name] = time.process_time() - t
        t = time.process_time()
        cases[name](1)
        warm[name] = time.process_time() - t
        draws.update({f"{name}/{k}": np.asarray(v) for k, v in out.items()})
    np.savez(draws_file, **draws)
    print(json.dumps({"cold": cold, "warm": warm}))


def run_tree(tree: Path, draws_file: str) -> dict:
    """The cases in a fresh subprocess of ``tree`` with an empty compile cache: ``{"cold": {...}, "warm": {...}}``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(tree), "JAX_COMPILATION_CACHE_DIR": tmp, "PYTHONWARNINGS": "ignore"}
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--here", draws_file], cwd=tree, env=env,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: {proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    """Time the cases in this tree (and ``--old``), interleaved, and print the table."""
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, help="the tree before the change")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--here", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.here:
        run_here(args.here)
        return 0
    trees = {"new": ROOT} if args.old is None else {"old": args.old, "new": ROOT}
    runs = {side: [] for side in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for side in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                runs[side].append(run_tree(trees[side], os.path.join(tmp, f"{side}{r}.npz")))
        same = None
        if args.old is not None:
            a, b = np.load(os.path.join(tmp, "old0.npz")), np.load(os.path.join(tmp, "new0.npz"))
            same = sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a)
    print(f"{'case':12s}" + "".join(f" {side + ' ' + kind:>10s}" for side in trees for kind in ("cold", "warm")))
    tot = {(side, kind): 0.0 for side in trees for kind in ("cold", "warm")}
    for name in CASES:
        row = ""
        for side in trees:
            for kind in ("cold", "warm"):
                v = statistics.median(run[kind][name] for run in runs[side])
                tot[side, kind] += v
                row += f" {v:10.2f}"
        print(f"{name:12s}{row}")
    print(f"{'total':12s}" + "".join(f" {tot[side, kind]:10.2f}" for side in trees for kind in ("cold", "warm")))
    if same is not None:
        print("draws bit for bit the same in both trees:", same)
    return 0


if __name__ == "__main__":
    sys.exit(main())
