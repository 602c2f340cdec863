"""Post-processings of the private text release explored by ``bench_privacy.py --text``
(benchmarks/_text_post.py): empirical-Bayes deconvolution checked against a known simulated prior,
and semi-supervised EM on unlabelled documents from a private model."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from _text_post import em_unlabelled, npmle, posterior_mean
from scipy.stats import norm

import bayesnb as bn

L2 = {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5}


def oracle_mean(y, sigma, p0, scale):
    """``E[c | y]`` under the true prior ``p0`` at 0 plus ``(1 - p0)`` Exponential(mean ``scale``), by quadrature."""
    c = np.linspace(0.0, 30 * scale, 6001)[1:]
    dens = (1 - p0) * np.exp(-c / scale) / scale * (c[1] - c[0])
    lik = norm.pdf((y[:, None] - c[None, :]) / sigma)
    num = (lik * dens * c).sum(1)
    den = (lik * dens).sum(1) + p0 * norm.pdf(y / sigma)
    return num / den


def oracle_mean_closed(y, sigma, p0, scale):
    """:func:`oracle_mean` in closed form: given ``c > 0``, ``c | y`` is a normal of mean
    ``y - sigma^2 / scale`` truncated at 0, and the exponential part's marginal is a Gaussian tail."""
    m = y - sigma ** 2 / scale
    log_cont = np.log1p(-p0) - np.log(scale) + np.log(sigma) - y / scale + sigma ** 2 / (2 * scale ** 2) + norm.logcdf(m / sigma)
    log_atom = np.log(p0) + norm.logpdf(y / sigma)
    mean_cont = m + sigma * np.exp(norm.logpdf(m / sigma) - norm.logcdf(m / sigma))
    return mean_cont / (1.0 + np.exp(log_atom - log_cont))


def test_npmle_posterior_mean_matches_the_oracle_of_a_known_prior():
    rng = np.random.default_rng(0)
    n, sigma, p0, scale = 20000, 3.0, 0.8, 20.0
    c = np.where(rng.random(n) < p0, 0.0, rng.exponential(scale, n))
    y = c + rng.normal(0, sigma, n)
    grid, w = npmle(y, sigma)
    assert np.all(w >= 0) and np.isclose(w.sum(), 1.0)
    assert abs(w[grid < 0.5 * sigma].sum() - p0) < 0.05  # the atom at 0 is recovered
    eb = posterior_mean(y, sigma, grid, w)
    oracle = oracle_mean_closed(y, sigma, p0, scale)
    # the closed form is the quadrature (on 500 of the cells: the quadrature costs 6,000 points a cell)
    np.testing.assert_allclose(oracle[:500], oracle_mean(y[:500], sigma, p0, scale), rtol=0, atol=0.01)
    assert np.mean(np.abs(eb - oracle)) < 0.1 * sigma
    mse_eb, mse_oracle, mse_raw = (np.mean((v - c) ** 2) for v in (eb, oracle, y))
    assert mse_eb < 1.05 * mse_oracle
    assert mse_eb < 0.6 * mse_raw  # shrinkage of the noise-level cells
    assert np.all(eb >= 0)


def test_npmle_with_tiny_noise_returns_the_cells():
    rng = np.random.default_rng(1)
    c = rng.exponential(5.0, 3000)
    sigma = 1e-3
    grid, w = npmle(c + rng.normal(0, sigma, c.size), sigma, n_grid=400)
    eb = posterior_mean(c, sigma, grid, w)
    big = c > 0.1
    # the geometric grid's spacing (about 5% of the value here) bounds the error, not the noise
    assert np.max(np.abs(eb[big] - c[big]) / c[big]) < 0.1


def test_npmle_refuses_a_bad_sigma():
    import pytest
    with pytest.raises(ValueError, match="sigma must be"):
        npmle(np.zeros(5), 0.0)


def docs(n, d, rng):
    """Two classes, each using its own half of the vocabulary three times as often."""
    y = rng.integers(0, 2, n)
    rate = np.where((np.arange(d)[None, :] < d // 2) == (y[:, None] == 0), 0.6, 0.2)
    return sp.csr_matrix(np.log1p(rng.poisson(rate))), y


def test_em_on_unlabelled_documents_improves_a_noisy_private_model():
    rng = np.random.default_rng(2)
    Xtr, ytr = docs(300, 400, rng)
    Xu, yu = docs(2000, 400, rng)
    model = bn.MultinomialNB(privacy=bn.DP(0.3, classes=[0, 1], random_state=0, **L2)).fit(Xtr, ytr)
    lt, lp = model.feature_log_prob_, model.class_log_prior_
    acc = lambda t: float((np.asarray(Xu @ t.T + lp).argmax(1) == yu).mean())  # noqa: E731
    rows = bn.families.dp_release.scale_rows(Xu, 1.0, "l2")
    assert np.allclose(em_unlabelled(lt, lp, Xu, rows, weight=0.0), lt)
    refined = em_unlabelled(lt, lp, Xu, rows, weight=0.5)
    assert np.allclose(np.exp(refined).sum(1), 1.0)
    assert acc(refined) > acc(lt) + 0.05


def test_bench_em_accuracy_scores_each_half_with_the_other_as_pool():
    import bench_privacy as bench
    rng = np.random.default_rng(3)
    Xtr, ytr = docs(300, 400, rng)
    Xte, yte = docs(400, 400, rng)
    model = bn.MultinomialNB(privacy=bn.DP(0.3, classes=[0, 1], random_state=0, **L2)).fit(Xtr, ytr)
    plain = bench._acc(model.feature_log_prob_, model.class_log_prior_, Xte, yte)
    assert np.isclose(bench._em_accuracy(model, Xte, yte, 0.0, 0.01), plain)  # no EM: the release's accuracy
    half = bench._halves(400)
    assert half.sum() == 200 and not np.array_equal(half, bench._halves(400, seed=6))
    # EM with each half's other half as the unlabelled pool improves on the release
    assert bench._em_accuracy(model, Xte, yte, 0.8, 0.01) > plain
