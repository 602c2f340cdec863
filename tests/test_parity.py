"""Closed form == scikit-learn at the same alpha (posterior means are additive smoothing)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk

import bayesnb as bn
from bayesnb.datasets import HOUSE_VOTES_COLUMNS, load_house_votes

ATOL = 1e-10


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=0, atol=ATOL)


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.01])
def test_categorical_house_votes(votes_codes, alpha):
    X, y = votes_codes
    ref = sk.CategoricalNB(alpha=alpha).fit(X, y)
    ours = bn.CategoricalNB(alpha=alpha, class_alpha=0).fit(X, y)
    close(ours.class_log_prior_, ref.class_log_prior_)
    for a, b in zip(ours.feature_log_prob_, ref.feature_log_prob_):
        close(a, b)
    for a, b in zip(ours.category_count_, ref.category_count_):
        close(a, b)
    close(ours.predict_proba(X), ref.predict_proba(X))
    close(ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X))
    assert (ours.predict(X) == ref.predict(X)).all()


@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_bernoulli_house_votes(votes_codes, alpha):
    X, y = votes_codes
    Xb = (X == 1).astype(float)  # yea = 1, nay or not voting = 0
    ref = sk.BernoulliNB(alpha=alpha).fit(Xb, y)
    ours = bn.BernoulliNB(alpha=alpha, class_alpha=0).fit(Xb, y)
    close(ours.feature_log_prob_, ref.feature_log_prob_)
    close(ours.feature_count_, ref.feature_count_)
    close(ours.predict_proba(Xb), ref.predict_proba(Xb))
    close(ours.predict_joint_log_proba(Xb), ref.predict_joint_log_proba(Xb))
    # string labels and a DataFrame with y/n strings through the Categorical family agree too
    df = load_house_votes(missing=False)
    cat = bn.CategoricalNB(alpha=alpha, class_alpha=0).fit(df[HOUSE_VOTES_COLUMNS].replace({"?": "n"}), df["party"])
    close(cat.predict_proba(df[HOUSE_VOTES_COLUMNS].replace({"?": "n"})), ref.predict_proba(Xb))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_data_all_families(seed):
    rng = np.random.default_rng(seed)
    n, K = 300, 4
    y = rng.integers(0, K, n)
    Xc = rng.poisson(rng.uniform(0.1, 3.0, size=40), size=(n, 40))
    for alpha in (1.0, 0.3):
        r = sk.MultinomialNB(alpha=alpha).fit(Xc, y)
        for X in (Xc, sp.csr_matrix(Xc), sp.csc_matrix(Xc)):
            o = bn.MultinomialNB(alpha=alpha, class_alpha=0).fit(X, y)
            close(o.feature_log_prob_, r.feature_log_prob_)
            close(o.class_log_prior_, r.class_log_prior_)
            close(o.predict_proba(X), r.predict_proba(Xc))
        Xb = (Xc > 1).astype(float)
        r = sk.BernoulliNB(alpha=alpha).fit(Xb, y)
        o = bn.BernoulliNB(alpha=alpha, class_alpha=0).fit(sp.csr_matrix(Xb), y)
        close(o.feature_log_prob_, r.feature_log_prob_)
        close(o.predict_proba(sp.csr_matrix(Xb)), r.predict_proba(Xb))
        # sklearn's default binarize=0.0 on raw counts
        close(bn.BernoulliNB(alpha=alpha, class_alpha=0).fit(Xc, y).predict_proba(Xc),
              sk.BernoulliNB(alpha=alpha).fit(Xc, y).predict_proba(Xc))
        Xk = rng.integers(0, 5, size=(n, 6))
        r = sk.CategoricalNB(alpha=alpha, min_categories=6).fit(Xk, y)
        o = bn.CategoricalNB(alpha=alpha, class_alpha=0, min_categories=6).fit(Xk, y)
        for a, b in zip(o.feature_log_prob_, r.feature_log_prob_):
            close(a, b)
        close(o.predict_proba(Xk), r.predict_proba(Xk))
    Xg = rng.normal(size=(n, 5)) * rng.uniform(0.1, 10, 5) + rng.normal(size=5) * 3
    r = sk.GaussianNB(var_smoothing=0).fit(Xg, y)
    o = bn.GaussianNB(prior=None, class_alpha=0).fit(Xg, y)
    close(o.theta_, r.theta_)
    np.testing.assert_allclose(o.var_, r.var_, rtol=1e-12)
    close(o.predict_proba(Xg), r.predict_proba(Xg))
    np.testing.assert_allclose(o.predict_joint_log_proba(Xg), r.predict_joint_log_proba(Xg), rtol=1e-12)


def test_class_prior_options_match_sklearn():
    rng = np.random.default_rng(3)
    X = rng.poisson(1.0, size=(100, 8))
    y = rng.integers(0, 3, 100)
    for kw in ({"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]}):
        r = sk.MultinomialNB(**kw).fit(X, y)
        o = bn.MultinomialNB(**kw).fit(X, y)
        close(o.class_log_prior_, r.class_log_prior_)
        close(o.predict_proba(X), r.predict_proba(X))
    # default class_alpha=1 is the Laplace-smoothed class proportion (n_k + 1) / (n + K)
    o = bn.MultinomialNB().fit(X, y)
    counts = np.bincount(y, minlength=3)
    close(o.class_log_prior_, np.log((counts + 1) / (100 + 3)))


def test_partial_fit_matches_sklearn():
    rng = np.random.default_rng(4)
    X = rng.poisson(1.0, size=(120, 10))
    y = rng.integers(0, 3, 120)
    r = sk.MultinomialNB()
    o = bn.MultinomialNB(class_alpha=0)
    for part in np.array_split(np.arange(120), 4):
        r.partial_fit(X[part], y[part], classes=[0, 1, 2])
        o.partial_fit(X[part], y[part], classes=[0, 1, 2])
    close(o.feature_log_prob_, r.feature_log_prob_)
    close(o.predict_proba(X), r.predict_proba(X))


def test_alpha_zero_sparse_equals_dense_without_nan():
    """With alpha=0 (log 0 entries) sparse scoring stays sparse and equals the dense result."""
    import warnings

    rng = np.random.default_rng(7)
    X = (rng.random((60, 30)) < 0.15).astype(float)
    X[:, 0] = 0.0  # never present: log p = -inf in every class
    X[:30, 1] = 1.0  # always present in class 0: log(1 - p) = -inf there
    y = np.repeat([0, 1], 30)
    T = X.copy()
    T[:5, 0] = 1.0  # a word never seen in training: impossible in every class
    T[5:10, 1] = 0.0  # absent although always present in class 0: impossible there
    Xs, Ts = sp.csr_matrix(X), sp.csr_matrix(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bn.ZeroProbabilityWarning)
        for est in (bn.BernoulliNB(alpha=0, class_alpha=0), bn.MultinomialNB(alpha=0, class_alpha=0)):
            a = est.fit(X, y).predict_joint_log_proba(T)
            b = est.fit(Xs, y).predict_joint_log_proba(Ts)
            # exact: the -inf pattern (impossible rows/classes); to rounding: the finite scores,
            # whose summation order differs between the sparse and dense kernels
            np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b))
            fin = np.isfinite(a)
            np.testing.assert_allclose(a[fin], b[fin], rtol=1e-12, atol=1e-12)
            np.testing.assert_array_equal(est.predict(T), est.predict(Ts))
            assert not np.isnan(a).any() and np.isneginf(a[:5]).all()
            if isinstance(est, bn.BernoulliNB):
                assert np.isneginf(a[5:10, 0]).all() and np.isfinite(a[5:10, 1]).all()
            p = est.predict_proba(Ts)
            assert np.all(np.isfinite(p)) and np.allclose(p.sum(1), 1)


# ------------------------------------------------------------------ ComplementNB
def _news_like(seed=0, n=500, d=3000, K=20):
    """Sparse word counts shaped like 20 Newsgroups: Zipf vocabulary, topic words per class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    base = 1.0 / np.arange(1, d + 1) ** 1.1
    topic = rng.random((K, d)) < 0.02
    p = base * (1 + 20 * topic)
    p /= p.sum(axis=1, keepdims=True)
    lengths = rng.poisson(80, n) + 1
    X = sp.csr_matrix(np.vstack([rng.multinomial(L, p[k]) for L, k in zip(lengths, y)]).astype(float))
    return X, y


