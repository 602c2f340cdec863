"""Equivalence tests of the generative uses: sampling, imputation, scores, EM."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, NaiveBayes
from bayesnb.families import Bernoulli, Categorical, Gaussian, Multinomial
from bayesnb.inference.numpyro_model import estimator_inputs
from cases import PER_ESTIMATOR, params


def tiny_categorical():
    X = np.array([["a", "x", "p"], ["a", "y", "q"], ["b", "y", "p"], ["b", "x", "q"],
                  ["a", "y", "p"], ["c", "x", "q"], ["b", "y", "q"]], dtype=object)
    y = np.array([0, 0, 1, 1, 0, 1, 1])
    return X, y


# ------------------------------------------------------------------ sample -> refit
def test_sample_refit_recovers_categorical(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    n = 20000
    Xs, ys = clf.sample(n, random_state=0, parameter_uncertainty=False)
    assert list(Xs.columns) == list(X.columns)
    ref = CategoricalNB(alpha=1e-9, class_alpha=0).fit(Xs, ys)
    p = np.exp(clf.class_log_prior_)
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(np.exp(ref.class_log_prior_) - p) < 5 * se)
    for true, got, cnt in zip(clf.feature_log_prob_, ref.feature_log_prob_, ref.category_count_):
        pt, pg = np.exp(true), np.exp(got)
        se = np.sqrt(pt * (1 - pt) / cnt.sum(1, keepdims=True))
        assert np.all(np.abs(pg - pt) < 5 * se + 1e-12)


def test_sample_refit_recovers_gaussian_bernoulli_multinomial():
    rng = np.random.default_rng(1)
    n = 30000
    X = rng.normal([0, 3], [1, 2], size=(300, 2)) + np.array([[0, 1]]) * (np.arange(300)[:, None] % 2)
    y = np.arange(300) % 2
    g = GaussianNB().fit(X, y)
    Xs, ys = g.sample(n, random_state=2, parameter_uncertainty=False)
    r = GaussianNB(prior=None, class_alpha=0).fit(Xs, ys)
    cnt = r.class_count_[:, None]
    assert np.all(np.abs(r.theta_ - g.theta_) < 5 * np.sqrt(g.var_ / cnt))
    assert np.all(np.abs(r.var_ - g.var_) < 5 * g.var_ * np.sqrt(2 / cnt))

    Xb = (rng.random((200, 6)) < np.linspace(0.1, 0.9, 6)).astype(float)
    b = BernoulliNB().fit(Xb, y[:200])
    Xs, ys = b.sample(n, random_state=3, parameter_uncertainty=False)
    r = BernoulliNB(alpha=1e-9, class_alpha=0).fit(Xs, ys)
    p = np.exp(b.feature_log_prob_)
    assert np.all(np.abs(np.exp(r.feature_log_prob_) - p) < 5 * np.sqrt(p * (1 - p) / r.class_count_[:, None]))

    Xm = sp.csr_matrix(rng.poisson(np.linspace(0.5, 3, 8), size=(200, 8)).astype(float))
    m = MultinomialNB().fit(Xm, y[:200])
    Xs, ys = m.sample(5000, random_state=4, parameter_uncertainty=False)
    r = MultinomialNB(alpha=1e-9, class_alpha=0).fit(Xs, ys)
    th = np.exp(m.feature_log_prob_)
    tokens = r.feature_count_.sum(1, keepdims=True)
    assert np.all(np.abs(np.exp(r.feature_log_prob_) - th) < 5 * np.sqrt(th * (1 - th) / tokens))
    # lengths: Poisson(mean training length of the class)
    rate = m.feature_count_.sum(1) / m.class_count_
    got = tokens.ravel() / r.class_count_
    assert np.all(np.abs(got - rate) < 5 * np.sqrt(rate / r.class_count_))
    # given classes and a fixed length
    Xs, ys = m.sample(y=[0, 1, 1], length=7, random_state=0)
    assert np.all(Xs.sum(1) == 7) and ys.tolist() == [0, 1, 1]


def test_sample_parameter_uncertainty_and_prior_predictive(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    a1, _ = clf.sample(50, random_state=5)
    a2, _ = clf.sample(50, random_state=5)
    pd.testing.assert_frame_equal(a1, a2)
    # one prior draw of theta is shared by the rows of a call: within a dataset a vote's
    # frequency is theta ~ Beta(1, 1) (spread out), across datasets it averages to 1/2
    freqs = []
    for seed in range(60):
        Xp, yp = clf.sample(400, random_state=seed, prior=True)
        assert set(np.unique(yp)) <= set(clf.classes_)
        freqs.append((Xp == "y").mean().to_numpy())
    freqs = np.array(freqs)  # (60 datasets, 16 votes)
    assert abs(freqs.mean() - 0.5) < 0.05  # sd of the mean ~ 0.29 / sqrt(60 * 16) ~ 0.01 (+ class mixing)
    assert freqs.std() > 0.15  # Beta(1, 1) spread (sd 0.29), far above binomial noise (0.025)
    with pytest.raises(ValueError):
        CategoricalNB(alpha=0).fit(X, y).sample(3, prior=True)


# ------------------------------------------------------------------ imputation
def brute_conditional(clf, row, miss_cols, cats):
    """p(x_miss | x_obs) by enumerating every completion and scoring the full row."""
    combos = list(itertools.product(*[cats[j] for j in miss_cols]))
    rows = []
    for c in combos:
        r = row.copy()
        r[list(miss_cols)] = c
        rows.append(r)
    lp = clf.score_samples(np.array(rows, dtype=object))
    return combos, np.exp(lp - logsumexp(lp))


@pytest.mark.parametrize("given_y", [False, True])
def test_imputed_draws_match_brute_force(given_y):
    X, y = tiny_categorical()
    clf = CategoricalNB().fit(X, y)
    row = np.array(["b", None, None], dtype=object)
    combos, p = brute_conditional(clf, row.copy(), (1, 2), clf.categories_)
    if given_y:  # p(x_miss | x_obs, y=1): only class 1's features
        lp = []
        for c in combos:
            r = row.copy()
            r[[1, 2]] = c
            lp.append(clf.predict_joint_log_proba(r[None, :])[0, 1])
        p = np.exp(np.array(lp) - logsumexp(lp))
    m = 4000
    imps = clf.impute(row[None, :], strategy="draw", n_imputations=m, random_state=0,
                      parameter_uncertainty=False, y=[1] if given_y else None)
    got = [tuple(im[0, 1:]) for im in imps]
    freq = np.array([got.count(c) for c in combos]) / m
    assert np.all(np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / m) + 1e-3)
    mode = clf.impute(row[None, :], y=[1] if given_y else None)
    marg1 = {v: sum(pp for c, pp in zip(combos, p) if c[0] == v) for v in clf.categories_[1]}
    assert mode[0, 1] == max(marg1, key=marg1.get)


def test_imputation_draws_with_parameter_uncertainty_keep_the_predictive():
    """Draws with parameter uncertainty average the conditional over posterior draws.

    For one categorical cell the exact predictive equals the plug-in, so the draw
    frequencies must match the brute-force conditional.
    """
    X, y = tiny_categorical()
    clf = CategoricalNB().fit(X, y)
    row = np.array([["c", None, "p"]], dtype=object)
    imps = clf.impute(row, strategy="draw", n_imputations=3000, random_state=1)
    f = np.mean([im[0, 1] == "x" for im in imps])
    combos, p = brute_conditional(clf, row[0].copy(), (1,), clf.categories_)
    # same predictive mean to within Monte Carlo error (categorical: plug-in = exact)
    assert abs(f - p[0]) < 0.06


def test_imputation_never_touches_observed_cells(votes):
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    obs = X.notna().to_numpy()
    for out in [clf.impute(X), clf.impute(X, strategy="mean"), *clf.impute(X, strategy="draw", n_imputations=2,
                                                                           random_state=0),
                clf.impute(X, n_components=2, y=y, random_state=0)]:
        assert isinstance(out, pd.DataFrame) and list(out.columns) == list(X.columns)
        assert (out.dtypes == X.dtypes).all()
        assert out.notna().all().all()
        np.testing.assert_array_equal(out.to_numpy(dtype=object)[obs], X.to_numpy(dtype=object)[obs])
        assert set(np.unique(out.to_numpy(dtype=object))) == {"y", "n"}
    # category dtype kept, Gaussian numpy, sparse counts
    Xc = X.iloc[:, :3].astype("category")
    out = CategoricalNB().fit(Xc, y).impute(Xc)
    assert all(isinstance(t, pd.CategoricalDtype) for t in out.dtypes)
    assert (out.dtypes == Xc.dtypes).all()
    rng = np.random.default_rng(0)
    Xg = rng.normal(size=(100, 3))
    Xg[rng.random(Xg.shape) < 0.2] = np.nan
    yg = np.arange(100) % 2
    for s in ("mode", "mean", "draw"):
        o = GaussianNB().fit(Xg, yg).impute(Xg, strategy=s, random_state=0)
        ok = ~np.isnan(Xg)
        np.testing.assert_array_equal(o[ok], Xg[ok])
        assert not np.isnan(o).any()
    Xm = rng.poisson(2.0, size=(50, 5)).astype(float)
    Xm[0, 1] = Xm[3, 4] = np.nan
    S = sp.csr_matrix(np.where(np.isnan(Xm), np.nan, Xm))  # NaN cells are stored entries
    mnb = MultinomialNB().fit(S, yg[:50])
    o = mnb.impute(S, strategy="mean")
    assert sp.issparse(o)
    ok = ~np.isnan(Xm)
    np.testing.assert_array_equal(o.toarray()[ok], np.nan_to_num(Xm)[ok])
    assert not np.isnan(o.toarray()).any() and o[0, 1] > 0


def test_mixed_table_impute_and_sample():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"dish": rng.choice(["pizza", "sushi"], 80), "sleep": rng.normal(7, 1, 80)})
    df.loc[[1, 5], "dish"] = None
    df.loc[[2, 6], "sleep"] = np.nan
    y = np.arange(80) % 2
    nb = NaiveBayes({"dish": Categorical(), "sleep": Gaussian()}).fit(df, y)
    out = nb.impute(df, strategy="mean")
    assert out.notna().all().all() and (out.dtypes == df.dtypes).all()
    assert out.loc[0, "dish"] == df.loc[0, "dish"] and out.loc[0, "sleep"] == df.loc[0, "sleep"]
    Xs, ys = nb.sample(4, random_state=0)
    assert list(Xs.columns) == ["dish", "sleep"] and Xs["sleep"].dtype.kind == "f"


def _typed_table(n=120, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "size": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi", "xl"], ordered=True),
        "name": pd.array(rng.choice(["x", "y"], n), dtype="string"),
        "level": rng.integers(1, 4, n).astype(np.int16),
        "w1": rng.poisson(2, n), "w2": pd.array(rng.poisson(3, n), dtype="Int64"),
        "flag": rng.random(n) < 0.4, "maybe": pd.array(rng.random(n) < 0.5, dtype="boolean"),
        "bit": rng.integers(0, 2, n).astype(np.uint8),
        "temp": rng.normal(size=n).astype(np.float32), "age": rng.integers(20, 70, n),
    })
    features = {("size", "name", "level"): Categorical(), ("w1", "w2"): Multinomial(),
                ("flag", "maybe", "bit"): Bernoulli(binarize=None), ("temp", "age"): Gaussian()}
    return df, rng.integers(0, 2, n), features


def test_sample_returns_the_training_frames_dtypes():
    df, y, features = _typed_table()
    nb = NaiveBayes(features=features).fit(df, y)
    assert list(nb.feature_dtypes_) == list(df.dtypes)
    for Xs, _ in [nb.sample(200, random_state=0), nb.sample(50, random_state=1, parameter_uncertainty=False),
                  nb.sample(30, random_state=2, prior=True), nb.sample(5, y=[1, 0, 1, 1, 0], random_state=3)]:
        expected = df.dtypes.copy()
        expected["age"] = np.dtype(float)  # Gaussian draws of an integer column are not rounded
        pd.testing.assert_series_equal(Xs.dtypes, expected)
        assert Xs["size"].cat.ordered and list(Xs["size"].cat.categories) == ["lo", "mid", "hi", "xl"]
        assert set(Xs["bit"]) <= {0, 1} and Xs["w1"].min() >= 0
        assert not (Xs["age"] == np.round(Xs["age"])).all()
    # the same values as without the dtypes (only the representation changes)
    plain = NaiveBayes(features=features).fit(df, y)
    del plain.feature_dtypes_
    a, _ = nb.sample(40, random_state=7)
    b, _ = plain.sample(40, random_state=7)
    for c in df.columns:
        if c in ("size", "name"):
            np.testing.assert_array_equal(np.asarray(a[c], dtype=str), np.asarray(b[c], dtype=str))
        else:  # float32 for "temp"
            np.testing.assert_allclose(np.asarray(a[c], dtype=float), np.asarray(b[c], dtype=float), rtol=1e-6)
    # impute keeps them too; a refit on an array forgets them
    Xm = df.copy()
    Xm.loc[[0, 3], "w2"] = pd.NA
    Xm.loc[[1, 4], "maybe"] = pd.NA
    Xm.loc[[2], "size"] = np.nan
    pd.testing.assert_series_equal(nb.impute(Xm).dtypes, df.dtypes)
    m = MultinomialNB().fit(df[["w1"]], y)
    assert hasattr(m, "feature_dtypes_")
    m.fit(df[["w1"]].to_numpy(), y)
    assert not hasattr(m, "feature_dtypes_")


# ------------------------------------------------------------------ scores
def test_score_samples_is_logsumexp_and_brute_force():
    X, y = tiny_categorical()
    clf = CategoricalNB(alpha=0.7, class_alpha=1.3).fit(X, y)
    s = clf.score_samples(X)
    np.testing.assert_allclose(s, logsumexp(clf.predict_joint_log_proba(X), axis=1))
    # brute force from the counts: p(x) = sum_k pi_k prod_j (n_kjv + a) / (n_kj + V a)
    classes = np.unique(y)
    n_k = np.array([(y == k).sum() for k in classes])
    pi = (n_k + 1.3) / (n_k.sum() + 2 * 1.3)
    cats = [sorted(set(X[:, j])) for j in range(3)]

    def p_row(row):
        tot = 0.0
        for k, c in enumerate(classes):
            pr = pi[k]
            for j, v in enumerate(row):
                if v is None:
                    continue
                cnt = np.sum((X[:, j] == v) & (y == c))
                pr *= (cnt + 0.7) / (n_k[k] + len(cats[j]) * 0.7)
            tot += pr
        return tot

    np.testing.assert_allclose(s, np.log([p_row(r) for r in X]))
    # missing marginalised = sum over completions
    r = np.array([["b", None, "q"]], dtype=object)
    np.testing.assert_allclose(clf.score_samples(r)[0], np.log(p_row(r[0])))
    np.testing.assert_allclose(
        np.exp(clf.score_samples(r)[0]),
        sum(np.exp(clf.score_samples(np.array([["b", v, "q"]], dtype=object))[0]) for v in cats[1]))


@pytest.mark.parametrize("kind", ["categorical", "gaussian", "bernoulli", "multinomial"])
def test_feature_contributions_add_up(kind, votes):
    rng = np.random.default_rng(0)
    y = np.arange(120) % 3
    if kind == "categorical":
        X, yy = votes
        est, y = CategoricalNB(), yy
    elif kind == "gaussian":
        X = rng.normal(size=(120, 4))
        X[rng.random(X.shape) < 0.1] = np.nan
        est = GaussianNB(predictive="marginal")
    elif kind == "bernoulli":
        X = (rng.random((120, 5)) < 0.4).astype(float)
        X[0, 0] = np.nan
        est = BernoulliNB()
    else:
        X = sp.csr_matrix(rng.poisson(1.5, size=(120, 6)).astype(float))
        est = MultinomialNB(predictive="marginal")
    est.fit(X, y)
    C, term = est.feature_log_contributions(X, return_class_term=True)
    tot = np.asarray(C.sum(axis=1)).ravel() + term
    np.testing.assert_allclose(tot, est.score_samples(X), rtol=1e-10, atol=1e-9)


def test_outlier_scoring_lives_in_the_detector_only(votes):
    # the estimators have no outlier methods (NBOutlierDetector holds them) and no threshold attribute
    X, y = votes
    clf = CategoricalNB().fit(X, y)
    for name in ("outlier_scores", "set_outlier_threshold", "outlier_decision_function", "is_outlier"):
        assert not hasattr(clf, name), name
    assert not hasattr(clf, "offset_") and not hasattr(clf, "contamination_")


# ------------------------------------------------------------------ semi-supervised EM
def hide_labels(y, frac, seed, marker=None):
    rng = np.random.default_rng(seed)
    y = np.array(y, dtype=object)
    hide = rng.random(len(y)) < frac
    y[hide] = marker
    return y, hide


@pytest.mark.parametrize("kind", ["categorical", "gaussian", "multinomial"])
def test_em_objective_never_decreases(kind, votes):
    rng = np.random.default_rng(2)
    if kind == "categorical":
        X, y = votes
        est = CategoricalNB()
        yu, _ = hide_labels(y, 0.8, 0)
    elif kind == "gaussian":
        X = np.vstack([rng.normal(0, 1, (100, 3)), rng.normal(1.5, 2, (100, 3))])
        X[rng.random(X.shape) < 0.05] = np.nan
        y = np.repeat([0, 1], 100)
        est = GaussianNB()
        yu = y.copy()
        yu[rng.random(200) < 0.8] = -1
    else:
        X = sp.csr_matrix(np.vstack([rng.poisson([3, 1, 1, 0.5], (80, 4)), rng.poisson([1, 1, 3, 2], (80, 4))])
                          .astype(float))
        y = np.repeat(["a", "b"], 80)
        est = MultinomialNB(alpha=0.5)
        yu, _ = hide_labels(y, 0.9, 1)
    est.fit_semi_supervised(X, yu)  # gaussian: integer labels, -1 marks the unlabelled rows
    h = np.asarray(est.em_objective_)
    assert len(h) >= 2
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))
    assert est.transduction_.shape == (X.shape[0],)


def test_latent_class_em_never_decreases(votes):
    X, y = votes
    fit = CategoricalNB().fit(X, y).fit_latent_class(X, y, n_components=3, random_state=0, n_init=1)
    h = np.asarray(fit.em_objective)
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))
    assert fit.posterior.class_count.shape == (6,)


def test_all_labelled_em_equals_fit(votes):
    X, y = votes
    a = CategoricalNB(alpha=0.5).fit(X, y)
    b = CategoricalNB(alpha=0.5).fit_semi_supervised(X, y)
    for fa, fb in zip(a.feature_log_prob_, b.feature_log_prob_):
        np.testing.assert_array_equal(fa, fb)
    # unlabeled rows at weight 0 = fit on the labelled rows only (EM's fixed point)
    yu, hide = hide_labels(y, 0.5, 3)
    c = CategoricalNB(alpha=0.5).fit_semi_supervised(X, yu, unlabeled_weight=0.0)
    d = CategoricalNB(alpha=0.5).fit(X[~hide], y[~hide])
    for fc, fd in zip(c.feature_log_prob_, d.feature_log_prob_):
        np.testing.assert_allclose(fc, fd, rtol=1e-12)
    np.testing.assert_allclose(c.class_log_prior_, d.class_log_prior_)
    rng = np.random.default_rng(0)
    Xg = rng.normal(size=(60, 2))
    yi = np.arange(60) % 2
    np.testing.assert_allclose(GaussianNB().fit_semi_supervised(Xg, yi).theta_, GaussianNB().fit(Xg, yi).theta_)


def test_minus_one_is_a_class_with_partial_fit():
    """Labels in {-1, +1}: partial_fit with declared classes keeps -1 as a class."""
    rng = np.random.default_rng(5)
    X = rng.poisson(1.0, size=(40, 5))
    y = np.where(np.arange(40) % 2 == 0, -1, 1)
    m = MultinomialNB().partial_fit(X, y, classes=[-1, 1])
    assert m.classes_.tolist() == [-1, 1]
    np.testing.assert_array_equal(m.class_count_, [20, 20])


@pytest.mark.parametrize("case", params(PER_ESTIMATOR, by="name"))
def test_fit_with_minus_one_labels_is_supervised(case):
    """SVM-light labels {-1, +1}: fit is supervised, -1 is a class (no EM, no warning)."""
    rng = np.random.default_rng(5)
    X = rng.poisson(1.0, size=(40, 5)).astype(float)
    y01 = np.arange(40) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = case.cls().fit(X, 2 * y01 - 1)
    ref = case.cls().fit(X, y01)
    assert m.classes_.tolist() == [-1, 1]
    assert not hasattr(m, "em_objective_")
    np.testing.assert_array_equal(m.class_count_, [20, 20])
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(m.predict(X), 2 * ref.predict(X) - 1)


@pytest.mark.parametrize("y", [
    np.r_[np.zeros(20), np.ones(19), np.nan],
    np.array(["a", "b"] * 19 + [None, "a"], dtype=object),
    pd.Series([0, 1] * 19 + [pd.NA, 1], dtype="Int64"),
], ids=["nan", "None", "pd.NA"])
def test_fit_with_missing_label_raises_and_points_to_fit_semi_supervised(y):
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(ValueError, match=r"GaussianNB: expected a label for every row; y contains 1 "
                                         r"missing label.*fit_semi_supervised\(X, y\)"):
        GaussianNB().fit(X, y)


def _two_blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return rng.normal(size=(n, 2)) + 2.0 * y[:, None], y


def test_fit_semi_supervised_default_marker_int_is_minus_one():
    X, y = _two_blobs()
    yu = np.where(np.arange(60) < 12, y, -1)
    a = GaussianNB().fit_semi_supervised(X, yu)
    assert a.classes_.tolist() == [0, 1] and a.classes_.dtype.kind == "i"
    assert a.n_iter_ >= 1
    # the same as marking the rows with None (object labels), or with unlabeled=-1 named
    ynone = np.where(yu == -1, None, yu).astype(object)
    for b in (GaussianNB().fit_semi_supervised(X, ynone), GaussianNB().fit_semi_supervised(X, yu, unlabeled=-1)):
        assert b.classes_.tolist() == [0, 1] and b.classes_.dtype.kind == "i"
        np.testing.assert_allclose(b.theta_, a.theta_, rtol=1e-12)
        np.testing.assert_array_equal(b.transduction_, a.transduction_)


@pytest.mark.parametrize("marker", [None, np.nan, pd.NA], ids=["None", "nan", "pd.NA"])
def test_fit_semi_supervised_default_marker_object_is_missing_value(marker):
    X, y = _two_blobs()
    ys = np.where(y == 1, "pos", "neg").astype(object)
    ys[12:] = marker
    m = GaussianNB().fit_semi_supervised(X, ys)
    assert m.classes_.tolist() == ["neg", "pos"] and m.n_iter_ >= 1
    assert set(m.transduction_[12:]) <= {"neg", "pos"}
    # float labels: NaN marks the unlabelled rows, -1.0 is a class (the -1 marker is for integers)
    yf = np.where(y == 1, 1.0, -1.0)
    yf[12:] = np.nan
    f = GaussianNB().fit_semi_supervised(X, yf)
    assert f.classes_.tolist() == [-1.0, 1.0]
    np.testing.assert_allclose(f.theta_, m.theta_, rtol=1e-12)


def test_fit_semi_supervised_custom_marker():
    X, y = _two_blobs()
    ys = np.where(y == 1, "pos", "neg")
    ys[12:] = "?"
    m = GaussianNB().fit_semi_supervised(X, ys, unlabeled="?")
    assert m.classes_.tolist() == ["neg", "pos"]
    ynone = ys.astype(object)
    ynone[12:] = None
    ref = GaussianNB().fit_semi_supervised(X, ynone)
    np.testing.assert_allclose(m.theta_, ref.theta_, rtol=1e-12)
    np.testing.assert_array_equal(m.transduction_, ref.transduction_)
    # without naming the marker, "?" is a class like any other: no row is unlabelled
    plain = GaussianNB().fit_semi_supervised(X, ys)
    assert plain.classes_.tolist() == ["?", "neg", "pos"] and not hasattr(plain, "em_objective_")


def test_fit_semi_supervised_int_labels_with_missing_values():
    """Integer labels + None (or pandas' pd.NA) work; with -1 as well, say which -1 is."""
    X, y = _two_blobs()
    yl = y.tolist()
    for i in range(12, 60):
        yl[i] = None
    a = GaussianNB().fit_semi_supervised(X, yl)  # used to fail with "Unknown label type: unknown"
    assert a.classes_.tolist() == [0, 1] and a.classes_.dtype.kind == "i"
    b = GaussianNB().fit_semi_supervised(X, pd.Series(yl, dtype="Int64"))
    assert b.classes_.tolist() == [0, 1] and b.classes_.dtype.kind == "i"
    np.testing.assert_allclose(b.theta_, a.theta_, rtol=1e-12)
    # -1 and None together: is -1 a class or a marker? The error says, and how to choose
    ym = [2 * v - 1 if v is not None else None for v in yl]
    with pytest.raises(ValueError, match=r"GaussianNB: y holds both the label -1 \(6 row\(s\)\) and 48 missing "
                                         r"value\(s\).*unlabeled=None if -1 is a class.*unlabeled=-1"):
        GaussianNB().fit_semi_supervised(X, ym)
    c = GaussianNB().fit_semi_supervised(X, ym, unlabeled=None)
    assert c.classes_.tolist() == [-1, 1]
    np.testing.assert_allclose(c.theta_, a.theta_, rtol=1e-12)
    d = GaussianNB().fit_semi_supervised(X, ym, unlabeled=-1)
    assert d.classes_.tolist() == [1]


def test_missing_labels_markers():
    from bayesnb.generative import missing_labels

    assert missing_labels([1, -1, 0]).tolist() == [False, True, False]
    assert missing_labels(np.array([1.0, -1.0, np.nan])).tolist() == [False, False, True]
    assert missing_labels([1, -1, 0], unlabeled=None).tolist() == [False, False, False]
    assert missing_labels(np.array([1.0, -1.0, np.nan]), unlabeled=-1).tolist() == [False, True, True]
    assert missing_labels(["a", "?", None], unlabeled="?").tolist() == [False, True, True]
    assert missing_labels([True, False, None]).tolist() == [False, False, True]
    with pytest.raises(ValueError, match="missing_labels: y holds both the label -1"):
        missing_labels([1, -1, None])


def test_known_labels_minus_one_is_a_class_in_impute_and_model_inputs():
    """impute(y=...) and run_mcmc/model_inputs read only missing values as unknown labels."""
    rng = np.random.default_rng(3)
    y01 = np.arange(40) % 2
    X = rng.normal(size=(40, 3)) + 3.0 * y01[:, None]
    m = GaussianNB().fit(X, 2 * y01 - 1)
    ref = GaussianNB().fit(X, y01)
    row = np.array([[np.nan, 1.5, 1.5]])
    np.testing.assert_allclose(m.impute(row, y=[-1]), ref.impute(row, y=[0]), rtol=1e-12)
    np.testing.assert_allclose(m.impute(row, y=np.array([None], dtype=object)), ref.impute(row), rtol=1e-12)
    _, _, data = estimator_inputs(m, X, 2 * y01 - 1)
    assert "unlabelled" not in data


def test_em_learns_categories_seen_only_in_unlabelled_rows():
    """Values that occur only in unlabelled rows are categories; the objective still never drops."""
    rng = np.random.default_rng(0)
    X = rng.choice(list("abc"), (200, 3)).astype(object)
    X[150:, 1] = rng.choice(list("defgh"), 50)
    y = np.where(rng.random(200) < 0.5, "p", "q").astype(object)
    y[100:] = None
    m = CategoricalNB().fit_semi_supervised(X, y)
    assert m.categories_[1].tolist() == list("abcdefgh")
    h = np.asarray(m.em_objective_)
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))


