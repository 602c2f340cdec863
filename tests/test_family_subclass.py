"""A user-defined subclass of a family goes everywhere a bayesnb family goes.

The package reaches a family only through the methods of the Family contract, so a
subclass (here: a Bernoulli whose prior is a Beta(alpha, beta) with two pseudo-counts, the
kind of change a researcher makes) fits, predicts, samples, imputes, draws from the exact
posterior, runs NUTS, saves and loads, has coef_ and plots, with no registration step.
"""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb
from bayesnb import NaiveBayes
from bayesnb.families import Bernoulli, Categorical, Gaussian
from bayesnb.families.bernoulli import Betas


class AsymmetricBernoulli(Bernoulli):
    """Bernoulli with a Beta(alpha, beta) prior: ``beta`` pseudo-zeros, ``alpha`` pseudo-ones."""

    _param_names = ("alpha", "beta", "binarize")

    def __init__(self, alpha=1.0, beta=3.0, binarize=None):
        super().__init__(alpha=alpha, binarize=binarize)
        self.beta = beta

    def make_prior(self, stats, state, who="AsymmetricBernoulli"):
        prior = super().make_prior(stats, state, who)
        return Betas(prior.a, np.full_like(np.asarray(prior.b, dtype=float), float(self.beta)))


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    flags = (rng.random((n, 3)) < np.where(y[:, None] == 1, 0.7, 0.2)).astype(float)
    X = np.c_[flags, rng.normal(size=n) + y, rng.integers(0, 3, n)]
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def _model(**kw):
    return NaiveBayes(features={(0, 1, 2): AsymmetricBernoulli(**kw), 3: Gaussian(), 4: Categorical()})


def test_subclass_prior_is_used():
    """The subclass's own hook changes the posterior: theta = (ones + alpha) / (observed + alpha + beta)."""
    X, y = _data()
    model = _model(alpha=1.0, beta=3.0).fit(X, y)
    b = model.posterior_.blocks[0]
    assert type(b.family) is AsymmetricBernoulli
    obs = ~np.isnan(X[:, :3])
    for k in (0, 1):
        rows = y == k
        ones = np.nansum(X[rows, :3], axis=0)
        np.testing.assert_allclose(b.posterior.a[k] / (b.posterior.a[k] + b.posterior.b[k]),
                                   (ones + 1.0) / (obs[rows].sum(0) + 4.0), rtol=1e-12)


def test_subclass_goes_through_every_capability(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from bayesnb import plot

    X, y = _data()
    model = _model().fit(X, y)
    p = model.predict_proba(X)
    assert np.isfinite(p).all() and np.allclose(p.sum(1), 1) and model.score(X, y) > 0.7
    Xs, ys = model.sample(50, random_state=0)
    assert Xs.shape == (50, 5) and set(np.unique(Xs[:, :3])) <= {0.0, 1.0}
    filled = np.asarray(model.impute(X, random_state=1), dtype=float)
    assert not np.isnan(filled).any()
    np.testing.assert_array_equal(filled[~np.isnan(X)], X[~np.isnan(X)])
    draws = model.sample_posterior(200, random_state=2)
    theta = draws.posterior["theta_bernoulli"].values
    assert theta.shape[-2:] == (2, 3)
    model.save(tmp_path / "m.bnb")
    again = bayesnb.load(tmp_path / "m.bnb")
    assert type(again.posterior_.blocks[0].family) is AsymmetricBernoulli
    assert again.posterior_.blocks[0].family.beta == 3.0
    np.testing.assert_array_equal(again.predict_proba(X), p)
    fig = plot.class_conditionals(model)
    assert len(fig.axes) >= 5
    flags_only = NaiveBayes(features={(0, 1, 2): AsymmetricBernoulli()}).fit(X[:, :3], y)
    assert flags_only.coef_.shape == (1, 3)


@pytest.mark.slow
def test_subclass_runs_nuts():
    X, y = _data(120)
    model = _model().fit(X, y)
    mc = model.run_mcmc(X, y, num_warmup=150, num_samples=150, random_state=0)
    theta = mc.posterior["theta_bernoulli"].values
    assert np.isfinite(theta).all() and theta.shape[-2:] == (2, 3)
