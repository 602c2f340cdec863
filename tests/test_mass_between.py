"""Family hook ``gen_log_mass_between`` (the evidence of a range) and ``gen_sample_between`` (draws within it).

At a parameter point, the mass of ``[lo, hi]`` is the frequency of the family's own draws there,
the truncated draws stay inside and split the range as the masses do; under ``"marginal"`` the
mass is the posterior mean of the point masses (the exact posterior predictive).
"""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb
from bayesnb.families import Bernoulli, Gaussian, Histogram, Hurdle, LogNormal, Multinomial, Poisson


def _data(kind, rng, n=400):
    y = rng.choice([0, 1], n)
    if kind == "gaussian":
        x = rng.normal(np.where(y == 0, 0.0, 2.0), 1.0)
    elif kind in ("lognormal", "histogram"):
        x = np.round(rng.lognormal(np.where(y == 0, 0.0, 1.0), 0.5), 2)
    elif kind == "poisson":
        x = rng.poisson(np.where(y == 0, 2.0, 5.0)).astype(float)
    else:  # hurdle: exact zeros and a positive tail
        x = np.where(rng.random(n) < np.where(y == 0, 0.5, 0.2), 0.0, rng.lognormal(0.0, 0.7, n))
    return x[:, None], y


FAMILIES = {"gaussian": Gaussian, "lognormal": LogNormal, "poisson": Poisson, "histogram": Histogram,
            "hurdle": Hurdle}


@pytest.mark.parametrize("kind", sorted(FAMILIES))
def test_mass_between_matches_the_family_draws(kind):
    rng = np.random.default_rng(0)
    X, y = _data(kind, rng)
    m = bayesnb.NaiveBayes(features={0: FAMILIES[kind]()}).fit(X, y)
    b = m.posterior_.blocks[0]
    fam, state = b.family, b.state
    lo, hi = (0.0, 1.5) if kind in ("hurdle", "gaussian") else tuple(np.quantile(X[:, 0], [0.3, 0.7]))
    mid = (lo + hi) / 2
    point = fam.gen_point(b.prior, b.posterior, rng)
    whole = fam.gen_log_mass_between(b.prior, point, state, 0, -np.inf, np.inf)
    np.testing.assert_allclose(np.exp(whole), 1.0, atol=1e-9)
    mass = np.exp(fam.gen_log_mass_between(b.prior, point, state, 0, lo, hi))
    half = np.exp(fam.gen_log_mass_between(b.prior, point, state, 0, lo, mid))
    N = 20000
    for k in (0, 1):
        z = np.full(N, k)
        x = np.asarray(fam.gen_decode(fam.gen_sample(point, z, rng), state)[0], dtype=float)
        freq = np.mean((x >= lo) & (x <= hi))
        assert abs(freq - mass[k]) < 5 * np.sqrt(mass[k] * (1 - mass[k]) / N) + 1e-9
        t = np.asarray(fam.gen_sample_between(point, z, rng, 0, lo, hi, state=state), dtype=float)
        assert ((t >= lo) & (t <= hi)).all()
        share = half[k] / mass[k]
        assert abs(np.mean(t <= mid) - share) < 5 * np.sqrt(share * (1 - share) / N) + 1e-9
    # the exact predictive's mass is the posterior mean of the mass at a drawn point
    marg = np.exp(fam.gen_log_mass_between(b.prior, b.posterior, state, 0, lo, hi, "marginal"))
    draws = np.mean([np.exp(fam.gen_log_mass_between(b.prior, fam.gen_point(b.prior, b.posterior, rng), state, 0,
                                                     lo, hi)) for _ in range(400)], axis=0)
    np.testing.assert_allclose(marg, draws, atol=0.02)


def test_poisson_bounds_are_inclusive():
    rng = np.random.default_rng(1)
    X, y = _data("poisson", rng)
    b = bayesnb.NaiveBayes(features={0: Poisson()}).fit(X, y).posterior_.blocks[0]
    from scipy import stats
    lam = np.asarray(b.posterior.a)[:, 0] / np.asarray(b.posterior.b)[:, 0]
    got = np.exp(b.family.gen_log_mass_between(b.prior, b.posterior, b.state, 0, 2, 4))
    np.testing.assert_allclose(got, stats.poisson.pmf(2, lam) + stats.poisson.pmf(3, lam) + stats.poisson.pmf(4, lam))
    np.testing.assert_allclose(np.exp(b.family.gen_log_mass_between(b.prior, b.posterior, b.state, 0, 2.5, 2.9)), 0)