def test_sample_from_a_latent_class_model_keeps_dependence_between_features():
    """Within each class x1 == x2 (two hidden components). Naive sampling breaks that about
    half the time; sampling from the fitted latent-class model (sample(latent=...)) keeps it,
    with y given too, and from one MCMC-draw-like point as well."""
    import pandas as pd

    from bayesnb import CategoricalNB

    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(["p", "q"], n)
    comp = rng.integers(0, 2, n)
    x = np.where(comp == 0, "a", "b")
    X = pd.DataFrame({"x1": x, "x2": x, "x3": rng.choice(["u", "v"], n)})
    clf = CategoricalNB().fit(X, y)
    fit = clf.fit_latent_class(X, y, n_components=2, random_state=0)
    naive, _ = clf.sample(4000, random_state=1)
    latent, labels = clf.sample(4000, random_state=1, latent=fit)
    assert (naive["x1"] != naive["x2"]).mean() > 0.4
    assert (latent["x1"] != latent["x2"]).mean() < 0.05
    assert set(labels) == {"p", "q"} and abs((labels == "p").mean() - (y == "p").mean()) < 0.05
    Xq, yq = clf.sample(500, y="q", random_state=2, latent=fit)
    assert (yq == "q").all() and (Xq["x1"] != Xq["x2"]).mean() < 0.05 and list(Xq.columns) == ["x1", "x2", "x3"]
    point = fit._replace(point=True)
    a, _ = clf.sample(50, random_state=3, latent=point, parameter_uncertainty=True)
    b, _ = clf.sample(50, random_state=3, latent=point, parameter_uncertainty=False)
    pd.testing.assert_frame_equal(a, b)  # a point is used as it is
    from bayesnb import GaussianNB

    other = GaussianNB().fit(rng.normal(size=(30, 2)), np.arange(30) % 2)
    with pytest.raises(ValueError, match="LatentClassFit of this estimator"):
        other.sample(5, latent=fit)
    with pytest.raises(ValueError, match="LatentClassFit of this estimator"):
        other.impute(np.array([[np.nan, 1.0]]), latent=fit)


