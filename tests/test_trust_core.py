"""Regression tests for wrong results in the core found by fuzzing and new users ("Trust").

Each test is named after what it protects: a constant feature carries no information,
``min_categories`` keeps boolean training data, an all-missing categorical column still
has a posterior (its prior), and ``partial_fit`` in any batching equals one ``fit``.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb import GaussianNB


def _float_resolution(model, X):
    """Absolute float64 resolution of predict_proba: a few ulps of the joint log-likelihood."""
    return 64 * np.finfo(float).eps * np.abs(model.predict_joint_log_proba(X)).max(axis=1, keepdims=True)


# ------------------------------------------------------------------ 1. constant Gaussian feature
@pytest.mark.parametrize("value", [5.0, 0.1, -3.7e8, 0.0])
@pytest.mark.parametrize("predictive", ["mean", "marginal"])
def test_constant_feature_does_not_move_the_posterior(value, predictive):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    X[:, 2] = value
    y = np.r_[np.zeros(80, int), np.ones(20, int)]
    with_col = GaussianNB(predictive=predictive).fit(X, y)
    without = GaussianNB(predictive=predictive).fit(X[:, :2], y)
    # the column's factor is the same for both classes: its posterior is tied, bit for bit
    post = with_col.posterior_.blocks[0].posterior
    for field in post:
        assert field[0, 2] == field[1, 2]
    scale = max(1.0, abs(value))
    offsets = np.array([0.0, 1e-4, -1e-4, 1e-2, 1.0, -50.0]) * scale  # 5.0, 5.0001, ..., far away
    Q = np.c_[rng.normal(size=(offsets.size, 2)), value + offsets]
    p_with, p_without = with_col.predict_proba(Q), without.predict_proba(Q[:, :2])
    assert np.all(np.isfinite(with_col.predict_log_proba(Q)))
    # equal up to the float64 resolution of the joint log-likelihood (far from the constant
    # the column's log density is huge, e.g. -1e9, and common to both classes; its sum with
    # the other columns is rounded to that number's ulp, as in any Naive Bayes)
    np.testing.assert_allclose(p_with[:3], p_without[:3], rtol=0, atol=1e-12)
    assert np.all(np.abs(p_with - p_without) <= _float_resolution(with_col, Q) + 1e-15)
    assert np.array_equal(with_col.predict(Q[:3]), without.predict(Q[:3, :2]))


def test_constant_feature_ties_classes_in_every_batching():
    """partial_fit in two batches ties the constant column exactly as one fit does."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    X[:, 1] = 0.1  # sums of 0.1 are inexact: the constant must still be recognised exactly
    y = rng.integers(0, 3, 60)
    one = GaussianNB().fit(X, y)
    two = GaussianNB().partial_fit(X[:25], y[:25], classes=[0, 1, 2]).partial_fit(X[25:], y[25:])
    for a, b in zip(one.posterior_.blocks[0].posterior, two.posterior_.blocks[0].posterior):
        assert np.all(a[:, 1] == a[0, 1]) and np.all(b[:, 1] == b[0, 1])
        # (the variance floor comes from the other column's variance: equal up to rounding)
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("values", [(0.0, 1.0), (0.1, 0.3), (5.0, 5.001)])
def test_per_class_constant_feature_gives_sane_finite_predictions(values):
    """A column constant within each class, different between classes: a perfect
    predictor, so confident, but with the class variances scaled by the column's spread
    (not by rounding noise), finite, and invariant to the column's units."""
    rng = np.random.default_rng(2)
    y = np.r_[np.zeros(80, int), np.ones(20, int)]
    X = np.c_[rng.normal(size=(100, 2)), np.where(y == 0, *values)]
    lo, hi = values
    model = GaussianNB().fit(X, y)
    # each class's plug-in variance is a fraction of the between-class spread, never ~0
    var = model.var_[:, 2]
    spread = (hi - lo) ** 2
    assert np.all(var > 1e-4 * spread) and np.all(var < spread)
    t = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 3.0, -2.0])
    Q = np.c_[np.zeros((t.size, 2)), lo + t * (hi - lo)]
    log_p = model.predict_log_proba(Q)
    assert np.all(np.isfinite(log_p))
    # at and near its own value each class wins
    assert model.predict(Q[[0, 1, 4, 5]]).tolist() == [0, 0, 1, 1]
    # the same data in other units (affine map of the column) gives the same predictions
    X2 = X.copy()
    X2[:, 2] = (X[:, 2] - lo) / (hi - lo)
    Q2 = Q.copy()
    Q2[:, 2] = t
    np.testing.assert_allclose(GaussianNB().fit(X2, y).predict_proba(Q2), model.predict_proba(Q), rtol=1e-6, atol=1e-12)
