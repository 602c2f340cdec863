"""Fitting on a Dask cluster: 20 Newsgroups in sparse chunks and a large synthetic mixed table.

Starts a local cluster (the same code runs on a real one: pass ``--scheduler ADDRESS``) and

1. fits MultinomialNB to 20 Newsgroups word counts held as a dask array of scipy.sparse
   chunks (from ``--data``/20news-bydate.jsonl.gz; skipped, with a note, when absent);
2. fits NaiveBayes (Categorical + Gaussian + Multinomial + Bernoulli blocks, with missing
   cells) to a synthetic table of ``--rows`` rows (10 million by default) that the workers
   generate partition by partition, so it never exists on the driver.

For each it prints the fit time, the peak memory (driver and each worker, from the OS's
max RSS) and the agreement with the in-memory fit: the largest relative difference of
any posterior array and whether every prediction is the same. The table's in-memory
comparison uses its first ``--compare-rows`` rows (all of them when that is more).

Needs ``pip install "bayesnb[dask]"``.
Run: python examples/dask_fit.py [--quick] [--rows N] [--data DIR] [--scheduler ADDRESS]
"""

from __future__ import annotations

import os
import resource
import sys
import time
import warnings

import numpy as np
import pandas as pd

from _common import parser
from bayesnb import MultinomialNB, NaiveBayes
from bayesnb.families import Bernoulli, Categorical, Gaussian, Multinomial

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "data")
FEATURES = {("colour", "size"): Categorical(), ("x1", "x2"): Gaussian(), ("w1", "w2", "w3"): Multinomial(),
            "flag": Bernoulli()}


def peak_mib():
    """This process's peak resident memory in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _arrays(x):
    if x is None:
        return []
    if isinstance(x, (tuple, list)):
        return [a for item in x for a in _arrays(item)]
    return [np.asarray(x)]


def max_rel_diff(a, b):
    """Largest relative difference between two fitted models' posterior arrays (0 = identical)."""
    worst = 0.0
    for ba, bb in zip(a.posterior_.blocks, b.posterior_.blocks, strict=True):
        for field in ("stats", "prior", "posterior"):
            for u, v in zip(_arrays(getattr(ba, field)), _arrays(getattr(bb, field)), strict=True):
                if u.dtype.kind in "fc" and u.size:
                    with np.errstate(invalid="ignore", divide="ignore"):
                        rel = np.abs(u - v) / np.maximum(np.abs(u), np.finfo(float).tiny)
                    worst = max(worst, float(np.nanmax(np.where(u == v, 0.0, rel))))
    return worst


def report_memory(client, what):
    workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    shown = ", ".join(f"{v:.0f}" for v in workers.values())
    print(f"  peak memory after {what}: driver {peak_mib():.0f} MiB; workers {shown} MiB")


def news(client, data, quick, chunk_rows):
    import dask.array as da
    from sklearn.feature_extraction.text import CountVectorizer

    from bayesnb.datasets import read_20newsgroups

    path = os.path.join(data, "20news-bydate.jsonl.gz")
    print("== 20 Newsgroups, MultinomialNB on sparse chunks")
    if not os.path.exists(path):
        print(f"  SKIPPED: {path} not found (pass --data DIR, the folder holding 20news-bydate.jsonl.gz)")
        return
    tr_x, tr_y, te_x, te_y = read_20newsgroups(path)
    if quick:
        tr_x, tr_y, te_x, te_y = tr_x[:2000], tr_y[:2000], te_x[:1000], te_y[:1000]
    vec = CountVectorizer()
    X, Xt = vec.fit_transform(tr_x), vec.transform(te_x)
    # the matrix is on the driver here, so its chunks travel in the graph (dask warns about a large graph;
    # on a real cluster, load the data on the workers instead, as the table below is made)
    warnings.filterwarnings("ignore", message=".*[Ll]arge graph.*")
    Xd = da.from_array(X, chunks=(chunk_rows, -1), asarray=False)
    Xtd = da.from_array(Xt, chunks=(chunk_rows, -1), asarray=False)
    print(f"  train {X.shape[0]} x {X.shape[1]} words ({X.nnz} non-zeros) in {Xd.numblocks[0]} sparse chunks")
    t = time.perf_counter()
    dist = MultinomialNB(alpha=0.01).fit(Xd, tr_y)
    t_fit = time.perf_counter() - t
    t = time.perf_counter()
    pred = dist.predict(Xtd).compute()
    t_pred = time.perf_counter() - t
    t = time.perf_counter()
    mem = MultinomialNB(alpha=0.01).fit(X, tr_y)
    t_mem = time.perf_counter() - t
    same = bool(np.array_equal(pred, mem.predict(Xt)))
    print(f"  Dask fit {t_fit:.2f} s (in memory {t_mem:.2f} s); lazy predict computed in {t_pred:.2f} s; "
          f"test accuracy {np.mean(pred == te_y):.4f}")
    print(f"  agreement with in-memory fit: max relative difference {max_rel_diff(mem, dist):.1e}; "
          f"identical predictions: {same}")
    report_memory(client, "20 Newsgroups")


