"""Regression tests for wrong results in the core found by fuzzing and new users ("Trust").

Each test is named after what it protects: a constant feature carries no information,
``min_categories`` keeps boolean training data, an all-missing categorical column still
has a posterior (its prior), and ``partial_fit`` in any batching equals one ``fit``.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb import GaussianNB
from cases import PER_ESTIMATOR


def _float_resolution(model, X):
    """Absolute float64 resolution of predict_proba: a few ulps of the joint log-likelihood."""
    return 64 * np.finfo(float).eps * np.abs(model.predict_joint_log_proba(X)).max(axis=1, keepdims=True)


# ------------------------------------------------------------------ 1. constant Gaussian feature
def _constant_column_models(value, predictive):
    """GaussianNB fitted with a third column constant at ``value``, and without that column."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    X[:, 2] = value
    y = np.r_[np.zeros(80, int), np.ones(20, int)]
    return rng, GaussianNB(predictive=predictive).fit(X, y), GaussianNB(predictive=predictive).fit(X[:, :2], y)


@pytest.mark.parametrize("value", [5.0, 0.1, -3.7e8, 0.0])
@pytest.mark.parametrize("predictive", ["mean", "marginal"])
def test_constant_feature_does_not_move_the_posterior(value, predictive):
    rng, with_col, without = _constant_column_models(value, predictive)
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


# ------------------------------------------------------------ 3. min_categories on a bool column
def _bool_frames(flags):
    import pandas as pd

    obj = flags.astype(object)
    obj[::7] = None  # some missing cells
    return {
        "numpy bool": flags[:, None],
        "pandas bool": pd.DataFrame({"b": flags}),
        "pandas boolean": pd.DataFrame({"b": pd.array(flags, dtype="boolean")}),
        "object bool with None": obj[:, None],
    }


@pytest.mark.parametrize("kind", ["numpy bool", "pandas bool", "pandas boolean", "object bool with None"])
def test_min_categories_keeps_bool_training_data(kind):
    from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

    from bayesnb import CategoricalNB

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    flags = y == 1  # perfectly predictive
    X = _bool_frames(flags)[kind]
    model = CategoricalNB(min_categories=3).fit(X, y)
    seen = np.ones(200, bool)
    if kind == "object bool with None":
        seen[::7] = False
    assert np.array_equal(model.predict(X)[seen], y[seen])
    counts = model.posterior_.blocks[0].stats.counts[0]
    assert counts.sum() == seen.sum()  # every observed training value was counted
    cats = list(model.posterior_.blocks[0].state.categories[0])
    assert cats == [False, True, 2] and type(cats[0]) is bool
    # False/True are the integer categories 0/1, exactly as scikit-learn casts them
    ints = np.where(flags, 1, 0)[:, None]
    as_ints = CategoricalNB(min_categories=3).fit(ints, y)
    full = CategoricalNB(min_categories=3).fit(flags[:, None], y)
    np.testing.assert_allclose(full.predict_proba(ints.astype(bool)), as_ints.predict_proba(ints), rtol=1e-12)
    sk = SkCategoricalNB(min_categories=3).fit(ints, y)
    np.testing.assert_allclose(CategoricalNB(min_categories=3, class_alpha=0).fit(ints.astype(bool), y)
                               .predict_proba(ints.astype(bool)), sk.predict_proba(ints), rtol=1e-12)
    # sampled values are the training values' type (bools), never the codes
    Xs, _ = model.sample(20, random_state=0)
    assert all(isinstance(v, (bool, np.bool_)) for v in np.asarray(Xs).ravel())
    # partial_fit re-applies min_categories to the learned bool categories without loss
    two = CategoricalNB(min_categories=3).partial_fit(X[:80] if kind.startswith("numpy") or kind.startswith("object")
                                                      else X.iloc[:80], y[:80], classes=[0, 1])
    two.partial_fit(X[80:] if kind.startswith("numpy") or kind.startswith("object") else X.iloc[80:], y[80:])
    np.testing.assert_allclose(two.predict_proba(X), model.predict_proba(X), rtol=1e-12)


