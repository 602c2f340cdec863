"""The Categorical block's NUTS site: stick-breaking logits of padded Dirichlet rows.

Its density is the Dirichlet's after the change of variables (numerical Jacobian), its draws
follow the Dirichlet, the sufficient-statistic likelihood per stick is ``sum n log theta``,
and the exact posterior is uncorrelated in its coordinates (what a diagonal mass matrix fits)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numpyro")

import jax
import jax.numpy as jnp
from scipy import stats

from bayesnb.families import _stick_rows as S

SIZES = [4, 2, 1, 3, 40]  # a one-value feature, and one longer than 32 values (the matmul cumsum)


def _alpha(rng, K=2, sizes=SIZES, low=0.3, high=5.0):
    vmax = max(sizes)
    valid = np.arange(vmax)[None, None, :] < np.asarray(sizes)[None, :, None]
    return np.where(valid, rng.uniform(low, high, (K, len(sizes), vmax)), 1.0)


def _padded(rows, sizes):
    out = np.zeros((len(sizes), max(sizes)))
    for j, r in enumerate(rows):
        out[j, :sizes[j]] = r
    return out


def _log_theta(args, x, sizes):
    site = S.stick_logit_rows(args["a"], args["b"], args["shift"], args["log_norm"])
    t, sp = site.logits(jnp.asarray(x, jnp.float32))
    return site, S.stick_log_theta(t, sp, sizes)


def test_site_density_is_the_dirichlet_times_the_jacobian():
    """log p(x) = log Dirichlet(theta(x) | alpha) + log |d theta / d x| (+ the pads' logistic density)."""
    rng = np.random.default_rng(0)
    alpha = _alpha(rng, K=1)
    args = S.prior_args(alpha, SIZES)
    theta = _padded([rng.dirichlet(alpha[0, j, :v]) for j, v in enumerate(SIZES)], SIZES)[None]
    x = S.logits_from_theta(theta, SIZES, args)
    site, lt = _log_theta(args, x, SIZES)
    np.testing.assert_allclose(np.exp(np.asarray(lt, float))[0], np.where(theta[0] > 0, theta[0], 1.0), rtol=2e-4)
    lp = np.asarray(site.log_prob(jnp.asarray(x, jnp.float32)), float)[0]

    def theta_of(x0):  # every column's theta as a function of every coordinate
        t, sp = site.logits(x0[None])
        return jnp.exp(S.stick_log_theta(t, sp, SIZES)[0])

    # one compiled forward-mode Jacobian of all columns (J, V, J, V); column j's block d theta_0..theta_{V-2} /
    # d x_0..x_{V-2} holds that column's pads and the other columns fixed, as a per-column Jacobian would
    full_jac = np.asarray(jax.jit(jax.jacfwd(theta_of))(jnp.asarray(x[0], jnp.float32)), float)
    for j, V in enumerate(SIZES):
        pads = np.asarray(x[0, j, V - 1:], float)
        want = (stats.dirichlet.logpdf(theta[0, j, :V], alpha[0, j, :V]) if V > 1 else 0.0)
        if V > 1:
            jac = full_jac[j, :V - 1, j, :V - 1]
            want += np.linalg.slogdet(jac)[1]
        want += np.sum(-np.logaddexp(0, pads) - np.logaddexp(0, -pads))  # standard logistic pads
        assert lp[j] == pytest.approx(want, rel=1e-4, abs=2e-3)
    # the precomputed normalising constant is the one computed in the graph
    no_norm = S.stick_logit_rows(args["a"], args["b"], args["shift"])
    np.testing.assert_allclose(no_norm.log_prob(jnp.asarray(x, jnp.float32)), lp[None], rtol=1e-5, atol=1e-3)


def test_site_draws_follow_the_dirichlet():
    rng = np.random.default_rng(1)
    sizes = [3, 2]
    alpha = _alpha(rng, K=1, sizes=sizes, low=0.5, high=4.0)
    args = S.prior_args(alpha, sizes)
    site = S.stick_logit_rows(args["a"], args["b"], args["shift"], args["log_norm"])
    x = site.sample(jax.random.PRNGKey(0), (4000,))
    t, sp = site.logits(x)
    theta = np.exp(np.asarray(S.stick_log_theta(t, sp, sizes), float))
    for j, V in enumerate(sizes):
        a = alpha[0, j, :V]
        for v in range(V):  # Dirichlet marginals are Beta(a_v, sum a - a_v)
            assert stats.kstest(theta[:, 0, j, v], stats.beta(a[v], a.sum() - a[v]).cdf).pvalue > 1e-3


def test_suffstat_loglik_per_stick_is_sum_n_log_theta():
    rng = np.random.default_rng(2)
    alpha = _alpha(rng)
    valid = np.arange(alpha.shape[-1])[None, None, :] < np.asarray(SIZES)[None, :, None]
    counts = np.where(valid, rng.integers(0, 20, alpha.shape), 0.0)
    args = S.prior_args(alpha, SIZES)
    x = rng.normal(size=args["a"].shape).astype(np.float32)
    site, lt = _log_theta(args, x, SIZES)
    t, sp = site.logits(jnp.asarray(x))
    got = float(S.suffstat_loglik({"t": t, "softplus": sp}, S.stats_args(counts, SIZES)))
    assert got == pytest.approx(float((counts * np.asarray(lt, float)).sum()), rel=1e-5)


def test_exact_posterior_is_uncorrelated_in_the_site_coordinates():
    """Exact Dirichlet posterior draws, as site values: no two coordinates are correlated (the sticks
    of a Dirichlet are independent Betas), and x = 0 is the uniform row (NumPyro's centring)."""
    rng = np.random.default_rng(3)
    sizes = [6, 2, 40]
    alpha = _alpha(rng, K=1, sizes=sizes, low=0.5, high=2.0)
    post = alpha + np.where(alpha != 1.0, rng.integers(0, 50, alpha.shape), 0)
    args = S.prior_args(alpha, sizes)
    draws = np.stack([_padded([rng.dirichlet(post[0, j, :v]) for j, v in enumerate(sizes)], sizes)
                      for _ in range(4000)])[:, None]
    x = S.logits_from_theta(draws, sizes, args)  # (4000, 1, d, W)
    ok = np.arange(x.shape[-1])[None, :] < (np.asarray(sizes) - 1)[:, None]
    c = np.corrcoef(x[:, 0][:, ok].T)
    assert np.abs(c[~np.eye(len(c), dtype=bool)]).max() < 0.1
    # the softmax rows (additive log-ratios) of the same draws are correlated: what sticks avoid
    lr = np.log(draws[:, 0, 0, 1:6]) - np.log(draws[:, 0, 0, :1])
    assert np.abs(np.corrcoef(lr.T)[~np.eye(5, dtype=bool)]).max() > 0.2
    site, lt = _log_theta(args, np.zeros(args["a"].shape, np.float32), sizes)
    theta = np.exp(np.asarray(lt, float))[0]
    for j, V in enumerate(sizes):
        np.testing.assert_allclose(theta[j, :V], 1.0 / V, rtol=1e-5)


def test_stick_arguments_check_their_shapes():
    alpha = np.ones((2, 3, 5))
    args = S.prior_args(alpha, [5, 2, 1])
    assert args["a"].shape == (2, 3, 4) and args["log_norm"].shape == (2, 3)
    # one value only: one pad cell, a zero normalising constant
    one = S.prior_args(np.ones((2, 1, 1)), [1])
    assert one["a"].shape == (2, 1, 1) and np.all(one["log_norm"] == 0.0)


@pytest.mark.parametrize("stick_max", [None, 0, 100])
def test_categorical_site_form_follows_the_number_of_values(monkeypatch, stick_max):
    """A block of few-valued features samples stick logits, one with more than STICK_MAX_VALUES
    values normalised Gammas; either way the model's likelihood at a point is the closed form's."""
    import pandas as pd
    from numpyro import handlers

    from bayesnb import CategoricalNB
    from bayesnb.families import Categorical
    from bayesnb.inference.numpyro_model import make_model, model_inputs, model_log_likelihood, point_sites

    if stick_max is not None:
        monkeypatch.setattr(Categorical, "STICK_MAX_VALUES", stick_max)
    rng = np.random.default_rng(4)
    n = 300
    y = rng.choice(["u", "v", "w"], n)
    X = pd.DataFrame({"two": rng.choice(["a", "b"], n), "three": rng.choice(["p", "q", "r"], n),
                      "many": rng.choice([f"m{i}" for i in range(12)], n)})
    for few in (True, False):
        cols = ["two", "three"] if few else ["two", "many"]
        clf = CategoricalNB(alpha=0.7).fit(X[cols], y)
        post = clf.posterior_
        enc, _ = clf._encode_blocks(X[cols], post)
        spec, priors, data = model_inputs(post, (enc, np.searchsorted(post.classes, y)))
        sites = point_sites(post, spec, priors)
        stick = (few and stick_max is None) or stick_max == 100
        name = "theta_categorical__stick" if stick else "theta_categorical__log_gamma"
        tr = handlers.trace(handlers.substitute(make_model(spec), data=sites)).get_trace(priors, data)
        assert name in tr and tr[name]["type"] == "sample"
        width = max(len(np.unique(X[c])) for c in cols) - (1 if stick else 0)
        assert tr[name]["value"].shape == (3, 2, width)
        theta = post.blocks[0].family.point_params(post.blocks[0].posterior)["theta"]
        want = sum(float((c * np.log(theta[:, j, :c.shape[1]])).sum())
                   for j, c in enumerate(post.blocks[0].stats.counts))
        want += float((np.bincount(np.searchsorted(post.classes, y)) * post.class_log_prior).sum())
        assert model_log_likelihood(spec, priors, data, sites) == pytest.approx(want, rel=1e-4)


def test_both_site_modules_are_dirichlet_sites_registered_by_their_suffix():
    """The two site modules implement every member of the written-out interface, and the registry
    names each by the suffix of its sample site."""
    from bayesnb.families import categorical as D
    from bayesnb.families import _tilted_gamma

    assert D.FORMS == {"stick": S, "log_gamma": _tilted_gamma}
    members = [m for m in vars(D.DirichletSite) if not m.startswith("_")]
    assert "suffstat_loglik" in members and "SITE" in D.DirichletSite.__annotations__
    for name, mod in D.FORMS.items():
        assert isinstance(mod, D.DirichletSite) and mod.SITE == name
        assert all(callable(getattr(mod, m)) for m in members)
    assert D.site_for([2, 3], 3) is S and D.site_for([2, 4], 3) is _tilted_gamma and D.site_for([], 0) is S


@pytest.mark.parametrize(("sizes", "stick"), [([2, 3], True), ([2, 12], False)])
def test_the_site_is_chosen_once_and_the_suffstat_likelihood_follows_it(monkeypatch, sizes, stick):
    """numpyro_sample records the site module it chose from the sizes, and the labelled-data likelihood
    uses that record, whatever the rule says later (no guess from the statistics' keys)."""
    from numpyro import handlers

    from bayesnb.families import Categorical, categorical as D

    rng = np.random.default_rng(2)
    fam = Categorical()
    prior = fam.params_type(tuple(rng.uniform(0.5, 2.0, (3, v)) for v in sizes))
    stats = fam.stats_type(tuple(rng.integers(0, 9, (3, v)).astype(float) for v in sizes))
    static, args, sargs = fam.numpyro_static(prior), fam.numpyro_prior_args(prior), fam.numpyro_stats_args(stats)
    # any site value serves (the check is on the form recorded and the likelihood of log_theta): random
    # reals substituted, so that no Gamma sampler is compiled for the draw
    def site_value(msg):
        if msg["type"] == "sample":
            return rng.normal(size=msg["fn"].shape()).astype(np.float32)
        return None

    with handlers.substitute(substitute_fn=site_value):
        params = fam.numpyro_sample("t", static, args, "feature", "class")
    form = params[D.SITE_KEY]
    assert form is (S if stick else D.FORMS["log_gamma"])
    want = float(sum((n * np.asarray(params["log_theta"])[:, j, :v]).sum()
                     for j, (n, v) in enumerate(zip(stats.counts, sizes))))
    monkeypatch.setattr(Categorical, "STICK_MAX_VALUES", 0 if stick else 100)  # the rule now says the other form
    assert float(fam.numpyro_suffstat_loglik(params, sargs)) == pytest.approx(want, rel=1e-5)
