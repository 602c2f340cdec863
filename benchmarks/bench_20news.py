"""bayesnb vs scikit-learn on the full 20 Newsgroups "bydate" train/test split.

The texts are vectorised ONCE with scikit-learn's ``CountVectorizer`` (default
settings) fitted on the training split; every estimator then sees the very same
matrices. For each alpha the script times ``fit`` and ``predict_proba`` of
``bayesnb.MultinomialNB(alpha=A, class_alpha=0)`` and ``sklearn MultinomialNB(alpha=A)``
side by side (interleaved, median of N runs after a warm-up, ``time.perf_counter``),
and the same for ``BernoulliNB`` on the binary bag of words and ``ComplementNB``
(``norm=False`` at each alpha, ``norm=True`` at the first) on the counts. It also reports
bayesnb's exact posterior predictive (``predictive="marginal"``) and the
evidence-maximising ``alpha="auto"``.

Targets (issue 2): fit <= 0.5x scikit-learn's time, predict_proba <= 1.0x,
identical predictions at the same alpha.

Usage::

    .venv/bin/python benchmarks/bench_20news.py            # 7 timed runs per cell
    .venv/bin/python benchmarks/bench_20news.py --quick    # 3 timed runs per cell
    .venv/bin/python benchmarks/bench_20news.py --data /path/to/20news-bydate.jsonl.gz

The data file is looked up, in order, at ``--data`` (a file or a directory),
``$BAYESNB_SHARED_DATA/20news-bydate.jsonl.gz`` and ``../shared/data`` beside the
repository root.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy
import sklearn
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import ComplementNB as SkComplementNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import bayesnb

ROOT = Path(__file__).resolve().parents[1]
FILENAME = "20news-bydate.jsonl.gz"
FIT_TARGET = 0.5
PROBA_TARGET = 1.0


# ----------------------------------------------------------------------------- data
def data_path(arg: str | None) -> Path:
    """Resolve the data file from --data, $BAYESNB_SHARED_DATA or ../shared/data."""
    if arg:
        p = Path(arg)
        p = p / FILENAME if p.is_dir() else p
    elif os.environ.get("BAYESNB_SHARED_DATA"):
        p = Path(os.environ["BAYESNB_SHARED_DATA"]) / FILENAME
    else:
        p = ROOT.parent / "shared" / "data" / FILENAME
    if not p.exists():
        sys.exit(f"bench_20news: data file not found: {p} (use --data or BAYESNB_SHARED_DATA)")
    return p


def load(path: Path):
    """(train_texts, train_labels, test_texts, test_labels); labels as a NumPy string array."""
    from bayesnb.datasets import read_20newsgroups

    tr_x, tr_y, te_x, te_y = read_20newsgroups(path)
    return tr_x, np.asarray(list(tr_y)), te_x, np.asarray(list(te_y))


# -------------------------------------------------------------------------- timing
def median_time(fn, repeats: int, warmup: int = 1):
    """(median seconds, last result) of ``fn()`` over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def paired_times(fn_a, fn_b, repeats: int, warmup: int = 1):
    """Median times of two functions run alternately (a, b, a, b, ...) to share any load drift."""
    for _ in range(warmup):
        out_a, out_b = fn_a(), fn_b()
    ta, tb = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out_a = fn_a()
        t1 = time.perf_counter()
        out_b = fn_b()
        t2 = time.perf_counter()
        ta.append(t1 - t0)
        tb.append(t2 - t1)
    return statistics.median(ta), statistics.median(tb), out_a, out_b


def compare(name, make_bnb, make_sk, Xtr, ytr, Xte, yte, repeats):
    """Fit / predict_proba timings and agreement of a bayesnb model and its sklearn twin."""
    fit_b, fit_s, mb, ms = paired_times(lambda: make_bnb().fit(Xtr, ytr), lambda: make_sk().fit(Xtr, ytr), repeats)
    pp_b, pp_s, Pb, Ps = paired_times(lambda: mb.predict_proba(Xte), lambda: ms.predict_proba(Xte), repeats)
    assert np.array_equal(mb.classes_, ms.classes_)
    pred_b = mb.classes_[np.argmax(Pb, axis=1)]
    pred_s = ms.classes_[np.argmax(Ps, axis=1)]
    same_pred = np.array_equal(mb.predict(Xte), ms.predict(Xte))
    return {
        "name": name,
        "fit_b": fit_b, "fit_s": fit_s, "pp_b": pp_b, "pp_s": pp_s,
        "acc_b": float(np.mean(pred_b == yte)), "acc_s": float(np.mean(pred_s == yte)),
        "same_pred": bool(same_pred and np.array_equal(pred_b, pred_s)),
        "n_diff": int(np.sum(pred_b != pred_s)),
        "max_dp": float(np.max(np.abs(Pb - Ps))),
        "max_dflp": float(np.max(np.abs(mb.feature_log_prob_ - ms.feature_log_prob_))),
    }


