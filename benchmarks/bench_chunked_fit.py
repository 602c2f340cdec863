"""``bayesnb fit --chunksize`` against reading the same file with ``pandas.read_csv`` in the same chunks.

Generates a mixed CSV (``--rows`` rows: 3 real columns, a count, 2 text columns and a
3-class label), then runs, each in a fresh process (its wall time, CPU time and peak RSS):

- ``pandas``: ``for chunk in pandas.read_csv(FILE, chunksize=N): pass`` (the reference);
- ``fit given``: ``bayesnb fit FILE --target y --chunksize N --numeric-family gaussian
  --classes a,b,c`` (every family given: one pass);
- ``fit given, no --classes``: the same, with a first pass over the target column;
- ``fit auto``: ``bayesnb fit FILE --target y --chunksize N`` (families chosen on the first
  chunk: a first pass reads every column's type).

It prints one row per run (with its minor page faults after the imports), the ratio to
pandas' wall time and CPU time, and the machine's load (``os.getloadavg``) before and after;
issue 30's target is ``fit`` at most 3x pandas' wall time, at bounded memory, and issue 32's
the one-pass ``fit`` at most 3x pandas' CPU time.

Usage::

    .venv/bin/python benchmarks/bench_chunked_fit.py                 # 2,000,000 rows, chunks of 200,000
    .venv/bin/python benchmarks/bench_chunked_fit.py --rows 200000 --chunksize 50000
    .venv/bin/python benchmarks/bench_chunked_fit.py --profile   # where the one-pass fit's CPU goes
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

_CHILD = """
import resource, sys, time
t00 = time.perf_counter()
kind, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if kind == "pandas":
    import pandas as pd
    t0 = time.perf_counter()
    c0 = time.process_time()
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    rows = 0
    for chunk in pd.read_csv(path, chunksize=n):
        rows += len(chunk)
    code = 0
else:
    import bayesnb
    from bayesnb.cli import main
    print("FROM", bayesnb.__file__)
    t0 = time.perf_counter()
    c0 = time.process_time()
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    code = main(["-q", "fit", path, "--target", "y", "--chunksize", str(n), "-o", sys.argv[4], "--force",
                 *sys.argv[5:]])
ru = resource.getrusage(resource.RUSAGE_SELF)
t1 = time.perf_counter()
c1 = time.process_time()
print(f"RESULT {t1 - t0:.3f} {t1 - t00:.3f} {ru.ru_utime + ru.ru_stime:.3f} {ru.ru_maxrss / 1024:.1f} {c1 - c0:.3f} "
      f"{ru.ru_minflt - f0} {code}")
