"""Benchmark: warm ESS per second of pure sampling, bayesnb's NUTS loop vs NumPyro's ``MCMC`` loop.

Both libraries sample the *same* NumPyro model (``make_model(spec)`` of
``estimator_inputs(clf, X, y)``, the default ``likelihood="suffstats"``), same warmup, draws, one
chain, target acceptance 0.8, float32, and both are timed **without tracing or compiling**:

- **bayesnb**: ``run_nuts`` is called once to compile; each timed call is a later call with the
  same shapes (a cache hit: no trace, no compile). Its seconds are the whole call (the
  initialiser, ``warmup + draws`` NUTS steps, the draws copied to NumPy).
- **NumPyro**: one ``MCMC(NUTS(model), jit_model_args=True, progress_bar=False)`` object is run
  once, then each timed call is a later ``mcmc.run`` with the same shapes. ``MCMC.run``
  re-lowers and recompiles its sampling loop on every call, so the loop program
  (``fori_collect``'s) is compiled ahead of its call, apart, and its "loop" seconds are the
  call of that compiled program alone (``warmup + draws`` NUTS steps, to
  ``block_until_ready``): NumPyro's own program without tracing or compiling. "Whole call" is
  all of ``mcmc.run`` with that compile, as a user sees it. JAX's tracing and compile events
  during the timed calls are counted (bayesnb: none).
- **NumPyro, Dirichlet** (house votes only): the hand-written model of
  ``bench_mcmc.py --compare`` (``pi``, ``theta`` as Dirichlet sites), timed as NumPyro above:
  the parameterisation a NumPyro user would write.

ESS is the min bulk ESS over every parameter of the model (``pi`` and each block's
constrained parameters, as ``mcmc_draws`` names them). The libraries are interleaved,
seed by seed; each seed is timed ``--repeats`` times (the same draws each time) and its least
time kept, so a busy machine's pauses count less; before each timed call the process collects
its garbage and waits 0.3 s, so that no thread of the previous call (NumPyro's compile) still
runs. ``--clock cpu`` times CPU seconds of the process (every thread) instead of wall seconds:
on a machine shared with other work, wall seconds measure the scheduler as much as the
sampler, CPU seconds the work each loop does. The ratio reported is the median over
seeds of the ESS/s ratios of the same seed, and the ratio of ESS/s pooled over the seeds
(sum of ESS / sum of seconds).

Usage::

    python benchmarks/bench_nuts_loop.py [--num-warmup 1000] [--num-samples 1000] [--seeds 5] [--repeats 3]
                                         [--clock wall|cpu] [--datasets votes,penguins] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time

import numpy as np

_COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration",
                   "/jax/core/compile/backend_compile_duration")
_STATE = {"on": False, "s": 0.0, "n": 0, "loop_s": 0.0}
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = [time.perf_counter]


def clock():
    """The clock of the timings (``--clock``): wall seconds, or CPU seconds of the process (all its threads)."""
    return _clock[0]()


def _listen():
    import jax.monitoring

    def on(event, duration, **kw):
        if _STATE["on"] and event in _COMPILE_EVENTS:
            _STATE["s"] += duration
            _STATE["n"] += 1

    jax.monitoring.register_event_duration_secs_listener(on)


def _time_fori_collect():
    """Time NumPyro's sampling loop alone: the program ``fori_collect`` runs is compiled ahead, apart.

    ``MCMC.run`` re-lowers and recompiles its loop on every call (``fori_collect`` jits a new
    closure each time), so a second ``run`` is not free of compiling. Here ``numpyro.util.maybe_jit``
    of that loop (``_fori_collect_loop``) is compiled ahead of time (``jit(...).lower(...).compile()``,
    not timed), and only the call of the compiled program, ended by ``block_until_ready``, is timed:
    NumPyro's own program, without tracing or compiling."""
    import jax
    import numpyro.util as u

    inner = u.maybe_jit

    def patched(fn, *args, **kwargs):
        jitted = inner(fn, *args, **kwargs)
        if getattr(fn, "__name__", "") != "_fori_collect_loop":
            return jitted
        static = kwargs.get("static_argnums", ())

        def run(*a):
            compiled = jitted.lower(*a).compile()
            dyn = [x for i, x in enumerate(a) if i not in static]
            t0 = clock()
            out = jax.block_until_ready(compiled(*dyn))
            _STATE["loop_s"] += clock() - t0
            return out

        return run

    u.maybe_jit = patched


