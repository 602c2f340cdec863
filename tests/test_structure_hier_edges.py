"""edge_score="hierarchical": the edge's Bayes factor under hierarchical smoothing (issue 25)."""

from __future__ import annotations

import numpy as np
import pytest

from bayesnb.structure import EDGE_SCORES, edge_scores, edge_scores_from_counts, learn_parents, pair_counts
from bayesnb.structure.hier_edges import _grid, class_estimates
from bayesnb.structure.hierarchical import hierarchical_prior


def _theta_hat(x, y, V, K):
    """The node's class-level posterior mean under alpha="hierarchical", on x's observed cells."""
    n = np.zeros((K, V))
    for xi, yi in zip(x, y):
        if xi >= 0:
            n[yi, xi] += 1
    post = hierarchical_prior(n).alpha + n
    return post / post.sum(-1, keepdims=True)


def _brute_directed(parent, child, y, theta, c_grid):
    """log mean_c [p1(child | y, parent; c) / L0], every probability built row by row (Polya urn)."""
    rows = [(yi, a, b) for yi, a, b in zip(y, parent, child) if a >= 0 and b >= 0]
    log_l0 = sum(np.log(theta[yi, b]) for yi, _, b in rows)
    terms = []
    for c in c_grid:
        seen, log_l1 = {}, 0.0
        for yi, a, b in rows:  # sequential predictive of the context (yi, a): (c theta + n) / (c + N)
            cnt = seen.setdefault((yi, a), np.zeros(theta.shape[1]))
            log_l1 += np.log((c * theta[yi, b] + cnt[b]) / (c + cnt.sum()))
            cnt[b] += 1
        terms.append(log_l1 - log_l0)
    terms = np.array(terms)
    return float(np.log(np.mean(np.exp(terms - terms.max()))) + terms.max())


@pytest.mark.parametrize("missing", [False, True])
def test_hierarchical_edge_score_equals_brute_force_evidence(missing):
    rng = np.random.default_rng(3)
    n, K, V = 40, 2, (3, 4)
    y = rng.integers(0, K, n)
    a = rng.integers(0, V[0], n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, V[1], n))
    codes = np.c_[a, b]
    if missing:
        codes[rng.random((n, 2)) < 0.15] = -1
    th = class_estimates(pair_counts(codes, y, V, K).classes)
    for j in range(2):  # the node's estimate, up to the tolerance of hierarchical_prior's concentration fit
        np.testing.assert_allclose(th[j], _theta_hat(codes[:, j], y, V[j], K), rtol=1e-5)
    grid = _grid()
    want = 0.5 * (_brute_directed(codes[:, 0], codes[:, 1], y, th[1], grid)
                  + _brute_directed(codes[:, 1], codes[:, 0], y, th[0], grid))
    w = edge_scores(codes, y, V, K, edge_score="hierarchical").weights
    assert w[0, 1] == pytest.approx(want, rel=1e-9, abs=1e-9)
    assert w[1, 0] == w[0, 1] and w[0, 0] == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_a_pure_noise_high_cardinality_parent_scores_at_most_zero(seed):
    rng = np.random.default_rng(seed)
    n = 600
    y = rng.integers(0, 2, n)
    child = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))  # depends on the class only
    noise = rng.integers(0, 40, n)
    w = edge_scores(np.c_[child, noise], y, [3, 40], 2, edge_score="hierarchical").weights
    assert w[0, 1] <= 0
    assert learn_parents(np.c_[child, noise], y, [3, 40], 2, "tan", edge_score="hierarchical") == ((), ())


@pytest.mark.parametrize("seed", range(3))
def test_a_strong_dependence_scores_above_zero(seed):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 4, n))
    w = edge_scores(np.c_[a, b], y, [4, 4], 2, edge_score="hierarchical").weights
    assert w[0, 1] > 10
    assert learn_parents(np.c_[a, b], y, [4, 4], 2, "kdb", edge_score="hierarchical") in (((), (0,)), ((1,), ()))


