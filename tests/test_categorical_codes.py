"""Categorical blocks are coded compactly: the smallest integer dtype, straight from DataFrame columns.

Every form of the same table (int64 array, int64 DataFrame, strings, pandas categoricals) gives
the same model; a fit on a 200,000 x 10 int64 DataFrame never holds an int64 copy of it.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

from bayesnb import Categorical, CategoricalNB
from bayesnb.families._categorical_encoding import code_dtype


@pytest.mark.parametrize(("largest", "dtype"), [(0, np.int8), (127, np.int8), (128, np.int16),
                                                (32767, np.int16), (32768, np.int32), (2**31, np.int64)])
def test_code_dtype_is_the_smallest_holding_every_code(largest, dtype):
    assert code_dtype(largest) == np.dtype(dtype)


@pytest.mark.parametrize(("V", "dtype"), [(5, np.int8), (127, np.int8), (128, np.int16), (300, np.int16)])
def test_codes_take_the_smallest_dtype(V, dtype):
    """Codes run from -1 (missing) to V (a value not among the V categories)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": np.arange(400) % V + 10, "b": rng.integers(0, 3, 400)})  # values, not codes
    codes, state = Categorical().encode(X)
    assert codes.dtype == dtype
    new = pd.DataFrame({"a": [-3, 10], "b": [1, 2]})  # an unseen value codes as V
    codes_new, _ = Categorical().encode(new, state)
    assert codes_new.dtype == dtype
    assert codes_new[:, 0].tolist() == [V, 0]


def test_an_int64_frame_of_codes_is_read_without_a_copy():
    """Columns 0 .. V_j - 1 in one int64 block are their own codes (as an int64 array is)."""
    X = pd.DataFrame(np.stack([np.arange(20) % 4, np.arange(20) % 3], axis=1))
    codes, state = Categorical().encode(X)
    assert np.shares_memory(codes, X.iloc[:, 0].to_numpy())
    assert not codes.flags.writeable
    np.testing.assert_array_equal(codes, X.to_numpy())
    codes_later, _ = Categorical().encode(X.iloc[:5], state)
    np.testing.assert_array_equal(codes_later, X.to_numpy()[:5])