def datasets(names):
    """``{name: (clf, X, y)}`` of the bundled tables."""
    from bayesnb import CategoricalNB, NaiveBayes
    from bayesnb.datasets import load_house_votes, load_penguins

    out = {}
    for name in names:
        if name == "votes":
            df = load_house_votes()
            X, y = df.drop(columns="party"), df["party"].to_numpy()
            out[name] = (CategoricalNB(alpha=1.0).fit(X, y), X, y)
        elif name == "penguins":
            df = load_penguins()
            X, y = df.drop(columns="species"), df["species"].to_numpy()
            out[name] = (NaiveBayes().fit(X, y), X, y)
        else:
            raise SystemExit(f"--datasets: votes and/or penguins; received {name!r}")
    return out


def _min_ess(spec, samples):
    from bayesnb.inference.mcmc_stats import ess_bulk
    from bayesnb.inference.nuts import mcmc_draws

    draws = mcmc_draws(spec, samples)
    flat = np.concatenate([np.asarray(v, float).reshape(v.shape[0], v.shape[1], -1) for v in draws.values()], -1)
    ok = np.isfinite(flat).all(axis=(0, 1)) & (flat.std(axis=(0, 1)) > 0)
    return float(ess_bulk(flat[..., ok]).min()), int(ok.sum())


def _dirichlet_votes(class_alpha, alpha, counts, class_count):
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    pi = numpyro.sample("pi", dist.Dirichlet(class_alpha))
    theta = numpyro.sample("theta", dist.Dirichlet(alpha).to_event(2))
    numpyro.factor("y", (class_count * jnp.log(pi)).sum())
    numpyro.factor("x", (counts * jnp.log(theta)).sum())


def _votes_arrays(clf, X, y):
    classes = np.unique(y)
    cats = [np.unique(X[c].dropna().astype(str)) for c in X.columns]
    counts = np.array([[[np.sum((y == k) & (X[c].astype(str) == v).to_numpy()) for v in cv]
                        for c, cv in zip(X.columns, cats)] for k in classes], dtype=np.float32)
    class_count = np.array([np.sum(y == k) for k in classes], dtype=np.float32)
    return {"class_alpha": np.full(len(classes), float(clf.class_alpha), np.float32),
            "alpha": np.full(counts.shape, float(clf.alpha), np.float32), "counts": counts,
            "class_count": class_count}


class Bayesnb:
    name = "bayesnb"

    def __init__(self, spec, priors, data, W, S):
        from bayesnb.inference.nuts import run_nuts

        self.spec, self.run = spec, lambda seed: run_nuts(spec, priors, data, num_warmup=W, num_samples=S,
                                                          seed=seed, progress_bar=False)
        self.run(10_000)  # compile

    def timed(self, seed):
        t0 = clock()
        samples, extra, timing = self.run(seed)
        wall = clock() - t0
        if not timing["cache_hit"]:
            raise RuntimeError("bayesnb: the timed call was not a cache hit")
        return samples, wall, wall, float(np.mean(extra["num_steps"]))


class Numpyro:
    name = "numpyro"

    def __init__(self, spec, priors, data, W, S, model=None, args=None, flat=None):
        import jax
        from numpyro.infer import MCMC, NUTS, init_to_uniform

        from bayesnb.inference.numpyro_model import make_model

        self.spec, self.flat = spec, flat
        self.args = (priors, data) if args is None else args
        self.mcmc = MCMC(NUTS(make_model(spec) if model is None else model, init_strategy=init_to_uniform,
                              target_accept_prob=0.8), num_warmup=W, num_samples=S, num_chains=1,
                         progress_bar=False, jit_model_args=True)
        self._key = jax.random.PRNGKey
        self.mcmc.run(self._key(10_000), *self.args, extra_fields=("num_steps",))  # compile

    def timed(self, seed):
        _STATE["loop_s"] = 0.0
        t0 = clock()
        self.mcmc.run(self._key(seed), *self.args, extra_fields=("num_steps",))
        s = self.mcmc.get_samples(group_by_chain=True)
        samples = {k: np.asarray(v) for k, v in s.items()}
        steps = float(np.mean(self.mcmc.get_extra_fields()["num_steps"]))
        return samples, _STATE["loop_s"], clock() - t0, steps


def _ess_of(lib, samples):
    if lib.flat is not None if hasattr(lib, "flat") else False:
        from bayesnb.inference.mcmc_stats import ess_bulk

        x = np.concatenate([np.asarray(samples[k], float).reshape(1, samples[k].shape[1], -1) for k in lib.flat], -1)
        return float(ess_bulk(x).min()), x.shape[-1]
    return _min_ess(lib.spec, samples)


