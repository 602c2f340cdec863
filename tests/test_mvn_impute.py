"""The class-conditional multivariate normal imputation (bayesnb.impute.mvn, impute_table's "mvn")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal
from sklearn.datasets import load_diabetes

from bayesnb import NaiveBayes, impute_table
from bayesnb.datasets import load_penguins
from bayesnb.impute.mvn import (
    _log_density,
    conditional_mean,
    fit_niw_em,
    impute_mvn,
    log_shift,
)


def _spd(p, rng):
    A = rng.normal(size=(p, p))
    return A @ A.T + p * np.eye(p)


def test_em_on_complete_data_is_the_niw_closed_form():
    rng = np.random.default_rng(0)
    n, p = 40, 3
    Z = rng.normal(size=(n, p)) @ np.linalg.cholesky(_spd(p, rng)).T + 1.5
    kappa0, nu0, psi0, mu0 = 2.0, 7.0, _spd(p, rng), np.array([0.5, -1.0, 2.0])
    fit = fit_niw_em(Z, kappa0=kappa0, nu0=nu0, psi0=psi0, mu0=mu0)
    xbar = Z.mean(axis=0)
    S = (Z - xbar).T @ (Z - xbar)
    kn = kappa0 + n
    np.testing.assert_allclose(fit.mean, (kappa0 * mu0 + n * xbar) / kn)
    np.testing.assert_allclose(fit.psi, psi0 + S + kappa0 * n / kn * np.outer(xbar - mu0, xbar - mu0))
    assert (fit.kappa, fit.nu, fit.converged) == (kn, nu0 + n, True)
    np.testing.assert_allclose(fit.cov_predictive, fit.psi * (kn + 1) / (kn * (nu0 + n - p - 1)))


def test_integer_weights_equal_repeated_rows_with_missing_cells():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(30, 4)) @ np.linalg.cholesky(_spd(4, rng)).T
    Z[rng.random(Z.shape) < 0.25] = np.nan
    w = rng.integers(0, 3, size=30)
    a = fit_niw_em(Z, w, tol=1e-10, max_iter=2000)
    b = fit_niw_em(np.repeat(Z, w, axis=0), tol=1e-10, max_iter=2000)
    np.testing.assert_allclose(a.mean, b.mean, atol=1e-7)
    np.testing.assert_allclose(a.psi, b.psi, atol=1e-6)


def test_conditional_mean_is_numpy_gaussian_conditioning():
    rng = np.random.default_rng(2)
    mu, S = rng.normal(size=4), _spd(4, rng)
    x = np.array([[0.3, np.nan, -1.2, np.nan], [np.nan, np.nan, np.nan, 2.0], [1.0, 2.0, 3.0, 4.0]])
    filled, var = conditional_mean(mu, S, x)
    for i in range(2):
        m = np.isnan(x[i])
        o = ~m
        K = S[np.ix_(m, o)] @ np.linalg.inv(S[np.ix_(o, o)])
        np.testing.assert_allclose(filled[i, m], mu[m] + K @ (x[i, o] - mu[o]))
        np.testing.assert_allclose(var[i, m], np.diag(S[np.ix_(m, m)] - K @ S[np.ix_(o, m)]))
        np.testing.assert_array_equal(filled[i, o], x[i, o])
    np.testing.assert_array_equal(filled[2], x[2])
    np.testing.assert_array_equal(var[2], 0.0)


def test_log_density_of_observed_cells_is_scipys():
    rng = np.random.default_rng(7)
    mu, S = rng.normal(size=3), _spd(3, rng)
    x = np.array([[0.3, np.nan, -1.2], [np.nan, np.nan, 2.0], [1.0, 2.0, 3.0], [np.nan] * 3, [0.1, np.nan, 0.4]])
    got = _log_density(mu, S, x)
    for i, row in enumerate(x):
        o = ~np.isnan(row)
        want = multivariate_normal(mu[o], S[np.ix_(o, o)]).logpdf(row[o]) if o.any() else 0.0
        np.testing.assert_allclose(got[i], want)


def test_recovers_a_covariance_and_beats_the_naive_model_under_mcar():
    rng = np.random.default_rng(3)
    p, n = 5, 600
    C = 0.8 * np.ones((p, p)) + 0.2 * np.eye(p)
    X = pd.DataFrame(rng.normal(size=(n, p)) @ np.linalg.cholesky(C).T, columns=list("abcde"))
    M = rng.random(X.shape) < 0.3
    Xm = X.mask(M)
    fit = fit_niw_em(Xm.to_numpy())
    full = np.cov(X.to_numpy().T, bias=True)  # what the 600 rows say without missing cells
    assert np.max(np.abs(fit.cov_map - full)) < 0.06
    assert np.max(np.abs(fit.cov_map - C)) < 0.2  # and the truth, within the sampling error of 600 rows
    assert np.max(np.abs(fit.mean - X.mean().to_numpy())) < 0.05
    err = {}
    for name, F in (("mvn", impute_mvn(Xm)), ("naive", NaiveBayes().fit(Xm, np.zeros(n)).impute(Xm))):
        err[name] = np.sqrt(np.mean((F.to_numpy()[M] - X.to_numpy()[M]) ** 2))
    assert err["mvn"] < 0.6 * err["naive"]


def test_log_shift_rule():
    rng = np.random.default_rng(4)
    assert log_shift(np.exp(rng.normal(size=400))) == 0.0
    v = np.where(rng.random(400) < 0.2, 0.0, np.exp(rng.normal(2, 1, size=400)))
    assert log_shift(v) == np.quantile(v[v > 0], 0.25)  # started at the lower quartile of the amounts
    assert log_shift(v, start="smallest") == v[v > 0].min()  # the rule before
    with pytest.raises(ValueError, match="start must be"):
        log_shift(v, start="min")
    assert log_shift(rng.normal(size=400)) is None  # negative values
    assert log_shift(rng.uniform(1, 2, size=400)) is None  # not skewed


def test_a_zero_heavy_heavy_tailed_column_is_not_filled_far_above_its_values(monkeypatch):
    # 45% zeros and amounts spread over four orders of magnitude, weakly related to the other columns
    # (crx's A15). Started at the smallest amount, log(x + c) put the zeros in a spike far below the
    # amounts; the normal's variance then made exp(m + v / 2) - c fill about twice the error of the
    # column's mean. Started at the lower quartile, the fill is no worse than the mean.
    import functools

    from bayesnb.impute import mvn

    rng = np.random.default_rng(3)
    n = 600
    z = rng.normal(size=n)
    amount = np.where(rng.random(n) < 0.45, 0.0, np.round(np.exp(4 + 0.5 * z + rng.normal(0, 2, n)), 2))
    X = pd.DataFrame({"w": z + 0.5 * rng.normal(size=n), "amount": amount, "v": rng.normal(size=n)})
    miss = rng.random(n) < 0.3
    Xm = X.copy()
    Xm.loc[miss, "amount"] = np.nan
    t = amount[miss]

    def nrmse():
        F = impute_mvn(Xm)
        return np.sqrt(np.mean((F["amount"].to_numpy()[miss] - t) ** 2)) / t.std()

    assert nrmse() < 1.02
    monkeypatch.setattr(mvn, "log_shift", functools.partial(log_shift, start="smallest"))
    assert nrmse() > 1.5


def test_range_integers_dtypes_and_observed_cells_kept():
    rng = np.random.default_rng(5)
    n = 200
    z = rng.normal(size=n)
    X = pd.DataFrame({"count": pd.array(np.round(50 + 10 * z + rng.normal(size=n)).astype(int), dtype="Int64"),
                      "skewed": np.exp(z + 0.3 * rng.normal(size=n)),
                      "colour": rng.choice(["red", "blue"], size=n).astype(object)})
    Xm = X.copy()
    for c in X.columns:
        Xm.loc[rng.random(n) < 0.3, c] = None if c == "colour" else np.nan
    before = Xm.copy()
    F = impute_mvn(Xm)
    pd.testing.assert_frame_equal(Xm, before)  # the input is not modified
    assert F.notna().all().all() and list(F.dtypes) == list(Xm.dtypes)
    for c in ("count", "skewed"):
        seen = Xm[c].dropna().astype(float)
        v = F[c].astype(float)
        assert v.min() >= seen.min() and v.max() <= seen.max()
        np.testing.assert_array_equal(v[Xm[c].notna()], seen)
    assert np.all(F["count"].astype(float) == np.round(F["count"].astype(float)))
    naive = NaiveBayes().fit(Xm, np.zeros(n)).impute(Xm)
    pd.testing.assert_series_equal(F["colour"], naive["colour"])  # categorical columns: the naive fill


def test_bad_input_errors():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [1.0, 2.0, np.nan]})
    with pytest.raises(TypeError, match="DataFrame"):
        impute_mvn(X.to_numpy())
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        impute_mvn(X, [0, 1])
    with pytest.raises(TypeError, match="NaiveBayes"):
        impute_mvn(X, estimator="naive")
    with pytest.raises(ValueError, match="infinite"):
        impute_mvn(X.assign(a=[np.inf, np.nan, 1.0]))
    with pytest.raises(ValueError, match="positive definite"):
        conditional_mean([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], [[np.nan, 1.0]])
    with pytest.raises(ValueError, match="class_posterior"):
        impute_mvn(X, class_posterior="exact")
    with pytest.raises(ValueError, match="weights"):
        fit_niw_em(X.to_numpy(), [1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="nu0"):
        fit_niw_em(X.to_numpy(), nu0=0.5)


def test_impute_table_with_the_mvn_configuration():
    d = load_diabetes(as_frame=True)
    X, y = d.data.iloc[:250], np.digitize(d.target, np.quantile(d.target, [1 / 3, 2 / 3]))[:250]
    Xm = X.mask(np.random.default_rng(6).random(X.shape) < 0.3)
    res = impute_table(Xm, y, configurations=("naive", "mvn"), random_state=0)
    assert res.table.notna().all().all()
    assert "mvn" in res.chosen.values()  # correlated numeric columns: the joint model wins some
    pd.testing.assert_frame_equal(impute_table(Xm, y, configurations="mvn").table, impute_mvn(Xm, y))
    pg = load_penguins()
    out = impute_table(pg.drop(columns="species"), pg["species"], configurations="mvn", label_given=True).table
    assert out.notna().all().all()
    joint = impute_mvn(pg.drop(columns="species"), pg["species"], class_posterior="joint")
    assert joint.notna().all().all()


def test_a_table_without_numeric_columns_is_the_naive_fill():
    X = pd.DataFrame({"a": ["x", "y", None, "x", "y", "x"], "b": ["u", None, "v", "v", "u", "u"]})
    y = np.array([0, 1, 0, 0, 1, 1])
    pd.testing.assert_frame_equal(impute_mvn(X, y), NaiveBayes().fit(X, y).impute(X))