def make_partition(seed, rows):
    """One partition of the synthetic mixed table (label ``y``); NaN/None mark missing cells."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, rows)
    colour = np.array(["red", "green", "blue", "violet"], dtype=object)[(rng.integers(0, 3, rows) + y) % 4]
    colour[rng.random(rows) < 0.05] = None
    x1 = rng.normal(y * 0.5, 1.0)
    x2 = rng.normal(-y, 2.0)
    x1[rng.random(rows) < 0.05] = np.nan
    lam = np.array([[3, 1, 1], [1, 3, 1], [1, 1, 3]], dtype=float)[y]
    w = rng.poisson(lam).astype(float)
    w[rng.random(rows) < 0.02, 0] = np.nan
    return pd.DataFrame({"colour": colour, "size": (rng.integers(0, 4, rows) + y).astype(np.int64),
                         "x1": x1, "x2": x2, "w1": w[:, 0], "w2": w[:, 1], "w3": w[:, 2],
                         "flag": (rng.random(rows) < 0.2 + 0.2 * y).astype(float), "y": y})


def table(client, rows, part_rows, compare_rows):
    import dask.dataframe as dd

    n_parts = max(1, -(-rows // part_rows))
    sizes = [min(part_rows, rows - i * part_rows) for i in range(n_parts)]
    frame = dd.from_map(make_partition, list(range(n_parts)), sizes,
                        meta=make_partition(0, 1).iloc[:0], enforce_metadata=False)
    X, y = frame.drop(columns="y"), frame["y"]
    print(f"== synthetic mixed table, NaiveBayes: {rows:,} rows x {len(X.columns)} columns in {n_parts} "
          "partitions, generated on the workers")
    t = time.perf_counter()
    dist = NaiveBayes(FEATURES).fit(X, y)
    t_fit = time.perf_counter() - t
    t = time.perf_counter()
    acc = float((dist.predict(X) == y).mean().compute())
    t_pred = time.perf_counter() - t
    print(f"  Dask fit {t_fit:.2f} s ({rows / t_fit:,.0f} rows/s); lazy predict + accuracy {t_pred:.2f} s; "
          f"training accuracy {acc:.4f}")
    report_memory(client, "the table")
    k = max(1, min(n_parts, -(-compare_rows // part_rows)))
    head = frame.partitions[:k]
    local = head.compute()
    Xl, yl = local.drop(columns="y"), local["y"]
    head_dist = dist if k == n_parts else NaiveBayes(FEATURES).fit(head.drop(columns="y"), head["y"])
    t = time.perf_counter()
    mem = NaiveBayes(FEATURES).fit(Xl, yl)
    t_mem = time.perf_counter() - t
    same = bool(np.array_equal(head_dist.predict(Xl), mem.predict(Xl)))
    what = "the whole table" if k == n_parts else f"its first {len(local):,} rows ({k} partitions)"
    print(f"  agreement with in-memory fit on {what} (in memory {t_mem:.2f} s): max relative difference "
          f"{max_rel_diff(mem, head_dist):.1e}; identical predictions: {same}")


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--data", default=os.environ.get("BAYESNB_SHARED_DATA", DEFAULT_DATA),
                   help="folder holding 20news-bydate.jsonl.gz")
    p.add_argument("--rows", type=int, default=None, help="rows of the synthetic table (default 10,000,000; "
                   "--quick: 50,000)")
    p.add_argument("--partition-rows", type=int, default=None, help="rows per partition (default 500,000; "
                   "--quick: 10,000)")
    p.add_argument("--compare-rows", type=int, default=1_000_000, help="rows compared with an in-memory fit")
    p.add_argument("--workers", type=int, default=2, help="local cluster worker processes")
    p.add_argument("--scheduler", default=None, help="address of a running Dask scheduler (no local cluster)")
    args = p.parse_args(argv)
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("this example needs Dask: pip install 'bayesnb[dask]'", file=sys.stderr)
        return 2
    rows = args.rows or (50_000 if args.quick else 10_000_000)
    part_rows = args.partition_rows or (10_000 if args.quick else 500_000)
    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1,
                               dashboard_address=None, memory_limit="1.5GiB", silence_logs=40)
        client = Client(cluster)
    print(f"cluster: {len(client.scheduler_info()['workers'])} workers")
    try:
        news(client, args.data, args.quick, 500 if args.quick else 2000)
        table(client, rows, part_rows, min(args.compare_rows, rows))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
