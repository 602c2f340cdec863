"""Import cost: ``import bayesnb`` against ``import sklearn.naive_bayes``, each in fresh subprocesses.

Two pairs of statements: ``import bayesnb`` against ``import sklearn.naive_bayes`` (the bar of
issue 29), and what a user pays to get an estimator, ``from bayesnb import NaiveBayes`` against
``from sklearn.naive_bayes import GaussianNB`` (``import bayesnb`` loads its estimators only when
first named).

Each round starts one fresh interpreter per statement (all four), the order running through the
rotations of the statements and of their reverse, round after round (so that load from other
jobs on a shared machine, and any effect of going first or last, hits all alike), and each
interpreter reports:

- time: ``time.perf_counter`` around the import statement alone (the interpreter's own
  start-up, the same for both, is left out);
- CPU time: ``time.process_time`` around the same statement (less disturbed by other jobs
  than the wall time; file reads waiting on the disk are not in it);
- peak RSS: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` right after the import (the
  interpreter's high-water mark, start-up included);
- heavy modules: which of :data:`HEAVY` the import left in ``sys.modules``;
- bayesnb modules: how many of ``bayesnb``'s own modules are then in ``sys.modules``, and the
  size of their compiled byte code (``.pyc`` files, kB), which the interpreter reads and
  unmarshals.

The script prints the median over the rounds of each, the ratios of the medians
(bayesnb / scikit-learn) of each pair and the target of issue 29 for the first pair (time <= 1.0x,
no heavy module; reported as met only when the wall and the CPU time ratios are both <= 1.0x).

Before the rounds, one warm-up interpreter per checkout runs all its statements with byte-code
writing allowed (even when ``PYTHONDONTWRITEBYTECODE`` is set), so that the rounds read compiled
``.pyc`` files as an installed package does, instead of compiling every module each time.

With ``--own`` two more interpreters per round split the cost of the second pair: each imports
one of ``sklearn.naive_bayes`` and ``NaiveBayes`` first, untimed, then times the other, so the row
holds only what the second adds of its own (``bayesnb``'s own modules; ``sklearn.naive_bayes``
and what it loads beyond ``bayesnb``).

With ``--baseline DIR`` two more interpreters per round run the two ``bayesnb`` statements with
the ``bayesnb`` of another checkout (``DIR`` first on ``PYTHONPATH``), e.g. an older commit exported with
``git archive REV | tar -x -C DIR``: before and after, measured side by side.
With both, one more interpreter per round times the baseline's own cost the same way.

Usage::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_import.py              # 20 rounds
    PYTHONPATH=. .venv/bin/python benchmarks/bench_import.py --rounds 5   # quick look
    PYTHONPATH=. .venv/bin/python benchmarks/bench_import.py --baseline /tmp/old   # also an older bayesnb
    PYTHONPATH=. .venv/bin/python benchmarks/bench_import.py --own        # also each one's own cost
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

#: modules ``import bayesnb`` must not load (issue 29); also checked by tests/test_import_cost.py
HEAVY = ("sklearn.ensemble", "matplotlib", "jax", "numpyro", "dask")

STATEMENTS = {"bayesnb": "import bayesnb", "sklearn.naive_bayes": "import sklearn.naive_bayes",
              "bayesnb: NaiveBayes": "from bayesnb import NaiveBayes",
              "sklearn.naive_bayes: GaussianNB": "from sklearn.naive_bayes import GaussianNB"}

#: the pairs compared (bayesnb's statement, scikit-learn's); the first is the bar of issue 29
PAIRS = (("bayesnb", "sklearn.naive_bayes"), ("bayesnb: NaiveBayes", "sklearn.naive_bayes: GaussianNB"))

#: ``--baseline``: the statements of :data:`STATEMENTS` also run with the baseline's ``bayesnb``
BASELINE = {"bayesnb (baseline)": "bayesnb", "bayesnb (baseline): NaiveBayes": "bayesnb: NaiveBayes"}

#: ``--own``: (untimed import first, timed statement) per row, on the second pair (``import bayesnb`` loads
#: only its helpers: the estimator is where its own modules are)
OWN = {"bayesnb: NaiveBayes's own (after sklearn.naive_bayes)": ("import sklearn.naive_bayes",
                                                                "from bayesnb import NaiveBayes"),
       "sklearn.naive_bayes's own (after bayesnb: NaiveBayes)": ("from bayesnb import NaiveBayes",
                                                                "import sklearn.naive_bayes")}

#: ``--own --baseline``: the baseline's ``from bayesnb import NaiveBayes`` after ``sklearn.naive_bayes``
BASELINE_OWN = "bayesnb (baseline): NaiveBayes's own (after sklearn.naive_bayes)"

#: run in the child: time the statement, then report its time, peak RSS and heavy modules as JSON
CHILD = """
import importlib.util, json, os, resource, sys, time
{prelude}
t, c = time.perf_counter(), time.process_time()
{statement}
seconds, cpu = time.perf_counter() - t, time.process_time() - c
rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
heavy = sorted(h for h in {heavy!r} if h in sys.modules)
where = getattr(sys.modules.get("bayesnb"), "__file__", None)
own = [m.__file__ for n, m in list(sys.modules.items())
       if (n == "bayesnb" or n.startswith("bayesnb.")) and getattr(m, "__file__", None)]
