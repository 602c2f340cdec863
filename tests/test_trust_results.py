"""Regression tests for wrong results found by fuzzing and new users ("Trust" issue).

Each test is named after the property it protects.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, NaiveBayes
from bayesnb.families import Bernoulli, Categorical, Gaussian, Multinomial


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
    "mode": dict(strategy="mode"),
    "mean": dict(strategy="mean"),
    "draw": dict(strategy="draw", random_state=0),
    "multiple": dict(strategy="draw", n_imputations=3, random_state=1),
    "plug-in draw": dict(strategy="draw", random_state=2, parameter_uncertainty=False),
    "latent": dict(strategy="mode", n_components=2, random_state=3),
    "latent draw": dict(strategy="draw", n_components=2, random_state=4),
    "given y": dict(strategy="mean", y=np.array([0, 1, None] * 4, dtype=object)),
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
