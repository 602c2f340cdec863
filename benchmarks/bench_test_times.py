"""Time test files of two source trees side by side: the suite's cost before and after a change.

Each round runs every given test file once in each tree (``python -m pytest -q -n 0`` in a fresh
subprocess, the tree as working directory and ``PYTHONPATH``), the trees interleaved file by file so
that a change in the machine's load falls on both alike. Per file it reports the test time (the sum
of the test cases' times in pytest's JUnit XML: setup, call and teardown, without the interpreter's
start and collection), the subprocess's wall time, the ratio new / old of the test time (median over
rounds) and whether both runs passed (both trees read the large datasets of this checkout's ``../shared/data``
unless ``BAYESNB_SHARED_DATA`` says otherwise); then the totals and the machine's load average before and after.

The old tree is any exported commit, e.g. ``git -C /path/to/repo archive main | tar -x -C /tmp/old``.

``--cold`` gives each run a fresh, empty compile cache (``JAX_COMPILATION_CACHE_DIR``, which also holds
bayesnb's NUTS program cache), as on a fresh CI machine; ``--together`` runs all the given files in one
pytest process per tree (one row), so that tests of different files can share what one compiled.

Usage::

    .venv/bin/python benchmarks/bench_test_times.py --old /tmp/old tests/test_verdict.py tests/test_mnar.py
    .venv/bin/python benchmarks/bench_test_times.py --old /tmp/old --rounds 3 tests/test_verdict.py
    .venv/bin/python benchmarks/bench_test_times.py --old /tmp/old --cold --together tests/test_mcmc.py tests/test_nuts_loop.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_file(tree: Path, test: str, python: str, cold: bool = False) -> tuple[float, float, bool]:
    """Run one test file (or several, separated by spaces) in ``tree``: (summed test-case seconds, wall
    seconds, passed); ``cold``: with a fresh, empty compile cache."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        env = {"BAYESNB_SHARED_DATA": str(ROOT.parent / "shared" / "data"), **os.environ, "PYTHONPATH": str(tree)}
        if cold:
            env["JAX_COMPILATION_CACHE_DIR"] = str(Path(tmp) / "jax_cache")
        cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", f"--junitxml={xml}", *test.split()]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        cases = ET.parse(xml).getroot().iter("testcase") if xml.exists() else []
        return sum(float(c.get("time", 0.0)) for c in cases), wall, proc.returncode == 0


def main(argv: list[str] | None = None) -> int:
    """Time each test file in the old and the new tree, interleaved, and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tests", nargs="+", help="test files (paths relative to each tree)")
    ap.add_argument("--old", required=True, type=Path, help="the tree before the change")
    ap.add_argument("--new", type=Path, default=ROOT, help="the tree after the change (default: this one)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds (default 1); the median ratio is reported")
    ap.add_argument("--cold", action="store_true", help="each run with a fresh, empty compile cache")
    ap.add_argument("--together", action="store_true", help="all the files in one pytest process per tree")
    args = ap.parse_args(argv)
    if args.together:
        args.tests = [" ".join(args.tests)]
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    load = os.getloadavg()
    rows = {t: {"old": [], "new": []} for t in args.tests}
    for r in range(args.rounds):
        for t in args.tests:
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for side in order:
                tree = args.old if side == "old" else args.new
                if not all((tree / f).exists() for f in t.split()):
                    rows[t][side].append((0.0, 0.0, True))
                    continue
                rows[t][side].append(run_file(tree, t, sys.executable, args.cold))
    print(f"{'file':50s} {'old s':>8s} {'new s':>8s} {'ratio':>6s} {'old wall':>8s} {'new wall':>8s}  passed")
    tot = {"old": 0.0, "new": 0.0}
    for t, sides in rows.items():
        med = {s: statistics.median(x[0] for x in v) for s, v in sides.items()}
        wall = {s: statistics.median(x[1] for x in v) for s, v in sides.items()}
        ok = all(x[2] for v in sides.values() for x in v)
        ratios = [n[0] / o[0] for o, n in zip(sides["old"], sides["new"]) if o[0] > 0]
        ratio = statistics.median(ratios) if ratios else float("nan")
        for s in tot:
            tot[s] += med[s]
        print(f"{t:50s} {med['old']:8.1f} {med['new']:8.1f} {ratio:6.2f} {wall['old']:8.1f} {wall['new']:8.1f}  {ok}")
    print(f"{'total (median test seconds)':50s} {tot['old']:8.1f} {tot['new']:8.1f} "
          f"{tot['new'] / tot['old'] if tot['old'] else float('nan'):6.2f}")
    print(f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
