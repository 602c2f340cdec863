"""structure="tan" | "kdb" | "auto" under privacy=DP(...): the private structured fit and its uses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb as bn
from bayesnb.privacy import analytic_gaussian_sigma
from bayesnb.structure import engine as _mx
from bayesnb.structure.bins import N_BINS
from bayesnb.structure.private_fit import AUTO_MIN_SNR, STRUCTURE_SHARE, auto_kind, declared_edges, naive_block_stats

# the same tables, declarations and fixtures as test_privacy.py (imported fixtures are registered)
from test_privacy import BOUNDS, CATS, NUMERIC, PARTIES, SPECIES, penguins, votes  # noqa: E402,F401
from test_privacy import penguin_features as features  # noqa: E402


def private_penguins(X, y, structure="tan", eps=5.0, seed=0, **kw):
    dp = bn.DP(eps, bounds=BOUNDS, classes=SPECIES, random_state=seed)
    return bn.NaiveBayes(features(), structure=structure, privacy=dp, **kw).fit(X, y)


def private_votes(X, y, structure="tan", eps=5.0, seed=0, **kw):
    return bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], structure=structure,
                            privacy=bn.DP(eps, classes=PARTIES, random_state=seed), **kw).fit(X, y)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_the_account_covers_the_structure_and_every_node(penguins, structure):
    X, y = penguins
    m = private_penguins(X, y, structure)
    spent = m.privacy_spent_
    assert m.structure_kind_ == structure
    split = spent["split"]
    eps = [e for e, _ in split.values()]
    assert abs(sum(eps) - 5.0) < 1e-9
    key = next(k for k in split if k.startswith("structure"))
    assert split[key] == (5.0 * STRUCTURE_SHARE, 0.0)
    assert sum(k.startswith("node ") for k in split) == X.shape[1]
    # a Gaussian node releases three statistics, a Categorical one: three times the share
    gauss = next(v for k, v in split.items() if "Gaussian" in k)[0]
    cat = next(v for k, v in split.items() if "(Categorical" in k)[0]
    assert np.isclose(gauss, 3 * cat) and np.isclose(split["class_count"][0], cat)
    parents = m.structure_
    assert sum(len(p) == 0 for p in parents.values()) >= 1
    assert all(len(p) <= (1 if structure == "tan" else 2) for p in parents.values())


def test_the_gaussian_mechanism_gives_delta_to_the_tables_only(votes):
    X, y = votes
    m = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], structure="tan", privacy=bn.DP(
        1.0, delta=1e-6, mechanism="gaussian", classes=PARTIES, random_state=0)).fit(X, y)
    split = m.privacy_spent_["split"]
    assert np.isclose(sum(d for _, d in split.values()), 1e-6)
    assert next(v for k, v in split.items() if k.startswith("structure"))[1] == 0.0


def test_class_share_sets_the_class_counts_fraction_of_the_tables_budget(votes):
    X, y = votes
    m = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], structure="tan", privacy=bn.DP(
        2.0, classes=PARTIES, random_state=0, class_share=0.05)).fit(X, y)
    split = m.privacy_spent_["split"]
    tables = 2.0 * (1 - STRUCTURE_SHARE)
    assert np.isclose(split["class_count"][0], 0.05 * tables)
    nodes = [v[0] for k, v in split.items() if k.startswith("node ")]
    assert np.allclose(nodes, 0.95 * tables / X.shape[1]) and np.isclose(sum(v[0] for v in split.values()), 2.0)


def test_numeric_bins_come_from_the_declared_bounds(penguins):
    X, y = penguins
    m = private_penguins(X, y)
    edges = dict(zip(m.structure_, [None] * X.shape[1]))
    names = [str(n) for b in m.posterior_.blocks for n in b.names]
    edges = dict(zip(names, m.structure_bin_edges_))
    for col, (lo, hi) in BOUNDS.items():
        np.testing.assert_allclose(edges[col], np.linspace(lo, hi, N_BINS + 1)[1:-1])
    np.testing.assert_allclose(declared_edges(0, 10), [2, 4, 6, 8])
    # the bins do not move with the data: the same edges on a table of other values
    X2 = X.copy()
    X2["body_mass_g"] = 4000.0
    m2 = private_penguins(X2, y)
    names2 = [str(n) for b in m2.posterior_.blocks for n in b.names]
    np.testing.assert_allclose(dict(zip(names2, m2.structure_bin_edges_))["body_mass_g"], edges["body_mass_g"])


def test_a_large_budget_tends_to_the_exact_tables(votes):
    X, y = votes
    m = private_votes(X, y, eps=1e7, alpha=1.0)
    model, K = m._mixed, len(m.classes_)
    data = _mx.node_data(model.nodes, m._encoded(X))
    exact = _mx.node_stats(model.nodes, data, np.searchsorted(m.classes_, y), np.ones(len(y)), K, model.parents)
    for a, b in zip(model.stats, exact):
        for u, v in zip(a.counts, b.counts):
            np.testing.assert_allclose(u, v, atol=0.01)
    np.testing.assert_allclose(m.class_count_, np.unique(y, return_counts=True)[1], atol=0.01)
    assert any(model.parents)


def test_the_naive_statistics_are_the_nodes_summed_over_their_parents(votes):
    X, y = votes
    m = private_votes(X, y)
    model = m._mixed
    K = len(m.classes_)
    naive = naive_block_stats(model.nodes, model.parents, model.stats, K, len(m.posterior_.blocks))
    for a, b in zip(naive[0].counts, m.posterior_.blocks[0].stats.counts):
        np.testing.assert_allclose(a, b)
    j = next(j for j, p in enumerate(model.parents) if p)
    nd = model.stats[j].counts[0]
    np.testing.assert_allclose(nd.reshape(K, -1, nd.shape[1]).sum(1), m.posterior_.blocks[0].stats.counts[j])
    assert all(np.all(c >= 0) for st in model.stats for c in st.counts)


def test_every_use_works_on_the_private_structured_model(penguins, tmp_path):
    X, y = penguins
    m = private_penguins(X, y, "tan", eps=5.0)
    proba = m.predict_proba(X)
    assert proba.shape == (len(X), 3) and np.allclose(proba.sum(1), 1)
    assert np.mean(m.predict(X) == y) > 0.5
    assert np.all(np.isfinite(m.score_samples(X)))
    Xs, ys = m.sample(300, random_state=1)
    assert len(Xs) == 300 and set(ys) <= set(SPECIES)
    for col, (lo, hi) in BOUNDS.items():  # draws respect the declared support
        assert Xs[col].between(lo, hi).all()
    Xg, _ = m.sample(50, random_state=2, given={"island": "Dream"})
    assert (Xg["island"] == "Dream").all()
    for eps in (0.3, 5.0):  # conditional draws and imputations keep to the declared support too
        low = private_penguins(X, y, "tan", eps=eps)
        Xg, _ = low.sample(500, random_state=2, given={"island": "Dream"})
        holes = X.copy()
        holes.loc[::2, list(NUMERIC)] = np.nan
        for strategy in ("draw", "mean"):
            filled = low.impute(holes, random_state=0, strategy=strategy)
            for col, (lo, hi) in BOUNDS.items():
                assert Xg[col].between(lo, hi).all() and filled[col].between(lo, hi).all()
    holes = X.head(40).copy()
    holes.loc[::3, "bill_length_mm"] = np.nan
    holes.loc[1::3, "island"] = np.nan
    filled = m.impute(holes, random_state=0)
    assert not filled.isna().any().any()
    path = tmp_path / "private_tan.bnb"
    m.save(path)
    back = bn.load(path)
    assert back.structure_ == m.structure_ and back.privacy_spent_ == m.privacy_spent_
    np.testing.assert_allclose(back.predict_proba(X), proba)


def test_kdb_on_house_votes_predicts_samples_and_round_trips(votes, tmp_path):
    X, y = votes
    m = private_votes(X, y, "kdb", eps=5.0)
    assert m.structure_kind_ == "kdb" and m.structure_hierarchical_
    assert np.mean(m.predict(X) == y) > 0.8
    Xs, _ = m.sample(100, random_state=0)
    assert set(np.unique(Xs.to_numpy().astype(str))) <= {"n", "y"}
    path = tmp_path / "private_kdb.bnb"
    m.save(path)
    np.testing.assert_allclose(bn.load(path).predict_proba(X), m.predict_proba(X))


def test_the_same_seed_gives_the_same_model_and_another_seed_another(votes):
    X, y = votes
    a, b, c = private_votes(X, y, seed=3), private_votes(X, y, seed=3), private_votes(X, y, seed=4)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.allclose(a.predict_proba(X), c.predict_proba(X))


def test_auto_chooses_by_a_public_rule(votes):
    X, y = votes
    n, d = len(y), X.shape[1]
    specs, states = [(list(range(d)), bn.Categorical(categories=[["n", "y"]] * d))], None
    states = [specs[0][1].encode(X.to_numpy(object))[1]]
    # the ratio: rows per cell of a TAN table (n / (K V^2), V = 2) over the Laplace scale 2 S / eps_tables
    S = 1 + d
    kind, ratio = auto_kind(n, bn.DP(1.0), 2, specs, states)
    assert np.isclose(ratio, n / 8 / (2 * S / (1 - STRUCTURE_SHARE)))
    eps_at = AUTO_MIN_SNR / ratio  # the epsilon where the rule switches
    assert auto_kind(n, bn.DP(1.01 * eps_at), 2, specs, states)[0] == "tan"
    assert auto_kind(n, bn.DP(0.99 * eps_at), 2, specs, states)[0] == "naive"
    # the Gaussian mechanism: the scale is the sd of one count, its share of mu**2 being 1 / S of the tables'
    g = bn.DP(1.0, delta=1e-6, mechanism="gaussian")
    sd = analytic_gaussian_sigma(np.sqrt(2.0), 1 - STRUCTURE_SHARE, 1e-6) * np.sqrt(S)
    assert np.isclose(auto_kind(n, g, 2, specs, states)[1], n / 8 / sd, rtol=1e-6)
    small = private_votes(X, y, "auto", eps=0.99 * eps_at, auto_cv=False)
    large = private_votes(X, y, "auto", eps=1.01 * eps_at, auto_cv=False)
    assert small.structure_kind_ == "naive" and not any(k.startswith("structure") for k in small.privacy_spent_["split"])
    assert large.structure_kind_ == "tan"


def test_numeric_nodes_take_no_parents_but_may_be_parents(penguins):
    X, y = penguins
    seen = set()
    for seed in range(4):
        for structure in ("tan", "kdb"):
            m = private_penguins(X, y, structure, eps=50.0, seed=seed)
            assert all(m.structure_[c] == () for c in NUMERIC)
            seen |= {p for c in ("island", "sex", "year") for p in m.structure_[c]}
    assert seen & set(NUMERIC)


def test_forbidden_edges_hold_under_privacy(votes):
    X, y = votes
    cols = list(X.columns)
    pairs = [(cols[0], c) for c in cols[1:]]
    for seed in range(3):
        m = private_votes(X, y, seed=seed, forbidden_edges=pairs)
        assert all(cols[0] not in p for c, p in m.structure_.items() if c != cols[0])
        assert m.structure_[cols[0]] == ()


def test_a_pandas_categorical_does_not_count_as_declared_under_a_structure(votes):
    X, y = votes
    with pytest.raises(ValueError, match="categories must be declared"):
        bn.CategoricalNB(structure="tan", privacy=bn.DP(1.0, classes=PARTIES)).fit(X.astype("category"), y)
    assert isinstance(X, pd.DataFrame)


def test_a_batched_node_release_is_the_one_release_and_empty_contexts_get_noise(monkeypatch):
    """The contexts released in batches (memory) draw the same noise, in the same order, as one call,
    and a context with no rows is released too (its emptiness is not revealed)."""
    from bayesnb.privacy import Budget
    from bayesnb.structure import private_fit

    fam = bn.Categorical(categories=[["a", "b", "c"]])
    rng = np.random.default_rng(0)
    codes, state = fam.encode(rng.choice(["a", "b", "c"], 200).astype(object)[:, None])
    nd = _mx.Node(0, 0, fam, state, False, 3, np.empty(0), None)
    ctx = rng.integers(0, 12, 200)
    ctx[ctx == 7] = 8  # context 7 has no rows
    ctx[:5] = -1  # rows not counted (a missing parent)
    one = private_fit._node_release(nd, codes, ctx, 12, Budget(1.0, 0.0, "laplace", np.random.default_rng(1)),
                                    None, "x", "test")
    monkeypatch.setattr(private_fit, "MAX_CELLS", 400)  # 195 rows: batches of 2 contexts
    many = private_fit._node_release(nd, codes, ctx, 12, Budget(1.0, 0.0, "laplace", np.random.default_rng(1)),
                                     None, "x", "test")
    np.testing.assert_array_equal(one.counts[0], many.counts[0])
    exact = np.zeros((12, 3))
    np.add.at(exact, (ctx[ctx >= 0], codes[ctx >= 0, 0]), 1)
    assert exact[7].sum() == 0
    draws = [private_fit._node_release(nd, codes, ctx, 12, Budget(1.0, 0.0, "laplace", np.random.default_rng(s)),
                                       None, "x", "test").counts[0][7] for s in range(20)]
    # released with noise, then projected onto its noisy total: non-zero whenever that total is positive
    # (about half the seeds), never the same twice when it is
    positive = [tuple(d) for d in draws if d.sum() > 0]
    assert 0.2 < len(positive) / len(draws) < 0.8 and len(set(positive)) == len(positive)


def test_poisson_lognormal_and_hurdle_nodes_fit_privately_and_a_family_without_a_release_is_refused():
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(["a", "b"], n)
    df = pd.DataFrame({"c": rng.choice(["u", "v", "w"], n), "cnt": rng.poisson(3, n),
                       "gain": np.where(rng.random(n) < 0.6, 0.0, rng.lognormal(3, 1, n)),
                       "ln": rng.lognormal(1, 0.5, n)})
    feats = {"c": bn.Categorical(categories=[["u", "v", "w"]]), "cnt": bn.Poisson(),
             "gain": bn.Hurdle(bn.LogNormal()), "ln": bn.LogNormal()}
    bounds = {"cnt": (0, 20), "gain": (1, 1000), "ln": (0.1, 50)}
    for structure in ("tan", "kdb"):
        m = bn.NaiveBayes(feats, structure=structure,
                          privacy=bn.DP(5.0, classes=["a", "b"], bounds=bounds, random_state=0)).fit(df, y)
        assert m.structure_kind_ == structure and all(m.structure_[c] == () for c in ("cnt", "gain", "ln"))
        Xs, _ = m.sample(200, random_state=0)
        assert Xs["cnt"].between(0, 20).all() and Xs["ln"].between(0.1, 50).all()
        holes = df.head(30).copy()
        holes.loc[::2, "ln"] = np.nan
        holes.loc[1::2, "cnt"] = np.nan
        assert not m.impute(holes, random_state=0).isna().any().any()
    with pytest.raises(NotImplementedError, match="Histogram block has no differentially private release"):
        bn.NaiveBayes({"c": bn.Categorical(categories=[["u", "v", "w"]]), ("ln",): bn.Histogram()}, structure="tan",
                      privacy=bn.DP(1.0, classes=["a", "b"], bounds={"ln": (0.1, 50)})).fit(df[["c", "ln"]], y)
