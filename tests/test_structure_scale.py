"""Structure learning at scale (issue 25): narrow states, row-chunked pair counts and context-sorted node
statistics give what the straightforward computations give."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bayesnb
import bench_structure_scale as bench
from bayesnb.structure import infer as SI
from bayesnb.structure import learn as SL
from bayesnb.structure import engine as MX


@pytest.fixture(scope="module")
def mixed():
    """The benchmark's mixed table (10 categorical columns of 2-20 levels, 10 numeric, 5% missing), fitted TAN."""
    X, y = bench.table(3000, seed=1, missing=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = bayesnb.NaiveBayes(structure="kdb", k=2).fit(X, y)
    nodes = m._mixed.nodes
    return X, np.searchsorted(m.classes_, y), m, nodes, MX.node_data(nodes, m._encoded(X))


def test_node_data_states_are_narrow_and_follow_the_rule(mixed):
    X, _, m, nodes, (cols, miss, states) = mixed
    assert states.dtype == np.int8 and MX.state_dtype(nodes) == np.int8
    names = list(m._node_names(nodes))
    for j, nd in enumerate(nodes):
        col = X[names[j]]
        if nd.numeric:
            x = col.to_numpy(dtype=float)
            want = np.where(np.isnan(x), -1, np.searchsorted(nd.edges, np.nan_to_num(x), side="right"))
            np.testing.assert_array_equal(cols[j], x)
        else:
            want = col.cat.codes.to_numpy().astype(np.int64)
        np.testing.assert_array_equal(states[:, j].astype(np.int64), want)
        np.testing.assert_array_equal(miss[:, j], want < 0)
    # the numeric nodes of one block share one array of the block's values (no copy per node)
    by_block = {}
    for j, nd in enumerate(nodes):
        if nd.numeric:
            by_block.setdefault(nd.block, []).append(cols[j])
    for views in by_block.values():
        assert views[0].base is not None and all(v.base is views[0].base for v in views)


def test_state_dtype_widens_with_the_levels():
    def node(s):
        return MX.Node(0, 0, None, None, False, s, np.empty(0), None)
    assert MX.state_dtype([node(2), node(127)]) == np.int8
    assert MX.state_dtype([node(2), node(128)]) == np.int16
    assert MX.state_dtype([node(40000)]) == np.int32
    assert MX.state_dtype([]) == np.int8


def _same_stats(got, ref, rtol=0.0):
    for a, b in zip(got, ref):
        assert type(a) is type(b)
        for fa, fb in zip(a, b):
            for u, v in zip(fa if isinstance(fa, tuple) else (fa,), fb if isinstance(fb, tuple) else (fb,)):
                np.testing.assert_allclose(u, v, rtol=rtol, atol=rtol)


def test_narrow_states_fit_and_score_as_int64_states(mixed):
    X, yc, m, nodes, data = mixed
    wide = (data[0], data[1], data[2].astype(np.int64))
    parents, K = m._mixed.parents, len(m.classes_)
    w = np.ones(len(yc))
    a = MX.fit_nodes(nodes, data, yc, w, K, parents)
    b = MX.fit_nodes(nodes, wide, yc, w, K, parents)
    _same_stats(a.stats, b.stats)
    assert a.log_evidence == b.log_evidence
    np.testing.assert_array_equal(SI.log_likelihood(a, data), SI.log_likelihood(b, wide))


def test_many_levels_take_int16_states_and_fit_as_int64():
    rng = np.random.default_rng(0)
    X, y = bench.table(2000, seed=2)
    X["big"] = (rng.integers(0, 300, len(y))).astype(str)  # 300 levels: int16 states
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    nodes, parents = m._mixed.nodes, m._mixed.parents
    data = MX.node_data(nodes, m._encoded(X))
    assert data[2].dtype == np.int16
    wide = (data[0], data[1], data[2].astype(np.int64))
    yc, K = np.searchsorted(m.classes_, y), len(m.classes_)
    a = MX.fit_nodes(nodes, data, yc, np.ones(len(y)), K, parents)
    b = MX.fit_nodes(nodes, wide, yc, np.ones(len(y)), K, parents)
    assert a.log_evidence == b.log_evidence
    np.testing.assert_array_equal(SI.log_likelihood(a, data), SI.log_likelihood(b, wide))


@pytest.mark.parametrize("cells", [None, 50])
def test_context_sorted_statistics_equal_one_hot_weights(mixed, cells, monkeypatch):
    """Class codes take the context-sorted batches; the same classes as one-hot weights take the dense
    (rows x contexts) path: the statistics agree, with row weights and missing cells."""
    _, yc, m, nodes, data = mixed
    K, parents = len(m.classes_), m._mixed.parents
    w = np.random.default_rng(3).uniform(0.1, 3.0, len(yc))
    onehot = np.eye(K)[yc]
    ref = MX.node_stats(nodes, data, onehot, w, K, parents)
    if cells is not None:
        monkeypatch.setattr(MX, "MAX_RESP_CELLS", cells)  # many batches, large contexts cut into row chunks
    _same_stats(MX.node_stats(nodes, data, yc, w, K, parents), ref, rtol=1e-12)


def test_context_batches_cover_the_rows_in_bounded_pieces(monkeypatch):
    monkeypatch.setattr(MX, "MAX_RESP_CELLS", 12)
    ctx = np.sort(np.random.default_rng(1).integers(0, 9, 100))
    ctx[ctx == 4] = 5  # an empty context inside
    batches = MX._context_batches(ctx, 9)
    assert batches[0][0] == 0 and batches[-1][1] == ctx.size
    assert all(b0[1] == b1[0] for b0, b1 in zip(batches, batches[1:]))
    for a, b in batches:
        span = int(ctx[b - 1] - ctx[a] + 1)
        assert (b - a) * span <= 12 or (span == 1 and b - a <= 12)


def _pair_reference(codes, y, V, K, w):
    """Per pair (i < j) the (K, V_i, V_j) table by itself: learn._table on the two columns."""
    d = codes.shape[1]
    return {(i, j): SL._table(codes[:, i].astype(np.int64), codes[:, j].astype(np.int64), V[i], V[j], y, K, w)
            for i in range(d) for j in range(i + 1, d)}


@pytest.mark.parametrize("weighted", [False, True])
def test_pair_tables_in_row_chunks_equal_per_pair_tables(mixed, weighted, monkeypatch):
    _, yc, m, nodes, (_, _, states) = mixed
    V, K = [nd.n_states for nd in nodes], len(m.classes_)
    w = np.random.default_rng(4).uniform(0.1, 3.0, len(yc)) if weighted else None
    ref = _pair_reference(states, yc, V, K, np.ones(len(yc)) if w is None else w)
    whole = SL.edge_scores(states, yc, V, K, w)
    monkeypatch.setattr(SL, "PAIR_CHUNK_CELLS", 37)  # chunks of a few rows
    for i, tabs, _ in SL._pair_tables(states, yc, V, K, w):
        for mm, j in enumerate(range(i + 1, len(V))):
            got = tabs[mm][:, :, :V[j]]
            if weighted:
                np.testing.assert_allclose(got, ref[i, j], rtol=1e-12)
            else:
                np.testing.assert_array_equal(got, ref[i, j])
            assert not tabs[mm][:, :, V[j]:].any()
    chunked = SL.edge_scores(states, yc, V, K, w)
    np.testing.assert_allclose(chunked.weights, whole.weights, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(chunked.class_mi, whole.class_mi)
    for kind in ("tan", "kdb"):
        assert SL.learn_parents(states, yc, V, K, kind, scores=chunked) == SL.learn_parents(
            states, yc, V, K, kind, scores=whole)