def _complement_equal(ours, ref, X):
    for a in ("feature_log_prob_", "feature_count_", "class_count_", "feature_all_", "class_log_prior_"):
        close(getattr(ours, a), getattr(ref, a))
    for m in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        close(getattr(ours, m)(X), getattr(ref, m)(X))
    assert (ours.predict(X) == ref.predict(X)).all()


@pytest.mark.parametrize("norm", [False, True])
def test_complement_news_like_sparse(norm):
    X, y = _news_like()
    Xtr, ytr, Xte = X[:400], y[:400], X[400:]
    w = np.random.default_rng(1).uniform(0.2, 3.0, 400)
    alpha_vec = np.random.default_rng(2).uniform(0.05, 2.0, X.shape[1])
    for alpha in (1.0, 0.1, alpha_vec):
        ref = sk.ComplementNB(alpha=alpha, norm=norm).fit(Xtr, ytr)
        ours = bn.ComplementNB(alpha=alpha, norm=norm, class_alpha=0).fit(Xtr, ytr)
        _complement_equal(ours, ref, Xte)
    ref = sk.ComplementNB(alpha=0.5, norm=norm).fit(Xtr, ytr, sample_weight=w)
    ours = bn.ComplementNB(alpha=0.5, norm=norm, class_alpha=0).fit(Xtr, ytr, sample_weight=w)
    _complement_equal(ours, ref, Xte)
    # partial_fit in three batches (the first without some classes) == sklearn's
    ref, ours = sk.ComplementNB(norm=norm), bn.ComplementNB(norm=norm, class_alpha=0)
    classes = np.arange(20)
    for part in (slice(0, 7), slice(7, 150), slice(150, 400)):
        ref.partial_fit(Xtr[part], ytr[part], classes=classes, sample_weight=w[part])
        ours.partial_fit(Xtr[part], ytr[part], classes=classes, sample_weight=w[part])
        _complement_equal(ours, ref, Xte)


