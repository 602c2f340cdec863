"""Edge scores of structure learning: the BDeu log Bayes factor of an edge (bayesnb.structure.learn).

Brute force from ``scipy.special.gammaln`` on tiny tables, score equivalence (symmetry), the
spanning forest against scipy's minimum spanning tree, and the behaviour that motivates the
score: a high-cardinality noise column is never a parent under ``"bdeu"`` while it is under ``"mi"``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.special import gammaln

import bayesnb
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.structure import learn as S


def _dm_evidence(child, contexts, n_contexts, n_values, a, w):
    """log Dirichlet-multinomial evidence of ``child`` per context, ``a`` in every cell, written out cell by cell."""
    total = 0.0
    for c in range(n_contexts):
        at = w[contexts == c]
        counts = [float(at[child[contexts == c] == v].sum()) for v in range(n_values)]
        total += gammaln(n_values * a) - gammaln(n_values * a + sum(counts))
        total += sum(gammaln(a + nv) - gammaln(a) for nv in counts)
    return total


def _brute_log_bf(codes, y, V, K, w, parent, child, ess=1.0, bdeu=True):
    """log p(x_child | y, x_parent) - log p(x_child | y) on the rows where both cells are observed."""
    ok = (codes[:, parent] >= 0) & (codes[:, child] >= 0)
    xc, xp, yy, ww = codes[ok, child], codes[ok, parent], y[ok], w[ok]
    vp, vc = V[parent], V[child]
    a_with = ess / (K * vp * vc) if bdeu else 1.0
    a_without = ess / (K * vc) if bdeu else 1.0
    return (_dm_evidence(xc, yy * vp + xp, K * vp, vc, a_with, ww)
            - _dm_evidence(xc, yy, K, vc, a_without, ww))


def _tiny(seed, n=60, V=(2, 4, 3, 5), K=3, missing=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    codes = np.column_stack([(rng.integers(0, v, n) + y) % v for v in V])
    codes[:, 1] = np.where(rng.random(n) < 0.6, codes[:, 0] * 2, codes[:, 1])  # a dependence
    codes[rng.random(codes.shape) < missing] = -1
    return codes, y, list(V), K, rng.random(n) + 0.5


@pytest.mark.parametrize("missing", [0.0, 0.2])
@pytest.mark.parametrize("ess", [1.0, 7.5])
def test_log_bf_equals_brute_force_dirichlet_evidence(missing, ess):
    codes, y, V, K, w = _tiny(0, missing=missing)
    got = S.edge_log_bayes_factors(codes, y, V, K, w, ess=ess)
    assert np.all(np.diag(got) == 0)
    for i, j in itertools.permutations(range(len(V)), 2):
        np.testing.assert_allclose(got[i, j], _brute_log_bf(codes, y, V, K, w, i, j, ess), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_bdeu_is_score_equivalent_so_the_edge_weight_is_symmetric(seed):
    """log p(x_j | y, x_i) - log p(x_j | y) == log p(x_i | y, x_j) - log p(x_i | y), computed per direction."""
    codes, y, V, K, w = _tiny(seed, n=80)
    for i, j in itertools.combinations(range(len(V)), 2):
        forward = _brute_log_bf(codes, y, V, K, w, i, j)
        np.testing.assert_allclose(forward, _brute_log_bf(codes, y, V, K, w, j, i), rtol=1e-10, atol=1e-10)
    # the negative control: the same Dirichlet-multinomial with alpha=1 in every cell (K2) is not symmetric
    asym = [abs(_brute_log_bf(codes, y, V, K, w, i, j, bdeu=False)
                - _brute_log_bf(codes, y, V, K, w, j, i, bdeu=False))
            for i, j in itertools.combinations(range(len(V)), 2) if V[i] != V[j]]
    assert max(asym) > 1


def _noise_table(seed, n=400, d=6, levels=50):
    """d binary features given y (feature 1 a noisy copy of feature 0), then a ``levels``-level column independent of all."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = (rng.random((n, d)) < rng.uniform(0.2, 0.8, (2, d))[y]).astype(np.int64)
    X[:, 1] = np.where(rng.random(n) < 0.85, X[:, 0], 1 - X[:, 0])
    return np.column_stack([X, rng.integers(0, levels, n)]), y, [2] * d + [levels]


@pytest.mark.parametrize("seed", range(5))
def test_a_high_cardinality_noise_column_is_a_parent_under_mi_only(seed):
    X, y, V = _noise_table(seed)
    noise = X.shape[1] - 1
    for structure in ("tan", "kdb"):
        bdeu = S.learn_parents(X, y, V, 2, structure, 2)
        mi = S.learn_parents(X, y, V, 2, structure, 2, edge_score="mi")
        assert not any(noise in pa for pa in bdeu), (structure, bdeu)
        assert any(noise in pa for pa in mi), (structure, mi)
        # the strongly dependent pair is linked
        assert 0 in bdeu[1] or 1 in bdeu[0], (structure, bdeu)
    assert S.edge_log_bayes_factors(X, y, V, 2)[noise, :noise].max() < 0


