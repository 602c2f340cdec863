"""Dask input: the distributed fit equals the in-memory fit, predictions are lazy and identical.

One LocalCluster (2 worker processes) serves the module; every fit runs on it. Parameters
are compared to 1e-12 (only the order of floating-point additions differs), predictions
exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import bayesnb as bn
from bayesnb.families import Bernoulli, Categorical, Gaussian, Multinomial
from cases import auto_frame
from conftest import DASK_WORKER_START

da = pytest.importorskip("dask.array", reason="dask is an optional extra: pip install 'bayesnb[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: pip install 'bayesnb[dask]'")
distributed = pytest.importorskip("dask.distributed", reason="dask.distributed is part of 'bayesnb[dask]'")

RNG = np.random.default_rng(11)


@pytest.fixture(scope="module", autouse=True)
def client():
    import dask

    start = {"distributed.worker.multiprocessing-method": DASK_WORKER_START}
    with dask.config.set(start), distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
            silence_logs=40) as cluster, distributed.Client(cluster) as c:
        c.run(lambda: __import__("bayesnb"))  # part of start-up: each worker imports bayesnb once
        yield c


def _arrays(x):
    """Every array inside a (nested) NamedTuple / tuple / list, in order."""
    if x is None:
        return []
    if isinstance(x, (tuple, list)):
        return [a for item in x for a in _arrays(item)]
    return [np.asarray(x)]


def assert_same_fit(mem, dist):
    """Posterior, statistics, encoding and class counts equal to 1e-12 (relative)."""
    np.testing.assert_array_equal(mem.classes_, dist.classes_)
    np.testing.assert_allclose(dist.class_count_, mem.class_count_, rtol=1e-12, atol=0)
    for bm, bd in zip(mem.posterior_.blocks, dist.posterior_.blocks, strict=True):
        for field in ("state", "stats", "prior", "posterior"):
            am, ad = _arrays(getattr(bm, field)), _arrays(getattr(bd, field))
            assert len(am) == len(ad), field
            for a, b in zip(am, ad):
                if a.dtype.kind in "fc":
                    np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-300, err_msg=field)
                else:
                    np.testing.assert_array_equal(b, a, err_msg=field)


def assert_same_predictions(mem, dist, X, Xd):
    proba = dist.predict_proba(Xd)
    assert isinstance(proba, da.Array)  # lazy
    np.testing.assert_allclose(proba.compute(), mem.predict_proba(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dist.predict_log_proba(Xd).compute(), mem.predict_log_proba(X), rtol=1e-12)
    pred = dist.predict(Xd).compute()
    np.testing.assert_array_equal(np.asarray(pred), mem.predict(X))
    np.testing.assert_allclose(np.asarray(dist.score_samples(Xd).compute()), mem.score_samples(X), rtol=1e-12)


def test_gaussian_dense_chunks_missing_cells_and_weights():
    X = RNG.normal(size=(900, 5)) * [1, 10, 100, 0.1, 1] + [0, 5, -3, 0, 1e3]
    X[RNG.random(X.shape) < 0.1] = np.nan
    y = RNG.integers(0, 3, 900)
    w = RNG.integers(0, 3, 900).astype(float)  # zeros too: removed rows
    mem = bn.GaussianNB().fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=((200, 300, 150, 250), (2, 3)))  # uneven rows, split columns
    dist = bn.GaussianNB().fit(Xd, da.from_array(y, chunks=100), sample_weight=w)
    assert_same_fit(mem, dist)
    np.testing.assert_allclose(dist.var_, mem.var_, rtol=1e-12)
    proba = dist.predict_proba(Xd)
    assert proba.chunks == ((200, 300, 150, 250), (3,))
    assert_same_predictions(mem, dist, X, Xd)


def test_categorical_dataframe_partitions_see_different_categories():
    n = 800
    df = pd.DataFrame({"colour": RNG.choice(["red", "green", "blue", None], n),
                       "size": RNG.integers(0, 5, n)})
    df.loc[600:, "colour"] = df.loc[600:, "colour"].replace("red", "violet")  # only in the last partitions
    y = pd.Series(RNG.choice(["no", "yes"], n), name="buy")
    mem = bn.CategoricalNB().fit(df, y)
    Xd, yd = dd.from_pandas(df, npartitions=4, sort=False), dd.from_pandas(y, npartitions=4, sort=False)
    dist = bn.CategoricalNB().fit(Xd, yd)
    assert_same_fit(mem, dist)
    assert [list(c) for c in dist.categories_] == [list(c) for c in mem.categories_]
    assert dist.target_name_ == "buy"
    assert_same_predictions(mem, dist, df, Xd)
    pred = dist.predict(Xd)
    assert isinstance(pred, dd.Series)


def test_multinomial_sparse_chunks_with_missing_cells():
    X = sp.random(600, 40, density=0.15, format="csr", random_state=3)
    D = np.ceil(X.toarray() * 4)
    D[:300, 35:] = 0  # columns 35.. observed only in later chunks
    X = sp.csr_matrix(D)
    X.data[RNG.random(X.data.size) < 0.05] = np.nan  # missing stored cells
    y = RNG.integers(0, 4, 600)
    mem = bn.MultinomialNB(alpha=0.5).fit(X, y)
    Xd = da.from_array(X, chunks=(150, -1), asarray=False)
    dist = bn.MultinomialNB(alpha=0.5).fit(Xd, y)
    assert_same_fit(mem, dist)
    np.testing.assert_allclose(dist.feature_log_prob_, mem.feature_log_prob_, rtol=1e-12)
    assert_same_predictions(mem, dist, X, Xd)
    # alpha="auto" maximises the evidence of the summed statistics: the same alpha
    auto_mem, auto_dist = bn.MultinomialNB(alpha="auto").fit(X, y), bn.MultinomialNB(alpha="auto").fit(Xd, y)
    assert_same_fit(auto_mem, auto_dist)


def test_bernoulli_dense_with_missing():
    X = RNG.poisson(0.6, size=(500, 12)).astype(float)
    X[RNG.random(X.shape) < 0.05] = np.nan
    y = RNG.integers(0, 2, 500)
    mem = bn.BernoulliNB(alpha=0.3).fit(X, y)
    Xd = da.from_array(X, chunks=(120, -1))
    dist = bn.BernoulliNB(alpha=0.3).fit(Xd, da.from_array(y, chunks=120))
    assert_same_fit(mem, dist)
    assert_same_predictions(mem, dist, X, Xd)


def _mixed(n):
    df = pd.DataFrame({"dish": RNG.choice(["pasta", "rice", "soup"], n).astype(object),
                       "sleep": RNG.normal(7, 1.5, n),
                       "w1": RNG.poisson(2, n).astype(float), "w2": RNG.poisson(1, n).astype(float),
                       "likes": RNG.integers(0, 2, n).astype(float)})
    df.loc[RNG.random(n) < 0.1, "dish"] = None
    df.loc[RNG.random(n) < 0.1, "sleep"] = np.nan
    df.loc[RNG.random(n) < 0.05, "w1"] = np.nan
    df.loc[RNG.random(n) < 0.1, "likes"] = np.nan
    return df, pd.Series(RNG.choice(["a", "b", "c"], n), name="group")


FEATURES = {"dish": Categorical(), "sleep": Gaussian(), ("w1", "w2"): Multinomial(), "likes": Bernoulli()}


def test_structures_learned_from_partition_statistics():
    """TAN and hierarchical k-DB on the cluster: pairwise counts, then context statistics, tree-reduced
    (more cases, on the synchronous scheduler, in tests/test_dask_structure.py)."""
    n = 800
    a = RNG.integers(0, 3, n)
    y = pd.Series(np.where(RNG.random(n) < 0.8, a % 2, 1 - a % 2), name="buy")
    df = pd.DataFrame({"a": np.array(["x", "y", "z"])[a],
                       "b": np.where(RNG.random(n) < 0.7, np.array(["p", "q", "r"])[a], "s"),
                       "c": RNG.choice(["u", "v", None], n)})
    df.loc[600:, "b"] = df.loc[600:, "b"].replace("s", "t")  # only in the last partitions
    Xd, yd = dd.from_pandas(df, npartitions=4, sort=False), dd.from_pandas(y, npartitions=4, sort=False)
    for kw in (dict(structure="tan"), dict(structure="kdb")):
        mem = bn.CategoricalNB(**kw).fit(df, y)
        dist = bn.CategoricalNB(**kw).fit(Xd, yd)
        assert dist.structure_ == mem.structure_ and any(mem.structure_.values())
        np.testing.assert_allclose(dist.log_evidence_, mem.log_evidence_, rtol=1e-12)
        assert_same_predictions(mem, dist, df, Xd)


def test_mixed_naive_bayes_fit_predict_impute():
    df, y = _mixed(700)
    mem = bn.NaiveBayes(FEATURES).fit(df, y)
    Xd, yd = dd.from_pandas(df, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    dist = bn.NaiveBayes(FEATURES).fit(Xd, yd)
    assert_same_fit(mem, dist)
    assert_same_predictions(mem, dist, df, Xd)
    imputed = dist.impute(Xd)
    assert isinstance(imputed, dd.DataFrame)
    pd.testing.assert_frame_equal(imputed.compute(), mem.impute(df), check_dtype=False)


def test_partial_fit_adds_a_dask_batch_with_new_categories():
    df, y = _mixed(600)
    first, second = df.iloc[:200], df.iloc[200:].copy()
    second.loc[second.index[::5], "dish"] = "stew"  # a category the first batch never saw
    mem = bn.NaiveBayes(FEATURES).partial_fit(first, y.iloc[:200], classes=["a", "b", "c"])
    dist = bn.NaiveBayes(FEATURES).partial_fit(first, y.iloc[:200], classes=["a", "b", "c"])
    mem.partial_fit(second, y.iloc[200:])
    dist.partial_fit(dd.from_pandas(second, npartitions=3, sort=False), y.iloc[200:].to_numpy())
    assert_same_fit(mem, dist)


def test_default_naive_bayes_and_auto_structure_on_the_cluster():
    """features="auto" (families chosen from partition statistics) and structure="auto" (numeric nodes'
    bins from partition tables): the families, scores, bins, parents and predictions of the in-memory fit
    (more cases, on the synchronous scheduler, in tests/test_dask_structure.py)."""
    df, y, w = auto_frame()
    Xd, yd = dd.from_pandas(df, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    mem, dist = bn.NaiveBayes().fit(df, y, sample_weight=w), bn.NaiveBayes().fit(Xd, yd, sample_weight=w)
    chosen = [(c, type(f).__name__) for c, f in mem.blocks_]
    assert {"Categorical", "Gaussian", "Poisson", "Histogram", "Hurdle"} == {t for _, t in chosen}
    assert [(c, type(f).__name__) for c, f in dist.blocks_] == chosen
    pd.testing.assert_frame_equal(dist.family_scores_, mem.family_scores_, rtol=1e-12)
    assert_same_fit(mem, dist)  # the Histogram's bins (its state) included
    assert_same_predictions(mem, dist, df, Xd)
    mem = bn.NaiveBayes(structure="auto", auto_cv=False).fit(df, y, sample_weight=w)
    dist = bn.NaiveBayes(structure="auto", auto_cv=False).fit(Xd, yd, sample_weight=w)
    assert dist.structure_kind_ == mem.structure_kind_ != "naive" and dist.structure_ == mem.structure_
    assert any(mem.structure_[c] for c in ("sleep", "nap"))  # a numeric node with a (numeric) parent
    pd.testing.assert_frame_equal(dist.structure_scores_, mem.structure_scores_, rtol=1e-12)
    for a, b in zip(dist.structure_bin_edges_, mem.structure_bin_edges_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert_same_predictions(mem, dist, df, Xd)


def test_histogram_features_on_the_cluster_choose_the_in_memory_histograms():
    """features="histogram": every numeric column a Histogram, its bins and alpha chosen over the partitions
    as in memory."""
    df, y, w = auto_frame()
    Xd, yd = dd.from_pandas(df, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    mem = bn.NaiveBayes(features="histogram").fit(df, y, sample_weight=w)
    dist = bn.NaiveBayes(features="histogram").fit(Xd, yd, sample_weight=w)
    assert {type(f).__name__ for _, f in mem.blocks_} == {"Categorical", "Histogram"}
    assert [(c, repr(f)) for c, f in dist.blocks_] == [(c, repr(f)) for c, f in mem.blocks_]
    pd.testing.assert_frame_equal(dist.family_scores_, mem.family_scores_, rtol=1e-12)
    assert_same_fit(mem, dist)
    assert_same_predictions(mem, dist, df, Xd)


def test_privacy_is_refused():
    X = da.from_array((RNG.random((400, 2)) < 0.5).astype(float), chunks=(100, -1))
    with pytest.raises(NotImplementedError, match=r"privacy=DP\(...\) \(the noise is added once"):
        bn.BernoulliNB(privacy=bn.DP(1.0, classes=[0, 1])).fit(X, RNG.integers(0, 2, 400))


def test_random_imputation_is_refused():
    X = RNG.normal(size=(100, 2))
    model = bn.GaussianNB().fit(X, RNG.integers(0, 2, 100))
    with pytest.raises(NotImplementedError, match="strategy='draw'"):
        model.impute(da.from_array(X, chunks=50), strategy="draw")


def test_in_memory_use_never_imports_dask(sklearn_fork_server):
    """In a fresh interpreter (forked from one holding NumPy, pandas, SciPy and scikit-learn: tests/forkserver.py)."""
    code = ("import sys, numpy as np, bayesnb as bn\n"
            "m = bn.GaussianNB().fit(np.random.default_rng(0).normal(size=(20, 2)), [0, 1] * 10)\n"
            "m.predict_proba(np.zeros((3, 2)))\n"
            "print(sorted(k for k in sys.modules if k == 'dask' or k.startswith('dask.')))\n")
    sklearn_fork_server.assert_unloaded(("dask",))
    out = sklearn_fork_server.run(["-c", code])
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "[]", out.stdout


def test_sample_given_a_dask_dataframe_draws_one_row_per_given_row():
    """sample(given=<dask DataFrame>) is lazy, keeps the given cells and the index, and draws the class from
    p(k | x_given) as the in-memory model does (parameter_uncertainty=False: exactly predict_proba)."""
    pg = bn.datasets.load_penguins().dropna()
    X, y = pg.drop(columns=["species", "year"]), pg["species"]
    model = bn.NaiveBayes().fit(X, y)
    given = pd.concat([X[["island", "bill_length_mm"]]] * 6, ignore_index=True)
    given.loc[::7, "island"] = None  # a missing given cell is marginalised
    dgiven = dd.from_pandas(given, npartitions=4)
    Xs, ys = model.sample(given=dgiven, random_state=0, parameter_uncertainty=False)
    assert hasattr(Xs, "__dask_graph__") and hasattr(ys, "__dask_graph__")
    Xs, ys = Xs.compute(), ys.compute()
    assert list(Xs.columns) == list(X.columns) and Xs.index.equals(given.index) and len(ys) == len(given)
    pd.testing.assert_series_equal(Xs["bill_length_mm"], given["bill_length_mm"], check_dtype=False)
    assert (Xs["island"][given["island"].notna()] == given["island"].dropna()).all()
    assert Xs["island"][given["island"].isna()].notna().all()  # missing given cells are drawn
    # class frequencies agree with p(k | x_given) within 4 standard errors
    expected = model.predict_proba(given.reindex(columns=X.columns)).mean(0)  # the other cells missing
    freq = np.array([(ys == c).mean() for c in model.classes_])
    assert np.all(np.abs(freq - expected) < 4 * np.sqrt(expected * (1 - expected) / len(ys)) + 1e-12)
    # reproducible for a fixed partitioning
    again = model.sample(given=dgiven, random_state=0, parameter_uncertainty=False)[0].compute()
    pd.testing.assert_frame_equal(again, Xs)
    with pytest.raises(ValueError, match="one row per given row"):
        model.sample(5, given=dgiven)
    with pytest.raises(TypeError, match="must be a dask DataFrame"):
        model.sample(given=da.zeros((4, 2), chunks=2))