# ------------------------------------------------------- 4. an all-missing categorical column
def _all_missing_data(kind):
    """Training table whose column 1 is missing in every row, and the model to fit."""
    import pandas as pd

    from bayesnb import CategoricalNB

    rng = np.random.default_rng(4)
    n = 60
    a, c = rng.choice(["a", "b", "c"], n), rng.choice(["u", "v"], n)
    y = rng.integers(0, 2, n)
    if kind == "object None":
        X = np.c_[a, np.full(n, None), c].astype(object)
    elif kind == "float NaN":
        X = np.c_[rng.integers(0, 3, n), np.full(n, np.nan), rng.integers(0, 2, n)].astype(float)
    else:  # DataFrame
        X = pd.DataFrame({"a": a, "gone": pd.Series([None] * n, dtype=object), "c": c})
    return X, y, CategoricalNB()


def _drop_column_1(X):
    return X.drop(columns="gone") if hasattr(X, "columns") else X[:, [0, 2]]


def _col(X, j):
    return np.asarray(X.iloc[:, j] if hasattr(X, "iloc") else X[:, j], dtype=object)


def _fit(model, X, y):
    from bayesnb import AllMissingWarning

    with pytest.warns(AllMissingWarning):
        return model.fit(X, y)


KINDS = ["object None", "float NaN", "DataFrame"]


@pytest.mark.parametrize("kind", KINDS)
def test_all_missing_categorical_column_impute(kind):
    from bayesnb import AllMissingWarning

    X, y, model = _all_missing_data(kind)
    _fit(model, X, y)
    without = model.__class__().fit(_drop_column_1(X), y)
    Q = X[:10].copy()
    if hasattr(Q, "iloc"):
        Q.iloc[::3, 0] = None
    else:
        Q[::3, 0] = None
    before = Q.copy()
    name = "gone" if kind == "DataFrame" else "x1"
    with pytest.warns(AllMissingWarning, match=rf"CategoricalNB: feature\(s\) \['{name}'\] have no known category.*impute"):
        out = model.impute(Q)
    assert all(v is None or v != v for v in _col(out, 1))  # nothing to draw from: stays missing
    # the other columns are imputed exactly as by a model that never had the column
    expected = without.impute(_drop_column_1(Q))
    for j, jj in [(0, 0), (2, 1)]:
        assert list(_col(out, j)) == list(_col(expected, jj))
    if hasattr(Q, "iloc"):
        assert Q.equals(before)
    else:
        assert np.array_equal(Q.astype(str), before.astype(str))  # input not modified


@pytest.mark.parametrize("kind", KINDS)
def test_all_missing_categorical_column_sample(kind):
    from bayesnb import AllMissingWarning

    X, y, model = _all_missing_data(kind)
    _fit(model, X, y)
    without = model.__class__().fit(_drop_column_1(X), y)
    for uncertainty in (True, False):
        with pytest.warns(AllMissingWarning, match=r"no known category.*sampling leaves"):
            Xs, ys = model.sample(50, random_state=5, parameter_uncertainty=uncertainty)
        Xw, yw = without.sample(50, random_state=5, parameter_uncertainty=uncertainty)
        assert all(v is None or v != v for v in _col(Xs, 1))
        # the empty column draws nothing, so every other value is the same draw
        assert np.array_equal(ys, yw)
        assert list(_col(Xs, 0)) == list(_col(Xw, 0)) and list(_col(Xs, 2)) == list(_col(Xw, 1))


@pytest.mark.parametrize("kind", KINDS)
def test_all_missing_categorical_column_sample_posterior(kind):
    X, y, model = _all_missing_data(kind)
    _fit(model, X, y)
    without = model.__class__().fit(_drop_column_1(X), y)
    theta = model.sample_posterior(200, random_state=6).posterior["theta_categorical"].values
    theta_w = without.sample_posterior(200, random_state=6).posterior["theta_categorical"].values
    assert np.all(np.isnan(theta[..., 1, :]))  # zero categories: no probability to report
    V = theta_w.shape[-1]
    np.testing.assert_array_equal(theta[..., [0, 2], :V], theta_w)
    assert np.all(np.isfinite(model.predict_proba(X)))