def _forest_check(W, mi, parents):
    d = len(parents)
    assert all(len(pa) <= 1 for pa in parents)
    S.topological_order(parents)  # no cycle
    edges = {frozenset((j, pa[0])) for j, pa in enumerate(parents) if pa}
    assert len(edges) == sum(1 for pa in parents if pa)  # no edge taken twice
    assert all(W[j, pa[0]] > 0 for j, pa in enumerate(parents) if pa)
    pos = np.where(W > 0, W, 0.0)
    n_comp, label = connected_components(pos > 0, directed=False)
    assert len(edges) == d - n_comp  # spanning: one tree per component of the positive edges
    ref = -minimum_spanning_tree(-np.triu(pos)).toarray()  # scipy: the maximum-weight spanning forest
    np.testing.assert_allclose(sum(W[tuple(e)] for e in map(tuple, edges)), ref.sum(), rtol=1e-12)
    for c in range(n_comp):  # each tree rooted at its feature with the highest I(X; Y)
        members = np.flatnonzero(label == c)
        roots = [j for j in members if not parents[j]]
        assert roots == [members[np.argmax(mi[members])]]


@pytest.mark.parametrize("seed", range(4))
def test_tan_under_bdeu_is_the_maximum_spanning_forest_of_the_positive_edges(seed):
    rng = np.random.default_rng(seed)
    n, V = 300, [2, 3, 2, 4, 2, 3, 2, 2]
    y = rng.integers(0, 2, n)
    codes = np.column_stack([(rng.integers(0, v, n) * (rng.random(n) < 0.7) + y) % v for v in V])
    for a, b in [(0, 2), (2, 4), (5, 7)]:  # a few chains, the rest noise: several trees
        codes[:, b] = np.where(rng.random(n) < 0.7, codes[:, a] % V[b], codes[:, b])
    sc = S.edge_scores(codes, y, V, 2)
    parents = S.learn_parents(codes, y, V, 2, "tan", scores=sc)
    _forest_check(sc.weights, sc.class_mi, parents)
    assert sum(1 for pa in parents if pa) >= 3
    for j, pa in enumerate(S.learn_parents(codes, y, V, 2, "kdb", 2, scores=sc)):
        assert all(sc.weights[j, p] > 0 for p in pa)
        assert all(sc.class_mi[p] >= sc.class_mi[j] for p in pa)  # ranked before j
        assert list(pa) == sorted(pa, key=lambda p: -sc.weights[j, p])


def test_a_feature_with_no_positive_edge_keeps_no_parent():
    W = -np.ones((4, 4)) + np.diag([1.0] * 4)
    W[1, 2] = W[2, 1] = 0.5
    mi = np.array([0.1, 0.2, 0.3, 0.4])
    assert S.chow_liu_parents(W, 3, positive=True, mi=mi) == ((), (2,), (), ())
    assert S.kdb_parents(W, mi, 2, positive=True) == ((), (2,), (), ())
    # without the threshold: the spanning tree and k parents whatever their weight
    assert sum(1 for pa in S.chow_liu_parents(W, 3) if pa) == 3
    assert [len(pa) for pa in S.kdb_parents(W, mi, 2)] == [2, 2, 1, 0]


def test_mi_reproduces_the_mutual_information_tree_and_kdb_on_house_votes():
    d = load_house_votes()
    X, y = d.drop(columns="party"), d["party"]
    m = bayesnb.CategoricalNB().fit(X, y)
    codes, yc, V = m._encoded(X)[0], np.searchsorted(m.classes_, y), list(m.n_categories_)
    cmi = S.conditional_mutual_information(codes, yc, V, 2)
    mi = S.class_mutual_information(codes, yc, V, 2)
    tan = S.learn_parents(codes, yc, V, 2, "tan", edge_score="mi")
    assert tan == S.learn_parents(codes, yc, V, 2, "tan", scores=(cmi, mi))  # the pair of MIs is "mi"
    # the maximum spanning tree (scipy) directed away from the feature with the highest I(X; Y)
    tree = -minimum_spanning_tree(-np.triu(cmi)).toarray()
    adj = (tree + tree.T) != 0
    want, todo = [()] * len(V), [int(np.argmax(mi))]
    seen = set(todo)
    while todo:
        p = todo.pop()
        for c in np.flatnonzero(adj[p]):
            if c not in seen:
                want[c], _ = (p,), seen.add(c)
                todo.append(c)
    assert tan == tuple(want)
    for k in (1, 2, 3):
        order = np.argsort(-mi, kind="stable")
        want = [()] * len(V)
        for pos, j in enumerate(order):
            want[j] = tuple(sorted(order[:pos], key=lambda p: -cmi[j, p])[:k])
        assert S.learn_parents(codes, yc, V, 2, "kdb", k, edge_score="mi") == tuple(want)
    # BDeu drops at least one edge the MI tree keeps on this table, and keeps a forest
    bdeu = S.edge_scores(codes, yc, V, 2)
    forest = S.learn_parents(codes, yc, V, 2, "tan", scores=bdeu)
    _forest_check(bdeu.weights, bdeu.class_mi, forest)
    assert sum(1 for pa in forest if pa) < len(V) - 1


