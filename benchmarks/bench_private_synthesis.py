"""Benchmark: private synthetic census rows, bayesnb against MST, AIM and PrivBayes, side by side.

The table is UCI Adult (census income; not shipped, see ``benchmarks/_census.py``), read from
``--data DIR``. With ``DIR/adult.test`` present, the official split (32,561 / 16,281 rows);
without it, as ``bench_privacy_rows.py``: 8,000 test rows held out of ``adult.data``
(stratified, ``random_state=0``). Both keep complete rows only (MST, AIM and PrivBayes take no
missing cells; 30,162 of ``adult.data``'s rows are complete, so 22,162 train without
``adult.test``). ``--train-rows N`` fits on a stratified subsample (for a quick run).

Everything public is declared, from UCI's codebook (``bench_privacy.ADULT_CATEGORIES``,
``ADULT_BOUNDS``, ``ADULT_CLASSES``), never read from the data. The peers work on discrete
columns, so each numeric column is cut into equal-width bins over its declared bounds
(``--bins``, default 20; a whole-number column with no more values than bins, education-num
1-16, gets one bin per value); values are clipped to the bounds first. Their synthetic codes
are mapped back to a whole number (every census numeric column is whole) drawn uniformly among
those of the bin, so the codes of the numbers drawn are the codes given. The same bins are used for every method's 2-way TVD.

Methods (``--methods``, default all):

- ``naive``: ``NaiveBayes(features, privacy=DP(eps, bounds=..., classes=...))`` (Laplace, pure
  epsilon-DP), numeric columns Gaussian, then ``sample(n_train)``;
- ``naive-binned``: the same, every numeric column replaced by its bin code as a Categorical with
  the declared codes (the peers' input), codes mapped back as for the peers;
- ``tan``, ``auto``: ``NaiveBayes(features, structure="tan" | "auto", privacy=DP(...))`` (``auto``
  with ``auto_cv=False``: the private rule on public quantities); ``tan-binned``, ``auto-binned``:
  the same on the binned columns of ``naive-binned``. A method that raises reads ``not available``
  (and the error is printed);
- ``synth``, ``synth-tan``: the private ``Synthesizer(target, privacy=DP(eps, bounds=..., classes=...),
  categories=..., missing="drop")`` with its other defaults (``structure="auto"``, numeric columns as
  declared equal-width bins), and with ``structure="tan"``; ``sample(n_train)`` (the posterior-mean
  plug-in; ``synth-proper``, ``synth-tan-proper``: one posterior draw, ``parameter_uncertainty=True``,
  as ``naive``'s ``NaiveBayes.sample`` draws). ``missing="drop"``: the
  rows are complete (the peers take no missing cell), and ``"model"`` would spend budget on, and draw,
  missing cells;
- ``mst``, ``aim`` (smartnoise-synth) and ``privbayes`` (dpmm), run by ``benchmarks/_dp_peers.py``
  in their own environments (``--peer-python``, ``--dpmm-python``; left out when not given), CSV
  files of codes in and out. They are (epsilon, delta)-DP with ``--delta`` (default 1e-9): a weaker
  guarantee than the Laplace fits above. AIM's rounds are capped (``--aim-rounds``, default 30).

Metrics per method, epsilon and seed, against the training rows the synthesiser saw (fidelity)
and the real test rows (utility):

- ``TSTR acc`` and ``TSTR AUC``: ``HistGradientBoostingClassifier`` (categorical columns native,
  ``random_state=0``) trained on the synthetic rows, tested on the real test rows;
- ``2-way TVD``: the mean total-variation distance over all 105 pairs of the 15 discretised columns;
- ``det. LR`` / ``det. GBM``: ``bayesnb.synthetic_report(metrics=("detection",))``'s C2ST scores
  (1 = indistinguishable, 0 = always told apart) on ``--detect-rows`` rows of each table;
- ``fit s`` and ``fit / naive``: fit seconds and their ratio to the private naive fit (same epsilon
  and seed; the peers' time is measured inside their process, imports excluded).

Printed as markdown tables, mean ± sd over the seeds. Usage::

    python benchmarks/bench_private_synthesis.py --data DIR [--seeds 5] [--epsilons 0.1 0.5 1 2 5]
        [--peer-python /work/dpvenv/bin/python] [--dpmm-python /work/dpmmvenv/bin/python]
        [--train-rows N] [--methods naive mst ...] [--aim-rounds 30] [--save RUN.csv]
    python benchmarks/bench_private_synthesis.py [--data DIR] --merge RUN1.csv RUN2.csv ...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from _census import COLUMNS, NUMERIC, TARGET, _read
from bench_privacy import ADULT_BOUNDS, ADULT_CATEGORIES, ADULT_CLASSES, adult_features
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import bayesnb as bn

EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0]
SYNTH = ("synth", "synth-tan", "synth-proper", "synth-tan-proper")
BAYESNB = ("naive", "naive-binned", "tan", "auto", *SYNTH) + tuple(
    f"{s}-binned{f}" for s in ("tan", "kdb", "auto") for f in ("", "-flat"))
PEERS = {"mst": "peer", "aim": "peer", "privbayes": "dpmm"}
METHODS = (*BAYESNB, *PEERS)
PEER_SCRIPT = Path(__file__).resolve().parent / "_dp_peers.py"
#: one BLAS/OpenMP thread for every method (on a loaded machine, OpenMP's spinning threads made one
#: gradient-boosted fit of 400 rows take 4-16 s instead of 0.2 s)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def load(folder, train_rows=None, seed=0):
    """The census split as (train, test), complete rows only; ``train_rows`` subsamples the training rows.

    Parameters
    ----------
    folder : str or Path
        Folder with ``adult.data`` (and, for the official split, ``adult.test``).
    train_rows : int, optional
        Keep this many training rows (stratified by the target, seeded by ``seed``).
    seed : int, default=0
        Seed of the subsample.

    Returns
    -------
    (train, test) : tuple of DataFrame
        Complete rows, index reset.
    """
    folder = Path(folder)
    if not (folder / "adult.data").is_file():
        raise FileNotFoundError(f"{folder / 'adult.data'} not found: pass --data DIR with UCI's adult.data")
    data = _read(folder / "adult.data").dropna()
    if (folder / "adult.test").is_file():
        train, test = data, _read(folder / "adult.test").dropna()
    else:
        train, test = train_test_split(data, test_size=8000, stratify=data[TARGET], random_state=0)
    if train_rows is not None and train_rows < len(train):
        train = train_test_split(train, train_size=train_rows, stratify=train[TARGET], random_state=seed)[0]
    return train.reset_index(drop=True), test.reset_index(drop=True)


def bin_edges(bins):
    """Per numeric column, the equal-width bin edges over its declared bounds (one bin per value for a
    whole-number column with at most ``bins`` values)."""
    edges = {}
    for col, (lo, hi) in ADULT_BOUNDS.items():
        if hi - lo + 1 <= bins:
            edges[col] = np.arange(lo, hi + 2) - 0.5
        else:
            edges[col] = np.linspace(lo, hi, bins + 1)
    return edges


def domains(edges):
    """The declared codes of every column, in :data:`COLUMNS` order: categories, bins, classes."""
    out = {}
    for col in COLUMNS:
        if col == TARGET:
            out[col] = list(ADULT_CLASSES)
        elif col in ADULT_CATEGORIES:
            out[col] = list(ADULT_CATEGORIES[col])
        else:
            out[col] = list(range(len(edges[col]) - 1))
    return out


def encode(frame, edges, dom, coded=()):
    """Integer codes of a census table (numeric columns clipped to their bounds and binned; those in
    ``coded`` hold bin codes already)."""
    codes = {}
    for col in COLUMNS:
        if col in coded:
            codes[col] = frame[col].to_numpy().astype(np.int64)
        elif col in edges:
            lo, hi = ADULT_BOUNDS[col]
            x = np.clip(frame[col].to_numpy(dtype=float), lo, hi)
            codes[col] = np.clip(np.searchsorted(edges[col], x, side="right") - 1, 0, len(edges[col]) - 2)
        else:
            index = {v: i for i, v in enumerate(dom[col])}
            mapped = frame[col].map(index)
            if mapped.isna().any():
                raise ValueError(f"{col}: values outside the declared categories: {sorted(set(frame[col][mapped.isna()]))[:5]}")
            codes[col] = mapped.to_numpy(dtype=np.int64)
    return pd.DataFrame(codes, columns=COLUMNS).astype(np.int64)


def decode(codes, edges, dom, rng):
    """A census table from codes: categories by name, numbers uniform among the whole numbers of their bin."""
    out = {}
    for col in COLUMNS:
        c = codes[col].to_numpy(dtype=np.int64)
        if col in edges:
            lo, hi = ADULT_BOUNDS[col]
            e = edges[col]
            # the whole numbers of bin c: ceil(e[c]) .. ceil(e[c + 1]) - 1 (a value on an edge opens the next
            # bin), the last bin up to hi
            first = np.ceil(e[c])
            last = np.where(c == len(e) - 2, hi, np.ceil(e[c + 1]) - 1)
            last = np.maximum(last, first)
            out[col] = np.clip(first + np.floor(rng.random(len(c)) * (last - first + 1)), lo, hi)
        else:
            out[col] = np.asarray(dom[col], dtype=object)[c]
    return pd.DataFrame(out, columns=COLUMNS)


def two_way_tvd(real_codes, syn_codes, dom):
    """Mean total-variation distance of all 2-way marginals of two coded tables."""
    tvds = []
    for a, b in combinations(COLUMNS, 2):
        k = len(dom[b])
        size = len(dom[a]) * k
        p = np.bincount(real_codes[a] * k + real_codes[b], minlength=size) / len(real_codes)
        q = np.bincount(syn_codes[a] * k + syn_codes[b], minlength=size) / len(syn_codes)
        tvds.append(0.5 * np.abs(p - q).sum())
    return float(np.mean(tvds))


def tstr(synth, test):
    """TSTR accuracy and AUC of a fixed gradient-boosted classifier trained on ``synth``, tested on ``test``."""
    features = [c for c in COLUMNS if c != TARGET]
    cat = [c in ADULT_CATEGORIES for c in features]

    def prep(frame):
        out = frame[features].copy()
        for col in ADULT_CATEGORIES:
            out[col] = pd.Categorical(out[col], categories=ADULT_CATEGORIES[col]).codes
        return out.astype(float).to_numpy()

    y = (synth[TARGET].to_numpy() == ADULT_CLASSES[1]).astype(int)
    yt = (test[TARGET].to_numpy() == ADULT_CLASSES[1]).astype(int)
    if y.min() == y.max():  # one class only: a constant prediction
        return float((yt == y[0]).mean()), 0.5
    clf = HistGradientBoostingClassifier(categorical_features=cat, random_state=0).fit(prep(synth), y)
    prob = clf.predict_proba(prep(test))[:, 1]
    return float(((prob > 0.5) == yt).mean()), float(roc_auc_score(yt, prob))


def detection(train, synth, rows, seed):
    """``synthetic_report``'s two detection scores (logistic, gradient boosting) on ``rows`` rows."""
    real = train.copy()
    real[NUMERIC] = real[NUMERIC].astype(float)
    syn = synth[COLUMNS].copy()
    syn[NUMERIC] = syn[NUMERIC].astype(float)
    for col in COLUMNS:
        if col not in NUMERIC:
            real[col], syn[col] = real[col].astype(object), syn[col].astype(object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = bn.synthetic_report(real, syn, None, metrics=("detection",), max_rows=rows, random_state=seed).summary
    return s["detection_logistic"], s["detection_gbm"]


def binned_structure(method):
    """``tan-binned`` / ``kdb-binned`` (``-flat``: the smoothing that ignores the noise,
    ``private_fit.NOISE_AWARE_SMOOTHING = False``): the binned table of ``naive-binned`` with a private
    structure. Returns the method as ``naive-binned`` (with the structure ``tan`` / ``kdb``; None for the other methods) and a context that sets the smoothing."""
    import contextlib

    from bayesnb.structure import private_fit

    if "-binned" not in method or method == "naive-binned":
        return method, None, contextlib.nullcontext()
    kind = method.split("-")[0]

    @contextlib.contextmanager
    def switch():
        old = private_fit.NOISE_AWARE_SMOOTHING
        private_fit.NOISE_AWARE_SMOOTHING = not method.endswith("-flat")
        try:
            yield
        finally:
            private_fit.NOISE_AWARE_SMOOTHING = old

    return "naive-binned", kind, switch()


def bayesnb_fit(method, train, eps, seed, edges, dom, mechanism="laplace", delta=0.0):
    """Fit a private bayesnb model and draw ``len(train)`` rows: (synthetic table, fit seconds).

    ``mechanism="gaussian"``: (eps, delta)-DP by the Gaussian mechanism (its shares composed by GDP,
    ``bayesnb.privacy.Budget.split``), the peers' kind of guarantee; ``"laplace"``: pure eps-DP."""
    X, y = train.drop(columns=[TARGET]), train[TARGET]
    noise = {"mechanism": "gaussian", "delta": delta} if mechanism == "gaussian" else {}
    features, bounds = adult_features(hurdle=False)
    if method in SYNTH:
        dp = bn.DP(eps, bounds=bounds, classes=ADULT_CLASSES, random_state=1000 + seed, **noise)
        kw = {"structure": "tan"} if method.startswith("synth-tan") else {}
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synth = bn.Synthesizer(TARGET, privacy=dp, categories=ADULT_CATEGORIES, missing="drop",
                                   **kw).fit(train)
            fit_s = time.perf_counter() - t
            rows = synth.sample(len(train), random_state=seed, parameter_uncertainty=method.endswith("-proper"))
            return rows[COLUMNS], fit_s
    method, kind, flat = binned_structure(method)
    binned = method == "naive-binned"
    if binned:
        codes = encode(train, edges, dom)
        X = X.copy()
        for col in NUMERIC:
            X[col] = codes[col].to_numpy()
        features = {tuple(ADULT_CATEGORIES): features[tuple(ADULT_CATEGORIES)],
                    tuple(NUMERIC): bn.Categorical(categories=[dom[c] for c in NUMERIC])}
        bounds = None
    structure = kind or ("naive" if binned else method)
    extra = {"auto_cv": False} if structure == "auto" else {}  # under privacy "auto" is the public rule
    dp = bn.DP(eps, bounds=bounds, classes=ADULT_CLASSES, random_state=1000 + seed, **noise)
    t = time.perf_counter()
    with warnings.catch_warnings(), flat:
        warnings.simplefilter("ignore")
        model = bn.NaiveBayes(features, structure=structure, privacy=dp, **extra).fit(X, y)
    fit_s = time.perf_counter() - t
    Xs, ys = model.sample(len(train), random_state=seed)
    synth = Xs.assign(**{TARGET: ys})[COLUMNS]
    if binned:
        synth = decode(encode(synth, edges, dom, coded=NUMERIC), edges, dom, np.random.default_rng(seed))
    return synth, fit_s


def peer_fit(method, python, codes, eps, seed, dom, args, workdir):
    """Run a peer in its own Python on the coded training rows: (coded synthetic table, fit seconds, package)."""
    stem = Path(workdir) / f"{method}_{eps:g}_{seed}"
    codes.to_csv(f"{stem}_in.csv", index=False)
    job = {"method": method, "epsilon": eps, "delta": args.delta, "seed": seed, "rows": len(codes),
           "input": f"{stem}_in.csv", "output": f"{stem}_out.csv", "cards": [len(dom[c]) for c in COLUMNS],
           "aim_rounds": args.aim_rounds, "aim_model_mb": args.aim_model_mb}
    Path(f"{stem}.json").write_text(json.dumps(job), encoding="utf-8")
    env = {**os.environ, **dict.fromkeys(THREAD_VARS, "1")}
    run = subprocess.run([python, str(PEER_SCRIPT), f"{stem}.json"], capture_output=True, text=True,
                         timeout=args.peer_timeout, env=env)
    if run.returncode != 0:
        raise RuntimeError(f"{method} failed (exit {run.returncode}): {run.stderr.strip()[-600:]}")
    info = json.loads(Path(f"{stem}_out.csv.json").read_text(encoding="utf-8"))
    return pd.read_csv(f"{stem}_out.csv")[COLUMNS].astype(np.int64), info["fit_s"], info["package"]


def run(args):
    """All methods, epsilons and seeds: one row of metrics per run (or its error), and the peer versions."""
    train, test = load(args.data, args.train_rows)
    edges = bin_edges(args.bins)
    dom = domains(edges)
    real_codes = encode(train, edges, dom)
    pythons = {"peer": args.peer_python, "dpmm": args.dpmm_python}
    rows, versions, naive_s = [], {}, {}
    with tempfile.TemporaryDirectory() as workdir:
        for eps in args.epsilons:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                for method in args.methods:
                    row = {"method": method, "epsilon": eps, "seed": seed}
                    if method in PEERS and pythons[PEERS[method]] is None:
                        continue
                    try:
                        if method in PEERS:
                            syn_codes, fit_s, versions[method] = peer_fit(
                                method, pythons[PEERS[method]], real_codes, eps, seed, dom, args, workdir)
                            synth = decode(syn_codes, edges, dom, np.random.default_rng(seed))
                        else:
                            synth, fit_s = bayesnb_fit(method, train, eps, seed, edges, dom, args.mechanism,
                                                       args.delta)
                            syn_codes = encode(synth, edges, dom)
                    except (ValueError, NotImplementedError, RuntimeError, subprocess.TimeoutExpired) as exc:
                        row["error"] = f"{type(exc).__name__}: {exc}"
                        rows.append(row)
                        print(f"  {method} eps={eps:g} seed={seed}: not available ({row['error'][:300]})",
                              file=sys.stderr, flush=True)
                        continue
                    if method == "naive":
                        naive_s[eps, seed] = fit_s
                    acc, auc = tstr(synth, test)
                    det_lr, det_gbm = detection(train, synth, args.detect_rows, seed)
                    row.update({"TSTR acc": acc, "TSTR AUC": auc, "2-way TVD": two_way_tvd(real_codes, syn_codes, dom),
                                "det. LR": det_lr, "det. GBM": det_gbm, "fit s": fit_s,
                                "fit / naive": fit_s / naive_s[eps, seed] if (eps, seed) in naive_s else math.nan})
                    rows.append(row)
                    if args.save:  # after every run, so that a long grid stopped early keeps what it measured
                        save(pd.DataFrame(rows), versions, args.save)
                    print(f"  {method} eps={eps:g} seed={seed}: acc {acc:.4f} AUC {auc:.4f} "
                          f"TVD {row['2-way TVD']:.4f} fit {fit_s:.2f} s", file=sys.stderr, flush=True)
    return pd.DataFrame(rows), versions, (len(train), len(test))


def save(frame, versions, path):
    """Write the per-run rows, with each peer's package version, to a CSV file (``--merge`` reads it)."""
    frame.assign(package=frame["method"].map(versions)).to_csv(path, index=False)


METRICS = ["TSTR acc", "TSTR AUC", "2-way TVD", "det. LR", "det. GBM", "fit s", "fit / naive"]


def table(frame):
    """Markdown: per epsilon and method, each metric's mean ± sd over the seeds, or ``not available``."""
    head = ["epsilon", "method", "seeds", *METRICS]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    if "error" not in frame:
        frame = frame.assign(error=np.nan)
    for eps, g in frame.groupby("epsilon", sort=False):
        for method, h in g.groupby("method", sort=False):
            ok = h[h["error"].isna()]
            if ok.empty:
                lines.append(f"| {eps:g} | {method} | 0 |" + " not available |" * len(METRICS))
                continue
            cells = []
            for m in METRICS:
                v = ok[m].dropna()
                prec = 2 if m in ("fit s", "fit / naive") else 4
                cells.append("" if v.empty else f"{v.mean():.{prec}f} ± {v.std(ddof=1) if len(v) > 1 else 0.0:.{prec}f}")
            lines.append(f"| {eps:g} | {method} | {len(ok)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def reference(args):
    """A line on the real rows: the TSTR classifier trained on the real training rows (TRTR) and the
    majority class of the test rows."""
    train, test = load(args.data, args.train_rows)
    with threadpool_limits(1):
        acc, auc = tstr(train, test)
    majority = test[TARGET].value_counts(normalize=True).iloc[0]
    tvd, moved = synth_bin_floor(train, args.bins)
    with threadpool_limits(1):
        m_acc, m_auc = tstr(moved, test)
    return (f"(reference: the same classifier trained on the {len(train)} real training rows: accuracy {acc:.4f}, "
            f"AUC {auc:.4f}; majority class of the test rows {majority:.4f}; the real training rows passed through "
            f"the private Synthesizer's whole-number bins: 2-way TVD {tvd:.4f}, the classifier trained on them: "
            f"accuracy {m_acc:.4f}, AUC {m_auc:.4f})")


def synth_bin_floor(train, bins):
    """The 2-way TVD (on this benchmark's bins) between the training rows and the same rows with each numeric
    column moved to a value uniform within its bin of the private Synthesizer (20 whole-number bins over the
    declared bounds, ``bayesnb.synth.private_bins``): what the two bin grids' misalignment alone costs; and
    those moved rows (the classifier trained on them: the most a model of the binned columns can give)."""
    from bayesnb.synth.private_bins import decode as bin_decode
    from bayesnb.synth.private_bins import edges_of
    from bayesnb.synth.private_bins import encode as bin_encode

    edges, rng = bin_edges(bins), np.random.default_rng(0)
    dom, moved = domains(edges), train.copy()
    for col, bound in ADULT_BOUNDS.items():
        e = edges_of(bound, 20, True)
        moved[col] = bin_decode(bin_encode(train[col], e, True), e, True, rng)
    return two_way_tvd(encode(train, edges, dom), encode(moved, edges, dom), dom), moved


def main(argv=None):
    """Parse the command line, run the grid and print the tables (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", metavar="DIR", help="folder with UCI's adult.data (and adult.test)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1")
    parser.add_argument("--epsilons", type=float, nargs="+", default=EPSILONS)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--peer-python", default=None, help="Python with smartnoise-synth (MST, AIM)")
    parser.add_argument("--dpmm-python", default=None, help="Python with dpmm (PrivBayes)")
    parser.add_argument("--train-rows", type=int, default=None, help="subsample the training rows")
    parser.add_argument("--bins", type=int, default=20, help="equal-width bins per numeric column")
    parser.add_argument("--delta", type=float, default=1e-9, help="the peers' delta (and bayesnb's, with --mechanism "
                        "gaussian)")
    parser.add_argument("--mechanism", choices=("laplace", "gaussian"), default="laplace",
                        help="bayesnb's noise: laplace (pure epsilon-DP) or gaussian ((epsilon, --delta)-DP, as the peers)")
    parser.add_argument("--aim-rounds", type=int, default=30, help="cap on AIM's rounds")
    parser.add_argument("--aim-model-mb", type=float, default=80, help="AIM's max_model_size")
    parser.add_argument("--peer-timeout", type=float, default=1800, help="seconds per peer fit")
    parser.add_argument("--detect-rows", type=int, default=2000, help="rows per table for the detection scores")
    parser.add_argument("--save", metavar="CSV", default=None, help="write the per-run rows to this file")
    parser.add_argument("--merge", metavar="CSV", nargs="+", default=None,
                        help="print the tables of saved runs (--save) instead of running; a (method, epsilon, "
                             "seed) in several files is taken from the first")
    args = parser.parse_args(argv)
    if args.merge:
        frame = pd.concat([pd.read_csv(f) for f in args.merge], ignore_index=True)
        frame = frame.drop_duplicates(["method", "epsilon", "seed"], keep="first")
        order = {m: i for i, m in enumerate(METHODS)}
        frame = frame.sort_values(["epsilon", "method", "seed"], key=lambda c: c.map(order) if c.name == "method" else c)
        print(table(frame))
        if args.data is not None:
            print("\n" + reference(args))
        if "package" in frame:
            print("\npeers: " + ", ".join(f"{m}: {v}" for m, v in frame.dropna(subset=["package"])
                                          .drop_duplicates("method")[["method", "package"]].to_numpy()))
        return frame
    if args.data is None:
        parser.error("--data DIR is required (a folder with UCI's adult.data), unless --merge")
    if "naive" not in args.methods:
        args.methods = ["naive", *args.methods]  # the reference of the time ratio
    t0 = time.perf_counter()
    with threadpool_limits(1):
        frame, versions, (n_train, n_test) = run(args)
    print(f"### census private synthesis: {n_train} train / {n_test} test rows (complete rows), {args.seeds} seeds, "
          f"{args.bins} bins, bayesnb's mechanism {args.mechanism}, peers' delta {args.delta:g}, AIM rounds <= {args.aim_rounds}, "
          f"{time.perf_counter() - t0:.0f} s\n")
    print(table(frame))
    print("\n" + reference(args))
    if versions:
        print("\npeers: " + ", ".join(f"{m}: {v}" for m, v in sorted(versions.items())))
    if args.save:
        save(frame, versions, args.save)
    missing = [m for m, kind in PEERS.items() if m in args.methods and {"peer": args.peer_python,
                                                                         "dpmm": args.dpmm_python}[kind] is None]
    if missing:
        print(f"\n(left out, no peer Python given: {', '.join(missing)})")
    if "error" in frame:
        failed = frame.dropna(subset=["error"]).drop_duplicates("method")
        for method, msg in failed[["method", "error"]].to_numpy():
            print(f"\n{method}: not available: {msg}")
    return frame


if __name__ == "__main__":
    main()