pyc = [importlib.util.cache_from_source(f) for f in own]
pyc_kb = sum(os.path.getsize(c) for c in pyc if os.path.exists(c)) / 1024
print(json.dumps({{"seconds": seconds, "cpu": cpu, "rss_mib": rss_mib, "heavy": heavy, "bayesnb": where,
                  "modules": len(own), "pyc_kb": pyc_kb}}))
"""


def measure(statement: str, env: dict | None = None, cwd: str | None = None, prelude: str = "") -> dict:
    """Import time, peak RSS and heavy modules of ``statement`` in a fresh interpreter.

    Parameters
    ----------
    statement : str
        The Python statement to time, e.g. ``"import bayesnb"``.
    env : dict, optional
        Environment of the child (default: this process's).
    cwd : str, optional
        Working folder of the child (first on its ``sys.path``; default: this process's).
    prelude : str, default=""
        A statement run before the timed one, untimed.

    Returns
    -------
    dict
        ``{"seconds": float, "cpu": float, "rss_mib": float, "heavy": list of str, "bayesnb": str or None,
        "modules": int, "pyc_kb": float}`` (``bayesnb``: the ``__file__`` of the ``bayesnb`` imported, if any;
        ``modules`` and ``pyc_kb``: how many of its modules are loaded and the size of their byte code).
    """
    code = CHILD.format(prelude=prelude, statement=statement, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                         cwd=cwd)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(rounds: int, baseline: str | None = None, own: bool = False, measure_rounds=None) -> dict:
    """Median time and peak RSS of each statement over ``rounds`` interleaved rounds.

    Parameters
    ----------
    rounds : int
        Fresh interpreters per statement (the order of the statements runs through their
        rotations and those of the reverse order, round after round).
    baseline : str, optional
        A folder holding another ``bayesnb`` package: also time the ``bayesnb`` statements with it
        (under the names of :data:`BASELINE`; with ``own``, also its own cost, :data:`BASELINE_OWN`).
    own : bool, default=False
        Also time each statement after the other (the rows of :data:`OWN`).
    measure_rounds : callable, optional
        Takes :func:`measure`'s arguments and returns what it returns; measures the rounds (default
        :func:`measure`; the warm-up interpreters always use :func:`measure`). The tests pass one that forks
        each interpreter from a server that has imported NumPy and pandas (``tests/forkserver.py``).

    Returns
    -------
    dict
        ``{name: {"seconds": median, "cpu": median, "rss_mib": median, "modules": median, "pyc_kb": median,
        "heavy": list}}`` for each name of
        :data:`STATEMENTS` (and of the baseline and :data:`OWN` when asked).
    """
    if rounds < 1:
        raise ValueError(f"bench_import: rounds must be at least 1, got {rounds}")
    jobs = {name: (statement, dict(os.environ), None, "") for name, statement in STATEMENTS.items()}
    if baseline is not None:
        if not (Path(baseline) / "bayesnb" / "__init__.py").is_file():
            raise ValueError(f"bench_import: no bayesnb package in --baseline {baseline!r}")
        path = os.pathsep.join([str(Path(baseline).resolve()), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        # ``python -c`` puts its working folder first on sys.path: run it in the baseline's folder
        jobs.update({name: (STATEMENTS[of], dict(os.environ, PYTHONPATH=path), baseline, "")
                     for name, of in BASELINE.items()})
        if own:  # the baseline's own modules, the figure least disturbed by scikit-learn's share
            jobs[BASELINE_OWN] = (STATEMENTS["bayesnb: NaiveBayes"], dict(os.environ, PYTHONPATH=path), baseline,
                                  "import sklearn.naive_bayes")
    if own:
        jobs.update({name: (statement, dict(os.environ), None, prelude) for name, (prelude, statement) in OWN.items()})
    checkouts = {}  # warm-up: write the .pyc files, one interpreter per checkout running all its statements
    for name, (statement, env, cwd, prelude) in jobs.items():
        checkouts.setdefault(cwd, (name, env, []))[2].extend(s for s in (prelude, statement) if s)
    for cwd, (name, env, statements) in checkouts.items():
        where = measure("\n".join(dict.fromkeys(statements)),
                        {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}, cwd)["bayesnb"]
        if cwd is not None and not Path(where).resolve().is_relative_to(Path(cwd).resolve()):
            raise RuntimeError(f"bench_import: {name} imported {where}, not the package in {cwd}")
    samples = {name: [] for name in jobs}
    names = list(jobs)  # the rotations of the order and of its reverse: each statement in each position alike
    orders = [seq[i:] + seq[:i] for seq in (names, names[::-1]) for i in range(len(seq))]
    for r in range(rounds):
        for name in orders[r % len(orders)]:
            samples[name].append((measure_rounds or measure)(*jobs[name]))
    return {name: {**{k: statistics.median(s[k] for s in runs) for k in ("seconds", "cpu", "rss_mib", "modules", "pyc_kb")},
                   "heavy": sorted({h for s in runs for h in s["heavy"]})}
            for name, runs in samples.items()}


def main(argv=None) -> int:
    """Print the table of medians and the ratio (bayesnb / scikit-learn)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20, help="fresh interpreters per statement (default 20)")
    ap.add_argument("--baseline", default=None, help="folder holding another bayesnb to time beside this one")
    ap.add_argument("--own", action="store_true", help="also time each import after the other (its own cost)")
    args = ap.parse_args(argv)
    res = run(args.rounds, args.baseline, args.own)
    print(f"median of {args.rounds} fresh interpreters each, interleaved; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| import | time s | CPU s | peak RSS MiB | bayesnb modules (byte code kB) | heavy modules loaded |")
    print("|---|---:|---:|---:|---:|---|")
    for name, r in res.items():
        print(f"| {name} | {r['seconds']:.3f} | {r['cpu']:.3f} | {r['rss_mib']:.1f} | "
              f"{r['modules']:.0f} ({r['pyc_kb']:,.0f}) | {', '.join(r['heavy']) or 'none'} |")
    print()
    pairs = list(PAIRS) + [(old, PAIRS[i][1]) for i, old in enumerate(BASELINE) if old in res]
    for i, (mine, theirs) in enumerate(pairs):
        bnb, sk = res[mine], res[theirs]
        ratio_t, ratio_c = bnb["seconds"] / sk["seconds"], bnb["cpu"] / sk["cpu"]
        line = (f"{mine} / {theirs}: time {ratio_t:.3f}x, CPU {ratio_c:.3f}x, "
                f"peak RSS {bnb['rss_mib'] / sk['rss_mib']:.3f}x")
        if i == 0:
            met = ratio_t <= 1.0 and ratio_c <= 1.0 and not bnb["heavy"]
            line += f"; target (time <= 1.0x, none of {', '.join(HEAVY)}): {'met' if met else 'MISSED'}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
