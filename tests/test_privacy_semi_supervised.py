"""``fit_semi_supervised`` under ``privacy=DP(...)``: the labelled rows released as ``fit`` releases them, then EM
on unlabelled rows declared public (docs/privacy.md, "Text (count blocks)"; issue 28)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import bayesnb as bn
from helpers import votes_xy

L2 = {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5, "class_share": 0.05}
PARTIES = ["democrat", "republican"]


def docs(n, seed, K=3, d=300):
    """Documents of ``K`` classes, each using its own 30 words (of ``d``) more; 40 words each."""
    rng, words = np.random.default_rng(seed), np.random.default_rng(99)
    p = np.ones((K, d))
    for k in range(K):
        p[k, words.choice(d, 30, replace=False)] += 8.0
    p /= p.sum(1, keepdims=True)
    y = rng.integers(0, K, n)
    return sp.csr_matrix(np.stack([rng.multinomial(40, p[k]) for k in y]).astype(float)), y


def with_unlabelled(Xl, yl, Xu):
    """Labelled rows then unlabelled ones (label -1)."""
    return sp.vstack([Xl, Xu]).tocsr(), np.concatenate([yl, np.full(Xu.shape[0], -1)])


def dp(seed=0, eps=1.0):
    return bn.DP(eps, classes=[0, 1, 2], random_state=seed, **L2)


def test_the_release_is_fits_whatever_the_unlabelled_rows_and_the_budget_is_the_same():
    Xl, yl = docs(60, 1)
    plain = bn.MultinomialNB(privacy=dp(7)).fit(Xl, yl)
    for seed in (2, 3):  # two different public pools
        X, y = with_unlabelled(Xl, yl, docs(200, seed)[0])
        # max_iter=0: the model EM starts from, i.e. the release
        m = bn.MultinomialNB(privacy=dp(7)).fit_semi_supervised(X, y, public_unlabeled=True, max_iter=0)
        np.testing.assert_array_equal(m.posterior_.blocks[0].stats.counts, plain.posterior_.blocks[0].stats.counts)
        np.testing.assert_array_equal(m.class_count_, plain.class_count_)
        np.testing.assert_array_equal(m.feature_log_prob_, plain.feature_log_prob_)
        em = bn.MultinomialNB(privacy=dp(7)).fit_semi_supervised(X, y, public_unlabeled=True)
        assert em.privacy_spent_ == plain.privacy_spent_
        assert em.n_iter_ >= 1 and not np.array_equal(em.feature_log_prob_, plain.feature_log_prob_)


def test_the_em_statistics_are_the_release_plus_the_weighted_public_rows():
    """The final posterior's statistics: the released counts plus ``unlabeled_weight`` times the responsibility-
    weighted public rows scaled to the row bound (the responsibilities of the model before the last M-step)."""
    from bayesnb.families.dp_release import scale_rows

    Xl, yl = docs(60, 1)
    Xu = docs(200, 2)[0]
    X, y = with_unlabelled(Xl, yl, Xu)
    plain = bn.MultinomialNB(privacy=dp(7)).fit(Xl, yl)
    w = 50.0
    last = bn.MultinomialNB(privacy=dp(7)).fit_semi_supervised(X, y, public_unlabeled=True, unlabeled_weight=w,
                                                                max_iter=3)
    before = bn.MultinomialNB(privacy=dp(7)).fit_semi_supervised(X, y, public_unlabeled=True, unlabeled_weight=w,
                                                                  max_iter=2)
    resp = before.predict_proba(Xu)
    expect = plain.posterior_.blocks[0].stats.counts + w * np.asarray((scale_rows(Xu, 1.0, "l2").T @ resp).T)
    np.testing.assert_allclose(last.posterior_.blocks[0].stats.counts, expect, rtol=1e-10)
    np.testing.assert_allclose(last.class_count_, plain.class_count_ + w * resp.sum(0), rtol=1e-10)


def test_the_default_weight_gives_each_class_s_share_of_the_public_rows_the_release_s_mass():
    """``unlabeled_weight=None`` under privacy: K x released total mass / the public rows' mass as the release
    counts them (text: the total released count over the public rows scaled to the row bound; a categorical
    table: the released counts over the observed public cells), computed here by hand; the fit equals the one
    with that weight passed explicitly."""
    from bayesnb.families.dp_release import scale_rows

    Xl, yl = docs(40, 1)
    Xu = docs(30, 2)[0]
    X, y = with_unlabelled(Xl, yl, Xu)
    release = bn.MultinomialNB(privacy=dp(5)).fit(Xl, yl).posterior_.blocks[0].stats.counts.sum()
    w = 3 * release / scale_rows(Xu, 1.0, "l2").sum()
    assert w > 5 * 3 * 40 / 30  # the noise floor (300 cells per class) makes it several times K n_private / n_public
    default = bn.MultinomialNB(privacy=dp(5)).fit_semi_supervised(X, y, public_unlabeled=True)
    explicit = bn.MultinomialNB(privacy=dp(5)).fit_semi_supervised(X, y, public_unlabeled=True, unlabeled_weight=w)
    np.testing.assert_allclose(default.posterior_.blocks[0].stats.counts, explicit.posterior_.blocks[0].stats.counts,
                               rtol=1e-12)
    other = bn.MultinomialNB(privacy=dp(5)).fit_semi_supervised(X, y, public_unlabeled=True, unlabeled_weight=w / 3)
    assert not np.allclose(default.posterior_.blocks[0].stats.counts, other.posterior_.blocks[0].stats.counts)

    Xv, yv = votes_xy()
    yu = np.array(yv, dtype=object)
    yu[::2] = None
    public = np.asarray([v is None for v in yu])
    model = lambda: bn.CategoricalNB(categories=[["n", "y"]] * Xv.shape[1],  # noqa: E731
                                     privacy=bn.DP(1.0, classes=PARTIES, random_state=0))
    release = sum(c.sum() for c in model().fit(Xv[~public], np.asarray(yv)[~public]).posterior_.blocks[0].stats.counts)
    w = 2 * release / Xv[public].notna().to_numpy().sum()  # observed public cells (a missing vote weighs nothing)
    assert 1.6 < w < 2.5  # about K n_private / n_public = 2 x 217 / 218
    default = model().fit_semi_supervised(Xv, yu, public_unlabeled=True)
    explicit = model().fit_semi_supervised(Xv, yu, public_unlabeled=True, unlabeled_weight=w)
    for a, b in zip(default.posterior_.blocks[0].stats.counts, explicit.posterior_.blocks[0].stats.counts):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(default.class_count_, explicit.class_count_, rtol=1e-12)


def test_without_the_public_declaration_it_is_refused():
    Xl, yl = docs(60, 1)
    X, y = with_unlabelled(Xl, yl, docs(50, 2)[0])
    model = bn.MultinomialNB(privacy=dp())
    with pytest.raises(ValueError, match="reads the unlabelled rows without noise.*public_unlabeled=True"):
        model.fit_semi_supervised(X, y)
    with pytest.raises(ValueError, match="public_unlabeled must be True or False"):
        model.fit_semi_supervised(X, y, public_unlabeled="yes")
    with pytest.raises(ValueError, match="unlabeled_weight must be a finite number >= 0"):
        model.fit_semi_supervised(X, y, public_unlabeled=True, unlabeled_weight=-1.0)
    assert not hasattr(model, "posterior_")
    with pytest.raises(ValueError, match="sample_weight is not available"):
        model.fit_semi_supervised(X, y, public_unlabeled=True, sample_weight=np.ones(len(y)))
    with pytest.raises(NotImplementedError, match="structure='tan' is not supported there"):
        Xv, yv = votes_xy()
        yu = np.array(yv, dtype=object)
        yu[:50] = None
        bn.CategoricalNB(categories=[["n", "y"]] * Xv.shape[1], structure="tan",
                         privacy=bn.DP(1.0, classes=PARTIES)).fit_semi_supervised(Xv, yu, public_unlabeled=True)


def test_em_on_public_documents_beats_the_release_alone():
    acc_release, acc_em = [], []
    for seed in range(3):
        Xl, yl = docs(60, seed)
        Xt, yt = docs(1000, 200 + seed)
        X, y = with_unlabelled(Xl, yl, docs(1500, 100 + seed)[0])
        acc_release.append((bn.MultinomialNB(privacy=dp(seed)).fit(Xl, yl).predict(Xt) == yt).mean())
        m = bn.MultinomialNB(privacy=dp(seed)).fit_semi_supervised(X, y, public_unlabeled=True)
        acc_em.append((m.predict(Xt) == yt).mean())
        assert m.transduction_.shape == (1500,)  # the public rows only (the labels are private)
    assert np.mean(acc_em) > np.mean(acc_release) + 0.15, (acc_release, acc_em)


def test_the_objective_never_decreases_when_public_rows_are_scored_as_counted():
    """Categorical rows enter the statistics as they are scored: EM climbs its objective."""
    X, y = votes_xy()
    yu = np.array(y, dtype=object)
    yu[::3] = None
    m = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1],
                         privacy=bn.DP(0.5, classes=PARTIES, random_state=0)).fit_semi_supervised(
        X, yu, public_unlabeled=True, unlabeled_weight=1.0)
    obj = np.asarray(m.em_objective_)
    assert len(obj) >= 2 and np.all(np.diff(obj) >= -1e-9 * np.abs(obj[:-1]))
    labelled = np.asarray([v is not None for v in yu])
    plain = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1],
                             privacy=bn.DP(0.5, classes=PARTIES, random_state=0)).fit(X[labelled],
                                                                                       np.asarray(y)[labelled])
    assert m.privacy_spent_ == plain.privacy_spent_


def test_a_private_semi_supervised_model_round_trips_through_a_file(tmp_path):
    Xl, yl = docs(60, 1)
    X, y = with_unlabelled(Xl, yl, docs(300, 2)[0])
    m = bn.MultinomialNB(privacy=dp(3)).fit_semi_supervised(X, y, public_unlabeled=True)
    path = tmp_path / "m.bnb"
    m.save(path)
    back = bn.load(path)
    assert back.privacy == m.privacy and back.privacy_spent_ == m.privacy_spent_
    assert back.em_objective_ == m.em_objective_ and back.n_iter_ == m.n_iter_
    np.testing.assert_array_equal(back.transduction_, m.transduction_)
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))


def test_the_non_private_path_is_unchanged_by_the_new_options():
    """Without privacy the default weight is 1 and ``public_unlabeled`` changes nothing."""
    Xl, yl = docs(60, 1)
    X, y = with_unlabelled(Xl, yl, docs(300, 2)[0])
    a = bn.MultinomialNB().fit_semi_supervised(X, y)
    b = bn.MultinomialNB().fit_semi_supervised(X, y, unlabeled_weight=1.0, public_unlabeled=True)
    np.testing.assert_array_equal(a.feature_log_prob_, b.feature_log_prob_)
    assert a.em_objective_ == b.em_objective_
    assert not hasattr(a, "privacy_spent_")
    # and the unlabelled rows count at weight 1 (not the private default)
    c = bn.MultinomialNB().fit_semi_supervised(X, y, unlabeled_weight=1000.0)
    assert not np.allclose(a.feature_log_prob_, c.feature_log_prob_)


def test_the_fitted_model_and_its_file_carry_no_private_label():
    """``transduction_`` covers the public rows only (their most probable class, in their order): the labelled
    rows' labels are the private data, and a private model, saved and shared, must not hold them verbatim."""
    Xl, yl = docs(60, 1)
    Xu = docs(40, 2)[0]
    X, y = with_unlabelled(Xl, yl, Xu)
    m = bn.MultinomialNB(privacy=dp(3)).fit_semi_supervised(X, y, public_unlabeled=True)
    assert m.transduction_.shape == (Xu.shape[0],)
    np.testing.assert_array_equal(m.transduction_, m.predict(Xu))
    # no fitted array has one entry per training row (the labelled rows' labels, or anything else of theirs)
    per_row = [k for k, v in vars(m).items()
               if k.endswith("_") and isinstance(v, np.ndarray) and v.shape == (X.shape[0],)]
    assert per_row == []
