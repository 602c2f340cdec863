"""Values outside a family's support are impossible rows for scoring (issue 31, item 1).

``score_samples`` gives ``-inf`` exactly on the rows with such a cell and the same values
elsewhere; ``feature_log_contributions`` marks the cell ``-inf``; ``predict`` still refuses
the call, naming the rows and the column.
"""

import numpy as np
import pandas as pd
import pytest

from bayesnb import Bernoulli, Gaussian, Hurdle, LogNormal, NaiveBayes, NBOutlierDetector, Poisson


def _table(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"count": rng.poisson(2 + 2 * y), "size": rng.lognormal(y, 0.5),
                      "flag": rng.integers(0, 2, n), "temp": rng.normal(y, 1.0, n),
                      "spend": np.where(rng.random(n) < 0.3, 0.0, rng.lognormal(1, 0.5, n))})
    return X, y


FEATURES = {"count": Poisson(), "size": LogNormal(), "flag": Bernoulli(), "temp": Gaussian(), "spend": Hurdle()}
# (row, column, value outside the column's support)
ODD = [(1, "count", -1.0), (2, "count", 1.5), (3, "size", -2.0), (4, "size", 0.0), (5, "flag", 34.0),
       (6, "spend", -3.0)]


def _odd(X):
    Q = X.iloc[:10].astype(float)
    for i, col, v in ODD:
        Q.loc[Q.index[i], col] = v
    return Q


def test_score_samples_is_minus_inf_exactly_on_rows_with_an_out_of_support_cell():
    X, y = _table()
    model = NaiveBayes(features=FEATURES).fit(X, y)
    Q = _odd(X)
    s = model.score_samples(Q)
    odd_rows = sorted({i for i, _, _ in ODD})
    assert np.isneginf(s[odd_rows]).all()
    fine = np.setdiff1d(np.arange(len(Q)), odd_rows)
    np.testing.assert_array_equal(s[fine], model.score_samples(X.iloc[fine]))
    assert np.isfinite(s[fine]).all()
    # the same through the outlier detector (a fitted model: it scores with it)
    det = NBOutlierDetector(model).fit(X)
    assert np.isneginf(det.score_samples(Q)[odd_rows]).all()
    assert (det.predict(Q)[odd_rows] == -1).all()


def test_feature_log_contributions_mark_the_cell():
    X, y = _table()
    model = NaiveBayes(features=FEATURES).fit(X, y)
    C = model.feature_log_contributions(_odd(X))
    expected = np.zeros(C.shape, dtype=bool)
    for i, col, _ in ODD:
        expected[i, list(C.columns).index(col)] = True
    np.testing.assert_array_equal(np.isneginf(C.to_numpy()), expected)
    assert np.isfinite(C.to_numpy()[~expected]).all()


@pytest.mark.parametrize("method", ["predict", "predict_proba"])
def test_predict_still_refuses_naming_the_rows_and_column(method):
    X, y = _table()
    model = NaiveBayes(features=FEATURES).fit(X, y)
    with pytest.raises(ValueError, match=r"row\(s\) at position\(s\) \[1, 2\] of X in column\(s\) \['count'\]"):
        getattr(model, method)(_odd(X))


def test_a_structure_scores_out_of_support_rows_as_impossible():
    X, y = _table(n=300, seed=3)
    rng = np.random.default_rng(4)
    X = X.assign(colour=np.where(rng.random(300) < 0.8, np.where(X["temp"] > 0.5, "r", "g"), "b"))
    model = NaiveBayes(structure="tan").fit(X, y)
    assert any(model.structure_.values())  # the structured engine, not naive
    families = {c: type(f).__name__ for cols, f in model.blocks_ for c in cols}
    assert families["size"] == "LogNormal"
    Q = X.iloc[:6].copy()
    Q.loc[Q.index[2], "size"] = -5.0
    s = model.score_samples(Q)
    assert np.isneginf(s[2]) and np.isfinite(np.delete(s, 2)).all()
    np.testing.assert_allclose(np.delete(s, 2), model.score_samples(Q.drop(index=Q.index[2])), rtol=1e-12)
    C = model.feature_log_contributions(Q)
    assert np.isneginf(C.loc[Q.index[2], "size"]) and np.isfinite(C.drop(columns="size").to_numpy()).all()
    with pytest.raises(ValueError, match=r"row\(s\) at position\(s\) \[2\] of X in column\(s\) \['size'\]"):
        model.predict(Q)