# -------------------------------------------------------------------------- output
def machine_facts() -> list[str]:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    blas = "?"
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(f"{i['internal_api']} {i.get('version', '')} ({i['num_threads']} threads)"
                         for i in threadpool_info() if i["user_api"] == "blas")
    except Exception:
        pass
    load = "?"
    if hasattr(os, "getloadavg"):
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    git = "?"
    try:
        import subprocess

        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "bayesnb"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        git = head + (" + uncommitted changes under bayesnb/" if dirty else " (bayesnb/ clean)")
    except Exception:
        pass
    return [
        f"date           {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"machine        {platform.node()} | {platform.platform()}",
        f"cpu            {cpu} | {os.cpu_count()} logical cores, {usable} usable | load avg {load}",
        f"python         {platform.python_version()}",
        f"numpy {np.__version__} | scipy {scipy.__version__} | scikit-learn {sklearn.__version__} | "
        f"bayesnb {getattr(bayesnb, '__version__', '?')}",
        f"blas           {blas}",
        f"bayesnb source {git}",
    ]


def ms(t: float) -> str:
    return f"{1e3 * t:8.1f}"


def print_table(title: str, rows: list[dict]) -> None:
    print(f"\n## {title}\n")
    head = ("| model | fit bayesnb ms | fit sklearn ms | fit ratio | proba bayesnb ms | proba sklearn ms "
            "| proba ratio | acc bayesnb | acc sklearn | same predictions | max abs dproba |")
    print(head)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        fr, pr = r["fit_b"] / r["fit_s"], r["pp_b"] / r["pp_s"]
        same = "yes" if r["same_pred"] else f"NO ({r['n_diff']} differ)"
        print(f"| {r['name']} | {ms(r['fit_b'])} | {ms(r['fit_s'])} | {fr:5.2f}x | {ms(r['pp_b'])} | "
              f"{ms(r['pp_s'])} | {pr:5.2f}x | {r['acc_b']:.4f} | {r['acc_s']:.4f} | {same} | {r['max_dp']:.2e} |")


def verdict(rows: list[dict]) -> list[str]:
    lines = []
    for r in rows:
        fr, pr = r["fit_b"] / r["fit_s"], r["pp_b"] / r["pp_s"]
        lines.append(
            f"{r['name']:<28} fit {fr:5.2f}x ({'met' if fr <= FIT_TARGET else 'MISSED'}, target <= {FIT_TARGET}x)"
            f" | predict_proba {pr:5.2f}x ({'met' if pr <= PROBA_TARGET else 'MISSED'}, target <= {PROBA_TARGET}x)"
            f" | predictions {'identical' if r['same_pred'] else 'DIFFER'}"
            f" | max |d feature_log_prob_| {r['max_dflp']:.1e}"
        )
    return lines


