"""fit_semi_supervised on a structure (TAN, k-DB, auto): EM against fit and against brute force on tiny tables."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import bayesnb


def _binary(seed=0, n=40, d=3, unlabelled=12):
    """Binary features where x1 follows x0 within each class; the first ``unlabelled`` labels are -1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    cols = [(rng.random(n) < np.where(y == 1, 0.8, 0.3)).astype(int)]
    cols.append(np.where(rng.random(n) < 0.85, cols[0], 1 - cols[0]))
    cols += [(rng.random(n) < np.where(y == 1, 0.6, 0.4)).astype(int) for _ in range(d - 2)]
    ys = y.copy()
    ys[:unlabelled] = -1
    return np.column_stack(cols), y, ys


def _mixed(seed=0, n=80, unlabelled=30):
    """A categorical and two Gaussian columns, the second Gaussian following the first."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    u = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)
    X = pd.DataFrame({"a": np.where(rng.random(n) < np.where(y == 1, 0.7, 0.3), "p", "q"),
                      "u": u, "v": 2 * u + rng.normal(0, 0.3, n)})
    ys = y.astype(float)
    ys[:unlabelled] = np.nan
    return X, y, ys


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_every_row_labelled_is_fit(structure):
    X, y, _ = _binary(1)
    a = bayesnb.CategoricalNB(structure=structure).fit_semi_supervised(X, y)
    b = bayesnb.CategoricalNB(structure=structure).fit(X, y)
    assert a.structure_ == b.structure_ and a.structure_kind_ == structure
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_em_keeps_the_smoothing_it_learned_with(tmp_path):
    """With unlabelled rows EM stores its posterior after the structure was learned: k-DB's default
    hierarchical tables stay recorded (``structure_hierarchical_``), as the model file needs them."""
    X, _, ys = _binary(4, n=80, d=4, unlabelled=30)
    m = bayesnb.CategoricalNB(structure="kdb").fit_semi_supervised(X, ys)
    assert m.structure_kind_ == "kdb" and m.structure_hierarchical_
    assert all(nd.family.alpha == "hierarchical" for nd in m._mixed.nodes)
    m.save(tmp_path / "m.nb")
    back = bayesnb.load(tmp_path / "m.nb")
    assert back.structure_hierarchical_
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))


@pytest.mark.parametrize("structure", ["tan", "kdb", "auto"])
def test_unlabelled_rows_of_weight_zero_leave_the_labelled_fit(structure):
    """With ``unlabeled_weight=0`` the EM's weighted statistics are the labelled rows' (the structure,
    bins and priors are learned on them): the model equals ``fit`` on the labelled rows alone."""
    X, y, ys = _mixed(2, n=200, unlabelled=60)
    lab = ~np.isnan(ys)
    a = bayesnb.NaiveBayes(structure=structure).fit_semi_supervised(X, ys, unlabeled_weight=0.0)
    b = bayesnb.NaiveBayes(structure=structure).fit(X[lab], y[lab])
    # features="auto" reads every row's values (as the naive EM): here it chooses the same families
    assert [type(blk.family) for blk in a.posterior_.blocks] == [type(blk.family) for blk in b.posterior_.blocks]
    assert a.structure_ == b.structure_ and a.structure_kind_ == b.structure_kind_
    np.testing.assert_allclose(a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.class_count_, b.class_count_)
    np.testing.assert_array_equal(a.transduction_[lab], y[lab])


def _brute_fixed_point(X, allowed, parents, R, group, alpha=1.0, class_alpha=1.0):
    """From responsibilities R (n, S) over states (class ``group[s]``): the posterior-mean M-step by
    direct counting, then the E-step by enumerating the joint. Returns (pi, tables, R_new, objective,
    log p(x) per row over every state)."""
    n, d = X.shape
    S = len(group)
    W = R * allowed
    W = W / W.sum(1, keepdims=True)
    counts = W.sum(0)
    pi = (counts + class_alpha) / (counts.sum() + S * class_alpha)
    tables = []
    for j, pa in enumerate(parents):
        t = {}
        for s in range(S):
            for u in itertools.product(range(2), repeat=len(pa)):
                rows = np.ones(n, bool)
                for p, val in zip(pa, u):
                    rows &= X[:, p] == val
                c = np.array([np.sum(W[rows & (X[:, j] == v), s]) for v in range(2)])
                t[(s, *u)] = (c + alpha) / (c.sum() + 2 * alpha)
        tables.append(t)
    joint = np.array([[np.log(pi[s]) + sum(np.log(tables[j][(s, *(x[p] for p in pa))][x[j]])
                                            for j, pa in enumerate(parents)) for s in range(S)] for x in X])
    restricted = np.where(allowed, joint, -np.inf)
    R_new = np.exp(restricted - logsumexp(restricted, axis=1, keepdims=True))
    penalty = class_alpha * np.log(pi).sum() + sum(alpha * np.log(p).sum() for t in tables for p in t.values())
    return pi, tables, R_new, logsumexp(restricted, axis=1).sum() + penalty, logsumexp(joint, axis=1)


def _parents(m, d):
    names = [f"x{j}" for j in range(d)]
    return [tuple(names.index(p) for p in m.structure_[nm]) for nm in names]


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_the_fixed_point_satisfies_the_em_equations_by_brute_force(structure):
    X, y, ys = _binary(3, n=30, d=3, unlabelled=10)
    m = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit_semi_supervised(X, ys, tol=1e-14, max_iter=2000)
    assert m.converged_
    parents = _parents(m, 3)
    assert any(parents)
    R = m.predict_proba(X)
    allowed = np.where(ys[:, None] >= 0, np.eye(2)[np.maximum(ys, 0)] > 0, True)
    pi, tables, R_new, objective, _ = _brute_fixed_point(X, allowed, parents, R, np.arange(2))
    np.testing.assert_allclose(R_new[ys < 0], R[ys < 0], atol=1e-6)  # the E-step of the M-step of R is R
    np.testing.assert_allclose(np.exp(m.class_log_prior_), pi, rtol=1e-6)
    # the model's joint is the brute-force joint with the M-step's tables
    jll = np.array([[np.log(pi[k]) + sum(np.log(tables[j][(k, *(x[p] for p in pa))][x[j]])
                                         for j, pa in enumerate(parents)) for k in range(2)] for x in X])
    np.testing.assert_allclose(m.predict_joint_log_proba(X), jll, rtol=1e-6)
    np.testing.assert_allclose(m.em_objective_[-1], objective, rtol=1e-8)
    np.testing.assert_array_equal(m.transduction_[ys >= 0], ys[ys >= 0])
    np.testing.assert_array_equal(m.transduction_[ys < 0], np.argmax(R[ys < 0], axis=1))


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_latent_class_fixed_point_satisfies_the_em_equations_by_brute_force(structure):
    """Two components per class, the structure inside each: the state responsibilities at the
    fixed point reproduce themselves through the brute-force M-step and E-step, and
    ``score_samples(latent=)`` is the brute-force ``log p(x)`` over the states."""
    from bayesnb.structure import infer as SI
    from bayesnb.structure import engine as MX

    X, y, ys = _binary(4, n=40, d=3, unlabelled=15)
    m = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X[ys >= 0], ys[ys >= 0])
    parents = _parents(m, 3)
    assert any(parents)
    yl = np.where(ys >= 0, ys, np.nan)
    fit = m.fit_latent_class(X, yl, n_components=2, tol=1e-14, max_iter=3000, random_state=0)
    assert fit.structure is not None and fit.n_components == 2 and fit.group.tolist() == [0, 0, 1, 1]
    h = np.asarray(fit.em_objective)
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))
    allowed = np.where(ys[:, None] >= 0, fit.group[None, :] == ys[:, None], True)
    data = MX.node_data(fit.structure.nodes, m._encoded(X))
    joint = np.where(allowed, SI.log_likelihood(fit.structure, data) + fit.posterior.class_log_prior, -np.inf)
    R = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    pi, _, R_new, objective, log_px = _brute_fixed_point(X, allowed, parents, R, fit.group)
    np.testing.assert_allclose(R_new, R, atol=1e-6)
    np.testing.assert_allclose(np.exp(fit.posterior.class_log_prior), pi, rtol=1e-6)
    np.testing.assert_allclose(h[-1], objective, rtol=1e-8)
    np.testing.assert_allclose(m.score_samples(X, latent=fit), log_px, rtol=1e-6)
    assert not np.allclose(log_px, m.score_samples(X))  # the mixture is another model than the classifier


def test_one_component_per_labelled_class_is_the_classifier():
    X, y, _ = _binary(5, n=50)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    fit = m.fit_latent_class(X, y, n_components=1, tol=1e-12)
    np.testing.assert_allclose(m.score_samples(X, latent=fit), m.score_samples(X), rtol=1e-10)


def test_latent_class_on_a_mixed_structure_imputes_and_refuses_what_it_must():
    X, y, _ = _mixed(6, n=120)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    fit = m.fit_latent_class(X, None, n_components=3, random_state=0)
    h = np.asarray(fit.em_objective)
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])) and len(fit.group) == 6
    holes = X.copy()
    holes.iloc[::3, 2] = np.nan
    filled = m.impute(holes, latent=fit)
    assert not filled.isna().any().any()
    np.testing.assert_array_equal(filled.iloc[1::3].to_numpy(), X.iloc[1::3].to_numpy())  # observed rows kept
    # n_components=3 fits the latent-class model on the rows given (same seed), then imputes with it
    on_holes = m.fit_latent_class(holes, None, n_components=3, random_state=0)
    assert m.impute(holes, n_components=3, random_state=0).equals(m.impute(holes, latent=on_holes))
    with pytest.raises(ValueError, match="latent-class model of a structure"):
        bayesnb.NaiveBayes().fit(X, y).score_samples(X, latent=fit)
    for bad in (0, "two"):
        with pytest.raises(ValueError, match="n_components must be"):
            m.fit_latent_class(X, y, n_components=bad)
    naive_fit = bayesnb.NaiveBayes().fit(X, y).fit_latent_class(X, y, n_components=2, random_state=0)
    with pytest.raises(ValueError, match="without a structure"):
        m.impute(holes, latent=naive_fit)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_the_objective_never_decreases(structure):
    X, y, ys = _mixed(4, n=150, unlabelled=100)
    m = bayesnb.NaiveBayes(structure=structure).fit_semi_supervised(X, ys, tol=1e-10, max_iter=200)
    h = np.asarray(m.em_objective_)
    assert h.size > 3 and np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])), h
    assert m.structure_kind_ == structure and any(m.structure_.values())
    # the unlabelled rows pull the model: it differs from the labelled fit
    lab = ~np.isnan(ys)
    b = bayesnb.NaiveBayes(structure=structure).fit(X[lab], y[lab])
    assert not np.allclose(m.predict_proba(X), b.predict_proba(X))


def test_missing_cells_and_a_model_file(tmp_path):
    X, y, ys = _mixed(5, n=60, unlabelled=20)
    X.iloc[::7, 1] = np.nan
    X.iloc[::5, 0] = None
    m = bayesnb.NaiveBayes(structure="tan").fit_semi_supervised(X, ys, max_iter=20)
    p = m.predict_proba(X)
    assert np.all(np.isfinite(p)) and m.structure_kind_ == "tan"
    m.save(tmp_path / "m.nb")
    back = bayesnb.load(tmp_path / "m.nb")
    np.testing.assert_allclose(back.predict_proba(X), p, rtol=1e-10)


def test_a_model_file_keeps_the_priors_em_held_fixed(tmp_path):
    """alpha="auto" is resolved on the labelled rows and held fixed by EM: the file keeps those priors
    (resolving them again from the EM's weighted statistics would give another model)."""
    X, _, ys = _binary(3, n=80, d=4, unlabelled=40)
    m = bayesnb.CategoricalNB(structure="tan", alpha="auto").fit_semi_supervised(X, ys)
    m.save(tmp_path / "m.nb")
    back = bayesnb.load(tmp_path / "m.nb")
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    del back.structure_priors_
    back._restore_fitted()  # without them the priors come from the statistics: not the fitted model
    assert not np.allclose(back.predict_proba(X), m.predict_proba(X))
    back.structure_priors_ = m.structure_priors_[:-1]
    with pytest.raises(ValueError, match="structure_priors_ must be"):
        back._restore_fitted()


def test_latent_class_auto_searches_the_components_of_the_structure():
    """n_components="auto" scores held-out cells under the structured latent-class model: the fits
    the search compares are the structure's (the same EM at the same seed gives the same score)."""
    from bayesnb.generative.tables import mask_cells, missing_cells
    from bayesnb.inference import em

    X, y, _ = _mixed(7, n=150)
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    fit = m.fit_latent_class(X, y, n_components="auto", candidates=(1, 2), n_init=1, random_state=0)
    assert fit.structure is not None and set(fit.selection) >= {1, 2}
    assert fit.n_components == max(fit.selection, key=fit.selection.get)
    # the search's scores are the structured model's: recompute the score of 1 component by hand
    rng = np.random.default_rng(0)
    full = m._encode_blocks(X, m.posterior_)[0]
    rows, cols = em.holdout_cells(m.posterior_, ~missing_cells(m.posterior_, full, X.shape), 0.1, rng)
    masked = mask_cells(X, rows, cols)
    assert masked.isna().to_numpy().sum() == rows.size > 0
    codes = np.searchsorted(m.classes_, y)
    train = m._latent_start(masked, codes)
    one = m._latent_em(*train, codes, 1, n_init=1, tol=1e-6, max_iter=200, rng=rng)
    assert one.structure is not None
    h = np.unique(rows)
    score = (m._latent_log_px(one, full, codes)[h] - m._latent_log_px(one, train[0], codes)[h]).sum()
    np.testing.assert_allclose(fit.selection[1], score, rtol=1e-10)
