"""``structure=`` on Dask collections equals the in-memory fit (synchronous scheduler; the
LocalCluster case is in tests/test_dask.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb as bn
from bayesnb.structure import edge_scores, edge_scores_from_counts, pair_counts
from bayesnb.structure import select as SEL

dask = pytest.importorskip("dask", reason="dask is an optional extra: pip install 'bayesnb[dask]'")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _votes():
    d = bn.datasets.load_house_votes()
    return d.drop(columns="party"), d["party"]


def _assert_same(mem, dist, X, Xd):
    assert dist.structure_ == mem.structure_ and dist.structure_kind_ == mem.structure_kind_
    assert dist.structure_hierarchical_ == mem.structure_hierarchical_
    np.testing.assert_allclose(dist.log_evidence_, mem.log_evidence_, rtol=1e-12)
    for a, b in zip(dist.structure_stats_, mem.structure_stats_, strict=True):
        for x, z in zip(a, b, strict=True):
            np.testing.assert_allclose(np.asarray(x), np.asarray(z), rtol=1e-12, atol=0)
    proba = dist.predict_proba(Xd)
    assert isinstance(proba, da.Array)  # lazy
    np.testing.assert_allclose(proba.compute(), mem.predict_proba(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dist.predict_joint_log_proba(Xd).compute(), mem.predict_joint_log_proba(X),
                               rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(dist.predict(Xd).compute()), mem.predict(X))
    np.testing.assert_allclose(np.asarray(dist.score_samples(Xd).compute()), mem.score_samples(X), rtol=1e-12)


@pytest.mark.parametrize("kw", [dict(structure="tan"), dict(structure="kdb"), dict(structure="kdb", alpha=1.0),
                                dict(structure="auto", auto_cv=False)])
def test_categorical_dataframe_with_missing_cells(kw):
    X, y = _votes()  # missing votes: the scoring cells of "auto" differ from the fit's rows
    Xd, yd = dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4)
    mem = bn.CategoricalNB(**kw).fit(X, y)
    dist = bn.CategoricalNB(**kw).fit(Xd, yd)
    assert any(dist.structure_.values())
    _assert_same(mem, dist, X, Xd)
    if kw["structure"] == "auto":
        pd.testing.assert_frame_equal(dist.structure_scores_, mem.structure_scores_, rtol=1e-12)


def test_dask_array_with_zero_weights_and_a_partition_of_zero_weights_only():
    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 3, n)
    a = rng.integers(0, 4, n)
    X = np.column_stack([a, (a + y + (rng.random(n) < 0.2)) % 4, rng.integers(0, 3, n), (a + (rng.random(n) < 0.3)) % 4])
    X = X.astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    w = rng.integers(0, 3, n).astype(float)
    w[150:300:2] = 0.0  # rows the fit leaves out
    w[450:] = 0.0  # the last chunk: none
    Xd, yd, wd = da.from_array(X, chunks=(150, 4)), da.from_array(y, chunks=150), da.from_array(w, chunks=150)
    for kw in (dict(structure="kdb"), dict(structure="auto", auto_cv=False)):
        mem = bn.CategoricalNB(**kw).fit(X, y, sample_weight=w)
        dist = bn.CategoricalNB(**kw).fit(Xd, yd, sample_weight=wd)
        _assert_same(mem, dist, X, Xd)


@pytest.mark.parametrize("edge_score", ["bdeu", "mi"])
def test_pair_counts_add_over_partitions(edge_score):
    rng = np.random.default_rng(1)
    n, V = 300, [3, 2, 4, 3]
    y = rng.integers(0, 2, n)
    codes = np.column_stack([rng.integers(0, v, n) for v in V])
    codes[rng.random(codes.shape) < 0.2] = -1
    w = rng.random(n)
    halves = [pair_counts(codes[s], y[s], V, 2, w[s]) for s in (slice(0, 120), slice(120, None))]
    summed = type(halves[0])(*(tuple(a + b for a, b in zip(fa, fb)) for fa, fb in zip(*halves)))
    got = edge_scores_from_counts(summed, V, edge_score=edge_score)
    want = edge_scores(codes, y, V, 2, w, edge_score=edge_score)
    np.testing.assert_allclose(got.weights, want.weights, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.class_mi, want.class_mi, rtol=1e-10, atol=1e-15)


def test_auto_with_its_cross_validation_check():
    """The folds' models are Dask fits with the held-out rows' weights 0: the same rows, categories and
    statistics as in-memory clones refitted on each fold (cv_check without the fit's statistics), so the
    figures are theirs; the in-memory fit's guard works from per-fold statistics of its own encoding
    (bayesnb.structure.cv) and makes the same choice with nearly the same figures."""
    rng = np.random.default_rng(2)
    n, L = 160, 30
    y = rng.integers(0, 2, n)
    u = rng.integers(0, L, n)  # a many-valued column, two copies of it: the evidence wants the edges
    X = pd.DataFrame({"x0": np.where(rng.random(n) < 0.8, y, 1 - y), "x1": np.where(rng.random(n) < 0.8, y, 1 - y),
                      "u": u, "z0": (u * 7) % 4, "z1": np.where(rng.random(n) < 0.9, (u * 3) % 5, 0)}).astype(str)
    w = rng.integers(1, 3, n).astype(float)
    Xd, yd, wd = (dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(pd.Series(y), npartitions=3,
                                                                                 sort=False), w)
    mem = bn.CategoricalNB(structure="auto").fit(X, y, sample_weight=w)
    dist = bn.CategoricalNB(structure="auto").fit(Xd, yd, sample_weight=wd)
    sc, got = mem.structure_scores_, dist.structure_scores_
    assert sc["cv_log_loss"].notna().sum() == 2  # the check ran
    best = int(sc["log_evidence"].idxmax())
    cand = next(c for c in SEL.candidates("auto", mem.k, True) if c.label == sc["structure"][best])
    refit = SEL.cv_check(mem, X, y, w, cand)  # in-memory clones refitted on each fold's rows
    np.testing.assert_allclose([got["cv_log_loss"][0], got["cv_log_loss"][best], got["cv_diff_se"][best]],
                               [refit.naive_log_loss, refit.candidate_log_loss, refit.diff_se], rtol=1e-12)
    cols = ["structure", "log_evidence", "n_cells", "chosen"]
    pd.testing.assert_frame_equal(got[cols], sc[cols], rtol=1e-12)
    np.testing.assert_allclose(got["cv_log_loss"], sc["cv_log_loss"], atol=0.02)
    assert dist.structure_kind_ == mem.structure_kind_ and dist.structure_ == mem.structure_
    np.testing.assert_allclose(dist.predict_proba(Xd).compute(), mem.predict_proba(X), rtol=1e-12, atol=1e-15)


def test_refused_settings_name_the_alternative():
    X, y = _votes()
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    with pytest.raises(NotImplementedError, match="CategoricalNB\\(structure=...\\)"):
        bn.NaiveBayes(structure="tan").fit(Xd, yd)