@pytest.mark.parametrize("declare", ["categories", "min_categories"])
def test_all_missing_categorical_column_with_declared_categories_uses_the_prior(declare):
    """With declared categories the column's posterior is its prior: impute/sample draw
    from it (uniform for alpha=1), and sample_posterior draws Dirichlet(alpha)."""
    from bayesnb import CategoricalNB

    rng = np.random.default_rng(7)
    n = 40
    X = np.c_[rng.integers(0, 3, n), np.full(n, np.nan)]
    y = rng.integers(0, 2, n)
    cats = [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    model = CategoricalNB(categories=cats) if declare == "categories" else CategoricalNB(min_categories=3)
    _fit(model, X, y)
    Xs, _ = model.sample(3000, random_state=8, parameter_uncertainty=False)
    freq = np.bincount(np.asarray(Xs[:, 1], dtype=float).astype(int), minlength=3) / 3000
    np.testing.assert_allclose(freq, 1 / 3, atol=0.04)  # ~5 standard errors
    Q = np.c_[np.zeros(3000), np.full(3000, np.nan)]
    filled = model.impute(Q, strategy="draw", random_state=9, parameter_uncertainty=False)
    freq = np.bincount(np.asarray(filled[:, 1], dtype=float).astype(int), minlength=3) / 3000
    np.testing.assert_allclose(freq, 1 / 3, atol=0.04)
    theta = model.sample_posterior(4000, random_state=10).posterior["theta_categorical"].values[..., 1, :]
    np.testing.assert_allclose(theta.mean(axis=(0, 1)), 1 / 3, atol=0.02)  # Dirichlet(1, 1, 1) mean


# --------------------------------------------- 7. partial_fit in any batching equals one fit
def _family_data(name, rng, n):
    from bayesnb import (Bernoulli, BernoulliNB, Categorical, CategoricalNB, ComplementNB, Gaussian, Multinomial,
                         MultinomialNB, NaiveBayes)

    if name == "CategoricalNB":
        # column 2: category 3 appears only in the last rows (a later batch)
        X = rng.integers(0, 3, (n, 3)).astype(float)
        X[-7:, 2] = 3.0
        return (lambda: CategoricalNB()), X, [0, 1, 2]
    if name == "BernoulliNB":
        return (lambda: BernoulliNB()), rng.integers(0, 2, (n, 3)).astype(float), [0, 1, 2]
    if name == "GaussianNB":
        return (lambda: GaussianNB()), rng.normal(size=(n, 3)), [0, 1, 2]
    if name == "MultinomialNB":  # complete-case counting: a row missing a count is left out
        return (lambda: MultinomialNB()), rng.integers(0, 5, (n, 4)).astype(float), [0, 1, 3]
    if name == "ComplementNB":  # Multinomial's statistics, complement weights: the same rule
        return (lambda: ComplementNB(norm=True)), rng.integers(0, 5, (n, 4)).astype(float), [0, 1, 3]
    assert name == "NaiveBayes", f"add the data of {name} (a row of cases.py) here"
    X = np.c_[rng.normal(size=n), rng.integers(0, 3, n), rng.integers(0, 5, (n, 2)), rng.integers(0, 2, n)]
    return (lambda: NaiveBayes({0: Gaussian(), 1: Categorical(), (2, 3): Multinomial(), 4: Bernoulli()})), \
        X.astype(float), [0, 1, 2, 3, 4]


BATCHINGS = {"two": [20], "four": [10, 20, 45], "a one-row batch": [20, 21]}


@pytest.mark.parametrize("name", [case.name for case in PER_ESTIMATOR])
@pytest.mark.parametrize("batching", list(BATCHINGS))
def test_partial_fit_with_a_batch_missing_a_column_equals_fit(name, batching):
    import warnings

    from bayesnb import AllMissingWarning

    rng = np.random.default_rng(11)
    n = 60
    make, X, missing_columns = _family_data(name, rng, n)
    y = rng.integers(0, 3, n)
    Q = np.nan_to_num(X[:15]) if name != "NaiveBayes" else X[:15]
    for col in missing_columns:
        Xm = X.copy()
        Xm[:20, col] = np.nan  # all missing in the first batch(es), observed later
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AllMissingWarning)  # batch 1 legitimately warns
            one = make().fit(Xm, y)
            batched = make()
            for i, rows in enumerate(np.split(np.arange(n), BATCHINGS[batching])):
                batched.partial_fit(Xm[rows], y[rows], classes=[0, 1, 2] if i == 0 else None)
        np.testing.assert_array_equal(batched.class_count_, one.class_count_)
        for a, b in zip(one.posterior_.blocks, batched.posterior_.blocks):
            for pa, pb in zip(a.posterior, b.posterior):
                for u, v in zip(pa if isinstance(pa, tuple) else [pa], pb if isinstance(pb, tuple) else [pb]):
                    np.testing.assert_allclose(v, u, rtol=1e-12, atol=0)
        np.testing.assert_allclose(batched.predict_proba(Q), one.predict_proba(Q), rtol=1e-12, atol=1e-15)


