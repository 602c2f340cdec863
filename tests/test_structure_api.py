"""Every public method of CategoricalNB and NaiveBayes under every structure, in one table.

Each case is an estimator on a tiny table (categorical, or mixed for NaiveBayes) fitted with
structure naive, tan or kdb. Every public name of the class must have a row in ``CHECKS``
(a new method fails :func:`test_the_table_covers_every_public_name` until it is checked here).
Where brute force is cheap, the row checks the answer exactly: the joint by enumeration on
the categorical table, the evidence by direct counting, partial_fit against a weighted fit.
What cannot apply under a structure (the linear view, the naive plate model, the naive model's
EM) must be absent (``hasattr`` False) with a message that says why.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from test_structure import _brute_joint as _cat_joint
from test_structure import _brute_tables
from test_structure import _tiny as _cat_tiny
from test_structure_mixed import _tiny as _mixed_tiny

import bayesnb
from bayesnb.structure import infer as SI
from bayesnb.structure import engine as MX
from bayesnb.generative.latent import latent_class_draws
from bayesnb.inference.draws import credible_interval
from bayesnb.inference.nb_posterior import label_log_evidence
from bayesnb.inference.numpyro_model import estimator_inputs

STRUCTURES = ["naive", "tan", "kdb"]
CASES = [("CategoricalNB", "categorical"), ("NaiveBayes", "categorical"), ("NaiveBayes", "mixed")]
# covered by their own (slow: NUTS) tests: tests/test_structure_mixed_mcmc.py, tests/test_mcmc.py
ELSEWHERE = {"run_mcmc"}
# sklearn's metadata routing and parameters: the same on every structure
SKLEARN = {"get_metadata_routing", "get_params", "set_params", "set_fit_request", "set_partial_fit_request",
           "set_score_request"}


def _case(name, table, structure):
    if table == "categorical":
        X, y = _cat_tiny(7, n=80, missing=0.1)
        X = pd.DataFrame(X, columns=["a", "b", "c"])
        if name == "NaiveBayes":  # every column categorical
            X = X.astype("Int64").astype("category")
    else:
        X, y = _mixed_tiny(1, missing=0.1)
    cls = getattr(bayesnb, name)
    # flat Dirichlet(1) tables, as the brute force counts them (k-DB's default is hierarchical smoothing,
    # checked against brute force in tests/test_hierarchical.py)
    m = cls(structure=structure, k=2, alpha=1.0).fit(X, y)
    assert m.structure_kind_ == structure
    assert structure == "naive" or any(m.structure_.values())
    return m, X, y


def _rows(X):
    return X.iloc[:8]


def _brute(m, X, y):
    """(log p(x_obs, y=k) of ``_rows(X)``, feature evidence) by enumeration on the categorical table."""
    names = list(X.columns)
    parents = [[names.index(p) for p in m.structure_[c]] for c in names]
    Xf = X.astype(float).to_numpy()
    tables, ev = _brute_tables(Xf, y, parents)
    joint = np.array([_cat_joint(x, tables, parents, m.class_log_prior_) for x in _rows(X).astype(float).to_numpy()])
    return joint, ev


def _absent(m, name, why):
    assert not hasattr(m, name), name
    with pytest.raises(AttributeError) as err:
        getattr(m, name)
    assert why in str(err.value) + str(err.value.__cause__), (name, err.value, err.value.__cause__)


def check_predict_joint_log_proba(m, X, y, table):
    jll = m.predict_joint_log_proba(_rows(X))
    if table == "categorical":
        np.testing.assert_allclose(jll, _brute(m, X, y)[0], rtol=1e-10)
    return jll


def check_predict_log_proba(m, X, y, table):
    jll = check_predict_joint_log_proba(m, X, y, table)
    np.testing.assert_allclose(m.predict_log_proba(_rows(X)), jll - logsumexp(jll, axis=1, keepdims=True),
                               rtol=1e-10)


def check_predict_proba(m, X, y, table):
    np.testing.assert_allclose(m.predict_proba(_rows(X)), np.exp(m.predict_log_proba(_rows(X))), rtol=1e-12)


def check_predict(m, X, y, table):
    np.testing.assert_array_equal(m.predict(_rows(X)), m.classes_[m.predict_proba(_rows(X)).argmax(1)])


def check_score(m, X, y, table):
    assert m.score(X, y) == np.mean(m.predict(X) == y)


def check_score_samples(m, X, y, table):
    np.testing.assert_allclose(m.score_samples(_rows(X)), logsumexp(check_predict_joint_log_proba(m, X, y, table),
                                                                     axis=1), rtol=1e-12)
    # outlier scoring is the detector's, over the fitted model of any structure
    det = bayesnb.NBOutlierDetector(m, contamination=0.1, range_tails=False, statistic="density").fit(X)
    s = np.sort(m.score_samples(X))  # the lowest score with more than 10% of the rows at or below it
    assert det.estimator_ is m and det.offset_ == s[int(np.floor(0.1 * len(s)))]
    np.testing.assert_array_equal(det.decision_function(_rows(X)), m.score_samples(_rows(X)) - det.offset_)


def check_log_evidence_(m, X, y, table):
    if table == "categorical":
        np.testing.assert_allclose(m.log_evidence_, label_log_evidence(m.posterior_) + _brute(m, X, y)[1],
                                   rtol=1e-11)
    assert np.isfinite(m.log_evidence_)


def check_feature_log_contributions(m, X, y, table):
    C, term = m.feature_log_contributions(_rows(X), return_class_term=True)
    assert list(C.columns) == list(X.columns)
    np.testing.assert_allclose(C.to_numpy().sum(1) + term, m.score_samples(_rows(X)), rtol=1e-10, atol=1e-12)
    assert np.all(C.to_numpy()[_rows(X).isna().to_numpy()] == 0)


def check_predict_proba_draws(m, X, y, table):
    d = m.predict_proba_draws(_rows(X), n_draws=300, random_state=0)
    assert d.shape == (300, 8, 2)
    np.testing.assert_allclose(d.sum(2), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(0), m.predict_proba(_rows(X)), atol=0.08)


def check_credible_interval(m, X, y, table):
    lo, hi = credible_interval(m.predict_proba_draws(_rows(X), n_draws=300, random_state=0), ci=0.9)
    assert lo.shape == hi.shape == (8, 2) and np.all(lo <= hi)


def check_sample(m, X, y, table):
    Xs, ys = m.sample(30, random_state=0)
    assert list(Xs.columns) == list(X.columns) and len(ys) == 30 and set(ys) <= set(m.classes_)
    Xg, yg = m.sample(30, given={X.columns[1]: X.iloc[0, 1]}, y=m.classes_[1], random_state=0)
    assert (Xg.iloc[:, 1] == X.iloc[0, 1]).all() and set(yg) == {m.classes_[1]}
    check_sample_prior(m, X, y, table)


def check_sample_prior(m, X, y, table):
    Xs, ys = m.sample(30, random_state=0, prior=True)
    assert list(Xs.columns) == list(X.columns) and len(ys) == 30


def check_sample_posterior(m, X, y, table):
    post = m.sample_posterior(20, random_state=0)["posterior"]
    assert "pi" in post.data_vars and post.sizes["draw"] == 20


def check_impute(m, X, y, table):
    out = m.impute(X)
    assert not out.isna().any().any()
    pd.testing.assert_frame_equal(out[X.notna()], X[X.notna()])


def check_partial_fit(m, X, y, table):
    """Adding the training rows again is fitting them with weight 2 (the same structure: mutual
    informations do not change with a weight's scale; a numeric column keeps the first fit's bins,
    so a mixed table is compared with its nodes fitted on the doubled weights)."""
    twice = type(m)(**m.get_params()).fit(X, y, sample_weight=np.full(len(y), 2.0))
    assert twice.structure_ == m.structure_
    m.partial_fit(X, y)
    if m._mixed is None or table == "categorical":
        np.testing.assert_allclose(m.predict_proba(X), twice.predict_proba(X), rtol=1e-10)
        np.testing.assert_allclose(m.log_evidence_, twice.log_evidence_, rtol=1e-10)
        return
    nodes = m._mixed.nodes
    data = MX.node_data(nodes, m._encoded(X))
    ref = MX.fit_nodes(nodes, data, np.searchsorted(m.classes_, y), np.full(len(y), 2.0), 2, m._mixed.parents,
                       m._check_predictive())
    np.testing.assert_allclose(m.log_evidence_, label_log_evidence(twice.posterior_) + ref.log_evidence, rtol=1e-10)
    jll = SI.log_likelihood(ref, data) + twice.class_log_prior_
    np.testing.assert_allclose(m.predict_proba(X), np.exp(jll - logsumexp(jll, axis=1, keepdims=True)), rtol=1e-10)


def check_fit(m, X, y, table):
    assert type(m)(**m.get_params()).fit(X, y).structure_ == m.structure_


def check_save(m, X, y, table, tmp_path):
    path = tmp_path / "model.bnb"
    m.save(path)
    back = bayesnb.load(path)
    np.testing.assert_allclose(back.predict_proba(X), m.predict_proba(X), rtol=1e-12)
    assert back.structure_ == m.structure_


def check_check_independence(m, X, y, table):
    out = bayesnb.check_independence(m, X, y, n_replicates=20, random_state=0)
    assert len(out) == 2 * 3 and out["p_value"].between(0, 1).all()


def check_check_mcar(m, X, y, table):
    out = bayesnb.check_mcar(m, X, y)
    assert len(out) == int(pd.DataFrame(X).isna().any().sum()) and out["p_value"].between(0, 1).all()


def check_check_marginals(m, X, y, table):
    out = bayesnb.check_marginals(m, X, y, n_replicates=20, random_state=0)
    assert isinstance(out, pd.DataFrame)


def check_linear_view(name):
    def check(m, X, y, table):
        if m.structure_kind_ != "naive":
            _absent(m, name, f"no linear view under its fitted structure {m.structure_kind_!r}")
        elif table == "categorical":  # binary, categorical: linear log-odds
            value = getattr(m, name)
            value = value(n_draws=50, random_state=0) if callable(value) else value
            assert value is not None
        else:  # a Gaussian-type block has quadratic log-odds (the naive model's NotLinearError, an AttributeError)
            with pytest.raises(AttributeError, match="coef_/intercept_ need"):
                value = getattr(m, name)
                value(n_draws=50, random_state=0)
    return check


def check_estimator_inputs(m, X, y, table):
    """The one NumPyro model: the naive blocks, or one block per feature on its contexts under a structure."""
    spec, priors, data = estimator_inputs(m, X, y)
    assert len(priors["blocks"]) == len(spec.blocks) and len(data["stats"]) == len(spec.blocks)
    if m.structure_kind_ == "naive":
        assert [b.context_plate for b in spec.blocks] == ["class"] * len(m.posterior_.blocks)
    else:
        assert [b.label for b in spec.blocks] == [f"n{j}" for j in range(X.shape[1])]
        assert {b.parent_states > 0 for b in spec.blocks} == {True, False}  # a root and its children


def check_fit_semi_supervised(m, X, y, table):
    """EM on the model's own structure: unlabelled rows (None) get their class from it."""
    yy = pd.Series(y, dtype=object).where(np.arange(len(y)) % 4 != 0, None)
    fitted = type(m)(**m.get_params()).fit_semi_supervised(X, yy)
    assert fitted.structure_kind_ == m.structure_kind_ and np.isfinite(fitted.predict_proba(X)).all()


