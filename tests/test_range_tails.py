"""Issue 31: the outlier detector's range tails. Beyond a numeric column's training range a cell costs
its distance in units of an exponential fitted to the column's most extreme training values, whatever
the family (a LogNormal with a long right tail charges a value 10% of the range past the largest almost
nothing of its own)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from bayesnb import (Bernoulli, Categorical, Gaussian, Histogram, Hurdle, LogNormal, Multinomial, NaiveBayes,
                     NBOutlierDetector, Poisson)
from bayesnb.generative.range_tails import fit_range_tails, ordered_columns, range_tail_costs


def _skewed(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"size": np.exp(rng.normal(2.0, 0.6, n)), "grade": rng.integers(1, 6, n).astype(float),
                         "kind": rng.choice(["a", "b"], n)})


def test_scales_are_the_mean_excess_of_the_extreme_distinct_values():
    X = pd.DataFrame({"v": [0.0, 1.0, 2.0, 3.0, 5.0, 9.0, 9.0, 9.0, 20.0], "s": list("abcabcabc")})
    tails = fit_range_tails(X)
    # 7 distinct values: k = ceil(sqrt(7)) = 3; above: (9 - 5, 20 - 5) / 2; below: (2 - 0, 2 - 1) / 2
    np.testing.assert_allclose([tails.lo[0], tails.hi[0], tails.below[0], tails.above[0]], [0, 20, 1.5, 9.5])
    assert np.isnan(tails.lo[1])  # not numeric
    costs = range_tail_costs(tails, pd.DataFrame({"v": [-3.0, 10.0, 39.0, np.nan], "s": ["z"] * 4}))
    np.testing.assert_allclose(costs, [[2.0, 0], [0, 0], [2.0, 0], [0, 0]])


def test_a_value_beyond_a_long_tail_costs_its_distance_in_the_extremes_units():
    X = _skewed()
    model = NaiveBayes(features={("size",): LogNormal(), ("grade",): LogNormal(), ("kind",): Categorical()})
    on = NBOutlierDetector(model, statistic="density").fit(X)
    off = NBOutlierDetector(model, range_tails=False, statistic="density").fit(X)
    rows = X.iloc[:20]
    far = rows.assign(size=X["size"].max() + 0.1 * (X["size"].max() - X["size"].min()))
    np.testing.assert_array_equal(off.score_samples(far), on.estimator_.score_samples(far))
    np.testing.assert_allclose(on.score_samples(rows), off.score_samples(rows))  # inside the range: no cost
    extra = off.score_samples(far) - on.score_samples(far)
    np.testing.assert_allclose(extra, range_tail_costs(on.range_tails_, far).sum(axis=1))
    edge = rows.assign(size=X["size"].max())
    own = off.score_samples(edge) - off.score_samples(far)  # the LogNormal's own charge for the move
    assert np.all(own > 0) and np.all(on.score_samples(edge) - on.score_samples(far) > 2 * own)
    C, term = on.estimator_.feature_log_contributions(far, return_class_term=True)
    cells = on.cell_scores(far)
    np.testing.assert_allclose(cells.to_numpy().sum(axis=1) + term, on.score_samples(far), rtol=1e-10)
    assert set(cells.idxmin(axis=1)) == {"size"}


def test_weights_equal_repeated_rows_and_zero_weights_are_left_out():
    X = _skewed(60, seed=1)
    w = np.random.default_rng(2).integers(0, 4, 60)
    a = NBOutlierDetector(NaiveBayes(), statistic="density").fit(X, sample_weight=w)
    b = NBOutlierDetector(NaiveBayes(), statistic="density").fit(X.loc[X.index.repeat(w)].reset_index(drop=True))
    for u, v in zip(a.range_tails_, b.range_tails_):
        np.testing.assert_array_equal(u, v)
    far = X.iloc[:5].assign(size=X["size"].max() * 2)
    np.testing.assert_allclose(a.score_samples(far), b.score_samples(far), rtol=1e-9)
    np.testing.assert_allclose(a.offset_, b.offset_, rtol=1e-9)


def test_arrays_sparse_and_bad_values():
    A = _skewed()[["size", "grade"]].to_numpy()
    det = NBOutlierDetector(NaiveBayes(), statistic="density").fit(A)
    assert det.range_tails_ is not None and det.score_samples(A[:1] * 10)[0] < det.score_samples(A[:1])[0] - 5
    assert fit_range_tails(pd.DataFrame({"s": ["a", "b"]})) is None
    S = sp.csr_matrix(np.round(A))  # counts: sparse input gets no range, scored by the model alone
    assert fit_range_tails(S) is None and range_tail_costs(det.range_tails_, S) is None
    sparse = NBOutlierDetector(NaiveBayes(features={(0, 1): Multinomial()}), statistic="density").fit(S)
    assert sparse.range_tails_ is None
    np.testing.assert_array_equal(sparse.score_samples(S * 10), sparse.estimator_.score_samples(S * 10))
    with pytest.raises(ValueError, match="range_tails must be True or False"):
        NBOutlierDetector(range_tails="yes").fit(A)


def test_a_column_numeric_at_fit_is_costed_whatever_its_dtype_when_scored():
    X = _skewed()
    det = NBOutlierDetector(NaiveBayes(), statistic="density").fit(X)
    far = X.iloc[:5].assign(size=X["size"].max() * 3)
    as_object = far.astype({"size": object, "grade": object})
    want = range_tail_costs(det.range_tails_, far)
    assert want[:, 0].min() > 1
    np.testing.assert_array_equal(range_tail_costs(det.range_tails_, as_object), want)
    np.testing.assert_array_equal(range_tail_costs(det.range_tails_, as_object.to_numpy()), want)
    with pytest.raises(ValueError, match="column .size. is scored with range tails"):
        range_tail_costs(det.range_tails_, far.astype({"size": object}).assign(size="big"))
    obj = X.iloc[:5].astype({"grade": object}).assign(grade=X["grade"].max() + 20)  # the model reads it as floats
    np.testing.assert_allclose(det.score_samples(obj), det.score_samples(obj.astype({"grade": float})))
    assert det.score_samples(obj).max() < det.estimator_.score_samples(obj).min() - 1


def test_only_columns_the_model_scores_on_an_ordered_scale_get_tails():
    X = _skewed().assign(code=np.random.default_rng(3).integers(1, 4, 300).astype(float))
    model = NaiveBayes(features={("size",): LogNormal(), ("grade",): Hurdle(Poisson(), at=0.0),
                                 ("kind", "code"): Categorical()})
    det = NBOutlierDetector(model, statistic="density").fit(X)
    np.testing.assert_array_equal(ordered_columns(det.estimator_, 4), [True, True, False, False])
    assert not np.isnan(det.range_tails_.lo[:2]).any() and np.isnan(det.range_tails_.lo[2:]).all()
    rows = X.iloc[:5]
    costs = range_tail_costs(det.range_tails_, rows.assign(code=50.0, grade=X["grade"].max() + 30))
    assert np.all(costs[:, 3] == 0) and np.all(costs[:, 1] > 1)  # the coded category costs nothing beyond 3
    assert fit_range_tails(X)[0][3] == 1.0  # by dtype alone the coded column would get a range
    assert [Gaussian().ordered_support, Histogram().ordered_support, Bernoulli().ordered_support,
            Multinomial().ordered_support, Hurdle().ordered_support] == [True, True, False, False, True]


def test_scores_and_cells_read_the_tails_the_same_way():
    X = _skewed()
    det = NBOutlierDetector(NaiveBayes(), statistic="density").fit(X)
    far = X.iloc[:5].assign(size=X["size"].max() * 3)
    del det.range_tails_  # a detector pickled before the tails existed: the model's scores alone, cells too
    C, term = det.estimator_.feature_log_contributions(far, return_class_term=True)
    np.testing.assert_allclose(det.cell_scores(far).to_numpy(), C.to_numpy())
    np.testing.assert_allclose(det.score_samples(far), det.estimator_.score_samples(far))


def test_a_one_value_column_gets_no_range_in_any_units_and_an_infinite_value_costs_inf():
    X = pd.DataFrame({"c": [5.0] * 6, "v": [0.0, 1.0, 2.0, 3.0, 4.0, 6.0]})
    for scale in (1.0, 1000.0):
        tails = fit_range_tails(X * scale)
        assert np.isnan([tails.lo[0], tails.below[0], tails.above[0]]).all()
        far = pd.DataFrame({"c": [-9.0 * scale], "v": [1.0]})
        np.testing.assert_array_equal(range_tail_costs(tails, far), [[0, 0]])
    costs = range_tail_costs(fit_range_tails(X), pd.DataFrame({"c": [5.0, 5.0], "v": [np.inf, -np.inf]}))
    assert np.isposinf(costs[:, 1]).all() and (costs[:, 0] == 0).all()
