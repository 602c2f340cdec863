"""The Poisson family: closed forms against SciPy, exact draws, and the estimator end to end."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import bayesnb
from bayesnb import NaiveBayes, Poisson
from bayesnb.families import Categorical
from bayesnb.inference.conjugate import fit_block


def _fit(fam, X, y, K=2):
    block, _, st, prior, post = fit_block(fam, X, np.eye(K)[y])
    return block, st, prior, post


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.poisson(np.where(y[:, None] == 1, [4.0, 0.5, 9.0], [1.0, 2.0, 9.0])).astype(float)
    X[rng.random(X.shape) < 0.08] = np.nan
    return X, y


def test_log_likelihoods_equal_scipy():
    X, y = _data()
    fam = Poisson(a=2.0, b=0.5)
    block, _, prior, post = _fit(fam, X, y)
    obs = ~np.isnan(X)
    Xz = np.where(obs, X, 0)
    for k in (0, 1):
        lam = post.a[k] / post.b[k]
        want = np.where(obs, stats.poisson.logpmf(Xz, lam), 0.0).sum(1)
        np.testing.assert_allclose(fam.log_likelihood(prior, post, block, "mean")[:, k], want, rtol=1e-10)
        nb = stats.nbinom.logpmf(Xz, post.a[k], post.b[k] / (post.b[k] + 1))
        np.testing.assert_allclose(fam.log_likelihood(prior, post, block, "marginal")[:, k],
                                   np.where(obs, nb, 0.0).sum(1), rtol=1e-10)


def test_auto_rate_gives_the_pooled_mean_as_prior_mean():
    X, y = _data()
    _, _, prior, _ = _fit(Poisson(a=3.0), X, y)
    np.testing.assert_allclose(prior.a[0] / prior.b[0], np.nanmean(X, axis=0), rtol=1e-12)
    _, _, prior, _ = _fit(Poisson(), np.zeros((4, 1)), np.array([0, 1, 0, 1]))
    assert np.isfinite(prior.b).all() and (prior.b > 0).all()


def test_evidence_equals_numerical_integration():
    x = np.array([[3.0], [0.0], [np.nan], [5.0], [2.0]])
    fam = Poisson(a=1.5, b=0.7)
    _, _, prior, post = _fit(fam, x, np.zeros(5, dtype=int), K=1)
    xs = x[~np.isnan(x)]

    def integrand(lam):
        return np.prod(stats.poisson.pmf(xs, lam)) * stats.gamma.pdf(lam, 1.5, scale=1 / 0.7)

    val, _ = integrate.quad(integrand, 0, 60, limit=200, epsabs=1e-14)
    np.testing.assert_allclose(fam.log_evidence(prior, post)[0], np.log(val), rtol=1e-7)


def test_exact_draws_match_moments():
    X, y = _data()
    fam = Poisson()
    _, _, _, post = _fit(fam, X, y)
    lam = fam.sample_params(post, 20000, np.random.default_rng(0))["lam"]
    mean, sd = fam.posterior_moments(post)["lam"]
    np.testing.assert_allclose(lam.mean(0), mean, rtol=0.02)
    np.testing.assert_allclose(lam.std(0), sd, rtol=0.05)


def _is_count(A):
    return np.all(A >= 0) and np.all(A == np.round(A))


def test_naive_bayes_end_to_end(tmp_path):
    X, y = _data()
    model = NaiveBayes(features={(0, 1, 2): Poisson()}).fit(X, y)
    p = model.predict_proba(X)
    assert np.isfinite(p).all() and np.allclose(p.sum(1), 1) and model.score(X, y) > 0.75
    Xs, ys = model.sample(200, random_state=0)
    Xs = np.asarray(Xs, dtype=float)
    assert Xs.shape == (200, 3) and _is_count(Xs)
    obs = ~np.isnan(X)
    for strategy in ("mode", "mean", "draw"):
        filled = np.asarray(model.impute(X, strategy=strategy, random_state=1), dtype=float)
        assert not np.isnan(filled).any() and _is_count(filled)
        np.testing.assert_array_equal(filled[obs], X[obs])
    model.save(tmp_path / "m.bnb")
    again = bayesnb.load(tmp_path / "m.bnb")
    np.testing.assert_array_equal(again.predict_proba(X), p)
    np.testing.assert_array_equal(again.predict_log_proba(X), model.predict_log_proba(X))


def test_mixed_with_categorical():
    X, y = _data()
    rng = np.random.default_rng(3)
    colour = np.where(rng.random(len(y)) < 0.2 + 0.6 * y, 2.0, 0.0)
    Xm = np.c_[X, colour]
    model = NaiveBayes(features={(0, 1, 2): Poisson(a=1.0, b=1.0), 3: Categorical()}).fit(Xm, y)
    assert model.score(Xm, y) > 0.75
    Xs, _ = model.sample(50, random_state=0)
    Xs = np.asarray(Xs, dtype=float)
    assert _is_count(Xs[:, :3]) and set(np.unique(Xs[:, 3])) <= {0.0, 2.0}
    draws = model.sample_posterior(100, random_state=2)
    assert draws.posterior["lam_poisson"].values.shape[-2:] == (2, 3)


@pytest.mark.parametrize(("value", "what"), [(-1.0, "negative"), (1.5, "non-integer"), (np.inf, "infinite")])
def test_bad_counts_are_named(value, what):
    X, y = _data(20)
    X[3, 1] = value
    with pytest.raises(ValueError, match=what):
        NaiveBayes(features={(0, 1, 2): Poisson()}).fit(X, y)
    fam = Poisson()
    with pytest.raises(ValueError, match="non-negative whole counts"):
        fam.encode(X)


def test_bad_hyperparameters():
    X, y = _data(20)
    with pytest.raises(ValueError, match="b must be"):
        NaiveBayes(features={(0, 1, 2): Poisson(b=-1.0)}).fit(X, y)
    with pytest.raises(ValueError, match="a must be"):
        NaiveBayes(features={(0, 1, 2): Poisson(a="auto")}).fit(X, y)


def test_encode_never_modifies_input():
    X, y = _data(30)
    before = X.copy()
    Poisson().encode(X)
    np.testing.assert_array_equal(X, before)


@pytest.mark.slow
def test_nuts_matches_exact_posterior():
    X, y = _data(80)
    model = NaiveBayes(features={(0, 1, 2): Poisson()}).fit(X, y)
    mc = model.run_mcmc(X, y, num_warmup=300, num_samples=400, random_state=0)
    lam = mc.posterior["lam_poisson"].values.reshape(-1, 2, 3)
    fam, post = model.posterior_.blocks[0].family, model.posterior_.blocks[0].posterior
    mean, sd = fam.posterior_moments(post)["lam"]
    assert np.all(np.abs(lam.mean(0) - mean) < 4 * sd / np.sqrt(100))
