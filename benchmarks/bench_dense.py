"""bayesnb vs scikit-learn on dense data: wall time and peak memory, side by side, at several sizes.

Three estimators on ``N x 20`` simulated data without missing cells, 3 classes:

- GaussianNB on real features;
- CategoricalNB on integer codes (0..4, int64);
- BernoulliNB on raw counts (the same int64 codes, read as counts) with
  ``binarize=0.0`` (scikit-learn's default; bayesnb with ``class_alpha=0``, the same model).

For each call (``fit``, ``predict``, ``predict_proba``) and each size of the scale curve the
script reports, for bayesnb and scikit-learn:

- time: the best of 3 wall times (``time.perf_counter``), the two libraries interleaved so
  that load on a shared machine hits both alike;
- tracemalloc: the peak of ``tracemalloc`` over one call (Python and NumPy allocations);
- RSS: the growth of the resident set over one call, measured in a fresh subprocess per
  (estimator, call, library): the process makes its data (and fits, for a predict call),
  resets the kernel's high-water mark (``/proc/self/clear_refs``), makes the call, and
  reports ``VmHWM`` minus the resident set before the call. Only at 1,000,000 rows and
  above (smaller calls are within the noise of the allocator).

Targets (issue 11): fit and predict_proba of GaussianNB and CategoricalNB <= 1.0x
scikit-learn in time and peak memory; predict <= 0.8x in time; BernoulliNB fit on raw
counts <= 0.5x in time.

Usage::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_dense.py            # 1e4, 1e5, 1e6 rows
    PYTHONPATH=. .venv/bin/python benchmarks/bench_dense.py --large    # also 5e6 rows (~3 GB)
    PYTHONPATH=. .venv/bin/python benchmarks/bench_dense.py --quick    # 1e4, 1e5 rows
    PYTHONPATH=. .venv/bin/python benchmarks/bench_dense.py --rows 2000000   # one size
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import sklearn
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

import bayesnb

MIB = 2.0**20
D = 20
CALLS = ("fit", "predict", "predict_proba")
ESTIMATORS = {  # name: (data kind, bayesnb factory, scikit-learn factory)
    "GaussianNB": ("real", lambda: bayesnb.GaussianNB(), lambda: SkGaussianNB()),
    "CategoricalNB": ("codes", lambda: bayesnb.CategoricalNB(), lambda: SkCategoricalNB()),
    "BernoulliNB (raw counts)": ("codes", lambda: bayesnb.BernoulliNB(binarize=0.0, class_alpha=0),
                                 lambda: SkBernoulliNB(binarize=0.0)),
}
TARGETS = {  # (estimator, call): (time target, memory target or None)
    ("GaussianNB", "fit"): (1.0, 1.0), ("GaussianNB", "predict"): (0.8, None),
    ("GaussianNB", "predict_proba"): (1.0, 1.0),
    ("CategoricalNB", "fit"): (1.0, 1.0), ("CategoricalNB", "predict"): (0.8, None),
    ("CategoricalNB", "predict_proba"): (1.0, 1.0),
    ("BernoulliNB (raw counts)", "fit"): (0.5, None),
}


def data(n, kind, seed=0):
    """(X, y): ``n x 20`` real features (``"real"``) or int64 codes 0..4 (``"codes"``), 3 labels.

    Made in place, so that the peak while making it is about the size of the result.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    if kind == "real":
        X = rng.normal(size=(n, D))
        X += y[:, None] * 0.3
    else:
        X = rng.poisson(1.0 + y[:, None] * 0.5, size=(n, D))
        np.minimum(X, 4, out=X)
        X = X.astype(np.int64, copy=False)
    return X, y


def call_of(model, call, X, y):
    return (lambda: model.fit(X, y)) if call == "fit" else (lambda: getattr(model, call)(X))


def tracemalloc_peak(fn):
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / MIB


def interleaved(fns, repeats=3):
    """``(best wall times, tracemalloc peaks (MiB))`` of each function, their timed calls interleaved."""
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            gc.collect()
            t = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t)
    return tuple(best), tuple(tracemalloc_peak(fn) for fn in fns)


def side_by_side(name, X, y, repeats=3):
    """Rows ``(name, call, (t_ours, t_theirs), (tm_ours, tm_theirs))`` for every call."""
    _, make_ours, make_theirs = ESTIMATORS[name]
    ours, theirs = make_ours().fit(X, y), make_theirs().fit(X, y)
    return [(name, call, *interleaved((call_of(ours, call, X, y), call_of(theirs, call, X, y)), repeats))
            for call in CALLS]


# ------------------------------------------------------------------ RSS in a fresh process
def _rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MIB


def _hwm_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(name, call, lib, n):
    """Run in a fresh process: print the RSS growth (MiB) of one call as JSON."""
    kind, make_ours, make_theirs = ESTIMATORS[name]
    X, y = data(n, kind)
    model = (make_ours if lib == "bayesnb" else make_theirs)()
    if call != "fit":
        model.fit(X, y)
    print(json.dumps(rss_growth(call_of(model, call, X, y))))


