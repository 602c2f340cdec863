"""Hurdle: a point mass at ``at`` with probability pi (Beta prior), else the base family (LogNormal)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from scipy.special import betaln

import bayesnb
from bayesnb import NaiveBayes
from bayesnb.families import Categorical, Hurdle, LogNormal, Multinomial, Poisson
from bayesnb.families.gaussian import plug_in

from .test_lognormal import _data as _positive
from .test_lognormal import _fitted

PI = np.array([0.2, 0.5, 0.7])  # P(x = 0) per class


def _data(n=150, seed=0):
    """LogNormal's test data (10% missing) with cells set to 0 with probability PI[y]."""
    X, y = _positive(n, seed)
    X[np.random.default_rng(seed + 1).random(X.shape) < PI[y][:, None]] = 0.0
    return X, y


def _plug_in(X, y, fam):
    """The fitted block, prior, posterior, and the plug-in ``pi``, ``mu``, ``var`` (K, d)."""
    block, prior, post = _fitted(X, y, fam)
    mu, var = plug_in(fam._split(post)[1])
    return block, prior, post, post.a / (post.a + post.b), mu, var


def test_log_likelihood_is_brute_force_sum():
    X, y = _data()
    fam = Hurdle()
    block, prior, post, pi, mu, var = _plug_in(X, y, fam)
    expect = np.zeros((X.shape[0], 3))
    for i in range(X.shape[0]):
        for k in range(3):
            for j in range(3):
                x = X[i, j]
                if np.isnan(x):
                    continue
                if x == 0:
                    expect[i, k] += np.log(pi[k, j])
                else:
                    expect[i, k] += np.log1p(-pi[k, j]) + st.lognorm.logpdf(x, s=np.sqrt(var[k, j]),
                                                                             scale=np.exp(mu[k, j]))
    np.testing.assert_allclose(fam.log_likelihood(prior, post, block, "mean"), expect, rtol=1e-10, atol=1e-8)


def test_evidence_is_beta_binomial_plus_lognormal_on_the_positive_cells():
    X, y = _data()
    fam = Hurdle(alpha=0.7)
    _, prior, post = _fitted(X, y, fam)
    ln = LogNormal()
    _, lprior, lpost = _fitted(np.where(X == 0, np.nan, X), y, ln)
    expect = ln.log_evidence(lprior, lpost)
    for k in range(3):
        rows = X[y == k]
        A, B = (rows == 0).sum(0), (rows > 0).sum(0)
        expect[k] += (betaln(0.7 + A, 0.7 + B) - betaln(0.7, 0.7)).sum()
    np.testing.assert_allclose(fam.log_evidence(prior, post), expect, rtol=1e-12)
    assert fam.is_proper(prior)


def test_fit_predict_sample_impute_save_load(tmp_path):
    X, y = _data(300)
    nb = NaiveBayes(features={(0, 1, 2): Hurdle()}).fit(X, y)
    assert (nb.predict(X) == y).mean() > 0.6
    assert np.isfinite(nb.log_evidence_)
    Xs, ys = nb.sample(6000, random_state=0, parameter_uncertainty=False)
    Xs, ys = np.asarray(Xs, dtype=float), np.asarray(ys)
    assert np.isfinite(Xs).all() and ((Xs == 0) | (Xs > 0)).all()
    b = nb.posterior_.blocks[0]
    pi = b.family.point_params(b.posterior)["pi"]
    for k in range(3):  # fraction of zeros near the plug-in pi of the class (and the true one)
        assert np.abs((Xs[ys == k] == 0).mean(0) - pi[k]).max() < 0.05
        assert np.abs((Xs[ys == k] == 0).mean() - PI[k]) < 0.1
    miss = np.isnan(X)
    for strategy in ("mode", "mean", "draw"):
        filled = np.asarray(nb.impute(X, strategy=strategy, random_state=0), dtype=float)
        assert np.isfinite(filled).all() and (filled >= 0).all()
        np.testing.assert_array_equal(filled[~miss], X[~miss])
    draws = nb.sample_posterior(50, random_state=1)
    assert {"pi_hurdle", "mu_hurdle", "sigma2_hurdle"} <= set(draws.posterior.data_vars)
    nb.save(tmp_path / "m.bnb")
    again = bayesnb.load(tmp_path / "m.bnb")
    assert again.posterior_.blocks[0].family == Hurdle()
    np.testing.assert_array_equal(again.predict_proba(X), nb.predict_proba(X))
    np.testing.assert_array_equal(again.score_samples(X), nb.score_samples(X))
    assert again.log_evidence_ == nb.log_evidence_