def _assert_same_model(a, b, Q):
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    for ba, bb in zip(a.posterior_.blocks, b.posterior_.blocks):
        for pa, pb in zip(ba.posterior, bb.posterior):
            np.testing.assert_allclose(pb, pa, rtol=1e-12, atol=0)
    np.testing.assert_allclose(b.predict_proba(Q), a.predict_proba(Q), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("save_between", [False, True])
def test_multinomial_partial_fit_equals_fit_when_columns_are_first_observed_in_later_batches(
        save_between, tmp_path):
    """Rows counted while a column was never observed become partial rows (left out) once a later
    batch observes it; that holds after fit, across several batches and across save -> load."""
    import warnings

    import bayesnb
    from bayesnb import AllMissingWarning, MultinomialNB

    rng = np.random.default_rng(13)
    n = 80
    X = rng.integers(0, 6, (n, 5)).astype(float)
    X[:30, 0] = np.nan  # first observed in rows 30..
    X[:55, 1] = np.nan  # first observed in rows 55..
    X[::7, 4] = np.nan  # scattered: those rows are partial from the start
    y = rng.integers(0, 2, n)
    Q = np.nan_to_num(X[:20])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AllMissingWarning)
        one = MultinomialNB().fit(X, y)
        # fit on the first batch, then partial_fit: fit must keep what partial_fit needs
        batched = MultinomialNB().fit(X[:25], y[:25])
        for rows in (np.arange(25, 40), np.arange(40, 60), np.arange(60, n)):
            if save_between:
                batched.save(tmp_path / "m.bnb", overwrite=True)
                batched = bayesnb.load(tmp_path / "m.bnb")
            batched.partial_fit(X[rows], y[rows])
    complete = ~np.isnan(X).any(axis=1)
    np.testing.assert_allclose(one.posterior_.blocks[0].stats.counts,
                               [np.nansum(X[complete & (y == k)], axis=0) for k in (0, 1)], rtol=1e-12)
    _assert_same_model(one, batched, Q)


def test_partial_fit_warns_only_for_columns_never_observed():
    """A batch missing a column that an earlier batch observed is not an all-missing column."""
    import warnings

    from bayesnb import AllMissingWarning

    rng = np.random.default_rng(12)
    X, y = rng.normal(size=(30, 2)), np.arange(30) % 2
    later = X[10:20].copy()
    later[:, 0] = np.nan
    model = GaussianNB().partial_fit(X[:10], y[:10], classes=[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", AllMissingWarning)
        model.partial_fit(later, y[10:20])  # x0 was observed in batch 1: no warning
    fresh = X[20:].copy()
    fresh[:, 1] = np.nan
    first = GaussianNB()
    with pytest.warns(AllMissingWarning, match=r"\['x1'\]"):
        first.partial_fit(fresh, y[20:], classes=[0, 1])
    with pytest.warns(AllMissingWarning, match=r"\['x1'\]"):  # still never observed
        first.partial_fit(fresh, y[20:])
    with warnings.catch_warnings():
        warnings.simplefilter("error", AllMissingWarning)
        first.partial_fit(X[:10], y[:10])  # observed now


@pytest.mark.parametrize("value", [5.0, 0.1, -3.7e8])
@pytest.mark.parametrize("predictive", ["mean", "marginal"])
def test_constant_feature_far_from_its_value_leaves_the_class_posterior_unchanged(value, predictive):
    """Scored 1e4 (and 1e8) scales away from a training constant, the column's log density is
    huge (about -1e8 .. -1e16) and the same in every class: p(y | x) must not move. Summed into
    the joint before normalising it rounded the other columns away (P = 0.5 instead of 0.19)."""
    rng, with_col, without = _constant_column_models(value, predictive)
    scale = max(1.0, abs(value))
    Q = np.c_[rng.normal(size=(4, 2)), value + np.array([1e4, -1e4, 1e8, 3.0]) * scale]
    np.testing.assert_allclose(with_col.predict_proba(Q), without.predict_proba(Q[:, :2]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(with_col.predict_log_proba(Q), without.predict_log_proba(Q[:, :2]), rtol=1e-12,
                               atol=1e-12)
    # the joint still holds the column's (common) log density, and score_samples adds it once
    jll = with_col.predict_joint_log_proba(Q)
    assert np.all(jll < without.predict_joint_log_proba(Q[:, :2]))
    assert np.all(np.isfinite(with_col.score_samples(Q)))
