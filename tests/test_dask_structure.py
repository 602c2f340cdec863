"""``structure=`` and ``NaiveBayes(features="auto")`` on Dask collections equal the in-memory fit
(synchronous scheduler; the LocalCluster cases are in tests/test_dask.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb as bn
from bayesnb.structure import edge_scores, edge_scores_from_counts, pair_counts
from bayesnb.structure import select as SEL
from bayesnb.structure.engine import bin_edges, bin_edges_from_table
from cases import auto_frame

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
    if mem.log_evidence_ is None:  # (a data-dependent prior of a numeric node: no evidence in memory either)
        assert dist.log_evidence_ is None
    else:
        np.testing.assert_allclose(dist.log_evidence_, mem.log_evidence_, rtol=1e-12)
    # (a naive choice, as the CV check may make under structure="auto", has no structure statistics)
    assert hasattr(dist, "structure_stats_") == hasattr(mem, "structure_stats_")
    for x, z in zip(_arrays(getattr(dist, "structure_stats_", ())), _arrays(getattr(mem, "structure_stats_", ())),
                    strict=True):
        np.testing.assert_allclose(x, z, rtol=1e-12, atol=0)
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


def test_naive_bayes_structure_on_an_all_categorical_table():
    """NaiveBayes(structure=...) (features="auto": one Categorical block) fits on Dask as CategoricalNB does."""
    X, y = _votes()
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    mem, dist = bn.NaiveBayes(structure="tan").fit(X, y), bn.NaiveBayes(structure="tan").fit(Xd, yd)
    assert any(dist.structure_.values())
    _assert_same(mem, dist, X, Xd)


def _same_auto_fit(mem, dist, X, Xd):
    """The families, their scores and every block's state, statistics and posterior of the in-memory fit."""
    assert [(c, type(f).__name__) for c, f in dist.blocks_] == [(c, type(f).__name__) for c, f in mem.blocks_]
    pd.testing.assert_frame_equal(dist.family_scores_, mem.family_scores_, rtol=1e-12)
    for bm, bd in zip(mem.posterior_.blocks, dist.posterior_.blocks, strict=True):
        for field in ("state", "stats", "posterior"):
            for a, b in zip(_arrays(getattr(bm, field)), _arrays(getattr(bd, field)), strict=True):
                if a.dtype.kind in "fc":
                    np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-300, err_msg=field)
                else:  # categories, integer flags and offsets, bin codes: exactly
                    np.testing.assert_array_equal(b, a, err_msg=field)
    np.testing.assert_allclose(dist.predict_proba(Xd).compute(), mem.predict_proba(X), rtol=1e-12, atol=1e-15)


def _arrays(x):
    if isinstance(x, (tuple, list)):
        return [a for item in x for a in _arrays(item)]
    return [] if x is None else [np.asarray(x)]