def test_estimators_learn_with_bdeu_by_default():
    X, y, V = _noise_table(0)
    m = bayesnb.CategoricalNB(structure="tan").fit(X, y)
    noise = X.shape[1] - 1
    assert not any(noise in pa for pa in m._mixed.parents)
    assert m._mixed.parents == S.learn_parents(m._encoded(X)[0], y, V, 2, "tan")


def test_arguments_are_checked():
    codes, y, V, K, w = _tiny(1)
    with pytest.raises(ValueError, match=r"edge_score in \('bdeu', 'mi', 'hierarchical'\); received 'bic'"):
        S.edge_scores(codes, y, V, K, edge_score="bic")
    for bad in (0, -1.0, np.inf, "1", True):
        with pytest.raises(ValueError, match="equivalent sample size"):
            S.edge_log_bayes_factors(codes, y, V, K, ess=bad)
    mi_scores = S.edge_scores(codes, y, V, K, edge_score="mi")
    with pytest.raises(ValueError, match="edge_score='bdeu'; received scores of edge_score='mi'"):
        S.learn_parents(codes, y, V, K, "tan", edge_score="bdeu", scores=mi_scores)
    assert S.learn_parents(codes, y, V, K, "tan", scores=mi_scores) == S.learn_parents(codes, y, V, K, "tan",
                                                                                      edge_score="mi")


def test_structure_package_reexports_learning():
    """``from bayesnb.structure import learn_parents`` keeps working: the package re-exports learn's public names."""
    import bayesnb.structure as package

    assert package.__all__ == S.__all__
    assert all(getattr(package, name) is getattr(S, name) for name in S.__all__)


@pytest.mark.parametrize("edge_score", ["bdeu", "mi"])
def test_forbidden_edges_are_never_learned_in_either_direction(edge_score):
    votes = load_house_votes()
    X, y = votes.drop(columns="party"), votes["party"].to_numpy()
    codes = np.column_stack([pd.factorize(X[c], use_na_sentinel=True)[0] for c in X.columns])
    V = codes.max(axis=0) + 1
    yc = (y == "republican").astype(int)
    scores = S.edge_scores(codes, yc, V, 2, edge_score=edge_score)
    free = {kind: S.learn_parents(codes, yc, V, 2, kind, scores=scores) for kind in ("tan", "kdb")}
    learned = {frozenset((j, p)) for pa in free.values() for j, ps in enumerate(pa) for p in ps}
    banned = sorted(tuple(sorted(e)) for e in learned)[:6]  # edges the free structures do take
    constrained = S.without_edges(scores, banned)
    assert np.isfinite(scores.weights[~np.eye(len(V), dtype=bool)]).all()  # the input is left as it was
    for kind in ("tan", "kdb"):
        pa = S.learn_parents(codes, yc, V, 2, kind, scores=constrained)
        edges = {frozenset((j, p)) for j, ps in enumerate(pa) for p in ps}
        assert not edges & {frozenset(e) for e in banned}, (kind, pa)
        assert edges, kind  # other edges are still learned


def test_estimator_forbidden_edges_by_name_and_clear_errors():
    votes = load_house_votes()
    X, y = votes.drop(columns="party"), votes["party"]
    free = bayesnb.NaiveBayes(structure="tan").fit(X, y).structure_
    banned = [(c, p[0]) for c, p in free.items() if p][:4]
    model = bayesnb.NaiveBayes(structure="tan", forbidden_edges=banned).fit(X, y)
    for child, parents in model.structure_.items():
        for a, b in banned:
            assert not (child == a and b in parents) and not (child == b and a in parents)
    with pytest.raises(ValueError, match="'nope', which is not a feature"):
        bayesnb.NaiveBayes(structure="tan", forbidden_edges=[("nope", "crime")]).fit(X, y)
    with pytest.raises(ValueError, match="pairs a feature with itself"):
        bayesnb.NaiveBayes(forbidden_edges=[("crime", "crime")]).fit(X, y)
    with pytest.raises(ValueError, match=r"list of \(feature, feature\) pairs"):
        bayesnb.NaiveBayes(forbidden_edges=["crime"]).fit(X, y)


def test_forbidden_edges_follow_names_when_blocks_reorder_the_columns():
    """On a mixed table the structure's nodes come in block order (categorical block first), not column order."""
    pg = load_penguins().dropna()
    X, y = pg.drop(columns="species"), pg["species"]
    free = bayesnb.NaiveBayes(structure="tan").fit(X, y).structure_
    banned = [(c, p[0]) for c, p in free.items() if p]
    assert any("sex" in pair for pair in banned)  # a categorical node meets a numeric one
    model = bayesnb.NaiveBayes(structure="tan", forbidden_edges=banned).fit(X, y)
    taken = {frozenset((c, p)) for c, ps in model.structure_.items() for p in ps}
    assert not taken & {frozenset(pair) for pair in banned}
    by_position = [(list(X.columns).index(a), list(X.columns).index(b)) for a, b in banned]
    again = bayesnb.NaiveBayes(structure="tan", forbidden_edges=by_position).fit(X, y)
    assert again.structure_ == model.structure_
