"""Cheaper predict paths (issue 32) give the results of the general ones.

- Categorical codes of a numeric array (or a one-block numeric DataFrame) against fitted
  integer categories are made a block of rows at a time: they must equal the codes of the
  column-by-column path, with missing cells, fractions, values out of range, any layout.
- Gaussian ``"mean"`` scores of a complete row come from each class's summed distances:
  they must equal the cell-by-cell scores (the largest log density per cell subtracted
  first) to rounding, and rows far from every class must still be scored cell by cell.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import bayesnb
import bayesnb.families._categorical_encoding as enc
from bayesnb.families import _gaussian_cells as cells
from bayesnb.families.categorical import CategoricalEncoding


def _fitted_state(seed=0, n=3000, d=6):
    rng = np.random.default_rng(seed)
    _, cats, declared = enc.encode_columns(rng.integers(-2, 5, size=(n, d)).astype(float))
    return CategoricalEncoding(cats, declared)


def _test_rows(kind, seed=1, n=40000, d=6):
    rng = np.random.default_rng(seed)
    X = rng.integers(-4, 8, size=(n, d)).astype(float)  # some values below / above the categories
    if kind in ("nan", "fraction", "fortran", "float32", "frame"):
        X[rng.random((n, d)) < 0.0005] = np.nan
    if kind in ("fraction", "fortran"):
        X[rng.random((n, d)) < 0.0005] = 2.5
    if kind == "fortran":
        return np.asfortranarray(X)
    if kind == "float32":
        return X.astype(np.float32)
    if kind == "int32":
        return np.clip(X, -4, 8).astype(np.int32)
    if kind == "frame":
        return pd.DataFrame(X, columns=[f"c{j}" for j in range(d)])
    return X


@pytest.mark.parametrize("kind", ["clean", "nan", "fraction", "fortran", "float32", "int32", "frame"])
def test_block_codes_equal_column_codes(kind, monkeypatch):
    state = _fitted_state()
    X = _test_rows(kind)
    calls = []
    real = enc.numeric_block_codes
    monkeypatch.setattr(enc, "numeric_block_codes", lambda *a: calls.append(1) or real(*a))
    fast, cats, declared = enc.encode_columns(X, state)
    assert calls  # the block path was taken
    monkeypatch.setattr(enc, "numeric_block_codes", lambda *a: None)  # the column-by-column path
    slow, cats2, declared2 = enc.encode_columns(X, state)
    assert fast.dtype == slow.dtype == np.int8
    np.testing.assert_array_equal(fast, slow)
    assert cats == cats2 and declared == declared2


def test_block_codes_refuse_what_they_cannot_code():
    state = _fitted_state()
    X = np.zeros((10, 6))
    assert enc.numeric_block_codes(X.astype(object), state.categories, np.int8) is None
    assert enc.numeric_block_codes(X.astype(np.uint64), state.categories, np.int8) is None
    text = CategoricalEncoding(tuple(np.array(["a", "b"], dtype=object) for _ in range(6)), (False,) * 6)
    assert enc.numeric_block_codes(X, text.categories, np.int8) is None
    assert enc.numeric_block_codes(X[:, :5], state.categories, np.int8) is None


def test_categorical_predict_on_floats_equals_integer_input():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 5, size=(5000, 8))
    y = rng.integers(0, 3, 5000)
    model = bayesnb.CategoricalNB().fit(X, y)
    Xf = X.astype(float)
    Xf[7, 3] = np.nan  # marginalised out
    np.testing.assert_allclose(model.predict_proba(Xf)[8:], model.predict_proba(X)[8:], rtol=0, atol=0)
    assert np.isfinite(model.predict_proba(Xf)[7]).all()


def _gaussian_post(seed=0, d=7, K=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, 2000)
    X = rng.normal(size=(2000, d)) * rng.uniform(0.01, 50, d) + y[:, None] * rng.normal(size=d) * 3 + 1e3
    return bayesnb.GaussianNB().fit(X, y).posterior_.blocks[0].posterior, X


def _cell_by_cell(post, X):
    rel, row = np.empty((X.shape[0], post.mu.shape[0])), np.empty(X.shape[0])
    cells._parts_into(post, np.ascontiguousarray(X, dtype=float), None, "mean", rel, row)
    return rel, row


def test_summed_scores_equal_cell_by_cell_scores():
    post, X = _gaussian_post()
    rng = np.random.default_rng(5)
    Q = np.vstack([X[:3000], X[:200] + rng.normal(size=(200, X.shape[1])) * 1e4])  # some rows far from every class
    rel, row = cells.chunked_parts(post, Q, None, "mean")
    ref_rel, ref_row = _cell_by_cell(post, Q)
    np.testing.assert_allclose(rel + row[:, None], ref_rel + ref_row[:, None], rtol=1e-13)
    # the class-relative part (what predict_proba reads; the split between the two parts may differ
    # by a constant per row) to ~1e-16 of the rows' summed distances
    np.testing.assert_allclose(rel - rel.max(1, keepdims=True), ref_rel - ref_rel.max(1, keepdims=True),
                               rtol=1e-12, atol=1e-11)
    far = -row > cells.EXACT_FROM
    assert far.sum() >= 150  # those were scored cell by cell: bit for bit
    np.testing.assert_array_equal(rel[far], ref_rel[far])
    np.testing.assert_array_equal(row[far], ref_row[far])


def test_summed_scores_of_float32_and_fortran_input_are_identical():
    post, X = _gaussian_post(1)
    X = X.astype(np.float32).astype(np.float64)
    ref = cells.chunked_parts(post, X, None, "mean")
    got = cells.chunked_parts(post, X.astype(np.float32), None, "mean")
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    # Fortran order: Fortran-ordered buffers, the same cells summed by another BLAS kernel (to rounding)
    for other in (np.asfortranarray(X), np.asfortranarray(X.astype(np.float32))):
        got = cells.chunked_parts(post, other, None, "mean")
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-14)


@pytest.mark.parametrize("y", [np.array([3, 1, 1, 7], np.int8), np.array([-100, 100, 2, -100], np.int8),
                               np.array([255, 0, 7], np.uint8), np.array([-5, 2, 2]), np.array([0, 2**40, 5]),
                               np.array([2**63 + 5, 2**63 + 1], np.uint64), np.array([4], np.int16)])
def test_integer_labels_counted_like_np_unique(y):
    from bayesnb.estimators.validation import unique_labels

    got = unique_labels(y, "t")
    assert got.dtype == y.dtype
    np.testing.assert_array_equal(got, np.unique(y))


def test_integer_labels_fit_as_before():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = rng.choice(np.array([-7, 2, 40], np.int16), 300)
    model = bayesnb.GaussianNB().fit(X, y)
    assert model.classes_.dtype == np.int16 and list(model.classes_) == [-7, 2, 40]
    assert set(model.predict(X)) <= {-7, 2, 40}


@pytest.mark.parametrize("first", [0.0, 3.0, 1e3, 1e6])
def test_one_pass_class_statistics_match_two_pass(first):
    """Each class's mean and m2 from one pass over its shifted rows, or two where that would lose
    precision (its first row far from its mean), equal numpy's two-pass moments."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 30000)
    X = 1e8 + rng.normal(size=(30000, 4)) * np.array([1.0, 1e-3, 50.0, 1.0]) + y[:, None]
    X[:, 3] = 0.1  # constant: exactly, whatever the summation
    X[np.argmax(y == 0), :3] += first  # class 0's first row (the shift) an outlier
    stats = bayesnb.GaussianNB().fit(X, y).posterior_.blocks[0].stats
    for k in range(3):
        rows = X[y == k]
        # exact references: the shifts t = x - x_0 are exact, their sums correctly rounded (fsum); the
        # squared deviations from a rounded mean would err by n * (its rounding)**2 (1e-11 here, column 1)
        t = rows - rows[0]
        s1 = np.array([math.fsum(c) for c in t.T])
        m2 = np.array([math.fsum(c * c) for c in t.T]) - s1 * s1 / len(rows)
        np.testing.assert_allclose(stats.mean[k], rows[0] + s1 / len(rows), rtol=1e-15, atol=0)
        np.testing.assert_allclose(stats.m2[k, :3], m2[:3], rtol=5e-12)
        assert stats.m2[k, 3] == 0.0 and stats.mean[k, 3] == 0.1