def check_fit_latent_class(m, X, y, table):
    """Latent classes with the structure inside each component; scores, imputations and samples use it."""
    fit = m.fit_latent_class(X, y, n_components=2, n_init=1, max_iter=20, random_state=0)
    assert np.isfinite(m.score_samples(X, latent=fit)).all()
    assert not m.impute(X, latent=fit).isna().any().any()
    S, ys = m.sample(20, latent=fit, random_state=0)
    assert S.shape == (20, X.shape[1]) and set(ys) <= set(m.classes_)


def check_latent_class_draws(m, X, y, table):
    """Each posterior draw (here exact ones: run_mcmc's layout with one component) a plug-in latent-class
    model of the estimator's structure, which scores and imputes use (NUTS draws:
    tests/test_structure_latent_draws.py)."""
    fits = latent_class_draws(m, m.sample_posterior(2, random_state=0))
    assert len(fits) == 2 and all(f.point and (f.structure is None) == (m.structure == "naive") for f in fits)
    assert np.isfinite(m.score_samples(X, latent=fits[0])).all()
    assert not m.impute(X, latent=fits[1]).isna().any().any()
    S, ys = m.sample(20, latent=fits[0], random_state=0)
    assert S.shape == (20, X.shape[1]) and set(ys) <= set(m.classes_)


