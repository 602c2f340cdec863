"""bayesnb vs scikit-learn on the inputs users really pass: DataFrames, Fortran order, float32, Dask partitions.

The same ``N x 20`` simulated data as ``bench_dense.py`` (3 classes, no missing cells), given
to both libraries in each of these forms:

- ``C``: a C-ordered ndarray (the reference);
- ``DataFrame``: a pandas DataFrame of the same columns;
- ``Fortran``: a Fortran-ordered ndarray (what ``np.asfortranarray`` and many readers give);
- ``float32``: a C-ordered float32 ndarray of the same values;
- ``unaligned``: a C-ordered ndarray whose data start off an 8-byte boundary, as the
  partitions dask.distributed deserialises can.

Four estimators: GaussianNB (real features), CategoricalNB (int codes 0..4), BernoulliNB
(the codes read as raw counts, ``binarize=0.0``; bayesnb with ``class_alpha=0``, the same
model), and the mixed ``NaiveBayes(features={first 10 columns: Gaussian(), last 10:
Categorical()})``, against scikit-learn's GaussianNB on the real columns plus CategoricalNB
on the code columns, their joint log likelihoods added (the same model; class prior counted
once).

For each call (``fit``, ``predict_proba``, ``predict``): the best of ``--repeats`` wall
times with the two libraries interleaved, the ``tracemalloc`` peak over one call, and, with
``--rss`` (on by default from 1,000,000 rows), the growth of the resident set over one call
in a fresh subprocess (as ``bench_dense.py``). Ratios are bayesnb / scikit-learn. The load
average of the machine (``os.getloadavg()``) is printed at the start and the end; timings
taken above 1.5 per core are not quiet-machine figures, and ``--write-docs`` refuses to
record them in docs/benchmarks.md unless ``--force`` is given (the table then states the load).

Usage::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_inputs.py                  # 20,000 rows (~1 min)
    PYTHONPATH=. .venv/bin/python benchmarks/bench_inputs.py --rows 100000 1000000
    PYTHONPATH=. .venv/bin/python benchmarks/bench_inputs.py --only GaussianNB --layouts C Fortran
    PYTHONPATH=. .venv/bin/python benchmarks/bench_inputs.py --rows 100000 1000000 5000000 --rss-rows 1000000
    PYTHONPATH=. .venv/bin/python benchmarks/bench_inputs.py --write-docs     # refuses on a busy machine
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from bench_dense import D, call_of, data, interleaved, rss_growth
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

import bayesnb

CALLS = ("fit", "predict_proba", "predict")
LAYOUTS = ("C", "DataFrame", "Fortran", "float32", "unaligned")
#: the most load per core at which timings count as taken on a quiet machine
QUIET_LOAD_PER_CORE = 1.5
DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
START, END = "<!-- bench_inputs: start -->", "<!-- bench_inputs: end -->"
HALF = D // 2


class SkMixed:
    """scikit-learn's GaussianNB on the first ``HALF`` columns and CategoricalNB on the rest, as one model."""

    def fit(self, X, y):
        A = np.asarray(X)
        self.g_ = SkGaussianNB().fit(A[:, :HALF], y)
        self.c_ = SkCategoricalNB().fit(A[:, HALF:], y)
        return self

    def predict_joint_log_proba(self, X):
        A = np.asarray(X)
        jll = self.g_.predict_joint_log_proba(A[:, :HALF])
        jll += self.c_.predict_joint_log_proba(A[:, HALF:])
        jll -= self.c_.class_log_prior_  # the class prior counted once
        return jll

    def predict_proba(self, X):
        jll = self.predict_joint_log_proba(X)
        jll -= jll.max(axis=1, keepdims=True)
        np.exp(jll, out=jll)
        jll /= jll.sum(axis=1, keepdims=True)
        return jll

    def predict(self, X):
        return self.g_.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]


ESTIMATORS = {  # name: (data kind, bayesnb factory, scikit-learn factory)
    "GaussianNB": ("real", lambda: bayesnb.GaussianNB(), SkGaussianNB),
    "CategoricalNB": ("codes", lambda: bayesnb.CategoricalNB(), SkCategoricalNB),
    "BernoulliNB": ("codes", lambda: bayesnb.BernoulliNB(binarize=0.0, class_alpha=0),
                    lambda: SkBernoulliNB(binarize=0.0)),
    "NaiveBayes (mixed)": ("mixed", lambda: bayesnb.NaiveBayes(
        features={tuple(range(HALF)): bayesnb.Gaussian(), tuple(range(HALF, D)): bayesnb.Categorical()}), SkMixed),
}


def mixed_data(n, seed=0):
    """(X, y): the real features of ``bench_dense.data`` in the first half, its codes (as floats) in the second."""
    X, y = data(n, "real", seed)
    codes, _ = data(n, "codes", seed)
    X[:, HALF:] = codes[:, HALF:]
    return X, y


def make(n, kind, layout):
    """(X, y) of one estimator's data in one layout."""
    X, y = mixed_data(n) if kind == "mixed" else data(n, kind)
    if layout == "DataFrame":
        return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], copy=False), y
    if layout == "Fortran":
        return np.asfortranarray(X), y
    if layout == "float32":
        return X.astype(np.float32), y
    if layout == "unaligned":
        raw = np.empty(X.nbytes + 1, dtype=np.uint8)
        out = raw[1:].view(X.dtype).reshape(X.shape)
        out[...] = X
        return out, y
    return X, y


def load_per_core():
    """The 1-minute load average divided by the number of CPUs."""
    return os.getloadavg()[0] / (os.cpu_count() or 1)