@pytest.mark.parametrize("family", [Bernoulli(), Multinomial()])
def test_families_without_ranges_say_so(family):
    with pytest.raises(NotImplementedError, match=f"the {type(family).__name__} family has no probability of a range"):
        family.gen_log_mass_between(None, None, None, 0, 0.0, 1.0)


@pytest.mark.parametrize("lo, hi", [(2.0, 2.5), (10.0, 10.5), (-41.0, -40.0), (38.0, np.inf)])
def test_gaussian_truncated_draws_in_far_tails(lo, hi):
    from scipy import stats
    rng = np.random.default_rng(2)
    X, y = _data("gaussian", rng)
    b = bayesnb.NaiveBayes(features={0: Gaussian()}).fit(X, y).posterior_.blocks[0]
    z = np.zeros(4000, dtype=int)
    x = b.family.gen_sample_between(b.posterior, z, rng, 0, lo, hi)
    mu, sd = float(b.posterior.mu[0, 0]), float(np.sqrt(b.posterior.b[0, 0] / b.posterior.a[0, 0]))
    assert ((x >= lo) & (x <= hi)).all()
    law = stats.truncnorm((lo - mu) / sd, (hi - mu) / sd, loc=mu, scale=sd)
    assert stats.kstest(x, law.cdf).pvalue > 0.01


def test_truncated_normal_mean_is_scipys_bit_for_bit():
    """The bins' conditional means use scipy's truncnorm mean without its per-element Python loop (~0.4 ms an
    element, most of the time of some imputation tests): the same numbers to the last bit, far tails, infinite
    bounds, empty or reversed ranges (NaN), a zero scale and a NaN location included."""
    from scipy.stats import truncnorm

    from bayesnb.families._interval import truncnorm_mean

    rng = np.random.default_rng(0)
    edges = np.array([-np.inf, -40.0, -8.5, -3.0, -1.0, -0.2, 0.0, 0.3, 1.0, 2.5, 9.0, 38.0, np.inf])
    a, b = np.meshgrid(edges, edges, indexing="ij")
    a, b = np.concatenate([a.ravel(), rng.normal(0, 3, 200)]), np.concatenate([b.ravel(), rng.normal(1, 3, 200)])
    loc = rng.normal(0, 10, a.size)
    scale = rng.gamma(1.0, 2.0, a.size)
    loc[:5], scale[5:10] = np.nan, 0.0
    with np.errstate(all="ignore"):
        want = truncnorm.mean(a, b, loc=loc, scale=scale)
        got = truncnorm_mean(a, b, loc, scale)
        np.testing.assert_array_equal(got, want)
        col = (a[:, None], b[:, None], loc[None, :3], scale[None, :3])  # broadcast shapes
        np.testing.assert_array_equal(truncnorm_mean(*col), truncnorm.mean(*col[:2], loc=col[2], scale=col[3]))
    assert np.isfinite(got).sum() > 100 and np.isnan(got).sum() > 50


def test_normal_interval_functions_are_scipys_bit_for_bit():
    """The Normal that interval masses use (``_interval._Normal``: ``log_ndtr`` of the standardised value,
    without scipy's per-call checks) gives ``scipy.stats.norm``'s ``logcdf``, ``logsf`` and ``median``
    exactly, infinite and NaN arguments and a zero or negative scale (NaN) included."""
    from scipy.stats import norm

    from bayesnb.families._interval import _Normal

    rng = np.random.default_rng(0)
    loc = rng.normal(size=(7, 1)) * 3
    scale = np.abs(rng.normal(size=(7, 1))) + 0.01
    scale[2], scale[3], loc[4] = 0.0, -1.0, np.nan
    x = np.concatenate([rng.normal(size=20) * 5, [np.inf, -np.inf, np.nan, 0.0, 1e300, -1e300, 40.0, -40.0]])[None]
    with np.errstate(all="ignore"):
        for dist, ref in ((_Normal(loc, scale), norm(loc=loc, scale=scale)), (_Normal(), norm())):
            np.testing.assert_array_equal(dist.logcdf(x), ref.logcdf(x))
            np.testing.assert_array_equal(dist.logsf(x), ref.logsf(x))
            np.testing.assert_array_equal(np.broadcast_to(dist.median(), np.shape(ref.median())), ref.median())
