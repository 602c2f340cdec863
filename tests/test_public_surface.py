"""The public surface (issue 29, item 5): what ``bayesnb.__all__`` holds, and how many public methods a
fitted estimator has, counted as scikit-learn's own (its ``CategoricalNB`` has 13)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

import bayesnb

#: what a user imports from ``bayesnb``: estimators, families, settings, functions and warnings to filter
PUBLIC = {
    "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB", "NaiveBayes", "NBOutlierDetector",
    "Bernoulli", "Categorical", "Complement", "Gaussian", "Histogram", "Hurdle", "LogNormal", "Multinomial", "Poisson",
    "DP", "Imputer", "Synthesizer",
    "check_independence", "check_marginals", "check_mcar", "compare_posteriors", "impute_mnar", "impute_table",
    "mnar_sensitivity", "pool", "pool_synthetic", "set_progress", "synthetic_report", "load",
    "AllMissingWarning", "FirstBatchFamilyWarning", "OneClassWarning", "SearchEdgeWarning", "ZeroProbabilityCondition",
    "ZeroProbabilityWarning",
}

#: the most public methods a fitted estimator may have (issue 29: <= 25). The estimators have 24: the 13 of
#: scikit-learn's CategoricalNB, score_samples, feature_log_contributions, sample, impute, save,
#: fit_semi_supervised, fit_latent_class, run_mcmc and the posterior queries sample_posterior,
#: predict_proba_draws, coef_draws. What were methods before 0.1 are arguments or functions (docs/api.md,
#: "Moved in 0.1"): sample(prior=True), estimator_inputs(model, X, y), credible_interval(draws) and
#: latent_class_draws(model, idata).
MAX_METHODS = 25
#: the methods folded away, with where each went
MOVED = {"sample_prior_predictive": "sample(n, prior=True)",
         "model_inputs": "bayesnb.inference.numpyro_model.estimator_inputs(model, X, y)",
         "predict_proba_interval": "bayesnb.inference.draws.credible_interval(model.predict_proba_draws(X))",
         "coef_interval": "bayesnb.inference.draws.credible_interval(model.coef_draws()[0])",
         "latent_class_draws": "bayesnb.generative.latent.latent_class_draws(model, idata)"}

ESTIMATORS = ["CategoricalNB", "NaiveBayes", "GaussianNB", "BernoulliNB", "MultinomialNB", "ComplementNB"]


def public_methods(obj):
    """The public methods of ``obj`` as scikit-learn's are counted: callable public names that are not
    fitted attributes (no leading underscore, no trailing one)."""
    return sorted(n for n in dir(obj) if not n.startswith("_") and not n.endswith("_") and callable(getattr(obj, n)))


def _fitted(name):
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, size=(40, 3)), np.repeat([0, 1], 20)
    return getattr(bayesnb, name)().fit(X.astype(float) if name == "GaussianNB" else X, y)


def test_all_holds_only_what_a_user_imports():
    assert set(bayesnb.__all__) == PUBLIC and len(bayesnb.__all__) == len(PUBLIC)
    assert all(hasattr(bayesnb, n) for n in bayesnb.__all__)
    # the base class and helpers are importable from their modules
    from bayesnb.estimators import BaseNB
    from bayesnb.generative import missing_labels

    assert isinstance(_fitted("CategoricalNB"), BaseNB) and callable(missing_labels)
    assert not hasattr(bayesnb, "BaseNB") and not hasattr(bayesnb, "missing_labels")


def test_the_count_is_scikit_learns():
    rng = np.random.default_rng(0)
    sk = SkCategoricalNB().fit(rng.integers(0, 3, size=(20, 2)), np.repeat([0, 1], 10))
    assert len(public_methods(sk)) == 13, public_methods(sk)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_fitted_estimator_has_few_public_methods(name):
    m = _fitted(name)
    methods = public_methods(m)
    assert len(methods) <= MAX_METHODS, (len(methods), methods)
    assert not set(MOVED) & set(dir(m)), set(MOVED) & set(dir(m))  # moved, not kept beside the new calls


@pytest.mark.parametrize("name", ["Imputer", "Synthesizer"])
def test_the_table_estimators_are_small_too(name):
    import pandas as pd

    X = pd.DataFrame(np.random.default_rng(0).integers(0, 3, size=(40, 3)).astype(float), columns=list("abc"))
    X.iloc[::5, 0] = np.nan
    methods = public_methods(getattr(bayesnb, name)().fit(X))
    assert len(methods) <= MAX_METHODS, (len(methods), methods)


def test_the_outlier_detector_is_small_too():
    X = np.random.default_rng(0).integers(0, 3, size=(40, 3))
    det = bayesnb.NBOutlierDetector(bayesnb.CategoricalNB().fit(X, np.repeat([0, 1], 20))).fit(X)
    assert len(public_methods(det)) <= MAX_METHODS, public_methods(det)


def test_what_moved_still_answers_the_same():
    """Each moved method's call, through its new route, gives what the method gave (same draws)."""
    from bayesnb.generative.latent import latent_class_draws
    from bayesnb.inference.draws import credible_interval
    from bayesnb.inference.numpyro_model import estimator_inputs, make_model

    rng = np.random.default_rng(2)
    X, y = rng.integers(0, 2, size=(50, 3)), np.repeat([0, 1], 25)
    m = bayesnb.CategoricalNB().fit(X, y)
    d = m.predict_proba_draws(X[:5], n_draws=200, random_state=3)
    lo, hi = credible_interval(d, ci=0.9)
    np.testing.assert_array_equal(lo, np.quantile(d, (1 - 0.9) / 2, axis=0))
    np.testing.assert_array_equal(hi, np.quantile(d, 1 - (1 - 0.9) / 2, axis=0))
    w, _ = m.coef_draws(200, random_state=3)
    wlo, whi = credible_interval(w)
    assert wlo.shape == whi.shape == (m.coef_.shape[1],) and np.all(wlo <= whi)
    spec, priors, data = estimator_inputs(m, X, y)
    assert callable(make_model(spec)) and spec.n_classes == 2 and data["class_count"].sum() == 50
    with pytest.raises(TypeError, match="expected a bayesnb estimator"):
        estimator_inputs(object(), X, y)
    (fit,) = latent_class_draws(m, m.sample_posterior(1, random_state=5))
    assert fit.point and fit.n_components == 1
    assert np.isfinite(m.score_samples(X, latent=fit)).all()
    with pytest.raises(TypeError, match="expected a bayesnb estimator"):
        latent_class_draws(object(), None)
    Xp, yp = m.sample(30, random_state=4, prior=True)
    Xq, yq = m.sample(30, random_state=4, prior=True)
    np.testing.assert_array_equal(Xp, Xq)
    np.testing.assert_array_equal(yp, yq)
    assert not np.array_equal(Xp, m.sample(30, random_state=4)[0])  # the prior's draw, not the posterior's
    for bad in ({"given": {0: 1}}, {"latent": object()}, {"forbid": [{0: 1}]}, {"return_probability": True},
                {"parameter_uncertainty": False}):
        with pytest.raises(ValueError, match=r"sample\(prior=True\) draws every parameter from its prior"):
            m.sample(3, prior=True, **bad)


