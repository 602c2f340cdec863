"""Regression tests for wrong results found by fuzzing and new users ("Trust" issue).

Each test is named after the property it protects.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from bayesnb import (
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MultinomialNB,
    NaiveBayes,
    ZeroProbabilityWarning,
)
from bayesnb.families import Bernoulli, Categorical, Gaussian, Multinomial
from bayesnb.estimators._posterior_methods import NotLinearError


# ------------------------------------------------------------ impute keeps observed cells
def _impute_case(kind, seed=0):
    """(estimator, training X, y, X to impute) with missing cells in both."""
    rng = np.random.default_rng(seed)
    n = 40
    y = np.arange(n) % 2
    if kind == "categorical":
        X = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(n, 3))
        Xt = X[:12].copy()
        X[rng.random(X.shape) < 0.15] = None
        Xt[rng.random(Xt.shape) < 0.3] = None
        return CategoricalNB(), X, y, Xt
    if kind == "gaussian":
        X = rng.normal(size=(n, 3)) + y[:, None]
        Xt = rng.normal(size=(12, 3))
        X[rng.random(X.shape) < 0.15] = np.nan
        Xt[rng.random(Xt.shape) < 0.3] = np.nan
        return GaussianNB(), X, y, Xt
    if kind == "bernoulli":
        X = (rng.random((n, 4)) < 0.4).astype(float)
        Xt = (rng.random((12, 4)) < 0.4).astype(float)
        X[rng.random(X.shape) < 0.15] = np.nan
        Xt[rng.random(Xt.shape) < 0.3] = np.nan
        return BernoulliNB(binarize=None), X, y, Xt
    if kind in ("multinomial", "multinomial_never_observed"):
        X = rng.poisson(2.0, size=(n, 4)).astype(float)
        Xt = rng.poisson(2.0, size=(12, 4)).astype(float)
        X[rng.random(X.shape) < 0.1] = np.nan
        Xt[rng.random(Xt.shape) < 0.3] = np.nan
        if kind == "multinomial_never_observed":
            X[:, 2] = np.nan            # never observed in training ...
            Xt[:, 2] = rng.poisson(3.0, 12) + 1.0  # ... observed (non-zero) at impute time
            Xt[4, 2] = np.nan           # and one cell of it missing
        return MultinomialNB(), X, y, Xt
    assert kind == "mixed"
    df = pd.DataFrame({"dish": rng.choice(["pizza", "sushi", "soup"], n).astype(object),
                       "w1": rng.poisson(2, n).astype(float), "w2": rng.poisson(3, n).astype(float),
                       "flag": (rng.random(n) < 0.4).astype(float), "sleep": rng.normal(7, 1, n)})
    dt = df.iloc[:12].copy()
    df.loc[[1, 5], "dish"] = None
    df.loc[[2, 6], "sleep"] = np.nan
    df.loc[[3], "flag"] = np.nan
    df["w2"] = np.nan  # a Multinomial column never observed in training
    dt.loc[[0, 7], "dish"] = None
    dt.loc[[1, 8], "w1"] = np.nan
    dt.loc[[2], "w2"] = np.nan
    dt.loc[[3, 4], "flag"] = np.nan
    dt.loc[[5], "sleep"] = np.nan
    est = NaiveBayes({"dish": Categorical(), ("w1", "w2"): Multinomial(), "flag": Bernoulli(binarize=None),
                      "sleep": Gaussian()})
    return est, df, y, dt


_STRATEGIES = {
    "mode": {"strategy": "mode"},
    "mean": {"strategy": "mean"},
    "draw": {"strategy": "draw", "random_state": 0},
    "multiple": {"strategy": "draw", "n_imputations": 3, "random_state": 1},
    "plug-in draw": {"strategy": "draw", "random_state": 2, "parameter_uncertainty": False},
    "latent": {"strategy": "mode", "n_components": 2, "random_state": 3},
    "latent draw": {"strategy": "draw", "n_components": 2, "random_state": 4},
    "given y": {"strategy": "mean", "y": np.array([0, 1, None] * 4, dtype=object)},
}


def _cells(X):
    """(values as float/object ndarray, bool mask of missing cells) of dense, sparse or frame X."""
    if sp.issparse(X):
        A = X.toarray()
        return A, np.isnan(A)
    if isinstance(X, pd.DataFrame):
        A = X.to_numpy(dtype=object)
        return A, X.isna().to_numpy()
    A = np.asarray(X)
    return A, pd.isna(A)


@pytest.mark.filterwarnings("ignore::bayesnb.AllMissingWarning")
@pytest.mark.filterwarnings("ignore::scipy.sparse.SparseEfficiencyWarning")
@pytest.mark.parametrize("strategy", list(_STRATEGIES))
@pytest.mark.parametrize("kind, sparse", [
    ("categorical", False), ("gaussian", False), ("bernoulli", False), ("bernoulli", True),
    ("multinomial", False), ("multinomial", True), ("multinomial_never_observed", False),
    ("multinomial_never_observed", True), ("mixed", False),
])
def test_impute_never_changes_observed_cells(kind, sparse, strategy):
    est, X, y, Xt = _impute_case(kind)
    if sparse:  # NaN cells are stored entries of the sparse matrix
        X, Xt = sp.csr_matrix(X), sp.csr_matrix(Xt)
    est.fit(X, y)
    before = Xt.copy()
    outs = est.impute(Xt, **_STRATEGIES[strategy])
    outs = outs if isinstance(outs, list) else [outs]
    assert len(outs) == _STRATEGIES[strategy].get("n_imputations", 1)
    given, miss = _cells(Xt)
    assert miss.any() and (~miss).any()
    for out in outs:
        assert type(out) is type(Xt)
        got, still = _cells(out)
        assert not still.any(), "every missing cell is filled"
        obs = ~miss
        # bit-identical observed cells: same values, and for numbers the same bits
        assert all(a == b for a, b in zip(got[obs], given[obs]))
        if given.dtype.kind == "f":
            np.testing.assert_array_equal(got[obs].view(np.int64), given[obs].view(np.int64))
    # the input itself is never modified
    a, b = _cells(Xt)[0], _cells(before)[0]
    assert all((u == v) or (pd.isna(u) and pd.isna(v)) for u, v in zip(a.ravel(), b.ravel()))


# ------------------------------------------------------- Multinomial at huge counts
def _exact_multinomial_jll(conc, x, observed, predictive):
    """log p(tokens | y=k) from integer concentrations in exact integer arithmetic
    (Python ints; only the final logs are rounded): renormalised over the observed
    columns for "mean", the Polya rising factorials for "marginal"."""
    A = sum(c for c, o in zip(conc, observed) if o)
    L = sum(int(v) for v, o in zip(x, observed) if o)
    if predictive == "mean":
        return math.fsum(int(v) * (math.log(c) - math.log(A)) for c, v, o in zip(conc, x, observed) if o and v)
    terms = [math.log(c + t) for c, v, o in zip(conc, x, observed) if o for t in range(int(v))]
    return math.fsum(terms) - math.fsum(math.log(A + t) for t in range(L))


@pytest.mark.parametrize("predictive", ["mean", "marginal"])
@pytest.mark.parametrize("scale", [10**15, 10**17])
def test_multinomial_missing_mass_is_exact_at_huge_counts(scale, predictive):
    X = np.array([[scale, 1, 2, 0], [1, 3, 0, 1], [0, 2, 1, scale], [1, 0, 4, 2]], dtype=float)
    y = np.array([0, 0, 1, 1])
    clf = MultinomialNB(alpha=1, predictive=predictive).fit(X, y)
    Xt = np.array([[np.nan, 2, 1, 0],       # the frequent column of class 0 missing
                   [np.nan, 1, 0, np.nan],  # both frequent columns missing
                   [2, np.nan, 1, 3],       # a rare column missing, frequent ones observed
                   [1, 2, 1, 1]], dtype=float)
    jll = clf.predict_joint_log_proba(Xt) - clf.class_log_prior_
    assert np.all(np.isfinite(jll))
    counts = [[int(v) for v in X[y == k].sum(axis=0)] for k in (0, 1)]
    for i, row in enumerate(Xt):
        observed = ~np.isnan(row)
        for k in (0, 1):
            conc = [c + 1 for c in counts[k]]  # alpha = 1: integer concentrations
            ref = _exact_multinomial_jll(conc, np.nan_to_num(row), observed, predictive)
            assert jll[i, k] == pytest.approx(ref, rel=1e-9, abs=1e-12), (i, k)
    # the per-feature contributions still add up to score_samples at this scale
    C, term = clf.feature_log_contributions(Xt, return_class_term=True)
    s = clf.score_samples(Xt)
    assert np.all(np.isfinite(C)) and np.all(np.isfinite(s))
    np.testing.assert_allclose(C.sum(axis=1) + term, s, rtol=1e-9)


# ------------------------------------------------------------------ alpha = 0
_Y0 = np.array([0, 0, 0, 1, 1, 1])


def _alpha_zero_case(kind, class_alpha, predictive):
    """(estimator at alpha=0, training X, rows to score, indices of rows impossible under every class).

    The training data leave some (class, value) counts at zero; the rows to score have
    values of probability zero under one class, under every class, and missing cells.
    """
    kw = {"class_alpha": class_alpha, "predictive": predictive}
    Xc = np.array([["a", "x"], ["a", "y"], ["b", "x"], ["c", "y"], ["c", "y"], ["c", "x"]], dtype=object)
    Tc = np.array([["a", "x"], ["c", "y"], ["b", "y"], [None, "x"], ["a", None], ["d", "x"]], dtype=object)
    Xb = np.array([[1, 0, 1], [1, 0, 0], [1, 1, 1], [0, 1, 0], [0, 1, 1], [0, 1, 0]], dtype=float)
    Tb = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [np.nan, 0, 1], [0, 0, 0], [1, np.nan, np.nan]])
    Xm = np.array([[3, 0, 1, 0], [2, 0, 0, 0], [1, 0, 2, 0], [0, 2, 0, 0], [0, 1, 1, 0], [0, 3, 0, 0]], dtype=float)
    Tm = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 0], [np.nan, 1, 0, 0], [0, 0, 0, 1], [1, np.nan, 0, 0],
                   [0, 0, 0, 0], [np.nan] * 4, [np.nan, 1, 1, 0], [0, 0, 0, np.nan]])
    if kind == "categorical":
        return CategoricalNB(alpha=0, **kw), Xc, Tc, [5]
    if kind == "bernoulli":
        return BernoulliNB(alpha=0, binarize=None, **kw), Xb, Tb, [4]
    if kind == "multinomial":
        return MultinomialNB(alpha=0, **kw), Xm, Tm, [2, 4]
    df = pd.DataFrame({"c": Xc[:, 0], "w1": Xm[:, 0], "w2": Xm[:, 1], "w3": Xm[:, 3], "b": Xb[:, 0],
                       "g": [1.0, 2.0, 1.5, 3.0, 3.5, 2.5]})
    dt = pd.DataFrame({"c": Tc[:, 0], "w1": Tm[:6, 0], "w2": Tm[:6, 1], "w3": Tm[:6, 3], "b": Tb[:, 0],
                       "g": [1.0, 2.0, np.nan, 3.0, 3.5, 2.5]})
    est = NaiveBayes({"c": Categorical(alpha=0), ("w1", "w2", "w3"): Multinomial(alpha=0),
                      "b": Bernoulli(alpha=0, binarize=None), "g": Gaussian()}, **kw)
    return est, df, dt, [2, 4, 5]


def _no_nan(value):
    """True when ``value`` (array, frame, sparse, tuple, DataTree) holds no NaN outside
    the documented padding of ragged categorical draws."""
    if value is None or isinstance(value, (int, float, np.integer, np.floating)) and not np.isnan(value):
        return True
    if isinstance(value, (list, tuple)):
        return all(_no_nan(v) for v in value)
    if sp.issparse(value):
        return not np.isnan(value.data).any()
    if isinstance(value, pd.DataFrame):
        return not value.isna().any().any()
    if hasattr(value, "posterior"):  # DataTree of draws
        post = value.posterior
        for name in post.data_vars:
            v = np.asarray(post[name].values, dtype=float)
            if "category" in post.coords and "value" in post[name].dims:
                v = v[..., np.asarray(post["category"].values) != ""]  # documented NaN padding
            if np.isnan(v).any():
                return False
        return True
    a = np.asarray(value)
    if a.dtype == object:
        return not pd.isna(a).any()
    return a.dtype.kind not in "fc" or not np.isnan(a).any()


_ALPHA0_METHODS = {
    "predict_proba": lambda m, T: m.predict_proba(T),
    "predict_log_proba": lambda m, T: m.predict_log_proba(T),
    "predict_joint_log_proba": lambda m, T: m.predict_joint_log_proba(T),
    "predict": lambda m, T: m.predict(T),
    "score_samples": lambda m, T: m.score_samples(T),
    "outlier_scores": lambda m, T: m.outlier_scores(T),
    "feature_log_contributions": lambda m, T: m.feature_log_contributions(T, return_class_term=True),
    "impute mode": lambda m, T: m.impute(T),
    "impute mean": lambda m, T: m.impute(T, strategy="mean"),
    "impute draw": lambda m, T: m.impute(T, strategy="draw", n_imputations=2, random_state=0),
    "impute plug-in draw": lambda m, T: m.impute(T, strategy="draw", random_state=0, parameter_uncertainty=False),
    "impute latent": lambda m, T: m.impute(T, n_components=2, random_state=0),
    "sample": lambda m, T: m.sample(20, random_state=0),
    "sample plug-in": lambda m, T: m.sample(20, random_state=0, parameter_uncertainty=False),
    "sample_posterior": lambda m, T: m.sample_posterior(5, random_state=0),
    "predict_proba_draws": lambda m, T: m.predict_proba_draws(T, n_draws=5, random_state=0),
    "log_evidence_": lambda m, T: m.log_evidence_,
    "coef_": lambda m, T: (m.coef_, m.intercept_),
}
_ALPHA0_CONFIGS = [(kind, ca, p, extra) for kind in ("categorical", "bernoulli", "multinomial", "mixed",
                                                      "bernoulli sparse", "multinomial sparse")
                   for ca, p, extra in ((1.0, "mean", False), (0.0, "marginal", False),
                                        (1.0, "marginal", True), (0.0, "mean", True))]


@pytest.mark.filterwarnings("ignore::bayesnb.ZeroProbabilityWarning")
@pytest.mark.parametrize("method", list(_ALPHA0_METHODS))
@pytest.mark.parametrize("kind, class_alpha, predictive, empty_class", _ALPHA0_CONFIGS)
def test_alpha_zero_never_gives_nan_or_a_bug_error(kind, class_alpha, predictive, empty_class, method):
    est, X, T, _ = _alpha_zero_case(kind.split()[0], class_alpha, predictive)
    if kind.endswith("sparse"):  # NaN cells are stored entries
        X, T = sp.csr_matrix(X), sp.csr_matrix(T)
    if empty_class:  # a third class without any row: no data and an improper prior
        est.partial_fit(X, _Y0, classes=[0, 1, 2])
    else:
        est.fit(X, _Y0)
    try:
        value = _ALPHA0_METHODS[method](est, T)
    except NotLinearError:  # a Gaussian block or 3 classes: no coef_, whatever alpha
        assert method == "coef_"
        return
    except ValueError as e:  # allowed: a clear error that names the cause and the fix
        msg = str(e)
        assert "bug" not in msg
        assert method == "coef_", f"unexpected error from {method}: {msg}"
        assert type(est).__name__ in msg and "zero under both classes" in msg and "alpha > 0" in msg, msg
        return
    assert _no_nan(value), f"{method} returned NaN"
    if method in ("predict_proba", "predict_proba_draws"):
        np.testing.assert_allclose(np.asarray(value).sum(axis=-1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("kind", ["categorical", "bernoulli", "multinomial", "mixed"])
def test_alpha_zero_row_impossible_under_every_class_uses_the_class_prior_everywhere(kind):
    est, X, T, dead = _alpha_zero_case(kind, 1.0, "mean")
    est.fit(X, _Y0)
    jll = est.predict_joint_log_proba(T)
    assert np.flatnonzero(np.isneginf(jll).all(axis=1)).tolist() == dead
    with pytest.warns(ZeroProbabilityWarning, match=rf"index {dead[0]}\b"):
        proba = est.predict_proba(T)
    prior = np.exp(est.class_log_prior_)
    np.testing.assert_allclose(proba[dead], np.broadcast_to(prior, (len(dead), prior.size)), rtol=1e-12)
    assert np.all(np.isneginf(est.score_samples(T)[dead]))
    # feature_log_contributions uses the same weights and still adds up to score_samples
    with pytest.warns(ZeroProbabilityWarning):
        C, term = est.feature_log_contributions(T, return_class_term=True)
    C = np.asarray(C.toarray() if sp.issparse(C) else C, dtype=float)
    alive = np.setdiff1d(np.arange(len(proba)), dead)
    np.testing.assert_allclose(C[alive].sum(axis=1) + term[alive], est.score_samples(T)[alive], rtol=1e-9)
    np.testing.assert_allclose(term[dead], 0.0, atol=1e-12)  # sum_k p(k) (log p(k) - log p(k | x)) with p(k | x) = p(k)
    # impute says so too and fills the impossible rows from the class prior (no NaN)
    with pytest.warns(ZeroProbabilityWarning):
        out = est.impute(T, strategy="mean")
    assert _no_nan(out)


# ------------------------------------------------------------ extreme sample weights
@pytest.mark.parametrize("scale", [1e-300, 1e-200])
def test_tiny_total_weight_samples_documents_of_ordinary_length(scale):
    """A class with almost no weight drew a Poisson length from Gamma(T + 1/2, n ~ 1e-300):
    'lam value too large'. The half-document prior keeps lengths near the overall mean."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (40, 5)).astype(float)
    y = np.arange(40) % 2
    model = MultinomialNB().fit(X, y, sample_weight=np.full(40, scale))
    mean_length = X.sum(1).mean()
    Xs, _ = model.sample(2000, random_state=1)  # one rate draw per class: any finite length
    assert np.isfinite(Xs).all() and Xs.sum(1).max() < 100 * mean_length
    filled = model.impute(np.where(rng.random(X.shape) < 0.3, np.nan, X), random_state=2)
    assert np.isfinite(filled).all()
    plug_in, _ = model.sample(2000, random_state=1, parameter_uncertainty=False)
    assert abs(plug_in.sum(1).mean() - mean_length) < 0.1 * mean_length
    # the rate's posterior is then its prior: Gamma(1/2, 1/(2m)), of mean m
    block = model.posterior_.blocks[0]
    gen_rate = block.family.gen_rate
    draws = np.array([gen_rate(block.stats, model.class_count_, np.random.default_rng(s)) for s in range(4000)])
    np.testing.assert_allclose(draws.mean(0), mean_length, rtol=0.1)  # sd of the mean: 2.2%
    # with real weight the prior is negligible: the draws concentrate on each class's mean length
    big = MultinomialNB().fit(X, y)
    big_block = big.posterior_.blocks[0]
    draws = np.array([big_block.family.gen_rate(big_block.stats, big.class_count_, np.random.default_rng(s))
                      for s in range(400)])
    np.testing.assert_allclose(draws.mean(0), [X[y == k].sum(1).mean() for k in (0, 1)], rtol=0.03)


