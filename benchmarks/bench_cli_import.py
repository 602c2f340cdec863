"""Start-up cost of the ``bayesnb`` command: ``bayesnb --help`` and ``bayesnb datasets list``, whole processes.

Each round runs ``python -m bayesnb ARGS`` once per command and per checkout (this one, and with
``--baseline DIR`` the ``bayesnb`` package in ``DIR``, e.g. an older commit exported with
``git archive REV | tar -x -C DIR``), the order rotating round after round so that load from
other jobs hits both alike. It reports the median wall time of the whole process (interpreter
start-up included, as a user meets it), the ratio to the baseline, and, from one more run of
each, how many of ``bayesnb``'s modules the command loaded. A warm-up run per checkout writes
the ``.pyc`` files first.

Usage::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_cli_import.py --rounds 5 --baseline /tmp/old
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = {"bayesnb --help": ["--help"], "bayesnb datasets list": ["datasets", "list"]}

#: run in the child: the command, then how many bayesnb modules it loaded
COUNT = ("import contextlib, io, sys\nfrom bayesnb.cli import main\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n    main({argv!r})\n"
         "print(sum(m == 'bayesnb' or m.startswith('bayesnb.') for m in sys.modules))")


def _env(where):
    path = os.pathsep.join([str(Path(where).resolve()), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": path}


def wall(argv, where):
    """Seconds of one ``python -m bayesnb *argv`` with the ``bayesnb`` of folder ``where``."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bayesnb", *argv], capture_output=True, check=True, env=_env(where),
                   cwd=where)
    return time.perf_counter() - t


def modules(argv, where):
    """How many ``bayesnb`` modules the command ``argv`` loads (the package of folder ``where``)."""
    out = subprocess.run([sys.executable, "-c", COUNT.format(argv=argv)], capture_output=True, text=True,
                         check=True, env=_env(where), cwd=where)
    return int(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    """Print the median wall time of each command in each checkout, interleaved, and the ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="runs per command and checkout (default 5)")
    ap.add_argument("--baseline", default=None, help="folder holding another bayesnb to time beside this one")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        raise SystemExit("bench_cli_import: --rounds must be at least 1")
    checkouts = {"this": str(Path(__file__).resolve().parents[1])}
    if args.baseline is not None:
        if not (Path(args.baseline) / "bayesnb" / "__init__.py").is_file():
            raise SystemExit(f"bench_cli_import: no bayesnb package in --baseline {args.baseline!r}")
        checkouts["baseline"] = args.baseline
    jobs = [(c, name) for name in COMMANDS for c in checkouts]
    for c, name in jobs:  # warm-up: write the .pyc files
        wall(COMMANDS[name], checkouts[c])
    times = {job: [] for job in jobs}
    for r in range(args.rounds):
        for job in jobs[r % len(jobs):] + jobs[:r % len(jobs)]:
            times[job].append(wall(COMMANDS[job[1]], checkouts[job[0]]))
    print(f"median of {args.rounds} runs each, interleaved; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| command | checkout | wall s (median) | bayesnb modules loaded | vs baseline |")
    print("|---|---|---:|---:|---:|")
    for c, name in jobs:
        med = statistics.median(times[(c, name)])
        base = statistics.median(times[("baseline", name)]) if "baseline" in checkouts else None
        ratio = f"{med / base:.2f}x" if base else ""
        print(f"| {name} | {c} | {med:.3f} | {modules(COMMANDS[name], checkouts[c])} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