@pytest.mark.parametrize("seed", range(3))
def test_a_thin_dependence_of_a_41_value_child_is_kept_where_bdeu_drops_it(seed):
    # the census finding: a 41-value column mostly one value, its rare values tied to a 14-value parent
    rng = np.random.default_rng(seed)
    n = 3000
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 14, n)
    dep = 1 + (3 * p + rng.integers(0, 3, n)) % 40
    child = np.where(rng.random(n) < 0.9, 0, np.where(rng.random(n) < 0.5, dep, rng.integers(1, 41, n)))
    codes = np.c_[p, child]
    assert edge_scores(codes, y, [14, 41], 2, edge_score="bdeu").weights[0, 1] < 0
    assert edge_scores(codes, y, [14, 41], 2, edge_score="hierarchical").weights[0, 1] > 0


def test_from_counts_equals_streamed_and_is_offered():
    assert "hierarchical" in EDGE_SCORES
    rng = np.random.default_rng(0)
    codes = rng.integers(-1, 3, (200, 4))
    y = rng.integers(0, 3, 200)
    w = rng.random(200)
    direct = edge_scores(codes, y, [3] * 4, 3, w, edge_score="hierarchical")
    counted = edge_scores_from_counts(pair_counts(codes, y, [3] * 4, 3, w), [3] * 4, edge_score="hierarchical")
    np.testing.assert_allclose(direct.weights, counted.weights, rtol=1e-12, atol=1e-12)
    assert direct.edge_score == "hierarchical"
    with pytest.raises(ValueError, match="hierarchical"):
        edge_scores(codes, y, [3] * 4, 3, edge_score="bayes")


@pytest.mark.parametrize("structure", ["tan", "kdb", "auto"])
def test_naive_bayes_edge_score_learns_the_parents_of_that_score(structure):
    import pandas as pd

    from bayesnb import NaiveBayes

    rng = np.random.default_rng(0)  # a 30-value column p that c follows through p mod 5, half the time
    n = 1500
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 30, n)
    c = np.where(rng.random(n) < 0.5, (p % 5 + y) % 5, rng.integers(0, 5, n))
    X = pd.DataFrame({"p": p.astype(str), "c": c.astype(str), "e": rng.integers(0, 3, n).astype(str)})
    codes = np.stack([pd.factorize(X[col], sort=True)[0] for col in X], axis=1)
    n_values = [len(np.unique(X[col])) for col in X]
    for edge in EDGE_SCORES[:1] + ("hierarchical",):
        model = NaiveBayes(structure=structure, edge_score=edge, auto_cv=False).fit(X, y)
        kind = model.structure_kind_
        if kind == "naive":
            continue
        pa = learn_parents(codes, y, n_values, 2, kind, model.k, edge_score=edge)
        assert model.structure_ == {X.columns[j]: tuple(X.columns[i] for i in pa[j]) for j in range(3)}
    bdeu = NaiveBayes(structure="tan").fit(X, y).structure_["c"]
    hier = NaiveBayes(structure="tan", edge_score="hierarchical").fit(X, y).structure_["c"]
    assert hier == ("p",) and bdeu != ("p",)
    with pytest.raises(ValueError, match="edge_score"):
        NaiveBayes(structure="tan", edge_score="nope").fit(X, y)


def test_auto_cv_folds_learn_with_the_estimators_edge_score(monkeypatch):
    import bayesnb.structure.cv as cv
    from bayesnb import NaiveBayes
    from bayesnb.datasets import load_house_votes

    seen = []
    real = cv.edge_scores_from_counts
    monkeypatch.setattr(cv, "edge_scores_from_counts",
                        lambda *a, **kw: seen.append(kw.get("edge_score", "bdeu")) or real(*a, **kw))
    d = load_house_votes()
    for edge in ("bdeu", "hierarchical"):
        seen.clear()
        NaiveBayes(structure="auto", edge_score=edge).fit(d.drop(columns="party"), d["party"])
        assert seen and set(seen) == {edge}  # every fold's parents learned from that edge score