def _table(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = (rng.integers(0, 4, (n, 4)) + y[:, None]) % 6
    return X.astype(np.int64), y


def test_every_form_of_the_table_gives_the_same_model():
    X, y = _table()
    Xt, _ = _table(500, seed=1)
    names = [f"c{j}" for j in range(X.shape[1])]
    ref = CategoricalNB(class_alpha=0).fit(X, y)
    sk = SkCategoricalNB(alpha=1.0).fit(X, y)
    np.testing.assert_allclose(ref.predict_proba(Xt), sk.predict_proba(Xt), rtol=1e-10)
    forms = {
        "frame": (pd.DataFrame(X, columns=names), pd.DataFrame(Xt, columns=names)),
        "int8": (X.astype(np.int8), Xt.astype(np.int8)),
        "strings": (X.astype(str), Xt.astype(str)),
        "categorical": tuple(pd.DataFrame({c: pd.Categorical(A[:, j], categories=range(6))
                                           for j, c in enumerate(names)}) for A in (X, Xt)),
    }
    for name, (train, test) in forms.items():
        est = CategoricalNB(class_alpha=0).fit(train, y)
        np.testing.assert_allclose(est.predict_proba(test), ref.predict_proba(Xt), rtol=1e-12, err_msg=name)
        np.testing.assert_array_equal(est.predict(test), ref.predict(Xt), err_msg=name)


def test_pandas_categorical_codes_equal_the_values_codes():
    """A categorical column is coded from its pandas codes, with its own category order, missing
    cells and values not among the fitted categories, as its values would be."""
    col = pd.Categorical(["b", "a", None, "c", "a"], categories=["c", "a", "b"])
    frame = pd.DataFrame({"x": col, "z": [1, 2, 1, 2, 1]})
    codes, state = Categorical().encode(frame)
    assert state.categories[0].tolist() == ["c", "a", "b"]  # pandas' order is kept (declared)
    assert codes[:, 0].tolist() == [2, 1, -1, 0, 1]
    later = pd.DataFrame({"x": pd.Categorical(["d", None, "c"]), "z": [2, 1, 1]})
    by_codes, _ = Categorical().encode(later, state)
    as_objects, _ = Categorical().encode(later.astype(object), state)
    assert by_codes[:, 0].tolist() == [3, -1, 0]  # "d" is not among the 3 categories
    np.testing.assert_array_equal(by_codes, as_objects)


def test_declared_categories_still_checked_on_categorical_columns():
    frame = pd.DataFrame({"x": pd.Categorical(["a", "b", "q"])})
    with pytest.raises(ValueError, match=r"value\(s\) \['q'\].*declared categories"):
        Categorical(categories=["a", "b"]).encode(frame)


def _peak(f):
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("offset", [0, 100])
def test_fit_and_predict_on_an_int64_frame_hold_no_int64_copy(offset):
    """Peak memory of fit and predict on a 200,000 x 10 int64 DataFrame (X is 16 MB).

    What they need, per row: the one-hot responsibilities or the scores, (n, K) float64 (24 B
    at K = 3), a few per-row vectors (labels, weights, the class codes: 32 B), and the codes of
    the cells, at most 1 byte each at 8 categories (10 B: values 100..107; values 0..7 are
    their own codes, read in place); plus 4 MiB of chunk buffers and tables. That is
    13.2 MB + 4 MiB; an int64 copy of the table (16 MB) would exceed it (and the int64
    codes of before this change peaked at 26 MiB).
    """
    n, d, K = 200_000, 10, 3
    rng = np.random.default_rng(0)
    y = rng.integers(0, K, n)
    X = pd.DataFrame(rng.integers(0, 8, (n, d)) + offset, columns=[f"c{j}" for j in range(d)])
    CategoricalNB().fit(X.iloc[:100], y[:100]).predict(X.iloc[:100])  # imports out of the measurement
    bound = n * (8 * K + 32 + d) + (4 << 20)
    est = CategoricalNB()
    fit_peak = _peak(lambda: est.fit(X, y))
    assert fit_peak < bound, f"fit peaked at {fit_peak / 2**20:.1f} MiB (bound {bound / 2**20:.1f} MiB)"
    predict_peak = _peak(lambda: est.predict(X))
    assert predict_peak < bound, f"predict peaked at {predict_peak / 2**20:.1f} MiB (bound {bound / 2**20:.1f} MiB)"
    np.testing.assert_array_equal(est.predict(X.iloc[:2000]), CategoricalNB().fit(X.to_numpy(), y).predict(
        X.to_numpy()[:2000]))


def test_floats_holding_integers_code_as_the_integers():
    """The table path for floats holding integers gives the codes the hashing path gives."""
    rng = np.random.default_rng(3)
    ints = rng.integers(-2, 6, (500, 3))
    codes_i, state_i = Categorical().encode(ints + 10)  # values, not codes: the coding path
    codes_f, state_f = Categorical().encode((ints + 10).astype(float))
    np.testing.assert_array_equal(codes_f, codes_i)
    for ci, cf in zip(state_i.categories, state_f.categories):
        np.testing.assert_array_equal(cf, ci)
    later = np.array([[10.0, 11.5, np.nan], [13.0, 9.0, 12.0]])  # 11.5 and 9 are not categories
    by_objects, _ = Categorical().encode(later.astype(object), state_f)
    by_floats, _ = Categorical().encode(later, state_f)
    np.testing.assert_array_equal(by_floats, by_objects)
    V = [len(c) for c in state_f.categories]
    assert by_floats[0].tolist() == [2, V[1], -1]
