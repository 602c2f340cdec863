"""Prior densities with precomputed normalising constants: the same log densities as NumPyro's,
and a NUTS potential with no ``lgamma`` left in it (the constants are computed once in NumPy)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numpyro")

import jax
import numpyro.distributions as dist
from numpyro.infer import init_to_uniform
from numpyro.infer.util import initialize_model
from scipy import stats

from bayesnb import Categorical, Gaussian, NaiveBayes
from bayesnb.families.fixed_norm import dirichlet_fixed_norm, lgamma32
from bayesnb.families._gaussian_cells import nig_log_norm
from bayesnb.families._numpyro_dists import NIGUnconstrained
from bayesnb.families._tilted_gamma import tilted_gamma_rows, tilted_log_norm
from bayesnb.inference.numpyro_model import estimator_inputs, make_model


def test_log_densities_equal_numpyros():
    rng = np.random.default_rng(0)
    conc = rng.uniform(0.3, 40.0, (3, 5)).astype(np.float32)
    x = rng.dirichlet(np.ones(5), 3).astype(np.float32)
    log_norm = lgamma32(conc.astype(float).sum(-1)) - lgamma32(conc).sum(-1)
    np.testing.assert_allclose(dirichlet_fixed_norm(conc, log_norm).log_prob(x), dist.Dirichlet(conc).log_prob(x),
                               rtol=1e-5, atol=1e-4)


def test_nig_site_is_the_normal_inverse_gamma_on_the_log_variance_scale():
    """log p(m, t) = InvGamma(e^t | a, b) e^t * Normal(m | m0, e^t / kappa), by scipy.stats."""
    rng = np.random.default_rng(3)
    shape = (2, 4)
    m0, kappa = rng.normal(size=shape), rng.uniform(0.01, 5.0, shape)
    a, b = rng.uniform(0.5, 30.0, shape), rng.uniform(0.1, 5.0, shape)
    z = np.stack([rng.normal(size=shape), rng.uniform(-2.0, 2.0, shape)], axis=-1)
    v = np.exp(z[..., 1])
    want = (stats.invgamma.logpdf(v, a, scale=b) + z[..., 1]
            + stats.norm.logpdf(z[..., 0], m0, np.sqrt(v / kappa)))
    d = NIGUnconstrained(m0, kappa, a, b, nig_log_norm(a, b, kappa))
    assert d.batch_shape == shape and d.event_shape == (2,)
    np.testing.assert_allclose(d.log_prob(z.astype(np.float32)), want, rtol=1e-5, atol=1e-3)
    # its draws follow that law: v ~ InvGamma(a, b), (m - m0) sqrt(kappa / v) ~ Normal(0, 1)
    draws = np.asarray(NIGUnconstrained(0.5, 2.0, 3.0, 1.5, nig_log_norm(3.0, 1.5, 2.0)).sample(
        jax.random.PRNGKey(0), (4000,)), dtype=float)
    v = np.exp(draws[:, 1])
    assert stats.kstest(v, stats.invgamma(3.0, scale=1.5).cdf).pvalue > 1e-3
    assert stats.kstest((draws[:, 0] - 0.5) * np.sqrt(2.0 / v), "norm").pvalue > 1e-3


@pytest.mark.parametrize("tilted", [False, True])
def test_tilted_gamma_rows_with_log_norm_is_the_same_density(tilted):
    rng = np.random.default_rng(1)
    alpha = rng.uniform(0.5, 20.0, (2, 3, 6))
    valid = np.arange(6) < np.array([[6], [4], [2]])
    alpha = np.where(valid, alpha, 1.0)
    s_shape = rng.uniform(5.0, 300.0, (2, 3)) if tilted else None
    g = rng.gamma(3.0, size=(2, 3, 6)).astype(np.float32)
    with_norm = tilted_gamma_rows(alpha, valid, s_shape, tilted_log_norm(alpha, valid, s_shape)).log_prob(g)
    without = tilted_gamma_rows(alpha, valid, s_shape).log_prob(g)
    np.testing.assert_allclose(with_norm, without, rtol=1e-5, atol=1e-3)
    if not tilted:  # the untilted rows are independent Gamma(alpha) cells
        np.testing.assert_allclose(without, dist.Gamma(alpha).log_prob(g).sum(-1), rtol=1e-5, atol=1e-3)


def test_potential_of_a_mixed_model_compiles_no_lgamma():
    rng = np.random.default_rng(2)
    n = 60
    y = rng.choice(["a", "b"], n)
    X = pd.DataFrame({"c": rng.choice(["u", "v", "w"], n), "d": rng.choice(["p", "q"], n),
                      "g": rng.normal(size=n)})
    clf = NaiveBayes(features={("c", "d"): Categorical(), ("g",): Gaussian()}).fit(X, y)
    spec, priors, data = estimator_inputs(clf, X, y)
    gens = []

    def setup(priors, data):  # the model set up as NUTS does it (nuts._build_fn): traced, nothing run op by op
        info, pe_gen, _, _ = initialize_model(jax.random.PRNGKey(0), make_model(spec), model_args=(priors, data),
                                              dynamic_args=True, init_strategy=init_to_uniform)
        gens.append(pe_gen)
        return info[0]

    z = jax.eval_shape(setup, priors, data)  # the unconstrained sites' shapes
    jaxpr = str(jax.make_jaxpr(jax.value_and_grad(lambda z, p, d: gens[0](p, d)(z)))(z, priors, data))
    assert "lgamma" not in jaxpr and "digamma" not in jaxpr
    assert "log" in jaxpr  # the densities are there
