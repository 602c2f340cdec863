"""Simulation-based calibration of the exact conjugate posterior sampler, per family.

For each replicate: draw parameters from the prior (independent NumPy code, not the
package's sampler), data from the model, fit the estimator, draw ``L`` exact posterior
draws and record the rank of the true value among them. A calibrated posterior gives
uniform ranks (Talts et al. 2018); a chi-square test checks it. Negative controls fit
with the prior off by one (alpha + 1, or a0 + 1 for the Gaussian) and must FAIL.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB
from bayesnb.inference.draws import sample_posterior_draws

L = 99  # posterior draws per replicate -> ranks 0..99
BINS = 10
K = 2
GAUSS_PRIOR = {"mu0": 0.0, "kappa0": 1.0, "a0": 3.0, "b0": 2.0}


def _simulate(family, rng, n):
    """True parameters from the prior and a data set from the model."""
    pi = rng.dirichlet(np.ones(K))
    y = rng.choice(K, size=n, p=pi)
    if family == "categorical":
        theta = rng.dirichlet(np.ones(3), size=(K, 2))  # (K, d=2, V=3)
        X = np.array([[rng.choice(3, p=theta[k, j]) for j in range(2)] for k in y])
        truth = {"theta_categorical": theta[..., 0]}
    elif family == "bernoulli":
        theta = rng.beta(1.0, 1.0, size=(K, 3))
        X = (rng.random((n, 3)) < theta[y]).astype(float)
        truth = {"theta_bernoulli": theta}
    elif family == "multinomial":
        theta = rng.dirichlet(np.ones(4), size=K)  # (K, d=4)
        X = np.array([rng.multinomial(6, theta[k]) for k in y])
        truth = {"theta_multinomial": theta[:, 0]}
    else:
        p = GAUSS_PRIOR
        sigma2 = p["b0"] / rng.gamma(p["a0"], size=(K, 2))
        mu = rng.normal(p["mu0"], np.sqrt(sigma2 / p["kappa0"]))
        X = rng.normal(mu[y], np.sqrt(sigma2[y]))
        truth = {"mu_gaussian": mu, "sigma2_gaussian": sigma2}
    truth["pi"] = pi[:1]
    return X, y, truth


def _estimator(family, off_by_one):
    a = 2.0 if off_by_one else 1.0
    if family == "categorical":
        return CategoricalNB(alpha=a, categories=[0, 1, 2])
    if family == "bernoulli":
        return BernoulliNB(alpha=a, binarize=None)
    if family == "multinomial":
        return MultinomialNB(alpha=a)
    prior = dict(GAUSS_PRIOR, a0=GAUSS_PRIOR["a0"] + (1.0 if off_by_one else 0.0))
    return GaussianNB(prior=prior)


def _select(name, draws):
    """The posterior draws of the elements ranked for ``name`` (one per independent Dirichlet)."""
    if name == "theta_categorical":
        return draws[..., 0]
    if name == "theta_multinomial":
        return draws[..., 0]
    if name == "pi":
        return draws[..., :1]
    return draws


def sbc_ranks(family, off_by_one=False, reps=250, n=8, seed=0):
    """Pooled SBC ranks per variable: {name: ndarray of ranks in 0..L}."""
    rng = np.random.default_rng(seed)
    ranks = {}
    for _ in range(reps):
        X, y, truth = _simulate(family, rng, n)
        clf = _estimator(family, off_by_one).partial_fit(X, y, classes=np.arange(K))
        draws = sample_posterior_draws(clf.posterior_, L, rng)
        for name, true in truth.items():
            d = _select(name, draws[name])
            ranks.setdefault(name, []).append((d < true[None]).sum(0).ravel())
    return {k: np.concatenate(v) for k, v in ranks.items()}


def uniformity_pvalue(ranks):
    counts = np.bincount(ranks * BINS // (L + 1), minlength=BINS)
    return chisquare(counts).pvalue


FAMILIES = ["categorical", "bernoulli", "multinomial", "gaussian"]


@pytest.mark.parametrize("family", FAMILIES)
def test_sbc_exact_posterior_is_calibrated(family):
    ranks = sbc_ranks(family)
    for name, r in ranks.items():
        assert r.min() >= 0 and r.max() <= L
        p = uniformity_pvalue(r)
        assert p > 1e-3, f"{family}: ranks of {name} not uniform (chi-square p = {p:.2g})"


@pytest.mark.parametrize("family", FAMILIES)
def test_sbc_negative_control_prior_off_by_one_fails(family):
    ranks = sbc_ranks(family, off_by_one=True)
    feature_vars = [k for k in ranks if k != "pi"]
    pvals = {k: uniformity_pvalue(ranks[k]) for k in feature_vars}
    assert min(pvals.values()) < 1e-6, f"{family}: the wrong posterior passed SBC ({pvals})"
    assert uniformity_pvalue(ranks["pi"]) > 1e-3  # the class prior was right all along