def check_sklearn(name):
    def check(m, X, y, table):
        assert callable(getattr(m, name))
        if name == "get_params":
            assert m.get_params()["structure"] == m.structure
    return check


CHECKS = {
    "fit": check_fit, "partial_fit": check_partial_fit, "predict": check_predict, "predict_proba": check_predict_proba,
    "predict_log_proba": check_predict_log_proba, "predict_joint_log_proba": check_predict_joint_log_proba,
    "score": check_score, "score_samples": check_score_samples,
    "log_evidence_": check_log_evidence_,
    "feature_log_contributions": check_feature_log_contributions, "predict_proba_draws": check_predict_proba_draws,
    "sample": check_sample, "sample_posterior": check_sample_posterior,
    "impute": check_impute, "save": check_save,
    **{n: check_linear_view(n) for n in ("coef_", "intercept_", "coef_names_", "coef_draws")},
    "fit_semi_supervised": check_fit_semi_supervised, "fit_latent_class": check_fit_latent_class,
    **{n: check_sklearn(n) for n in SKLEARN},
}
#: the functions of a fitted model (criticism, its NumPyro model, intervals of draws), run beside the methods
FUNCTIONS = {"estimator_inputs": check_estimator_inputs, "credible_interval": check_credible_interval,
             "latent_class_draws": check_latent_class_draws,
             "check_independence": check_check_independence, "check_marginals": check_check_marginals,
             "check_mcar": check_check_mcar}


@pytest.mark.parametrize("name", ["CategoricalNB", "NaiveBayes"])
def test_the_table_covers_every_public_name(name):
    public = {n for n in dir(getattr(bayesnb, name)) if not n.startswith("_")}
    assert public - ELSEWHERE == set(CHECKS), sorted(public ^ (set(CHECKS) | ELSEWHERE))


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("case", CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_every_public_method_under_every_structure(case, structure, tmp_path):
    name, table = case
    m, X, y = _case(name, table, structure)
    assert hasattr(m, "run_mcmc")
    for method, check in CHECKS.items():
        fresh = m if method != "partial_fit" else _case(name, table, structure)[0]
        if check is check_save:
            check(fresh, X, y, table, tmp_path)
        else:
            check(fresh, X, y, table)
    for function, check in FUNCTIONS.items():
        assert not hasattr(m, function), function  # criticism is functions only
        check(m, X, y, table)