def test_other_base_and_at_round_trip(tmp_path):
    X, y = _data(90)
    C = np.where(np.isnan(X), np.nan, np.round(X * 3) + 1)  # counts >= 1, "at" = -1 marks a hurdle
    C[::4, 0] = -1.0
    nb = NaiveBayes(features={(0, 1, 2): Hurdle(base=Poisson(a=1.0, b=1.0), at=-1.0, alpha=2.0)}).fit(C, y)
    nb.save(tmp_path / "p.bnb")
    again = bayesnb.load(tmp_path / "p.bnb")
    assert again.posterior_.blocks[0].family == Hurdle(base=Poisson(a=1.0, b=1.0), at=-1.0, alpha=2.0)
    np.testing.assert_array_equal(again.predict_proba(C), nb.predict_proba(C))
    Xs, _ = nb.sample(200, random_state=0)
    Xs = np.asarray(Xs, dtype=float)
    assert ((Xs == -1) | ((Xs >= 0) & (Xs == np.round(Xs)))).all()


def test_mixed_with_categorical_block():
    X, y = _data()
    gains = [f"gain{j}" for j in range(3)]
    df = pd.DataFrame(X, columns=gains)
    df["group"] = np.where(np.random.default_rng(4).random(len(y)) < 0.8, np.array(["u", "v", "w"])[y], "u")
    mixed = NaiveBayes(features={tuple(gains): Hurdle(), "group": Categorical()}).fit(df, y)
    alone = NaiveBayes(features={tuple(gains): Hurdle()}).fit(df[gains], y)
    assert mixed.score(df, y) >= alone.score(df[gains], y)
    assert np.isfinite(mixed.log_evidence_) and mixed.log_evidence_ < alone.log_evidence_
    drawn, _ = mixed.sample(50, random_state=0)
    imputed = mixed.impute(df, random_state=0)
    for table in (drawn, imputed):
        assert (table[gains].to_numpy(float) >= 0).all() and set(table["group"]) <= {"u", "v", "w"}
    assert imputed["group"].equals(df["group"])
    np.testing.assert_array_equal(imputed[gains].to_numpy(float)[~np.isnan(X)], X[~np.isnan(X)])


def test_fill_mean_and_mode():
    X, y = _data()
    fam = Hurdle()
    block, _prior, post, pi, mu, var = _plug_in(X, y, fam)
    resp = np.eye(3)[y]
    rows, cols = np.nonzero(np.isnan(X))
    mean = fam.gen_fill(post, block, resp, "mean")
    np.testing.assert_allclose(mean[rows, cols], ((1 - pi) * np.exp(mu + var / 2))[y[rows], cols], rtol=1e-12)
    mode = fam.gen_fill(post, block, resp, "mode")
    expect = np.where(pi >= 0.5, 0.0, np.exp(mu - var))[y[rows], cols]
    np.testing.assert_allclose(mode[rows, cols], expect, rtol=1e-12)


def test_bad_input_names_the_problem():
    X, y = _data(30)
    X[4, 2] = -3.0
    before = X.copy()
    with pytest.raises(ValueError, match=r"value\(s\) <= 0.*Hurdle\(at=0.0\)"):
        NaiveBayes(features={(0, 1, 2): Hurdle()}).fit(X, y)
    np.testing.assert_array_equal(X, before)
    X, y = _data(30)
    for bad, word in ((Hurdle(base=Categorical()), "raw values"), (Hurdle(base=Multinomial()), "joint columns"),
                      (Hurdle(alpha=0.0), "alpha must be"), (Hurdle(at=np.nan), "at must be")):
        with pytest.raises(ValueError, match=word):
            NaiveBayes(features={(0, 1, 2): bad}).fit(X, y)


@pytest.mark.slow
def test_nuts_agrees_with_the_exact_beta_posterior():
    X, y = _data(90)
    nb = NaiveBayes(features={(0, 1, 2): Hurdle()}).fit(X, y)
    b = nb.posterior_.blocks[0]
    draws = nb.run_mcmc(X, y, num_warmup=300, num_samples=400, random_state=0).posterior["pi_hurdle"].values
    exact_mean, exact_sd = b.family.posterior_moments(b.posterior)["pi"]
    z = (draws.reshape(-1, 3, 3).mean(0) - exact_mean) / (exact_sd / 10)
    assert np.abs(z).max() < 4


def test_hurdle_of_a_histogram_samples_its_training_values():
    """The base's encoded draws (a Histogram's bin + quantile) are decoded: whole training values, never
    a bin code or a number between them."""
    import pandas as pd

    import bayesnb

    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    x = np.where(rng.random(n) < 0.5, 0, rng.poisson(5 + 3 * y, n) + 1).astype(np.int64)
    X = pd.DataFrame({"x": x})
    m = bayesnb.NaiveBayes(features={("x",): bayesnb.Hurdle(bayesnb.Histogram())}).fit(X, y)
    for pu in (True, False):
        S, _ = m.sample(3000, random_state=1, parameter_uncertainty=pu)
        assert set(S["x"]) <= set(x) and S["x"].dtype == np.int64
        assert 0.35 < (S["x"] == 0).mean() < 0.65  # the point mass is drawn