def test_thresholded_bernoulli_block_is_compact_and_scores_as_floats():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 4, size=(30000, 12)).astype(float)
    y = rng.integers(0, 3, 30000)
    raw = bayesnb.BernoulliNB(binarize=0.5).fit(X, y)
    ones = bayesnb.BernoulliNB().fit((X > 0.5).astype(float), y)  # the same model on float 0/1 values
    block, _ = raw.posterior_.blocks[0].family.encode(X)
    assert block.X.dtype == np.uint8 and block.X.nbytes == X.size
    np.testing.assert_array_equal(raw.feature_count_, ones.feature_count_)
    np.testing.assert_allclose(raw.predict_joint_log_proba(X), ones.predict_joint_log_proba((X > 0.5).astype(float)),
                               rtol=1e-13)
    np.testing.assert_array_equal(raw.predict(X), ones.predict((X > 0.5).astype(float)))


def test_thresholded_bernoulli_predict_makes_no_float_copy_of_x():
    import tracemalloc

    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, size=(100000, 20)).astype(float)  # 16 MB
    y = rng.integers(0, 3, 100000)
    model = bayesnb.BernoulliNB(binarize=0.0).fit(X, y)
    model.predict(X[:10])
    tracemalloc.start()
    model.predict(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < X.nbytes / 2  # a float64 0/1 copy of X alone is X.nbytes (the compact one an eighth)


@pytest.mark.parametrize("kw", [{}, {"min_categories": 9}, {"categories": [[-2, -1, 0, 1, 2, 3, 4, 5]] * 6}])
@pytest.mark.parametrize("kind", ["clean", "nan", "float32", "int32", "frame"])
def test_fit_block_codes_equal_column_codes(kind, kw, monkeypatch):
    X = _test_rows(kind)
    if kind == "int32":
        X = np.clip(X, -2, 4)
    else:
        X = np.clip(X, -2, 4) if not hasattr(X, "iloc") else X.clip(-2, 4)
    fast = enc.encode_columns(X, **kw)
    monkeypatch.setattr(enc, "numeric_block_codes", lambda *a: None)
    slow = enc.encode_columns(X, **kw)
    np.testing.assert_array_equal(fast[0], slow[0])
    assert fast[0].dtype == slow[0].dtype
    assert all(np.array_equal(a, b) for a, b in zip(fast[1], slow[1])) and fast[2] == slow[2]


def test_fit_block_codes_refuse_undeclared_values():
    X = np.zeros((100, 2))
    X[5, 1] = 7.0
    with pytest.raises(ValueError, match="not among its declared categories"):
        enc.encode_columns(X, categories=[[0.0, 1.0], [0.0, 1.0]])


def test_float32_categorical_fit_keeps_no_integer_copy_per_column():
    import tracemalloc

    rng = np.random.default_rng(8)
    X = rng.integers(0, 5, size=(100000, 20)).astype(np.float32)  # 8 MB
    y = rng.integers(0, 3, 100000)
    bayesnb.CategoricalNB().fit(X[:100], y[:100])
    tracemalloc.start()
    bayesnb.CategoricalNB().fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < X.nbytes * 1.25  # each column's int64 values kept until coding: 2 X.nbytes


def test_categorical_code_tables_made_once_by_the_first_prediction():
    import pickle

    rng = np.random.default_rng(9)
    X = rng.integers(0, 4, size=(500, 5))
    y = rng.integers(0, 2, 500)
    model = bayesnb.CategoricalNB().fit(X, y)
    cache = model._caches[0]
    assert cache.value is None  # a fit pays nothing for them
    first = model.predict_proba(X)
    tables = cache.value
    assert tables is not None
    np.testing.assert_array_equal(model.predict_proba(X), first)
    assert cache.value is tables  # reused
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict_proba(X), first)
    model.partial_fit(X, y)  # a new posterior: new tables
    assert model._caches[0] is not cache