def test_size_guards_refuse_what_cannot_fit_in_memory_before_any_work(tmp_path):
    """Issue 31: sample -n 1e9 was OOM-killed at 13 GB; now a clear error says what it would need."""
    from bayesnb import CategoricalNB
    from bayesnb._utils import physical_memory
    from bayesnb.cli import main
    from bayesnb.datasets import load_house_votes

    votes = load_house_votes()
    X, y = votes.drop(columns="party"), votes["party"]
    model = CategoricalNB().fit(X, y)
    huge = int(physical_memory() // 8) + 1  # one row per 8 bytes of memory: far too many rows of 16 columns
    with pytest.raises(ValueError, match=rf"sample\(n_samples={huge}\) would hold .* GiB, more than this machine's"):
        model.sample(huge)
    with pytest.raises(ValueError, match=r"predict_proba_draws\(n_draws=.*\) would hold"):
        model.predict_proba_draws(X, n_draws=huge // 100)
    with pytest.raises(ValueError, match=r"impute\(n_imputations=.*\) would hold"):
        model.impute(X, strategy="draw", n_imputations=huge // 1000)
    assert model.sample(3, random_state=0)[0].shape == (3, 16)  # ordinary sizes are untouched
    path = tmp_path / "votes.bnb"
    model.save(path)
    rc = main(["sample", str(path), "-n", str(huge), "-o", str(tmp_path / "s.csv")])
    assert rc == 2 and not (tmp_path / "s.csv").exists()
