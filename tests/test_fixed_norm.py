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

from bayesnb import Categorical, Gaussian, NaiveBayes
from bayesnb.families._fixed_norm import (
    dirichlet_fixed_norm,
    inverse_gamma_fixed_norm,
    lgamma32,
)
from bayesnb.families._tilted_gamma import tilted_gamma_rows, tilted_log_norm
from bayesnb.model import make_model


def test_log_densities_equal_numpyros():
    rng = np.random.default_rng(0)
    conc = rng.uniform(0.3, 40.0, (3, 5)).astype(np.float32)
    x = rng.dirichlet(np.ones(5), 3).astype(np.float32)
    log_norm = lgamma32(conc.astype(float).sum(-1)) - lgamma32(conc).sum(-1)
    np.testing.assert_allclose(dirichlet_fixed_norm(conc, log_norm).log_prob(x), dist.Dirichlet(conc).log_prob(x),
                               rtol=1e-5, atol=1e-4)
    a, b = rng.uniform(0.5, 30.0, (2, 4)), rng.uniform(0.1, 5.0, (2, 4))
    s2 = rng.uniform(0.05, 3.0, (2, 4))
    np.testing.assert_allclose(inverse_gamma_fixed_norm(a, b, lgamma32(a)).log_prob(s2),
                               dist.InverseGamma(a, b).log_prob(s2), rtol=1e-5, atol=1e-4)


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
    spec, priors, data = clf.model_inputs(X, y)
    _, pe_gen, _, _ = initialize_model(jax.random.PRNGKey(0), make_model(spec), model_args=(priors, data),
                                       dynamic_args=True, init_strategy=init_to_uniform)
    z = initialize_model(jax.random.PRNGKey(0), make_model(spec), model_args=(priors, data),
                         init_strategy=init_to_uniform)[0][0]
    jaxpr = str(jax.make_jaxpr(jax.value_and_grad(lambda z, p, d: pe_gen(p, d)(z)))(z, priors, data))
    assert "lgamma" not in jaxpr and "digamma" not in jaxpr
    assert "log" in jaxpr  # the densities are there
