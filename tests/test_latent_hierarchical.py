"""Hierarchical component priors of the latent-class model (``component_prior="hierarchical"``).

The fit is checked against its equations on tiny data (the responsibilities a fixed point of the
fixed-prior EM, the state weights' Dirichlet(1/C), each component's table the hierarchical prior of
:func:`bayesnb.structure.hierarchical.hierarchical_prior` with the class's prior on top), and on a
table with a rare binary column the model's marginal rate of the rare value must stay at the data's
where the class prior (Dirichlet(1) per component) inflates it.
"""

import numpy as np
import pandas as pd
import pytest

from bayesnb import NaiveBayes, Synthesizer
from bayesnb.families import Categorical, Gaussian, Histogram
from bayesnb.inference import em
from bayesnb.inference.nb_posterior import joint_log_likelihood_parts, normalise
from bayesnb.structure.hierarchical import hierarchical_prior


def _clustered(n, seed, rare=0.02):
    """Two classes, each two clusters over four 3-valued columns, and a binary column ``r`` whose value
    ``"1"`` is rare (probability ``rare`` in every row, independent of the rest)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    z = rng.integers(0, 2, n)
    cols = {f"c{j}": np.where(rng.random(n) < 0.8, (y + 2 * z + j) % 3, rng.integers(0, 3, n)).astype(str)
            for j in range(4)}
    cols["r"] = (rng.random(n) < rare).astype(int).astype(str)
    return pd.DataFrame(cols), y.astype(str)


def test_fit_is_the_fixed_point_of_its_equations():
    X, y = _clustered(40, 0, rare=0.1)
    base = NaiveBayes().fit(X, y)
    C = 2
    fit = base.fit_latent_class(X, y, n_components=C, random_state=0, component_prior="hierarchical", tol=1e-12,
                                max_iter=5000)
    post, K = fit.posterior, len(base.classes_)
    S = K * C
    encoded, _ = base._encode_blocks(base._check_X(X, reset=False), base.posterior_)
    codes = pd.Index(base.classes_).get_indexer(y)
    b, b0 = post.blocks[0], base.posterior_.blocks[0]
    fixed = em.block_meta(base.posterior_, fit.group)[0][4]  # every state's prior: its class's Dirichlet(1)
    # 1. each component's table: the hierarchical prior of its counts, the class's prior on top
    for j, n in enumerate(b.stats.counts):
        h = hierarchical_prior(n.reshape(K, C, -1), b0.prior.concentration[j], root="class")
        np.testing.assert_allclose(b.prior.concentration[j], h.alpha.reshape(n.shape), rtol=1e-12)
        np.testing.assert_allclose(b.posterior.concentration[j], h.alpha.reshape(n.shape) + n, rtol=1e-12)
        assert not np.allclose(b.prior.concentration[j], fixed.concentration[j])  # it did move the prior
    # 2. the responsibilities: a fixed point of EM with the priors held (tables and weights)
    flat = post._replace(blocks=(b._replace(prior=fixed, posterior=b.family.update(fixed, b.stats)),))
    allowed = em.allowed_states(fit.group, codes)
    resp = np.exp(normalise(joint_log_likelihood_parts(flat, encoded, allowed=allowed)[0], None))
    again = b.family.stats(encoded[0], resp, b.state)
    for m, n in zip(again.counts, b.stats.counts):
        np.testing.assert_allclose(m, n, atol=1e-4)  # EM converges slowly at the end
    # 3. the state weights: posterior mean of Dirichlet(1/C) per state (Dirichlet(1) per class, summed)
    np.testing.assert_allclose(np.exp(post.class_log_prior), (resp.sum(0) + 1 / C) / (len(X) + K), atol=1e-5)
    assert np.all(np.diff(fit.em_objective) >= -1e-9)  # the EM before the smoothing climbs


def _rare_rate(fit, j, value):
    """The latent model's marginal probability of ``value`` in column ``j`` (posterior means)."""
    b = fit.posterior.blocks[0]
    a = b.posterior.concentration[j]
    return float(np.exp(fit.posterior.class_log_prior) @ (a[:, value] / a.sum(1)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_rare_value_keeps_its_rate(seed):
    X, y = _clustered(800, seed, rare=0.02)
    base = NaiveBayes().fit(X, y)
    j = list(X.columns).index("r")
    v = list(base.posterior_.blocks[0].state.categories[j]).index("1")
    real = float((X["r"] == "1").mean())
    err = {}
    for cp in ("class", "hierarchical"):
        fit = base.fit_latent_class(X, y, n_components=6, random_state=0, component_prior=cp)
        err[cp] = abs(_rare_rate(fit, j, v) - real)
    # 12 states with Laplace tables add about 12 / 800 * (1 - 2 * 0.02) = 0.014 to the rare rate; centred on
    # the class, what is left is the class level's Dirichlet(1) (naive Bayes itself is 0.0024 off here)
    assert err["class"] > 0.008, err
    assert err["hierarchical"] < min(0.006, err["class"] / 2), err


def test_one_component_is_the_class_prior_model():
    X, y = _clustered(60, 2)
    base = NaiveBayes().fit(X, y)
    a = base.fit_latent_class(X, y, n_components=1, random_state=0, component_prior="hierarchical")
    b = base.fit_latent_class(X, y, n_components=1, random_state=0, component_prior="class")
    for p, q in zip(a.posterior.blocks[0].posterior.concentration, b.posterior.blocks[0].posterior.concentration):
        np.testing.assert_array_equal(p, q)


def test_clear_errors():
    X, y = _clustered(60, 3)
    with pytest.raises(ValueError, match="component_prior"):
        NaiveBayes().fit(X, y).fit_latent_class(X, y, component_prior="flat")
    with pytest.raises(ValueError, match="structure='naive'"):
        NaiveBayes(structure="tan").fit(X, y).fit_latent_class(X, y, component_prior="hierarchical")
    with pytest.raises(ValueError, match="component_prior"):
        Synthesizer(component_prior="flat").fit(X.assign(y=y))


def test_each_family_answers_through_its_hierarchical_variant():
    """A Histogram block's bins are smoothed like a categorical feature (centred on the class's bins); a
    Gaussian block, which has no hierarchical variant, keeps its class's prior in every component."""
    rng = np.random.default_rng(4)
    n = 400
    y = rng.integers(0, 2, n)
    z = rng.integers(0, 2, n)
    X = pd.DataFrame({"a": np.where(rng.random(n) < 0.2 + 0.6 * z, "p", "q"),
                      "w": np.round(rng.gamma(2 + 3 * z, 2 + y)),
                      "g": rng.normal(3 * z + y, 1.0)})
    base = NaiveBayes(features={"a": Categorical(), "w": Histogram(bins=8), "g": Gaussian()}).fit(X, y)
    C = 3
    fit = base.fit_latent_class(X, y, n_components=C, random_state=0, component_prior="hierarchical")
    fixed = {type(b.family).__name__: m[4] for b, m in zip(base.posterior_.blocks,
                                                          em.block_meta(base.posterior_, fit.group))}
    got = {type(b.family).__name__: b for b in fit.posterior.blocks}
    assert {"Categorical", "Histogram", "Gaussian"} <= set(got), set(got)
    for name in ("Categorical", "Histogram"):
        b = got[name]
        for j, n_ in enumerate(b.stats.counts):
            root = next(x for x in base.posterior_.blocks if type(x.family).__name__ == name).prior.concentration[j]
            h = hierarchical_prior(n_.reshape(2, C, -1), root[:2], root="class")
            np.testing.assert_allclose(b.prior.concentration[j], h.alpha.reshape(n_.shape), rtol=1e-12)
        assert not np.allclose(b.prior.concentration[0], fixed[name].concentration[0])
    for p, q in zip(got["Gaussian"].prior, fixed["Gaussian"]):
        np.testing.assert_array_equal(p, q)