def test_auto_structure_of_a_mixed_table_with_its_cross_validation_check():
    """NaiveBayes(structure="auto") with numeric columns: families, bins, evidence, the CV check's folds
    (drawn from the labels in memory) and choice are the in-memory ones; the check's figures are those of
    fold refits on Dask, of per-fold statistics of the whole fit's encoding in memory (nearly the same)."""
    X, y, w = auto_frame(240)
    Xd, yd = dd.from_pandas(X, npartitions=2, sort=False), dd.from_pandas(y, npartitions=2, sort=False)
    mem = bn.NaiveBayes(structure="auto").fit(X, y, sample_weight=w)
    dist = bn.NaiveBayes(structure="auto").fit(Xd, yd, sample_weight=w)
    sc, got = mem.structure_scores_, dist.structure_scores_
    assert sc["cv_log_loss"].notna().sum() == 2  # the check ran
    cols = ["structure", "log_evidence", "n_cells", "chosen"]
    pd.testing.assert_frame_equal(got[cols], sc[cols], rtol=1e-10)
    best = int(sc["log_evidence"].idxmax())
    cand = next(c for c in SEL.candidates("auto", mem.k, True) if c.label == sc["structure"][best])
    refit = SEL.cv_check(mem, X, y, w, cand)  # in-memory clones refitted on each fold's rows, as on Dask
    np.testing.assert_allclose([got["cv_log_loss"][0], got["cv_log_loss"][best], got["cv_diff_se"][best]],
                               [refit.naive_log_loss, refit.candidate_log_loss, refit.diff_se], rtol=1e-10)
    assert dist.structure_kind_ == mem.structure_kind_
    _same_auto_fit(mem, dist, X, Xd)
    _assert_same(mem, dist, X, Xd)
    assert hasattr(dist, "structure_bin_edges_") == hasattr(mem, "structure_bin_edges_")
    for a, b in zip(getattr(dist, "structure_bin_edges_", ()), getattr(mem, "structure_bin_edges_", ()), strict=True):
        np.testing.assert_array_equal(a, b)
    # the evidence's best structure fitted alone (the CV check may keep naive): the same on Dask too
    params = {"structure": cand.kind, "alpha": "hierarchical" if cand.hierarchical else 1.0}
    mem, dist = (bn.NaiveBayes(**params).fit(a, b, sample_weight=w) for a, b in ((X, y), (Xd, yd)))
    assert mem.structure_kind_ != "naive" and any(mem.structure_.values())
    _assert_same(mem, dist, X, Xd)
    for a, b in zip(dist.structure_bin_edges_, mem.structure_bin_edges_, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_numeric_array_with_zero_weights_and_a_partition_of_zero_weights_only(structure):
    rng = np.random.default_rng(3)
    n = 480
    y = rng.integers(0, 2, n)
    x0 = rng.normal(y, 1, n).round(1)
    X = np.column_stack([x0, (x0 + rng.normal(0, 0.5, n)).round(1), rng.poisson(1 + y), rng.exponential(1 + y)])
    X[rng.random(X.shape) < 0.1] = np.nan
    w = rng.integers(0, 3, n).astype(float)
    w[360:] = 0.0  # the last chunk: left out (its values make no bin and no category)
    X[360:, 3] = 1e6
    Xd, yd, wd = da.from_array(X, chunks=(120, 4)), da.from_array(y, chunks=120), da.from_array(w, chunks=120)
    mem = bn.NaiveBayes(structure=structure).fit(X, y, sample_weight=w)
    dist = bn.NaiveBayes(structure=structure).fit(Xd, yd, sample_weight=wd)
    _same_auto_fit(mem, dist, X, Xd)
    if structure != "naive":
        assert any(dist.structure_.values())
        _assert_same(mem, dist, X, Xd)


def test_object_array_columns_are_numeric_when_every_partition_observing_them_says_so():
    """An object column with no value in one partition takes its kind from the others (as the whole column)."""
    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 2, n)
    X = np.empty((n, 3), dtype=object)
    X[:, 0] = rng.choice(["u", "v"], n)
    X[:, 1] = rng.poisson(2 + 2 * y).astype(float)
    X[:100, 1] = None  # the first partition: nothing observed
    X[:, 2] = np.where(np.arange(n) < 200, rng.normal(size=n).round(1), "text")  # text in the last one only
    Xd = da.from_array(X, chunks=(100, 3))
    mem, dist = bn.NaiveBayes().fit(X, y), bn.NaiveBayes().fit(Xd, y)
    assert [c for c, f in mem.blocks_][0] == ["x0", "x2"]  # x2 is categorical, x1 numeric
    _same_auto_fit(mem, dist, X, Xd)