#: methods that fit (and so set fitted attributes) or only configure; every other public method must leave
#: the fitted attributes as they are
FITTING = {"fit", "partial_fit", "fit_semi_supervised", "fit_latent_class", "set_params", "set_fit_request",
           "set_partial_fit_request", "set_score_request"}
#: run with NUTS (JAX): run_mcmc; test_mcmc*.py cover it
NEEDS_MCMC = {"run_mcmc"}


def _calls(X, y, tmp_path):
    holes = X.astype(object)
    holes[::4, 0] = None
    return {
        "coef_draws": lambda m: m.coef_draws(3, random_state=0),
        "feature_log_contributions": lambda m: m.feature_log_contributions(X),
        "get_metadata_routing": lambda m: m.get_metadata_routing(),
        "get_params": lambda m: m.get_params(),
        "impute": lambda m: m.impute(holes, random_state=0),
        "predict": lambda m: m.predict(X),
        "predict_joint_log_proba": lambda m: m.predict_joint_log_proba(X),
        "predict_log_proba": lambda m: m.predict_log_proba(X),
        "predict_proba": lambda m: m.predict_proba(X),
        "predict_proba_draws": lambda m: m.predict_proba_draws(X, n_draws=3, random_state=0),
        "sample": lambda m: (m.sample(5, random_state=0), m.sample(5, random_state=0, prior=True)),
        "sample_posterior": lambda m: m.sample_posterior(3, random_state=0),
        "save": lambda m: m.save(tmp_path / f"{type(m).__name__}-{id(m)}.bnb"),
        "score": lambda m: m.score(X, y),
        "score_samples": lambda m: m.score_samples(X),
    }


def _state(m):
    """The fitted attributes (public ``name_`` and private ``_name``), by identity."""
    return {k: id(v) for k, v in vars(m).items() if k.endswith("_") or k.startswith("_")}


@pytest.mark.parametrize("name, params", [("CategoricalNB", {}), ("NaiveBayes", {}), ("NaiveBayes", {"structure": "tan"}),
                                          ("BernoulliNB", {})])
def test_no_method_but_a_fit_sets_fitted_attributes(name, params, tmp_path):
    rng = np.random.default_rng(1)
    X, y = rng.integers(0, 2, size=(60, 4)), np.repeat([0, 1], 30)
    if name == "NaiveBayes":
        X = np.where(X == 1, "yes", "no").astype(object)  # categorical columns (features="auto")
    m = getattr(bayesnb, name)(**params).fit(X, y)
    calls = _calls(X, y, tmp_path)
    methods = set(public_methods(m)) - FITTING - NEEDS_MCMC
    assert methods <= set(calls) and len(methods) >= len(calls) - 2  # every other method (TAN: no coef_*)
    for method in sorted(methods):
        before = _state(m)
        calls[method](m)
        assert _state(m) == before, method
