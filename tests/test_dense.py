"""Dense fast paths (issue 11): no missing mask when nothing is missing, predict without normalising.

The results must be those of the general paths: predict is the argmax of predict_proba,
and a complete block scores exactly as the same block with a NaN cell elsewhere.
"""

import numpy as np
import pytest

import bayesnb


def _data(seed, n=400, d=6, K=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + 0.4 * y[:, None]
    return X, y


@pytest.mark.parametrize("predictive", ["mean", "marginal"])
@pytest.mark.parametrize("seed", [0, 1])
def test_gaussian_predict_is_argmax_of_predict_proba(seed, predictive):
    X, y = _data(seed)
    model = bayesnb.GaussianNB(predictive=predictive).fit(X, y)
    Xt, _ = _data(seed + 10, n=300)
    proba = model.predict_proba(Xt)
    np.testing.assert_array_equal(model.predict(Xt), model.classes_[np.argmax(proba, axis=1)])
    np.testing.assert_array_equal(model.predict(Xt), model.classes_[np.argmax(model.predict_log_proba(Xt), axis=1)])


def test_categorical_predict_is_argmax_of_predict_proba():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 500)
    X = np.minimum(rng.poisson(1.0 + 0.5 * y[:, None], size=(500, 5)), 4)
    model = bayesnb.CategoricalNB().fit(X, y)
    Xt = rng.integers(0, 5, size=(300, 5))
    np.testing.assert_array_equal(model.predict(Xt), model.classes_[np.argmax(model.predict_proba(Xt), axis=1)])


def test_ties_resolve_to_the_first_class_as_before():
    # two classes with identical data: every row is an exact tie, broken to the first class
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array(["a", "a", "b", "b"])
    model = bayesnb.GaussianNB().fit(np.vstack([X[:2], X[:2]]), y)
    log_proba = model.predict_log_proba(X)
    assert np.all(log_proba[:, 0] == log_proba[:, 1])
    assert list(model.predict(X)) == ["a"] * 4


def test_complete_gaussian_fit_equals_the_masked_path():
    # the same rows fitted with and without an extra all-NaN row (which takes the masked path)
    X, y = _data(5)
    full = bayesnb.GaussianNB(fit_prior=False).fit(X, y)  # (the extra row changes only the class counts)
    Xn = np.vstack([X, np.full((1, X.shape[1]), np.nan)])
    masked = bayesnb.GaussianNB(fit_prior=False).fit(Xn, np.append(y, y[0]))
    for a, b in zip(full.posterior_.blocks[0].stats, masked.posterior_.blocks[0].stats):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(full.predict_joint_log_proba(X), masked.predict_joint_log_proba(X), rtol=1e-12)
    # a NaN in a test row takes the masked scoring path; its other rows score as before
    Xt = X[:50].copy()
    Xt[0, 0] = np.nan
    np.testing.assert_array_equal(full.predict_joint_log_proba(Xt)[1:], full.predict_joint_log_proba(X[1:50]))


def test_user_array_is_not_modified_and_dtype_is_float64():
    X, y = _data(7)
    X.flags.writeable = False  # any write into the user's array would raise
    model = bayesnb.GaussianNB().fit(X, y)
    for out in (model.predict_proba(X), model.predict_log_proba(X), model.predict_joint_log_proba(X)):
        assert out.dtype == np.float64
    model.predict(X)


def test_constant_column_stays_exactly_constant():
    X, y = _data(8)
    X[:, 2] = 0.1
    stats = bayesnb.GaussianNB().fit(X, y).posterior_.blocks[0].stats
    assert np.all(stats.mean[:, 2] == 0.1) and np.all(stats.m2[:, 2] == 0.0)


def test_many_rows_cross_chunks_like_one():
    # more rows than one scoring chunk (2**18 // d rows): results per row do not depend on chunking
    rng = np.random.default_rng(9)
    d = 1
    n = (1 << 18) // d + 7
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) + y[:, None]
    model = bayesnb.GaussianNB().fit(X, y)
    jll = model.predict_joint_log_proba(X)
    np.testing.assert_array_equal(jll[-7:], model.predict_joint_log_proba(X[-7:]))


@pytest.mark.parametrize("min_categories", [None, 7])
def test_categorical_int64_codes_as_given_equal_the_general_path(min_categories):
    # int64 codes 0..V-1 are used without a copy; int32 (and a gap in the values) take the general path
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 600)
    X = np.minimum(rng.poisson(1.0 + 0.5 * y[:, None], size=(600, 4)), 4).astype(np.int64)
    X[:5] = np.arange(5)[:, None]  # every value 0..4 occurs
    fast = bayesnb.CategoricalNB(min_categories=min_categories).fit(X, y)
    slow = bayesnb.CategoricalNB(min_categories=min_categories).fit(X.astype(np.int32), y)
    gap = X.copy()
    gap[gap == 2] = 3  # 2 never occurs: categories are not 0..max, so not the codes themselves
    for a, b in zip(fast.posterior_.blocks[0].stats.counts, slow.posterior_.blocks[0].stats.counts):
        np.testing.assert_array_equal(a, b)
    Xt = rng.integers(0, 6, size=(200, 4))  # 5 was never seen: not codes as given
    for Z in (Xt, np.minimum(Xt, 4), gap):
        np.testing.assert_array_equal(fast.predict_proba(Z), slow.predict_proba(Z.astype(np.int32)))
    before = X.copy()
    fast.predict(X)
    fast.partial_fit(X, y)
    np.testing.assert_array_equal(X, before)
