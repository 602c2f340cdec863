"""LogNormal: Gaussian on log x, with the Jacobian -log x in every density of x."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import bayesnb
from bayesnb import NaiveBayes
from bayesnb.families import Categorical, Gaussian, LogNormal
from bayesnb.families.gaussian import plug_in


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.lognormal(mean=np.array([0.0, 1.0, -1.0])[y][:, None] + [0.0, 2.0, -3.0],
                      sigma=[0.5, 0.3, 1.5], size=(n, 3))
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X, y


def _fitted(X, y, fam):
    resp = np.eye(3)[y]
    block, state = fam.encode(X)
    stats = fam.stats(block, resp, state)
    prior = fam.make_prior(stats, state)
    return block, prior, fam.update(prior, stats)


def test_log_likelihood_is_scipy_lognorm():
    X, y = _data()
    fam = LogNormal()
    block, prior, post = _fitted(X, y, fam)
    mu, var = plug_in(post)
    ll = fam.log_likelihood(prior, post, block, "mean")
    expect = np.zeros_like(ll)
    for k in range(3):
        cells = st.lognorm.logpdf(X, s=np.sqrt(var[k]), scale=np.exp(mu[k]))
        expect[:, k] = np.where(np.isnan(X), 0.0, cells).sum(1)
    np.testing.assert_allclose(ll, expect, rtol=1e-10, atol=1e-8)


def test_same_posterior_as_gaussian_on_log_x_and_evidence_has_the_jacobian():
    X, y = _data()
    cols = (0, 1, 2)
    ln = NaiveBayes(features={cols: LogNormal()}).fit(X, y)
    ga = NaiveBayes(features={cols: Gaussian()}).fit(np.log(X), y)
    np.testing.assert_allclose(ln.predict_proba(X), ga.predict_proba(np.log(X)), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(ln.predict(X), ga.predict(np.log(X)))
    jac = np.nansum(np.log(X))
    np.testing.assert_allclose(ln.log_evidence_, ga.log_evidence_ - jac, rtol=1e-12, atol=1e-9)
    # row scores are densities of x: Gaussian's on log x minus the row's sum of log x
    np.testing.assert_allclose(ln.score_samples(X), ga.score_samples(np.log(X)) - np.nansum(np.log(X), axis=1),
                               rtol=1e-10, atol=1e-9)


def test_exact_predictive_and_cells_include_the_jacobian():
    X, y = _data()
    fam, gau = LogNormal(), Gaussian()
    block, prior, post = _fitted(X, y, fam)
    gblock, gprior, gpost = _fitted(np.log(X), y, gau)
    jac = np.nansum(np.log(X), axis=1)
    for predictive in ("mean", "marginal"):
        np.testing.assert_allclose(fam.log_likelihood(prior, post, block, predictive),
                                   gau.log_likelihood(gprior, gpost, gblock, predictive) - jac[:, None], rtol=1e-12)
    w = np.eye(3)[y]
    np.testing.assert_allclose(fam.gen_cell_log_lik(prior, post, block, w),
                               gau.gen_cell_log_lik(gprior, gpost, gblock, w) - np.nan_to_num(np.log(X)), rtol=1e-12)


def test_fit_predict_sample_impute_positive():
    X, y = _data()
    nb = NaiveBayes(features={(0, 1, 2): LogNormal()}).fit(X, y)
    assert (nb.predict(X) == y).mean() > 0.6
    for Xs, _ in (nb.sample(300, random_state=0), nb.sample(100, random_state=1, parameter_uncertainty=False),
                  nb.sample(50, random_state=2, prior=True)):
        Xs = np.asarray(Xs, dtype=float)
        assert Xs.shape[1] == 3 and np.isfinite(Xs).all() and (Xs > 0).all()
    Xs, _ = nb.sample(4000, random_state=3, parameter_uncertainty=False)
    # the log of draws of column 1 (small spread) has the pooled class mean on the log scale
    assert abs(np.log(np.asarray(Xs, float)[:, 1]).mean() - np.nanmean(np.log(X[:, 1]))) < 0.1
    miss = np.isnan(X)
    for strategy in ("mode", "mean", "draw"):
        filled = np.asarray(nb.impute(X, strategy=strategy, random_state=0), dtype=float)
        assert np.isfinite(filled).all() and (filled > 0).all()
        np.testing.assert_array_equal(filled[~miss], X[~miss])


def test_fill_mean_and_mode_are_on_the_x_scale():
    X, y = _data()
    fam = LogNormal()
    block, _prior, post = _fitted(X, y, fam)
    mu, var = plug_in(post)
    resp = np.eye(3)[y]
    rows, cols = np.nonzero(np.isnan(X))
    mean = fam.gen_fill(post, block, resp, "mean")
    np.testing.assert_allclose(mean[rows, cols], np.exp(mu + var / 2)[y[rows], cols], rtol=1e-12)
    mode = fam.gen_fill(post, block, resp, "mode")
    np.testing.assert_allclose(mode[rows, cols], np.exp(mu - var)[y[rows], cols], rtol=1e-12)


def test_save_load_round_trip(tmp_path):
    X, y = _data()
    nb = NaiveBayes(features={(0, 1, 2): LogNormal(prior="reference")}).fit(X, y)
    nb.save(tmp_path / "m.bnb")
    again = bayesnb.load(tmp_path / "m.bnb")
    fam = again.posterior_.blocks[0].family
    assert type(fam) is LogNormal and fam == LogNormal(prior="reference")
    np.testing.assert_array_equal(again.predict_proba(X), nb.predict_proba(X))
    np.testing.assert_array_equal(again.score_samples(X), nb.score_samples(X))
    assert again.log_evidence_ == nb.log_evidence_


def test_mixed_with_categorical_block():
    X, y = _data()
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2],
                       "g": np.where(rng.random(len(y)) < 0.8, np.array(["u", "v", "w"])[y], "u")})
    nb = NaiveBayes(features={("a", "b", "c"): LogNormal(), "g": Categorical()}).fit(df, y)
    only = NaiveBayes(features={("a", "b", "c"): LogNormal()}).fit(df[["a", "b", "c"]], y)
    assert (nb.predict(df) == y).mean() >= (only.predict(df[["a", "b", "c"]]) == y).mean()
    Xs, _ = nb.sample(50, random_state=0)
    assert (Xs[["a", "b", "c"]].to_numpy(float) > 0).all() and set(Xs["g"]) <= {"u", "v", "w"}
    filled = nb.impute(df, random_state=0)
    assert (filled[["a", "b", "c"]].to_numpy(float) > 0).all()
    assert np.isfinite(nb.log_evidence_)


@pytest.mark.parametrize(("bad", "word"), [(0.0, "1 value(s) <= 0"), (-2.0, "1 value(s) <= 0"),
                                           (np.inf, "1 infinite"), (-np.inf, "1 infinite")])
def test_bad_values_name_the_problem(bad, word):
    X, y = _data()
    X[5, 1] = bad
    before = X.copy()
    with pytest.raises(ValueError, match="strictly positive finite numbers or missing") as err:
        LogNormal().encode(X, who="NaiveBayes")
    assert word in str(err.value) and repr(bad) in str(err.value)
    with pytest.raises(ValueError, match="<= 0" if np.isfinite(bad) else "infinite"):
        NaiveBayes(features={(0, 1, 2): LogNormal()}).fit(X, y)
    np.testing.assert_array_equal(X, before)  # the input is never modified