def test_gaussian_extreme_weights_give_finite_probabilities_without_overflow():
    """Weights 1e12 and 1e-300 made the auto prior's variance subnormal: overflow warnings and
    log densities of +742. The prior variance is at least (1e-8 * |value|)**2."""
    import warnings

    X = np.array([[0.0, 1.0], [2.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = GaussianNB().fit(X, [0, 1], sample_weight=[1e12, 1e-300])
        p = model.predict_proba(X)
        scores = model.score_samples(X)
    assert np.isfinite(p).all() and np.allclose(p.sum(1), 1)
    np.testing.assert_array_equal(p.argmax(1), [0, 1])
    assert scores[0] < 100  # a density of at most e^100 at a point, not e^742


def test_gaussian_underflowing_variance_error_names_the_weights():
    """A proper prior whose posterior variance underflows said "Use prior='auto' (the default)"
    under prior='auto'. The error names the real problem: the weights."""
    X = np.array([[1e-150], [1e-150], [3e-150]])
    model = GaussianNB(prior={"mu0": 1e-150, "kappa0": 1.0, "a0": 1.0, "b0": 1e-320})
    with pytest.raises(ValueError, match=r"posterior variance too small for float64.*Rescale sample_weight"):
        model.fit(X, [0, 0, 1], sample_weight=[1e14, 1e14, 1.0])
