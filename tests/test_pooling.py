"""Rubin's rules (bayesnb.pool) against hand-computed values, limiting cases, and multiple
imputation with bayesnb end to end."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayesnb import GaussianNB, pool


def test_pool_matches_the_formulas_by_hand():
    r = pool([1.0, 1.2, 0.8], [0.04, 0.05, 0.03]).iloc[0]
    # m = 3: Qbar = 1, Ubar = 0.04, B = (0 + 0.04 + 0.04) / 2 = 0.04, T = Ubar + (4/3) B
    riv, lam = 4 / 3, 4 / 7
    df = 2 / lam**2  # (m - 1) / lambda^2 = 6.125
    expected = {"estimate": 1.0, "ubar": 0.04, "b": 0.04, "t": 0.04 * 7 / 3, "riv": riv, "lambda": lam,
                "df": df, "fmi": (riv + 2 / (df + 3)) / (riv + 1)}
    for k, v in expected.items():
        assert r[k] == pytest.approx(v, rel=1e-12), k
    q = stats.t.ppf(0.975, df)
    assert r["lower"] == pytest.approx(1 - q * np.sqrt(0.04 * 7 / 3), rel=1e-12)
    assert r["p_value"] == pytest.approx(2 * stats.t.sf(1 / np.sqrt(0.04 * 7 / 3), df), rel=1e-12)


def test_small_sample_degrees_of_freedom():
    est, var = [[1.0, 5.0], [1.3, 5.1], [0.7, 4.8], [1.1, 5.3]], [[0.05, 0.2], [0.06, 0.2], [0.04, 0.3], [0.05, 0.2]]
    large = pool(est, var)
    for dfcom in (10, 1e3, 1e9):
        small = pool(est, var, dfcom=dfcom)
        assert np.all(small["df"] <= dfcom) and np.all(small["df"] <= large["df"])
    # Barnard & Rubin: df_obs -> infinity as dfcom does, and df -> the large-sample df
    np.testing.assert_allclose(pool(est, var, dfcom=1e12)["df"], large["df"], rtol=1e-6)
    r = pool(est, var, dfcom=10).iloc[0]
    lam = r["lambda"]
    df_old, df_obs = 3 / lam**2, 11 / 13 * 10 * (1 - lam)
    assert r["df"] == pytest.approx(df_old * df_obs / (df_old + df_obs), rel=1e-12)


def test_identical_estimates_have_no_between_variance():
    r = pool(np.full((5, 2), 2.0), np.full((5, 2), 0.25), names=["a", "b"])
    assert list(r.index) == ["a", "b"]
    assert np.all(r["b"] == 0) and np.all(r["t"] == 0.25) and np.all(np.isinf(r["df"]))
    assert np.all(r["lambda"] == 0) and np.all(r["fmi"] == 0)
    np.testing.assert_allclose(r["upper"], 2 + stats.norm.ppf(0.975) * 0.5, rtol=1e-12)


@pytest.mark.parametrize("est, var, message", [
    ([1.0], [0.1], "at least 2"),
    ([1.0, 2.0], [0.1], "same shape"),
    ([1.0, 2.0], [0.1, -0.1], ">= 0"),
    ([1.0, np.nan], [0.1, 0.1], "finite"),
    (np.ones((2, 2, 2)), np.ones((2, 2, 2)), "shape"),
])
def test_bad_input_names_the_problem(est, var, message):
    with pytest.raises(ValueError, match=message):
        pool(est, var)
    with pytest.raises(ValueError, match="dfcom"):
        pool([1.0, 2.0], [0.1, 0.1], dfcom=0)


def test_multiple_imputation_with_bayesnb_end_to_end():
    """The mean of a column after MCAR blanking, from m = 10 tables imputed by draws: the
    pooled interval is wider than one completed table's and holds the complete-data mean."""
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) + y[:, None] * [2.0, 1.0, 0.0]
    full_mean = X[:, 0].mean()
    Xm = X.copy()
    Xm[rng.random(n) < 0.4, 0] = np.nan
    model = GaussianNB().fit(Xm, y)
    tables = model.impute(Xm, strategy="draw", n_imputations=10, random_state=1)
    est = [t[:, 0].mean() for t in tables]
    var = [t[:, 0].var(ddof=1) / n for t in tables]
    r = pool(est, var, dfcom=n - 1).iloc[0]
    assert r["b"] > 0 and r["t"] > r["ubar"] and 0 < r["fmi"] < 1
    assert r["lower"] < full_mean < r["upper"]
