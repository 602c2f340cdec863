"""The latent-class model (each class a mixture of naive-Bayes components) in NumPyro.

Same model, two implementations: the NumPyro model's log-likelihood at the EM solution of
``fit_latent_class`` equals the EM objective's log-likelihood part, for every family; NUTS
on it gives the same held-out posterior-predictive log p(x) as the EM plug-in (a
label-invariant quantity: component labels may switch). ``latent_class_draws`` turns draws
into plug-in models; with one component and exact draws their average is the closed form.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, LatentClassFit, MultinomialNB, NaiveBayes
from bayesnb.families import Bernoulli, Categorical, Gaussian
from bayesnb.generative.latent import latent_class_draws
from bayesnb.inference.em import log_penalty as _log_penalty
from bayesnb.inference.numpyro_model import estimator_inputs, model_log_likelihood, point_sites
from cases import PRIOR_DRAWS, prior_draws, with_missing


def simulate_latent(n, rng, d=8, V=3, K=2, C=2):
    """Categorical rows from K classes x C components (well-separated sparse Dirichlet thetas)."""
    theta = rng.dirichlet(np.full(V, 0.3), size=(K, C, d))
    y = rng.integers(0, K, n)
    c = rng.integers(0, C, n)
    u = rng.random((n, d))
    codes = (u[:, :, None] > np.cumsum(theta[y, c], axis=-1)).sum(-1)
    X = pd.DataFrame(np.asarray(list("abcdefg"))[codes], columns=[f"f{j}" for j in range(d)])
    return X, np.array(["u", "v", "w"])[y]


def _with_missing(X, y, rng, cells=0.1, labels=0.25):
    """Hide a fraction of the cells (NaN) and of the labels (None)."""
    X = with_missing(X, rng.random(X.shape) < cells)
    y = y.astype(object)
    y[rng.random(y.shape[0]) < labels] = None
    return X, y


def _mixed(rng, n):
    Xc, y = simulate_latent(n, rng, d=3, V=3)
    Xc["f1"] = Xc["f1"].replace({"c": "d"}).where(Xc["f1"] != "a", "e")  # other values: two Dirichlet sizes
    Xc["f2"] = Xc["f2"].where(Xc["f2"] != "c", "a")
    g = rng.normal(size=(n, 2)) + (y == "v")[:, None] * 2.0
    b = (rng.random((n, 2)) < np.where((y == "v")[:, None], 0.8, 0.3)).astype(float)
    X = pd.concat([Xc, pd.DataFrame(g, columns=["g1", "g2"]), pd.DataFrame(b, columns=["b1", "b2"])], axis=1)
    return X, y


CASES = {
    "categorical": lambda rng: (CategoricalNB(), *simulate_latent(160, rng)),
    "bernoulli": lambda rng: (BernoulliNB(binarize=None),
                              (rng.random((160, 6)) < rng.random((1, 6))).astype(float), rng.integers(0, 2, 160)),
    "multinomial": lambda rng: (MultinomialNB(), rng.poisson(rng.gamma(1.0, 2.0, (1, 5)), (160, 5)).astype(float),
                                rng.integers(0, 3, 160)),
    "gaussian": lambda rng: (GaussianNB(), rng.normal(size=(160, 3)) * [1, 2, 3], rng.integers(0, 2, 160)),
    "mixed": lambda rng: (NaiveBayes(features={("f0", "f1", "f2"): Categorical(), ("g1", "g2"): Gaussian(),
                                               ("b1", "b2"): Bernoulli(binarize=None)}), *_mixed(rng, 160)),
}


@pytest.mark.parametrize("n_components", [1, 3])
@pytest.mark.parametrize("case", sorted(CASES))
def test_numpyro_log_likelihood_at_em_solution_equals_em(case, n_components):
    rng = np.random.default_rng(3)
    clf, X, y = CASES[case](rng)
    X, y_semi = _with_missing(X, y, rng)
    labelled = np.array([v is not None for v in y_semi])
    Xl = X.iloc[np.flatnonzero(labelled)] if isinstance(X, pd.DataFrame) else X[labelled]
    clf.fit(Xl, np.asarray(list(y_semi[labelled])))
    fit = clf.fit_latent_class(X, y_semi, n_components=n_components, random_state=0, n_init=1, max_iter=30)
    em_loglik = fit.em_objective[-1] - _log_penalty(fit.posterior)  # the objective minus its log prior

    spec, priors, data = estimator_inputs(clf, X, y_semi, n_components=n_components, likelihood="rows")
    assert set(data) == {"rows", "y", "unlabelled"} and spec.n_components == n_components
    sites = point_sites(fit.posterior, spec)
    ll = model_log_likelihood(spec, priors, data, sites)
    assert ll == pytest.approx(em_loglik, rel=2e-5)

    if n_components > 1:  # relabelling the components of a class changes nothing...
        perm = {k: v for k, v in sites.items()}
        K, C = spec.n_classes, n_components
        order = (np.arange(K)[:, None] * C + np.roll(np.arange(C), 1)[None, :]).ravel()
        perm["w"] = sites["w"][:, np.roll(np.arange(C), 1)]
        for k in sites:
            if k not in ("pi", "w"):
                perm[k] = sites[k][order]
        assert model_log_likelihood(spec, priors, data, perm) == pytest.approx(ll, rel=2e-5)
        perm["w"] = sites["w"]  # ...but moving the parameters without their weights does
        assert abs(model_log_likelihood(spec, priors, data, perm) - ll) > 1e-3


def test_latent_model_prior_and_argument_checks():
    rng = np.random.default_rng(0)
    X, y = simulate_latent(60, rng, d=4)
    clf = CategoricalNB().fit(X, y)
    spec, priors, data = estimator_inputs(clf, X, y, n_components=3)
    assert spec.likelihood == "rows" and spec.n_components == 3
    draws = prior_draws(spec, priors)
    assert draws["w"].shape == (PRIOR_DRAWS, 2, 3)
    np.testing.assert_allclose(np.asarray(draws["w"]).sum(-1), 1.0, rtol=1e-5)
    assert draws["theta_categorical"].shape == (PRIOR_DRAWS, 6, 4, 3)  # (class, component) pairs x features x values

    with pytest.raises(ValueError, match="likelihood='rows'"):
        clf.run_mcmc(X, y, n_components=2, likelihood="suffstats")
    with pytest.raises(ValueError, match="n_components must be a positive integer"):
        clf.run_mcmc(X, y, n_components=0)
    with pytest.raises(ValueError, match="init must be"):
        clf.run_mcmc(X, y, n_components=2, init="kmeans")
    fit3 = clf.fit_latent_class(X, y, n_components=3, random_state=0, n_init=1)
    with pytest.raises(ValueError, match="init has 3 components"):
        clf.run_mcmc(X, y, n_components=2, init=fit3)
    with pytest.raises(ValueError, match="needs a fitted estimator"):
        CategoricalNB().run_mcmc(X, None, n_components=2)
    # without y only latent components make sense: one component would be a silent mixture over the classes
    for call in (lambda: clf.run_mcmc(X), lambda: clf.run_mcmc(X, None, n_components=1)):
        with pytest.raises(ValueError, match=r"run_mcmc\(X\) without y .*pass the labels y.*n_components=C > 1"):
            call()
    # every row unlabelled on purpose is still possible, and is the model it would have sampled
    spec, _, data = estimator_inputs(clf, X, [None] * len(X))
    assert data["unlabelled"] is not None and data.get("labelled") is None


def test_latent_class_draws_one_component_exact_draws_average_to_closed_form():
    # With one component, exact conjugate draws have run_mcmc's layout; the parameters of
    # different (class, feature) cells are independent, so E[p(x | theta)] is the plug-in p(x).
    rng = np.random.default_rng(1)
    X, y = simulate_latent(200, rng, d=5)
    clf = CategoricalNB().fit(X, y)
    n = 2000
    fits = latent_class_draws(clf, clf.sample_posterior(n, random_state=0))
    assert len(fits) == n and all(f.point and f.n_components == 1 for f in fits[:3])
    Xq = X.iloc[:25]
    S = np.array([clf.score_samples(Xq, latent=f) for f in fits[:n]])
    rel = np.exp(S - clf.score_samples(Xq))  # p(x | theta_s) / p(x)
    se = rel.std(0, ddof=1) / np.sqrt(n)
    assert np.all(np.abs(rel.mean(0) - 1) < 4.5 * se)
    # a draw is a point: impute uses it as it is, whatever parameter_uncertainty says
    Xm = X.iloc[:40].mask(rng.random((40, 5)) < 0.3)
    a = clf.impute(Xm, latent=fits[0], strategy="draw", random_state=5, parameter_uncertainty=True)
    b = clf.impute(Xm, latent=fits[0], strategy="draw", random_state=5, parameter_uncertainty=False)
    pd.testing.assert_frame_equal(a, b)
    obs = Xm.notna().to_numpy()
    assert (a.to_numpy()[obs] == Xm.to_numpy()[obs]).all() and a.notna().all().all()
    with pytest.raises(ValueError, match="does not match this estimator"):
        latent_class_draws(GaussianNB().fit(rng.normal(size=(20, 2)), np.arange(20) % 2),
            clf.sample_posterior(5, random_state=0))
    with pytest.raises(ValueError, match="n_draws must be in"):
        latent_class_draws(clf, clf.sample_posterior(5, random_state=0), n_draws=6)


@pytest.mark.slow
def test_nuts_latent_class_predictive_matches_em():
    rng = np.random.default_rng(0)
    X, y = simulate_latent(600, rng)
    Xtr, Xte = X.iloc[:400], X.iloc[400:].reset_index(drop=True)
    ytr = y[:400].astype(object)
    ytr[::4] = None  # a quarter unlabelled: their class is marginalised too
    clf = CategoricalNB().fit(Xtr.iloc[1::4], list(ytr[1::4]))
    em = clf.fit_latent_class(Xtr, ytr, n_components=2, random_state=0)
    dt = clf.run_mcmc(Xtr, ytr, n_components=2, num_warmup=300, num_samples=300, random_state=1, init=em)

    post = dt["posterior"]
    assert post["w"].dims == ("chain", "draw", "class", "component")
    assert post["theta_categorical"].dims == ("chain", "draw", "class", "component", "feature", "category")
    assert list(post["class"].values) == ["u", "v"] and list(post["component"].values) == [0, 1]
    np.testing.assert_allclose(post["w"].sum("component").values, 1.0, rtol=1e-5)
    assert dt.attrs["n_components"] == 2 and dt.attrs["likelihood"] == "rows"
    assert int(dt["sample_stats"]["diverging"].values.sum()) == 0

    # held-out log p(x): posterior predictive over 150 NUTS draws vs the EM plug-in
    fits = latent_class_draws(clf, dt, n_draws=150, random_state=0)
    assert all(isinstance(f, LatentClassFit) and f.point for f in fits)
    S = np.array([clf.score_samples(Xte, latent=f) for f in fits])
    mcmc = logsumexp(S, axis=0) - np.log(len(fits))
    plug = clf.score_samples(Xte, latent=em)
    one = clf.score_samples(Xte)  # one component per class: the model the test must tell apart
    assert one.mean() < plug.mean() - 0.5
    assert abs(mcmc.mean() - plug.mean()) < 0.05
    assert np.abs(mcmc - plug).mean() < 0.1
    # imputation of held-out cells: the MCMC posterior and EM agree on p(x_miss | x_obs)
    Xm = Xte.mask(np.random.default_rng(2).random(Xte.shape) < 0.2)
    hidden = Xm.isna().to_numpy()
    acc_em = (clf.impute(Xm, latent=em).to_numpy() == Xte.to_numpy())[hidden].mean()
    votes = np.stack([clf.impute(Xm, latent=f).to_numpy() for f in fits[:30]])
    acc_mc = np.mean([(v == Xte.to_numpy())[hidden].mean() for v in votes])
    acc_one = (clf.impute(Xm).to_numpy() == Xte.to_numpy())[hidden].mean()
    assert abs(acc_mc - acc_em) < 0.03 and acc_em > acc_one + 0.03


@pytest.mark.parametrize("case", sorted(CASES))
def test_latent_class_draws_of_exact_draws_score_every_family(case):
    """latent_class_draws took rows of every statistics field and failed on an empty one
    (Multinomial's pending counts are None): every family, alone or mixed, must go through."""
    clf, X, y = CASES[case](np.random.default_rng(3))
    clf.fit(X, y)
    fits = latent_class_draws(clf, clf.sample_posterior(4, random_state=0))
    assert len(fits) == 4
    Xq = X.iloc[:10] if hasattr(X, "iloc") else X[:10]
    scores = np.array([clf.score_samples(Xq, latent=f) for f in fits])
    assert scores.shape == (4, 10) and np.all(np.isfinite(scores))
    assert not np.allclose(scores[0], scores[1])  # different draws, different parameters