# ---------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help=f"path of {FILENAME} or of the directory holding it")
    ap.add_argument("--quick", action="store_true", help="3 timed runs per cell instead of 7")
    ap.add_argument("--repeats", type=int, help="timed runs per cell (overrides --quick)")
    ap.add_argument("--alphas", type=float, nargs="+", default=[1.0, 0.01], help="alphas to compare (default 1.0 0.01)")
    ap.add_argument("--profile", action="store_true",
                    help="also print a cProfile of bayesnb's fit and predict_proba (alpha=1) for both models")
    args = ap.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 7)

    print("# bayesnb vs scikit-learn: 20 Newsgroups bydate\n")
    print("\n".join(machine_facts()))

    path = data_path(args.data)
    t0 = time.perf_counter()
    tr_x, ytr, te_x, yte = load(path)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    vec = CountVectorizer()
    Xtr = vec.fit_transform(tr_x)
    Xte = vec.transform(te_x)
    t_vec = time.perf_counter() - t0
    Btr, Bte = Xtr.copy(), Xte.copy()  # binary bag of words for BernoulliNB
    Btr.data[:] = 1
    Bte.data[:] = 1
    print(f"data           {path} (loaded in {t_load:.1f} s)")
    print(f"vectoriser     CountVectorizer() fitted on train once ({t_vec:.1f} s): "
          f"{type(Xtr).__name__} {Xtr.format.upper()} {Xtr.dtype}")
    print(f"train          {Xtr.shape[0]:,} x {Xtr.shape[1]:,}, {Xtr.nnz:,} non-zeros; "
          f"test {Xte.shape[0]:,} x {Xte.shape[1]:,}, {Xte.nnz:,} non-zeros; {len(np.unique(ytr))} classes")
    print(f"timing         median of {repeats} runs after 1 warm-up, bayesnb and sklearn interleaved; "
          "predict_proba on the test split")

    multi, bern = [], []
    for a in args.alphas:
        multi.append(compare(f"MultinomialNB alpha={a:g}",
                             lambda a=a: bayesnb.MultinomialNB(alpha=a, class_alpha=0),
                             lambda a=a: SkMultinomialNB(alpha=a), Xtr, ytr, Xte, yte, repeats))
    for a in args.alphas:
        bern.append(compare(f"BernoulliNB alpha={a:g}",
                            lambda a=a: bayesnb.BernoulliNB(alpha=a, class_alpha=0),
                            lambda a=a: SkBernoulliNB(alpha=a), Btr, ytr, Bte, yte, repeats))
    # The same comparison on float64 CSR input in canonical form (sorted indices, no
    # duplicates): shows what the int64 -> float64 conversion of CountVectorizer's
    # (unsorted) output costs.
    Ftr, Fte = Xtr.astype(np.float64), Xte.astype(np.float64)
    Ftr.sort_indices()
    Fte.sort_indices()
    a = args.alphas[0]
    multi.append(compare(f"MultinomialNB alpha={a:g}, float64 sorted CSR input",
                         lambda: bayesnb.MultinomialNB(alpha=a, class_alpha=0),
                         lambda: SkMultinomialNB(alpha=a), Ftr, ytr, Fte, yte, repeats))
    comp = [compare(f"ComplementNB alpha={a:g}" + (", norm=True" if norm else ""),
                    lambda a=a, norm=norm: bayesnb.ComplementNB(alpha=a, norm=norm, class_alpha=0),
                    lambda a=a, norm=norm: SkComplementNB(alpha=a, norm=norm), Xtr, ytr, Xte, yte, repeats)
            for a, norm in [(a, False) for a in args.alphas] + [(args.alphas[0], True)]]
    print_table("MultinomialNB (word counts)", multi)
    print_table("BernoulliNB (binary bag of words)", bern)
    print_table("ComplementNB (word counts, complement weights)", comp)

    # Exact posterior predictive (Dirichlet-multinomial) and empirical-Bayes alpha.
    print("\n## bayesnb only\n")
    print("| model | fit ms | predict_proba ms | test accuracy | note |")
    print("|---|---:|---:|---:|---|")
    rep_slow = max(1, min(repeats, 3))
    for a in args.alphas:
        m = bayesnb.MultinomialNB(alpha=a, class_alpha=0, predictive="marginal")
        t_fit, m = median_time(lambda: m.fit(Xtr, ytr), rep_slow)
        t_pp, P = median_time(lambda: m.predict_proba(Xte), rep_slow)
        acc = float(np.mean(m.classes_[P.argmax(1)] == yte))
        mean_acc = next(r["acc_b"] for r in multi if r["name"].endswith(f"alpha={a:g}"))
        print(f"| MultinomialNB alpha={a:g} predictive=\"marginal\" | {ms(t_fit)} | {ms(t_pp)} | {acc:.4f} | "
              f"exact Dirichlet-multinomial; plug-in accuracy {mean_acc:.4f} |")
    for pred in ("mean", "marginal"):
        m = bayesnb.MultinomialNB(alpha="auto", class_alpha=0, predictive=pred)
        t_fit, m = median_time(lambda: m.fit(Xtr, ytr), rep_slow)
        t_pp, P = median_time(lambda: m.predict_proba(Xte), rep_slow)
        acc = float(np.mean(m.classes_[P.argmax(1)] == yte))
        print(f"| MultinomialNB alpha=\"auto\" predictive=\"{pred}\" | {ms(t_fit)} | {ms(t_pp)} | {acc:.4f} | "
              f"evidence-maximising alpha_ = {m.alpha_:.4g} |")
    print(f"\n(median of {rep_slow} runs after 1 warm-up)")

    print("\n## Targets (fit <= 0.5x sklearn, predict_proba <= 1.0x, identical predictions)\n")
    print("\n".join(verdict(multi + bern + comp)))
    if args.profile:
        profile(Xtr, ytr, Xte, Btr, Bte)
    return 0


def profile(Xtr, ytr, Xte, Btr, Bte, runs: int = 5, top: int = 18) -> None:
    """cProfile of bayesnb's fit and predict_proba (alpha=1, class_alpha=0), ``runs`` calls each."""
    import cProfile
    import io
    import pstats

    for name, cls, Xa, Xb in [("MultinomialNB", bayesnb.MultinomialNB, Xtr, Xte),
                              ("BernoulliNB", bayesnb.BernoulliNB, Btr, Bte)]:
        m = cls(alpha=1.0, class_alpha=0).fit(Xa, ytr)
        m.predict_proba(Xb)
        for what, fn in [("fit", lambda: m.fit(Xa, ytr)), ("predict_proba", lambda: m.predict_proba(Xb))]:
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(runs):
                fn()
            pr.disable()
            buf = io.StringIO()
            pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(top)
            body = "\n".join(l for l in buf.getvalue().splitlines() if l.strip())
            print(f"\n## cProfile: bayesnb {name}.{what}, {runs} calls, by own time\n\n{body}")


if __name__ == "__main__":
    sys.exit(main())
