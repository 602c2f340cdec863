"""Parity with scikit-learn on a real text corpus: a 4-category 20 Newsgroups subset.

The texts are vectorised once per module with ``CountVectorizer`` (default settings,
fitted on the train split). With ``class_alpha=0`` bayesnb's posterior-mean model is
scikit-learn's MultinomialNB / BernoulliNB at the same alpha, so parameters and
``predict_proba`` must agree to 1e-10 and predictions must be identical. The data
lives in ../shared/data; the ``news20`` fixture skips with the reason when it is absent.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import bayesnb

pytestmark = pytest.mark.shared

CATEGORIES = ("alt.atheism", "comp.graphics", "sci.space", "talk.religion.misc")
TOL = dict(atol=1e-10, rtol=0)

PAIRS = {
    "multinomial": (bayesnb.MultinomialNB, SkMultinomialNB),
    "bernoulli": (bayesnb.BernoulliNB, SkBernoulliNB),
}


@pytest.fixture(scope="module")
def subset(news20):
    """(X_train CSR, y_train, X_test CSR, y_test) of 4 categories, vectorised once."""
    tr_x, tr_y, te_x, te_y = news20
    keep_tr = [i for i, c in enumerate(tr_y) if c in CATEGORIES]
    keep_te = [i for i, c in enumerate(te_y) if c in CATEGORIES]
    vec = CountVectorizer()
    Xtr = vec.fit_transform([tr_x[i] for i in keep_tr])
    Xte = vec.transform([te_x[i] for i in keep_te])
    ytr = np.array([tr_y[i] for i in keep_tr])
    yte = np.array([te_y[i] for i in keep_te])
    assert Xtr.shape[0] == 480 + 584 + 593 + 377 and Xte.shape[0] == 319 + 389 + 394 + 251
    return Xtr, ytr, Xte, yte


@pytest.fixture(scope="module")
def small(subset):
    """A small slice (300 train rows, 200 test rows, the 500 most frequent words) as CSR (a dense fit records
    the zero links among its columns, a cost quadratic in the columns: 2,000 words took ~1 s a test)."""
    Xtr, ytr, Xte, yte = subset
    rng = np.random.default_rng(0)
    rtr = np.sort(rng.choice(Xtr.shape[0], 300, replace=False))
    rte = np.sort(rng.choice(Xte.shape[0], 200, replace=False))
    freq = np.asarray(Xtr[rtr].sum(axis=0)).ravel()
    cols = np.sort(np.argsort(freq, kind="stable")[::-1][:500])
    return Xtr[rtr][:, cols].tocsr(), ytr[rtr], Xte[rte][:, cols].tocsr(), yte[rte]


def _fit_pair(kind, alpha, Xtr, ytr):
    ours, theirs = PAIRS[kind]
    return ours(alpha=alpha, class_alpha=0).fit(Xtr, ytr), theirs(alpha=alpha).fit(Xtr, ytr)


@pytest.mark.parametrize("alpha", [1.0, 0.1])
@pytest.mark.parametrize("kind", ["multinomial", "bernoulli"])
def test_matches_sklearn(subset, kind, alpha):
    Xtr, ytr, Xte, yte = subset
    m, s = _fit_pair(kind, alpha, Xtr, ytr)

    np.testing.assert_array_equal(m.classes_, s.classes_)
    np.testing.assert_allclose(m.class_count_, s.class_count_, **TOL)
    np.testing.assert_allclose(m.feature_count_, s.feature_count_, **TOL)
    np.testing.assert_allclose(m.class_log_prior_, s.class_log_prior_, **TOL)
    np.testing.assert_allclose(m.feature_log_prob_, s.feature_log_prob_, **TOL)

    P, Ps = m.predict_proba(Xte), s.predict_proba(Xte)
    np.testing.assert_allclose(P, Ps, **TOL)
    L, Ls = m.predict_log_proba(Xte), s.predict_log_proba(Xte)
    np.testing.assert_allclose(np.exp(L), P, atol=1e-15, rtol=0)
    np.testing.assert_allclose(L, Ls, atol=1e-8, rtol=1e-12)  # log-probabilities reach -1e4
    pred = m.predict(Xte)
    np.testing.assert_array_equal(pred, s.predict(Xte))
    assert m.score(Xte, yte) == pytest.approx(s.score(Xte, yte), abs=0)
    assert m.score(Xte, yte) > 0.6  # a real classifier, not just an agreeing one


@pytest.mark.parametrize("kind", ["multinomial", "bernoulli"])
def test_input_not_modified(subset, kind):
    """Fitting and predicting leave the caller's (non-canonical) CSR matrices untouched."""
    Xtr, ytr, Xte, _ = subset
    before = [(X.data.copy(), X.indices.copy(), X.indptr.copy(), X.dtype) for X in (Xtr, Xte)]
    PAIRS[kind][0](alpha=1.0, class_alpha=0).fit(Xtr, ytr).predict_proba(Xte)
    for X, (data, indices, indptr, dtype) in zip((Xtr, Xte), before):
        assert X.dtype == dtype
        np.testing.assert_array_equal(X.data, data)
        np.testing.assert_array_equal(X.indices, indices)
        np.testing.assert_array_equal(X.indptr, indptr)


@pytest.mark.parametrize("alpha", [1.0, 0.1])
@pytest.mark.parametrize("kind", ["multinomial", "bernoulli"])
def test_csr_csc_dense_agree(small, kind, alpha):
    Xtr, ytr, Xte, yte = small
    forms = {
        "csr": (Xtr, Xte),
        "csc": (Xtr.tocsc(), Xte.tocsc()),
        "dense": (Xtr.toarray(), Xte.toarray()),
        "dense float": (Xtr.toarray().astype(float), Xte.toarray().astype(float)),
    }
    assert sp.isspmatrix_csc(forms["csc"][0])
    ref_model, sk = _fit_pair(kind, alpha, Xtr, ytr)
    ref_P = sk.predict_proba(Xte)
    for name, (A, B) in forms.items():
        m = PAIRS[kind][0](alpha=alpha, class_alpha=0).fit(A, ytr)
        np.testing.assert_allclose(m.feature_log_prob_, ref_model.feature_log_prob_, **TOL, err_msg=name)
        np.testing.assert_allclose(m.class_log_prior_, ref_model.class_log_prior_, **TOL, err_msg=name)
        np.testing.assert_allclose(m.feature_log_prob_, sk.feature_log_prob_, **TOL, err_msg=name)
        P = m.predict_proba(B)
        np.testing.assert_allclose(P, ref_P, **TOL, err_msg=name)
        np.testing.assert_array_equal(m.predict(B), sk.predict(Xte), err_msg=name)
        # a model fitted on one format predicts the same on every other format
        for other, (_, B2) in forms.items():
            np.testing.assert_allclose(ref_model.predict_proba(B2), ref_P, **TOL, err_msg=f"{name}/{other}")
