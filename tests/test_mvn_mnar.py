"""Self-masking MNAR on the multivariate normal (impute_mnar(model="mvn"), bayesnb.impute.mvn_mnar)."""

import numpy as np
import pandas as pd
import pytest

from bayesnb import impute_mnar, mnar_sensitivity
from bayesnb.impute.mvn import impute_mvn


def _correlated(n=800, seed=0, hide=True):
    """x2 correlated 0.8 with x1 (complete) and shifted by the class; x2's values above its 60% quantile
    hidden with probability 0.8 (``hide``) or every cell with probability 0.3 (MCAR); a categorical c."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x1 = rng.normal(y, 1.0)
    x2 = 0.8 * (x1 - y) + 0.6 * rng.normal(size=n) + 1.5 * y
    m = (x2 > np.quantile(x2, 0.6)) & (rng.random(n) < 0.8) if hide else rng.random(n) < 0.3
    c = np.where(rng.random(n) < 0.8, np.array(["a", "b"])[y], "c").astype(object)
    c[rng.random(n) < 0.1] = None
    X = pd.DataFrame({"x1": x1, "x2": np.where(m, np.nan, x2), "c": c})
    return X, y, x2, m


@pytest.fixture(scope="module")
def fitted():
    X, y, x2, m = _correlated()
    return X, y, x2, m, impute_mnar(X, y, model="mvn", random_state=0)


def test_mvn_mnar_beats_its_mar_fit_and_recovers_the_mean(fitted):
    X, y, x2, m, res = fitted
    err = np.sqrt(np.mean((res.table["x2"].to_numpy()[m] - x2[m]) ** 2))
    err_mar = np.sqrt(np.mean((res.mar_table["x2"].to_numpy()[m] - x2[m]) ** 2))
    pd.testing.assert_frame_equal(res.mar_table, impute_mvn(X, y))  # the MAR table is the "mvn" configuration's
    assert err < 0.75 * err_mar
    means = res.column_means.loc["x2"]
    assert means["MAR"] < x2.mean() - 0.1 * x2.std()
    assert abs(means["MNAR"] - x2.mean()) < 0.5 * abs(means["MAR"] - x2.mean())
    sel = res.selection["x2"].to_numpy()
    assert sel.shape == (2, 5) and np.allclose(sel[0], sel[1])  # shared by the classes
    assert sel[0, -1] > 0.5 and sel[0, 0] < 0.2  # high values hidden, low ones not
    assert list(res.selection) == ["x2"]  # only columns with missing cells


def test_mvn_mnar_fills_are_finite_and_keep_observed_cells(fitted):
    X, y, x2, m, res = fitted
    t = res.table
    assert not t.isna().any().any() and list(t.columns) == list(X.columns)
    np.testing.assert_array_equal(t["x2"].to_numpy()[~m], X["x2"].to_numpy()[~m])
    np.testing.assert_array_equal(t["x1"].to_numpy(), X["x1"].to_numpy())
    v = t["x2"].to_numpy()[m]
    assert np.all(np.isfinite(v)) and v.min() >= np.nanmin(X["x2"]) and v.max() <= np.nanmax(X["x2"])
    assert set(t["c"]) <= {"a", "b", "c"}
    assert res.converged and len(res.em_objective) > 1


def test_mvn_mnar_under_mcar_stays_near_mar():
    X, y, x2, m = _correlated(seed=1, hide=False)
    res = impute_mnar(X, y, model="mvn", random_state=0)
    sel = res.selection["x2"].to_numpy()[0]
    assert sel.max() - sel.min() < 0.2  # no self-masking found where there is none
    err = np.sqrt(np.mean((res.table["x2"].to_numpy()[m] - x2[m]) ** 2))
    err_mar = np.sqrt(np.mean((res.mar_table["x2"].to_numpy()[m] - x2[m]) ** 2))
    assert err < 1.05 * err_mar


def test_mvn_mnar_draws_delta_and_sensitivity(fitted):
    X, y, x2, m, res = fitted
    draws = impute_mnar(X, y, model="mvn", strategy="draw", n_imputations=2, random_state=1)
    a, b = draws.table
    assert not a.isna().any().any() and not np.allclose(a["x2"].to_numpy()[m], b["x2"].to_numpy()[m])
    assert abs(a["x2"].to_numpy()[m].mean() - res.table["x2"].to_numpy()[m].mean()) < 0.2 * x2.std()
    up = impute_mnar(X, y, model="mvn", delta={"x2": 0.5}, random_state=0).table
    np.testing.assert_allclose(up["x2"].to_numpy()[m], res.table["x2"].to_numpy()[m] + 0.5)
    rep = mnar_sensitivity(X, y, model="mvn", deltas=(0.0, 1.0), delta_unit="value", random_state=0)
    assert rep.loc["delta=0", "x2"] == pytest.approx(res.column_means.loc["x2", "MNAR"])
    assert rep.loc["delta=1", "x2"] == pytest.approx(rep.loc["delta=0", "x2"] + m.mean())


def test_mvn_model_errors():
    X, y, _, _ = _correlated(n=200)
    with pytest.raises(ValueError, match="model must be 'naive' or 'mvn'"):
        impute_mnar(X, y, model="tree")
    with pytest.raises(ValueError, match="model='mvn' shares one selection curve"):
        impute_mnar(X, y, model="mvn", n_components=2)
    with pytest.raises(ValueError, match="model='mvn' shares one selection curve"):
        mnar_sensitivity(X, y, model="mvn", selection_by_class=True)
    with pytest.raises(ValueError, match="no column can take a missingness node"):
        impute_mnar(X.assign(x2=X["x2"].fillna(0.0)), y, model="mvn")


def test_mvn_model_takes_categorical_fills_from_the_naive_selection_model(fitted):
    X, y, x2, m, res = fitted
    hole = X["c"].isna().to_numpy()
    naive = impute_mnar(X, y)
    np.testing.assert_array_equal(res.table["c"].to_numpy()[hole], naive.table["c"].to_numpy()[hole])
    assert "c" in naive.selection  # the naive model gave c its missingness node
    off = impute_mnar(X, y, model="mvn", categorical=False, random_state=0)
    np.testing.assert_array_equal(off.table["c"].to_numpy()[hole], res.mar_table["c"].to_numpy()[hole])
    np.testing.assert_array_equal(off.table["x2"].to_numpy(), res.table["x2"].to_numpy())


def test_mvn_fill_class_weights_include_the_missingness():
    """Without labels at fill time a row's class weight must include its missingness: x2 separates the classes
    (2.5 apart) and its high values are hidden, so a row with x2 missing is likely of the high class. The fill
    used the naive p(class | observed cells) alone, which put such rows half in the low class: the hidden
    cells' fills then lay 0.85 below their mean (RMSE 1.1 against 0.55 with the labels)."""
    rng = np.random.default_rng(0)
    n = 1500
    y = rng.integers(0, 2, n)
    x1 = rng.normal(0.3 * y, 1.0)
    x2 = 0.5 * x1 + 0.6 * rng.normal(size=n) + 2.5 * y
    m = (x2 > np.quantile(x2, 0.5)) & (rng.random(n) < 0.8)
    X = pd.DataFrame({"x1": x1, "x2": np.where(m, np.nan, x2)})
    free = impute_mnar(X, y, model="mvn", random_state=0).table["x2"].to_numpy()[m]
    given = impute_mnar(X, y, model="mvn", label_given=True, random_state=0).table["x2"].to_numpy()[m]
    err = np.sqrt(np.mean((free - x2[m]) ** 2))
    err_given = np.sqrt(np.mean((given - x2[m]) ** 2))
    assert abs(free.mean() - x2[m].mean()) < 0.3 * x2.std()
    assert err < 1.25 * err_given
    draws = impute_mnar(X, y, model="mvn", strategy="draw", random_state=0).table["x2"].to_numpy()[m]
    assert abs(draws.mean() - x2[m].mean()) < 0.3 * x2.std()
