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


def _brute_fixed_point(X, ys, parents, R, alpha=1.0, class_alpha=1.0):
    """From responsibilities R (n, 2): the posterior-mean M-step by direct counting, then the E-step
    by enumerating the joint; returns (pi, tables, R_new, objective)."""
    n, d = X.shape
    W = R.copy()
    W[ys >= 0] = np.eye(2)[ys[ys >= 0]]
    counts = W.sum(0)
    pi = (counts + class_alpha) / (counts.sum() + 2 * class_alpha)
    tables = []
    for j, pa in enumerate(parents):
        t = {}
        for k in range(2):
            for u in itertools.product(range(2), repeat=len(pa)):
                rows = np.ones(n, bool)
                for p, val in zip(pa, u):
                    rows &= X[:, p] == val
                c = np.array([np.sum(W[rows & (X[:, j] == v), k]) for v in range(2)])
                t[(k, *u)] = (c + alpha) / (c.sum() + 2 * alpha)
        tables.append(t)
    joint = np.array([[np.log(pi[k]) + sum(np.log(tables[j][(k, *(x[p] for p in pa))][x[j]])
                                            for j, pa in enumerate(parents)) for k in range(2)] for x in X])
    allowed = np.where(ys[:, None] >= 0, np.eye(2)[np.maximum(ys, 0)] > 0, True)
    joint = np.where(allowed, joint, -np.inf)
    R_new = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    penalty = class_alpha * np.log(pi).sum() + sum(alpha * np.log(p).sum() for t in tables for p in t.values())
    return pi, tables, R_new, logsumexp(joint, axis=1).sum() + penalty


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_the_fixed_point_satisfies_the_em_equations_by_brute_force(structure):
    X, y, ys = _binary(3, n=30, d=3, unlabelled=10)
    m = bayesnb.CategoricalNB(structure=structure).fit_semi_supervised(X, ys, tol=1e-14, max_iter=2000)
    assert m.converged_
    names = [f"x{j}" for j in range(3)]
    parents = [tuple(names.index(p) for p in m.structure_[nm]) for nm in names]
    assert any(parents)
    R = m.predict_proba(X)
    pi, tables, R_new, objective = _brute_fixed_point(X, ys, parents, R)
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