def bench(names, W, S, seeds, repeats=3, clock_name="wall"):
    """Rows of (dataset, library, seed): loop seconds, run seconds, min ESS, ESS/s."""
    import jax

    from bayesnb.inference.numpyro_model import estimator_inputs

    _clock[0] = CLOCKS[clock_name]
    _listen()
    _time_fori_collect()
    rows = []
    with jax.enable_x64(False):
        for name, (clf, X, y) in datasets(names).items():
            spec, priors, data = estimator_inputs(clf, X, y)
            libs = [Bayesnb(spec, priors, data, W, S), Numpyro(spec, priors, data, W, S)]
            if name == "votes":
                lib = Numpyro(spec, None, None, W, S, model=_dirichlet_votes,
                              args=tuple(_votes_arrays(clf, X, y).values()), flat=("pi", "theta"))
                lib.name = "numpyro, Dirichlet"
                libs.append(lib)
            for seed in range(seeds):
                for lib in libs:
                    _STATE.update(on=True, s=0.0, n=0)
                    loop_s = run_s = np.inf
                    for _ in range(repeats):  # the same seed, the same draws: the least time of the repeats
                        gc.collect()
                        time.sleep(0.3)  # let the last call's leftover threads (NumPyro's compile) finish
                        samples, loop_r, run_r, steps = lib.timed(seed)
                        loop_s, run_s = min(loop_s, loop_r), min(run_s, run_r)
                    _STATE["on"] = False
                    ess, n = _ess_of(lib, samples)
                    rows.append({"dataset": name, "library": lib.name, "seed": seed, "params": n,
                                 "loop_s": loop_s, "run_s": run_s, "min_ess_bulk": ess,
                                 "ess_per_s": ess / loop_s, "leapfrog_per_draw": steps,
                                 "compile_events": _STATE["n"],
                                 "compile_s": _STATE["s"]})
                    print(f"  {name:8s} {lib.name:18s} seed {seed}: loop {loop_s:.3f} s, run {run_s:.3f} s, "
                          f"min ESS {ess:.0f}, ESS/s {ess / loop_s:.0f}, leapfrog/draw {steps:.1f}, compile events {_STATE['n']}", flush=True)
    return rows


def report(rows, W, S, clock_name="wall"):
    import pandas as pd

    df = pd.DataFrame(rows)
    print(f"\n{W} warmup + {S} draws, 1 chain, float32, {clock_name} seconds; load avg {os.getloadavg()} on {os.cpu_count()} cores")
    g = df.groupby(["dataset", "library"], sort=False)
    tab = g.agg(params=("params", "first"), loop_s=("loop_s", "median"), run_s=("run_s", "median"),
                min_ess=("min_ess_bulk", "median"), steps=("leapfrog_per_draw", "median"), ess_per_s=("ess_per_s", "median"),
                compile_events=("compile_events", "max"))
    print("| dataset | library | params | loop s (median) | whole call s (median) | min bulk ESS (median) "
          "| ESS/s (median) | leapfrog steps per draw (median) | trace/compile events |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (d, lib), r in tab.iterrows():
        print(f"| {d} | {lib} | {r.params} | {r.loop_s:.3f} | {r.run_s:.3f} | {r.min_ess:.0f} | "
              f"{r.ess_per_s:.0f} | {r.steps:.1f} | {r.compile_events} |")
    print("\nbayesnb / NumPyro, median over seeds of the per-seed ratio:")
    for d in df.dataset.unique():
        ours = df[(df.dataset == d) & (df.library == "bayesnb")].set_index("seed")
        for lib in df[(df.dataset == d) & (df.library != "bayesnb")].library.unique():
            o = df[(df.dataset == d) & (df.library == lib)].set_index("seed")
            r = ours.ess_per_s / o.ess_per_s
            t = o.loop_s / ours.loop_s
            pooled = (ours.min_ess_bulk.sum() / ours.loop_s.sum()) / (o.min_ess_bulk.sum() / o.loop_s.sum())
            print(f"  {d}: vs {lib}: ESS/s {r.median():.2f}x (per seed {', '.join(f'{v:.2f}' for v in r)}; "
                  f"pooled over seeds {pooled:.2f}x); seconds {1 / t.median():.2f}x; "
                  f"min ESS {(ours.min_ess_bulk / o.min_ess_bulk).median():.2f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-warmup", type=int, default=1000)
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3, help="timed calls per seed (the least time is kept)")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="wall seconds, or CPU seconds of the process (steadier on a busy machine)")
    ap.add_argument("--datasets", default="votes,penguins")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = bench(args.datasets.split(","), args.num_warmup, args.num_samples, args.seeds, args.repeats, args.clock)
    report(rows, args.num_warmup, args.num_samples, args.clock)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return rows


if __name__ == "__main__":
    main()
