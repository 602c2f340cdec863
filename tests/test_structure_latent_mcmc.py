"""run_mcmc(n_components=C) on a structure: the one NumPyro model with contexts (class, component,
parents' states), against a brute-force enumeration of the same likelihood on a tiny TAN."""

import numpy as np
import pytest
from scipy.special import logsumexp

import bayesnb
from bayesnb.inference.numpyro_model import estimator_inputs, model_log_likelihood


def _table(seed=0, n=40, unlabelled=10):
    """Two binary columns, the second following the first within a hidden component of each class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    z = rng.integers(0, 2, n)
    a = (rng.random(n) < np.where(z == 1, 0.85, 0.15)).astype(int)
    b = np.where(rng.random(n) < np.where(y == 1, 0.9, 0.6), a, 1 - a)
    c = (rng.random(n) < 0.3 + 0.4 * z).astype(int)
    ys = y.astype(object)
    ys[:unlabelled] = None
    return np.column_stack([a, b, c]), ys


def _brute_force_loglik(fit, parents, X, ys, K, C):
    """``sum_i log p(x_i[, y_i])`` of the latent-class model at ``fit``'s plug-in, by enumerating the
    class and the component of every row (numpy, from the fit's state weights and tables)."""
    p = np.exp(fit.posterior.class_log_prior).reshape(K, C)  # p(k, c) = pi_k w_kc
    logp = np.log(p)  # (K, C)
    rows = np.zeros((len(X), K, C))
    for j, (nd, post) in enumerate(zip(fit.structure.nodes, fit.structure.posteriors)):
        theta = np.asarray(nd.family.point_params(post)["theta"], float)[:, 0, :]  # (K*C*P, V)
        P = 2 ** len(parents[j])
        theta = theta.reshape(K, C, P, -1)
        u = np.zeros(len(X), dtype=int)
        for q in parents[j]:
            u = u * 2 + X[:, q]
        rows += np.log(theta[:, :, u, X[:, j]]).transpose(2, 0, 1)  # (n, K, C)
    joint = logsumexp(rows + logp, axis=2)  # (n, K): log pi_k p(x | k)
    lab = np.array([v is not None for v in ys])
    yl = np.array([0 if v is None else v for v in ys], dtype=int)
    return float(joint[lab, yl[lab]].sum() + logsumexp(joint[~lab], axis=1).sum())


def test_the_model_likelihood_at_an_em_solution_is_the_enumerated_one():
    X, ys = _table()
    lab = np.array([v is not None for v in ys])
    m = bayesnb.CategoricalNB(structure="tan").fit(X[lab], ys[lab].astype(int))
    names = ["x0", "x1", "x2"]
    parents = [tuple(names.index(p) for p in m.structure_[nm]) for nm in names]
    assert any(parents)
    K, C = 2, 2
    fit = m.fit_latent_class(X, ys, n_components=C, random_state=0, n_init=1, max_iter=50)
    spec, priors, data = estimator_inputs(m, X, ys, n_components=C)
    assert spec.likelihood == "rows" and set(data) == {"y", "rows", "unlabelled"}
    for j, b in enumerate(spec.blocks):  # contexts (class, component, parents' states)
        assert priors["blocks"][j]["log_norm"].shape[0] == K * C * 2 ** len(parents[j])
    sites = m._point_sites(spec, priors, fit)
    ll = model_log_likelihood(spec, priors, data, sites)
    assert ll == pytest.approx(_brute_force_loglik(fit, parents, X, ys, K, C), rel=1e-5)
    # relabelling the components of every class with their weights changes nothing; without them it does
    perm = dict(sites)
    swap = np.array([1, 0])
    perm["w"] = sites["w"][:, swap]
    for j, b in enumerate(spec.blocks):
        P = max(b.parent_states, 1)
        order = ((np.arange(K)[:, None, None] * C + swap[None, :, None]) * P + np.arange(P)).ravel()
        for k in sites:
            if k.split("__")[0].endswith(f"_{b.label}"):  # theta_<label> and theta_<label>__stick
                perm[k] = sites[k][order]
    assert model_log_likelihood(spec, priors, data, perm) == pytest.approx(ll, rel=1e-5)
    perm["w"] = sites["w"]
    assert abs(model_log_likelihood(spec, priors, data, perm) - ll) > 1e-2


@pytest.mark.slow  # compiles a NUTS sampler of the structured latent-class model
def test_run_mcmc_samples_latent_components_on_a_structure():
    X, ys = _table(1)
    lab = np.array([v is not None for v in ys])
    m = bayesnb.CategoricalNB(structure="tan").fit(X[lab], ys[lab].astype(int))
    (child,) = [nm for nm, pa in m.structure_.items() if pa][:1]
    (parent,) = m.structure_[child][:1]
    dt = m.run_mcmc(X, ys, n_components=2, num_warmup=150, num_samples=150, random_state=0)
    post = dt["posterior"]
    assert post["w"].dims == ("chain", "draw", "class", "component")
    np.testing.assert_allclose(post["w"].values.sum(-1), 1.0, rtol=1e-5)
    assert post[f"theta_{child}"].dims == ("chain", "draw", "class", "component", f"{parent}_state",
                                           f"{child}_category")
    assert post["pi"].dims == ("chain", "draw", "class")
    assert dt["posterior"].attrs["n_components"] == 2 and dt["posterior"].attrs["structure"] == "tan"
    assert int(dt["sample_stats"]["diverging"].values.sum()) <= 3


def test_prior_simulation_of_the_structured_latent_model():
    """``data=None`` leaves the prior: every (class, component, parents' state) context draws its own table."""
    from cases import PRIOR_DRAWS, prior_draws

    X, ys = _table()
    lab = np.array([v is not None for v in ys])
    m = bayesnb.CategoricalNB(structure="tan").fit(X[lab], ys[lab].astype(int))
    spec, priors, _ = estimator_inputs(m, X, ys, n_components=3)
    draws = prior_draws(spec, priors)
    assert draws["w"].shape == (PRIOR_DRAWS, 2, 3)
    for b in spec.blocks:
        theta = np.asarray(draws[f"theta_{b.label}"])
        assert theta.shape == (PRIOR_DRAWS, 2 * 3 * max(b.parent_states, 1), 1, 2)
        np.testing.assert_allclose(theta.sum(-1), 1.0, rtol=1e-5)
        # contexts are independent a priori: two of them are uncorrelated
        r = np.corrcoef(theta[:, 0, 0, 0], theta[:, -1, 0, 0])[0, 1]
        assert abs(r) < 0.2, (b.label, r)


def test_numeric_nodes_latent_likelihood_is_the_exact_engines():
    """A mixed TAN (penguins: Categorical, LogNormal, Gaussian... nodes) with two components per class:
    the model's log-likelihood at the EM solution is the exact engine's ``sum_i log p(x_i[, y_i])``."""
    from bayesnb.datasets import load_penguins

    d = load_penguins()
    X = d[["island", "sex", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]].dropna()
    y = d.loc[X.index, "species"].to_numpy(dtype=object).copy()
    y[::4] = None
    lab = np.array([v is not None for v in y])
    m = bayesnb.NaiveBayes(structure="tan").fit(X[lab], y[lab].astype(str))
    assert any(m.structure_.values())
    fit = m.fit_latent_class(X, y, n_components=2, random_state=0, n_init=1, max_iter=20)
    spec, priors, data = estimator_inputs(m, X, y, n_components=2)
    ll = model_log_likelihood(spec, priors, data, m._point_sites(spec, priors, fit))
    codes = np.where(lab, np.searchsorted(m.classes_, np.where(lab, y, m.classes_[0]).astype(str)), -1)
    exact = m._latent_log_px(fit, m._encode_blocks(m._check_X(X, reset=False), m.posterior_)[0], codes)
    assert ll == pytest.approx(float(np.sum(exact)), rel=2e-5)