def rss_growth(fn):
    """``{"rss_peak_mib", "reset"}``: the growth of the resident set over one call of ``fn``
    (the kernel's high-water mark reset just before; ``reset`` False where it cannot be)."""
    gc.collect()
    base = _rss_mib()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset the peak resident set to the current one
        reset = True
    except OSError:
        reset = False
    out = fn()
    peak = _hwm_mib()
    del out
    return {"rss_peak_mib": peak - base, "reset": reset}


def rss_in_subprocess(name, call, lib, n):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps([name, call, lib, n])]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"RSS subprocess failed for {name} {call} {lib}:\n{res.stderr}")
    got = json.loads(res.stdout.strip().splitlines()[-1])
    return got["rss_peak_mib"] if got["reset"] else float("nan")


# ------------------------------------------------------------------------------- report
def verdict(name, call, ratios):
    target = TARGETS.get((name, call))
    if target is None:
        return ""
    t_target, m_target = target
    ok = ratios[0] <= t_target and (m_target is None or all(r <= m_target for r in ratios[1:] if not np.isnan(r)))
    want = f"time <= {t_target}x" + (f", memory <= {m_target}x" if m_target else "")
    return f"{'met' if ok else 'MISSED'} ({want})"


def run_size(n, rss, table):
    print(f"\n## {n:,} x {D}\n")
    print("| estimator | call | bayesnb s | sklearn s | time | bayesnb tracemalloc MiB | sklearn tracemalloc MiB "
          "| tracemalloc | bayesnb RSS MiB | sklearn RSS MiB | RSS | target |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, (kind, _, _) in ESTIMATORS.items():
        X, y = data(n, kind)
        rows = side_by_side(name, X, y)
        del X, y
        gc.collect()
        for _, call, (ta, tb), (ma, mb) in rows:
            if rss:
                ra, rb = (rss_in_subprocess(name, call, lib, n) for lib in ("bayesnb", "sklearn"))
                rss_cells = f"{ra:.1f} | {rb:.1f} | {ra / rb:.2f}x"
                ratios = (ta / tb, ma / mb, ra / rb)
            else:
                rss_cells = "- | - | -"
                ratios = (ta / tb, ma / mb)
            print(f"| {name} | {call} | {ta:.3f} | {tb:.3f} | {ta / tb:.2f}x | {ma:.1f} | {mb:.1f} | {ma / mb:.2f}x "
                  f"| {rss_cells} | {verdict(name, call, ratios)} |", flush=True)
            table.append((n, name, call, ratios))


def impute_line(n):
    X, y = data(n, "real")
    rng = np.random.default_rng(1)
    X[rng.random(X.shape) < 0.01] = np.nan
    model = bayesnb.GaussianNB().fit(X, y)
    t = time.perf_counter()
    peak = tracemalloc_peak(lambda: model.impute(X))
    t = time.perf_counter() - t
    size = X.nbytes / MIB
    print(f"\nGaussianNB.impute on the plain {n:,} x {D} array ({size:.1f} MiB, 1% NaN): tracemalloc peak "
          f"{peak:.1f} MiB = {peak / size:.2f}x the input; {t:.3f} s (traced)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e4 and 1e5 rows only")
    parser.add_argument("--large", action="store_true", help="also 5,000,000 rows (about 3 GB)")
    parser.add_argument("--rows", type=int, default=None, help="one size only")
    parser.add_argument("--no-rss", action="store_true", help="skip the RSS subprocesses")
    parser.add_argument("--only", default=None, help="one estimator, e.g. CategoricalNB")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*json.loads(args.child))
        return
    if args.rows:
        sizes = [args.rows]
    elif args.quick:
        sizes = [10_000, 100_000]
    else:
        sizes = [10_000, 100_000, 1_000_000] + ([5_000_000] if args.large else [])
    print(f"# bench_dense: N x {D}, 3 classes; bayesnb {bayesnb.__version__}, scikit-learn "
          f"{sklearn.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs")
    print("time: best of 3, interleaved; tracemalloc: peak over one call; RSS: growth of the resident "
          "set over one call in a fresh process (>= 1e6 rows). Ratios are bayesnb / scikit-learn.")
    if args.only:
        for name in [e for e in ESTIMATORS if e != args.only]:
            del ESTIMATORS[name]
    table = []
    for n in sizes:
        run_size(n, rss=not args.no_rss and n >= 1_000_000, table=table)
    impute_line(min(max(sizes), 1_000_000))
    print("\n## Targets\n")
    for n, name, call, ratios in table:
        v = verdict(name, call, ratios)
        if v and n >= 1_000_000:
            mem = ", ".join(f"{r:.2f}x" for r in ratios[1:])
            print(f"{n:>9,} {name:<25} {call:<14} time {ratios[0]:.2f}x, memory (tracemalloc, RSS) {mem}: {v}")


if __name__ == "__main__":
    main()