"""


def make_csv(path, rows, seed=0):
    """A mixed table of ``rows`` rows written to ``path`` (in blocks of 500,000 rows)."""
    rng = np.random.default_rng(seed)
    cities = np.array([f"city{i:02d}" for i in range(20)])
    with open(path, "w") as f:
        for start in range(0, rows, 500_000):
            m = min(500_000, rows - start)
            y = rng.choice(np.array(["a", "b", "c"]), m, p=[0.5, 0.3, 0.2])
            shift = (y == "b") * 1.0 + (y == "c") * 2.0
            df = pd.DataFrame({
                "age": np.round(rng.normal(40 + 3 * shift, 10, m), 1),
                "income": np.round(rng.lognormal(3 + 0.2 * shift, 1, m), 2),
                "score": np.round(rng.normal(shift, 1, m), 3),
                "kids": rng.poisson(1 + 0.3 * shift),
                "city": cities[rng.integers(0, 20, m)],
                "device": rng.choice(np.array(["mobile", "desktop", "tablet"]), m),
                "y": y,
            })
            df.to_csv(f, index=False, header=start == 0)


def run(kind, path, n, out, extra=(), root=None):
    """``(wall s after imports, process wall s, cpu s, peak RSS MiB, cpu s after imports, page faults after imports)``
    of one child process (bayesnb from ``root``)."""
    # PYTHONSAFEPATH: ``python -c`` would put the working directory first on sys.path, so that a
    # baseline run from a checkout would import that checkout's bayesnb, not ``root``'s
    env = dict(os.environ, PYTHONPATH=str(Path(root or Path(__file__).resolve().parents[1]).resolve()),
               PYTHONSAFEPATH="1")
    res = subprocess.run([sys.executable, "-c", _CHILD, kind, str(Path(path).resolve()), str(n), str(out), *extra],
                         capture_output=True, text=True, env=env, check=False)
    line = [s for s in res.stdout.splitlines() if s.startswith("RESULT")]
    if res.returncode or not line or line[0].split()[-1] != "0":
        raise SystemExit(f"{kind} failed:\n{res.stderr}")
    used = [s.split(maxsplit=1)[1] for s in res.stdout.splitlines() if s.startswith("FROM ")]
    if used and not Path(used[0]).resolve().is_relative_to(Path(env["PYTHONPATH"])):
        raise SystemExit(f"{kind}: imported bayesnb from {used[0]}, not from {env['PYTHONPATH']}")
    return tuple(float(v) for v in line[0].split()[1:7])


def profile(path, n, out, top=45):
    """cProfile (CPU clock) of the one-pass fit (families given, ``--classes``), in this process, after one warm-up
    run: the functions of bayesnb (and pyarrow's parse) by cumulative CPU seconds."""
    import cProfile
    import pstats

    from bayesnb.cli import main as cli

    args = ["-q", "fit", str(path), "--target", "y", "--chunksize", str(n), "-o", str(out), "--force",
            "--numeric-family", "gaussian", "--classes", "a,b,c"]
    cli(args)  # warm: imports, first allocations
    prof = cProfile.Profile(time.process_time)
    c0 = time.process_time()
    prof.enable()
    cli(args)
    prof.disable()
    print(f"one-pass fit under cProfile: {time.process_time() - c0:.2f} CPU s (load {os.getloadavg()[0]:.2f})")
    rows = sorted(((ct, name, nc, file.split("bayesnb/")[-1]) for (file, _, name), (_, nc, _, ct, _)
                   in pstats.Stats(prof).stats.items() if "/bayesnb/" in file and "/cli/__init__" not in file),
                  reverse=True)
    for ct, name, nc, file in rows[:top]:
        print(f"{ct:7.3f} s {nc:5d} calls  {name} ({file})")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--chunksize", type=int, default=200_000)
    p.add_argument("--data", default=None, help="CSV to use (written if missing; default: a temporary file)")
    p.add_argument("--baseline", default=None, metavar="DIR",
                   help="also time 'fit given, --classes' and 'fit auto' with the bayesnb of another checkout "
                        "(e.g. before a change)")
    p.add_argument("--repeat", type=int, default=1,
                   help="run every case this many times, in interleaved rounds, and keep each column's median "
                        "(a busy machine)")
    p.add_argument("--profile", action="store_true",
                   help="instead: where the one-pass fit's CPU time goes (cProfile, this checkout's bayesnb)")
    a = p.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="bench-chunked-")
    path = Path(a.data or os.path.join(folder, f"mixed-{a.rows}.csv"))
    if not path.exists():
        t0 = time.perf_counter()
        make_csv(path, a.rows)
        print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - t0:.1f} s")
    if a.profile:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's bayesnb
        return profile(path, a.chunksize, os.path.join(folder, "m.bnb"))
    load0 = os.getloadavg()[0]
    out = os.path.join(folder, "m.bnb")
    cases = [("pandas.read_csv (chunks)", "pandas", ()),
             ("fit given, --classes (1 pass)", "fit", ("--numeric-family", "gaussian", "--classes", "a,b,c")),
             ("fit given (target pass + fit)", "fit", ("--numeric-family", "gaussian")),
             ("fit auto (types pass + fit)", "fit", ())]
    if a.baseline:
        cases.append((f"fit given, --classes, {Path(a.baseline).name}", "fit",
                      ("--numeric-family", "gaussian", "--classes", "a,b,c"), a.baseline))
        cases.append((f"fit auto, {Path(a.baseline).name}", "fit", (), a.baseline))
    runs = [[] for _ in cases]
    for _ in range(max(1, a.repeat)):  # interleaved: each round runs every case once
        for i, (label, kind, extra, *root) in enumerate(cases):
            runs[i].append(run(kind, path, a.chunksize, out, extra, *root))
    rows = [(c[0], *np.median(np.array(r), axis=0)) for c, r in zip(cases, runs)]
    base = rows[0]
    print(f"\n{a.rows:,} rows, chunks of {a.chunksize:,}; median of {max(1, a.repeat)}; {os.cpu_count()} CPUs; "
          f"load {load0:.2f} before, {os.getloadavg()[0]:.2f} after; pandas {pd.__version__}")
    print("wall, cpu, faults (minor page faults): after the imports (bayesnb's take ~2-4 s; 'process' and "
          "'proc cpu' include them)")
    print(f"{'run':40} {'wall s':>7} {'cpu s':>6} {'process':>8} {'proc cpu':>8} {'peak MiB':>9} {'faults':>7} "
          f"{'x wall':>7} {'x cpu':>6}")
    for label, wall, proc, pcpu, rss, cpu, faults in rows:
        print(f"{label:40} {wall:7.2f} {cpu:6.2f} {proc:8.2f} {pcpu:8.2f} {rss:9.0f} {faults:7.0f} "
              f"{wall / base[1]:7.2f} {cpu / base[5]:6.2f}")

if __name__ == "__main__":
    main()