@pytest.mark.parametrize("norm", [False, True])
def test_complement_small_dense(norm):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(30, 4)).astype(float)
    y = np.array(["spam", "ham", "eggs"] * 10)
    for kw in ({}, {"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]}):
        ref = sk.ComplementNB(norm=norm, **kw).fit(X, y)
        ours = bn.ComplementNB(norm=norm, class_alpha=0, **kw).fit(X, y)
        _complement_equal(ours, ref, X)
    # one class: scikit-learn adds the class log prior only then
    ref = sk.ComplementNB(norm=norm).fit(X, np.zeros(30))
    ours = bn.ComplementNB(norm=norm, class_alpha=0).fit(X, np.zeros(30))
    _complement_equal(ours, ref, X)


def test_complement_missing_cell_is_the_model_without_its_column():
    """norm=False: a missing count renormalises the complement over the observed columns."""
    X, y = _news_like(n=200, d=50, K=4)
    X = X.toarray()
    Q = X[:20].copy()
    Q[:, 7] = np.nan
    keep = np.r_[0:7, 8:50]
    full = bn.ComplementNB(alpha=0.4).fit(X, y)
    drop = bn.ComplementNB(alpha=0.4).fit(X[:, keep], y)
    close(full.predict_log_proba(Q), drop.predict_log_proba(Q[:, keep]))
    assert np.isfinite(bn.ComplementNB(norm=True).fit(X, y).predict_log_proba(Q)).all()


def test_complement_generative_model_is_the_multinomial():
    X, y = _news_like(n=120, d=40, K=3)
    c, m = bn.ComplementNB(alpha=0.7).fit(X, y), bn.MultinomialNB(alpha=0.7).fit(X, y)
    close(c.score_samples(X), m.score_samples(X))
    assert c.log_evidence_ == m.log_evidence_
    a, b = c.sample(50, random_state=4), m.sample(50, random_state=4)
    assert sp.issparse(a[0]) and sp.issparse(b[0])  # fitted on sparse counts: sparse rows out
    np.testing.assert_array_equal(a[0].toarray(), b[0].toarray())  # the same rows from the same seed
    np.testing.assert_array_equal(a[1], b[1])
    # the complement scores are not the multinomial joint (they differ here)
    assert not np.allclose(c.predict_joint_log_proba(X), m.predict_joint_log_proba(X))


def test_complement_alpha_zero_with_an_empty_complement_is_refused():
    X = np.array([[3.0, 1, 1], [0, 2, 1], [1, 0, 2]])
    y = np.array([0, 1, 1])  # every column is counted in both classes: finite weights, as sklearn's
    ours = bn.ComplementNB(alpha=0, class_alpha=0).fit(X, y)
    close(ours.feature_log_prob_, sk.ComplementNB(alpha=0).fit(X, y).feature_log_prob_)
    with pytest.raises(ValueError, match="complement of class 1 has no count of column 'x1'.*alpha > 0"):
        bn.ComplementNB(alpha=0).fit(X, np.array([1, 1, 0]))  # column x1 only in class 1


def test_complement_has_no_coef():
    """Its predictions are not the multinomial log-odds that ``coef_`` would describe."""
    X, y = _news_like(n=60, d=20, K=2)
    with pytest.raises(ValueError, match="complement block has none"):
        _ = bn.ComplementNB().fit(X, y).coef_