def test_partial_fit_with_a_dask_first_batch_chooses_there_and_keeps_the_bins():
    X, y, _ = auto_frame(300)
    first, rest = X.iloc[:200], X.iloc[200:]
    with pytest.warns(bn.FirstBatchFamilyWarning, match="sleep"):
        dist = bn.NaiveBayes().partial_fit(dd.from_pandas(first, npartitions=2, sort=False), y.iloc[:200].to_numpy(),
                                           classes=["a", "b", "c"])
    with pytest.warns(bn.FirstBatchFamilyWarning):
        mem = bn.NaiveBayes().partial_fit(first, y.iloc[:200], classes=["a", "b", "c"])
    _same_auto_fit(mem, dist, first, dd.from_pandas(first, npartitions=2, sort=False))
    mem.partial_fit(rest, y.iloc[200:])
    dist.partial_fit(dd.from_pandas(rest, npartitions=2, sort=False), y.iloc[200:].to_numpy())
    _same_auto_fit(mem, dist, X, dd.from_pandas(X, npartitions=2, sort=False))


def test_bins_from_a_table_of_values_and_weights_are_the_bins_of_the_rows():
    rng = np.random.default_rng(6)
    for _ in range(300):
        n = int(rng.integers(1, 200))
        x = rng.choice(rng.normal(size=int(rng.integers(1, 30))).round(int(rng.integers(0, 3))), n)
        for w in (np.ones(n), rng.integers(1, 4, n).astype(float), rng.random(n) + 0.01):
            values, inverse = np.unique(x, return_inverse=True)
            got = bin_edges_from_table(values, np.bincount(inverse, weights=w))
            want = bin_edges(x, w)
            if np.all(w == np.round(w)):  # whole weights (ones included): bit for bit
                np.testing.assert_array_equal(got, want)
            else:  # fractional ones are summed in another order
                np.testing.assert_allclose(got, want, rtol=1e-12)
    assert bin_edges_from_table(np.empty(0), np.empty(0)).size == 0


def test_a_columns_candidate_states_hold_its_table_of_values_once():
    """features="auto" on Dask merges every candidate's encoding of a column (up to 21 Histogram candidates); the
    merged states equal the unshared merges and hold the column's distinct values in one array."""
    from bayesnb.estimators.auto_features import column_candidates, value_table
    from bayesnb.estimators._dask_auto import _merge_states
    from bayesnb.families.default_hooks import same_state

    x = np.random.default_rng(7).normal(size=3000)
    jobs = [(0, fam) for _, fam in column_candidates(*value_table(x))[1]]
    parts = [[fam.encode(x[i::3, None])[1] for _, fam in jobs] for i in range(3)]
    merge = _merge_states(jobs)
    shared = merge(merge(parts[0], parts[1]), parts[2])
    plain = [fam.merge_states(fam.merge_states(a, b), c) for (_, fam), a, b, c in zip(jobs, *parts)]
    assert all(same_state(a, b) for a, b in zip(shared, plain, strict=True))
    tables = [st.values[0] for st in shared if hasattr(st, "values")]
    assert len(tables) == len(jobs) - 1 > 10 and len({id(t) for t in tables}) == 1  # (and Gaussian)
    assert len({id(st.values[0]) for st in plain if hasattr(st, "values")}) == len(tables)


def test_auto_keeping_the_hierarchical_naive_candidate():
    """Independent binary columns: ``auto`` keeps naive with hierarchical tables (the CV guard against the
    flat naive model ran); on Dask it is the same model, fitted from the reduced statistics."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    p = np.random.default_rng(0).uniform(0.2, 0.8, (2, 6))
    X = pd.DataFrame((rng.random((400, 6)) < p[y]).astype(int).astype(str), columns=[f"x{j}" for j in range(6)])
    Xd, yd = dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(pd.Series(y), npartitions=3, sort=False)
    mem = bn.CategoricalNB(structure="auto").fit(X, y)
    dist = bn.CategoricalNB(structure="auto").fit(Xd, yd)
    sc = dist.structure_scores_
    assert sc.loc[sc["chosen"], "structure"].item() == "naive (hierarchical)" and sc["cv_log_loss"].notna().sum() == 2
    assert mem.structure_kind_ == "naive" and mem.structure_hierarchical_
    _assert_same(mem, dist, X, Xd)