def side_by_side(name, X, y, repeats):
    """``{call: ((t_ours, t_theirs), (tm_ours, tm_theirs))}``, the libraries interleaved."""
    _, make_ours, make_theirs = ESTIMATORS[name]
    models = (make_ours().fit(X, y), make_theirs().fit(X, y))
    return {call: interleaved([call_of(m, call, X, y) for m in models], repeats) for call in CALLS}


def child(name, layout, call, lib, n):
    """In a fresh process: print the RSS growth (MiB) of one call as JSON."""
    kind, make_ours, make_theirs = ESTIMATORS[name]
    X, y = make(n, kind, layout)
    model = (make_ours if lib == "bayesnb" else make_theirs)()
    if call != "fit":
        model.fit(X, y)
    print(json.dumps(rss_growth(call_of(model, call, X, y))))


def rss_in_subprocess(name, layout, call, lib, n):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps([name, layout, call, lib, n])]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"RSS subprocess failed for {name} {layout} {call} {lib}:\n{res.stderr}")
    got = json.loads(res.stdout.strip().splitlines()[-1])
    return got["rss_peak_mib"] if got["reset"] else float("nan")


def run_size(n, layouts, repeats, rss, lines):
    """Measure every (estimator, layout, call) at ``n`` rows; append the table's lines to ``lines``."""
    head = ("| estimator | input | call | bayesnb s | sklearn s | time | bayesnb tracemalloc MiB "
            "| sklearn tracemalloc MiB | tracemalloc |" + (" bayesnb RSS MiB | sklearn RSS MiB | RSS |" if rss else ""))
    table = [f"### {n:,} x {D}", "", head, "|---|---|---|" + "---:|" * (6 + (3 if rss else 0))]
    for line in table:
        print(line, flush=True)
    lines.extend(table)
    for name, (kind, _, _) in ESTIMATORS.items():
        for layout in layouts:
            X, y = make(n, kind, layout)
            got = side_by_side(name, X, y, repeats)
            del X, y
            gc.collect()
            for call in CALLS:
                (ta, tb), (ma, mb) = got[call]
                row = (f"| {name} | {layout} | {call} | {ta:.3f} | {tb:.3f} | {ta / tb:.2f}x | {ma:.1f} | {mb:.1f} "
                       f"| {ma / mb:.2f}x |")
                if rss:
                    ra, rb = (rss_in_subprocess(name, layout, call, lib, n) for lib in ("bayesnb", "sklearn"))
                    row += f" {ra:.1f} | {rb:.1f} | {ra / rb:.2f}x |"
                print(row, flush=True)
                lines.append(row)
    lines.append("")


def write_docs(lines, force, loads):
    """Replace the section between the markers of docs/benchmarks.md (append it the first time)."""
    worst = max(loads)
    if worst > QUIET_LOAD_PER_CORE and not force:
        print(f"\nNot writing {DOCS}: the load reached {worst:.2f} per core (> {QUIET_LOAD_PER_CORE}); timings are "
              "not quiet-machine figures. Rerun on a quiet machine, or pass --force (the table states the load).",
              file=sys.stderr)
        return False
    section = "\n".join([START, *lines, END])
    text = DOCS.read_text()
    if START in text and END in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOCS.write_text(text)
    print(f"\nwrote the tables into {DOCS}")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[20_000], help="sizes (default 20000: about a minute)")
    parser.add_argument("--repeats", type=int, default=2, help="timed calls per library (best kept)")
    parser.add_argument("--layouts", nargs="+", default=list(LAYOUTS), choices=LAYOUTS)
    parser.add_argument("--only", default=None, choices=list(ESTIMATORS), help="one estimator")
    parser.add_argument("--rss", action="store_true", help="RSS subprocesses at every size (default: >= 1e6 rows)")
    parser.add_argument("--no-rss", action="store_true", help="no RSS subprocesses")
    parser.add_argument("--rss-rows", type=int, nargs="+", default=None,
                        help="take RSS only at these sizes (default: every size >= 1e6)")
    parser.add_argument("--write-docs", action="store_true", help="record the tables in docs/benchmarks.md")
    parser.add_argument("--force", action="store_true", help="write the docs even on a busy machine")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*json.loads(args.child))
        return
    if args.only:
        for name in [e for e in ESTIMATORS if e != args.only]:
            del ESTIMATORS[name]
    cpus = os.cpu_count() or 1
    loads = [load_per_core()]
    t0 = time.perf_counter()
    lines = []
    for n in args.rows:
        rss = not args.no_rss and (args.rss or (n in args.rss_rows if args.rss_rows else n >= 1_000_000))
        run_size(n, args.layouts, args.repeats, rss, lines)
    loads.append(load_per_core())
    la = os.getloadavg()
    quiet = max(loads) <= QUIET_LOAD_PER_CORE
    header = [
        f"Measured {datetime.date.today().isoformat()} by `benchmarks/bench_inputs.py "
        f"{' '.join(sys.argv[1:])}` in {time.perf_counter() - t0:.0f} s: bayesnb {bayesnb.__version__}, "
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
        f"Python {platform.python_version()}, {cpus} CPUs.",
        "",
        f"Load average per core: {loads[0]:.2f} at the start, {loads[1]:.2f} at the end (1/5/15-minute load "
        f"averages at the end: {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f}). "
        + ("A quiet machine." if quiet else f"Above {QUIET_LOAD_PER_CORE} per core: a busy machine, where times "
           "are noisy (the two libraries are interleaved, so their ratios are less so); memory is not affected."),
        "",
    ]
    print("\n" + "\n".join(header))
    if args.write_docs:
        write_docs(header + lines, args.force, loads)


if __name__ == "__main__":
    main()
