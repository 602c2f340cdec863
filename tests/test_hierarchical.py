"""Hierarchical smoothing (``alpha="hierarchical"``): bayesnb.structure.hierarchical against brute force."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln

import bayesnb
from bayesnb.families import Categorical
from bayesnb.structure.hierarchical import expected_tables, hierarchical_prior


def _counts(seed, shape, p=None, n=30):
    """Multinomial counts per context, from one distribution ``p`` or one drawn per context."""
    rng = np.random.default_rng(seed)
    *ctx, V = shape
    out = np.empty(shape)
    for idx in np.ndindex(*ctx):
        out[idx] = rng.multinomial(n, p if p is not None else rng.dirichlet(np.full(V, 0.3)))
    return out


def _dm_log_evidence(alpha, n):
    """Dirichlet-multinomial log evidence of every context (the row order of the counts), summed."""
    a0, N = alpha.sum(-1), n.sum(-1)
    return float(np.sum(gammaln(a0) - gammaln(a0 + N)) + np.sum(gammaln(alpha + n) - gammaln(alpha)))


def _table(seed=0, n=300):
    """Five categorical columns with dependencies given the class (a k-DB has work to do)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 3, n)
    b = (a + y + (rng.random(n) < 0.2)) % 3
    c = (b + (rng.random(n) < 0.3)) % 3
    d = np.where(rng.random(n) < 0.5, a, rng.integers(0, 3, n))
    e = rng.integers(0, 2, n) + y
    X = pd.DataFrame({k: np.char.add(k, v.astype(str)).astype(object) for k, v in zip("abcde", (a, b, c, d, e))})
    return X, y


@pytest.mark.parametrize("shape", [(2, 4), (2, 3, 4), (3, 2, 3, 4)])
def test_shapes_and_finite(shape):
    h = hierarchical_prior(_counts(0, shape))
    m = len(shape) - 2
    assert h.alpha.shape == shape and np.all(np.isfinite(h.alpha)) and np.all(h.alpha > 0)
    assert len(h.concentrations) == m
    assert [e.shape for e in h.estimates] == [shape[:lv + 1] + shape[-1:] for lv in range(m)]
    for e in h.estimates:
        np.testing.assert_allclose(e.sum(-1), 1.0)


def test_no_parents_with_the_class_level_on_top_is_the_flat_prior():
    n = _counts(1, (3, 5))
    h = hierarchical_prior(n, alpha_root=0.7, root="class")
    np.testing.assert_array_equal(h.alpha, np.full((3, 5), 0.7))
    assert h.concentrations == () and h.estimates == () and h.class_concentration is None


def test_no_nan_with_zero_counts():
    for n in (np.zeros((2, 3, 4)), np.zeros((2, 2, 3, 2))):
        h = hierarchical_prior(n)
        assert np.all(np.isfinite(h.alpha)) and np.all(h.alpha > 0)
        np.testing.assert_allclose(h.alpha / h.alpha.sum(-1, keepdims=True), 1.0 / n.shape[-1])
    n = _counts(2, (2, 3, 4))
    n[..., 0] = 0.0  # a value never seen anywhere
    h = hierarchical_prior(n)
    assert np.all(np.isfinite(h.alpha)) and np.all(h.alpha[..., 0] > 0)


def test_root_all_centres_each_class_on_all_classes():
    """``root="all"`` (Petitjean et al.'s top level, the default): without parents the classes'
    Dirichlets are centred on the all-classes estimate (``Dirichlet(alpha_root)`` + the classes'
    table counts), each without its own table counts, with concentration ``c_0``."""
    n = _counts(1, (3, 5))
    h = hierarchical_prior(n, alpha_root=0.7)
    assert h.concentrations == () and h.estimates == ()
    h2 = hierarchical_prior(n, alpha_root=0.7, root="all")
    np.testing.assert_array_equal(h2.alpha, h.alpha)  # the default
    c0 = h.class_concentration
    np.testing.assert_allclose(h.alpha.sum(-1), c0)
    tables = expected_tables(n, h.alpha)
    base = 0.7 + tables.sum(0) - tables  # the root's prior + tables, less the class's own
    np.testing.assert_allclose(h.alpha, c0 * base / base.sum(-1, keepdims=True), rtol=1e-3)  # at the fixed point
    np.testing.assert_allclose(h.root, (0.7 + tables.sum(0)) / (0.7 * 5 + tables.sum()), rtol=1e-3)
    assert hierarchical_prior(n, alpha_root=0.7, root="class").class_concentration is None


def test_root_all_keeps_the_levels_below_the_class():
    n = _counts(9, (2, 3, 4, 5))
    h = hierarchical_prior(n, root="all")
    assert h.alpha.shape == n.shape and len(h.concentrations) == 2 and h.root.shape == (5,)
    assert [e.shape for e in h.estimates] == [(2, 5), (2, 3, 5)]
    np.testing.assert_allclose(h.alpha.sum(-1), h.concentrations[-1])  # the leaves' c_m times a base


def test_root_all_class_concentration_higher_when_the_classes_share_one_distribution():
    """A column independent of the class pools its class tables (large c_0); one that separates the
    classes keeps them apart (small c_0)."""
    shared = hierarchical_prior(_counts(8, (4, 5), p=np.array([0.3, 0.3, 0.2, 0.1, 0.1]), n=200), root="all")
    differ = hierarchical_prior(_counts(8, (4, 5), n=200), root="all")
    assert shared.class_concentration > 10 * differ.class_concentration


def test_bad_root():
    with pytest.raises(ValueError, match="root"):
        hierarchical_prior(np.ones((2, 2, 3)), root="uniform")


def test_empty_context_gets_its_parents_estimate():
    n = _counts(3, (2, 3, 3, 4))
    n[1, 2, 0] = 0.0  # one leaf context with no rows
    h = hierarchical_prior(n)
    leaf = h.alpha[1, 2, 0]
    np.testing.assert_allclose(leaf / leaf.sum(), h.estimates[-1][1, 2])
    n = _counts(4, (2, 3, 4))
    n[0, 1] = 0.0
    h = hierarchical_prior(n)
    np.testing.assert_allclose(h.alpha[0, 1] / h.alpha[0, 1].sum(), h.estimates[0][0])


def test_invariant_to_permuting_contexts_within_a_level():
    n = _counts(5, (2, 3, 4, 5))
    h = hierarchical_prior(n)
    for axis, perm in ((0, [1, 0]), (1, [2, 0, 1]), (2, [3, 1, 0, 2])):
        hp = hierarchical_prior(np.take(n, perm, axis=axis))
        np.testing.assert_allclose(hp.alpha, np.take(h.alpha, perm, axis=axis), rtol=1e-6)
        np.testing.assert_allclose(hp.concentrations, h.concentrations, rtol=1e-6)


def test_concentration_higher_when_contexts_share_one_distribution():
    shared = hierarchical_prior(_counts(6, (2, 6, 4), p=np.array([0.4, 0.3, 0.2, 0.1])))
    differ = hierarchical_prior(_counts(6, (2, 6, 4)))
    assert shared.concentrations[0] > 10 * differ.concentrations[0]


def test_concentration_maximises_the_level_evidence():
    """One parent: c is the argmax of the leaves' evidence given the bases it was fitted with."""
    n = _counts(7, (2, 5, 3))
    h = hierarchical_prior(n)
    c = h.concentrations[0]
    base = h.alpha / c

    def ev(cc):
        return _dm_log_evidence(cc * base, n)

    assert ev(c) >= max(ev(c * 1.05), ev(c / 1.05))


def test_expected_tables_is_the_crp_sum():
    """E[tables] of n customers at a table with parameter a is sum_{i<n} a / (a + i) (Antoniak 1974)."""
    a = np.array([0.3, 1.0, 2.5, 7.0])
    for n in range(6):
        want = [sum(x / (x + i) for i in range(n)) for x in a]
        np.testing.assert_allclose(expected_tables(np.full(4, float(n)), a), want, rtol=1e-10)


@pytest.mark.parametrize("bad, match", [(np.ones(3), "shape"), (-np.ones((2, 3)), ">= 0"),
                                        (np.full((2, 3), np.nan), ">= 0")])
def test_bad_counts(bad, match):
    with pytest.raises(ValueError, match=match):
        hierarchical_prior(bad)


@pytest.mark.parametrize("root", [0.0, -1.0, [1.0, 2.0], np.nan])
def test_bad_alpha_root(root):
    with pytest.raises(ValueError, match="alpha_root"):
        hierarchical_prior(np.ones((2, 2, 3)), alpha_root=root)


# ------------------------------------------------------------------ the estimators
def _brute_counts(X, y, j, parents, cats, classes):
    """Counts of column j per (class, parents' values), from the rows directly."""
    cols = list(X.columns)
    shape = (len(classes), *(len(cats[cols[p]]) for p in parents), len(cats[cols[j]]))
    out = np.zeros(shape)
    for i in range(len(X)):
        idx = (list(classes).index(y[i]), *(cats[cols[p]].index(X.iloc[i, p]) for p in parents),
               cats[cols[j]].index(X.iloc[i, j]))
        out[idx] += 1
    return out


@pytest.mark.parametrize("structure", ["kdb", "tan"])
def test_structured_fit_is_conjugate_with_the_hierarchical_prior(structure):
    X, y = _table()
    est = bayesnb.NaiveBayes(alpha="hierarchical", structure=structure).fit(X, y)
    naive = bayesnb.NaiveBayes(alpha="hierarchical").fit(X, y)
    model = est._mixed
    cats = {c: sorted(X[c].unique()) for c in X.columns}
    names = list(X.columns)
    total = 0.0
    for j, pa in enumerate(model.parents):
        n = _brute_counts(X, y, j, pa, cats, est.classes_)
        alpha = hierarchical_prior(n).alpha
        prior = model.priors[j].concentration[0]
        post = model.posteriors[j].concentration[0]
        np.testing.assert_allclose(prior, alpha.reshape(-1, n.shape[-1]), rtol=1e-12)
        np.testing.assert_allclose(post, (alpha + n).reshape(-1, n.shape[-1]), rtol=1e-12)
        total += _dm_log_evidence(alpha, n)
        if not pa:  # a node without parents: the hierarchical naive model's prior of its column
            col = list(naive.posterior_.blocks[0].names).index(names[j])
            np.testing.assert_array_equal(prior, naive.posterior_.blocks[0].prior.concentration[col])
    assert np.isclose(model.log_evidence, total, rtol=1e-10)
    assert any(len(p) for p in model.parents) and names == list(est.structure_)
    # predict_proba is the posterior-mean tables: (alpha + n) / sum, multiplied along the structure
    logp = np.log(est.class_count_ + 1.0) - np.log(est.class_count_.sum() + len(est.classes_))
    joint = np.tile(logp, (len(X), 1))
    for j, pa in enumerate(model.parents):
        n = _brute_counts(X, y, j, pa, cats, est.classes_)
        a = hierarchical_prior(n).alpha + n
        table = a / a.sum(-1, keepdims=True)
        for i in range(len(X)):
            vals = tuple(cats[names[p]].index(X.iloc[i, p]) for p in pa)
            joint[i] += np.log(table[(slice(None), *vals, cats[names[j]].index(X.iloc[i, j]))])
    want = np.exp(joint - joint.max(1, keepdims=True))
    np.testing.assert_allclose(est.predict_proba(X), want / want.sum(1, keepdims=True), rtol=1e-9)


def test_naive_hierarchical_is_the_structure_with_empty_parent_sets():
    """``alpha="hierarchical"`` under naive is the same prior as under k-DB or TAN whose every edge is
    forbidden (empty parent sets): each class centred on the all-classes estimate, ``c_0`` fitted."""
    X, y = _table(1)
    naive = bayesnb.NaiveBayes(alpha="hierarchical").fit(X, y)
    blk = naive.posterior_.blocks[0]
    pairs = [(a, b) for a in X.columns for b in X.columns if a != b]
    for structure in ("kdb", "tan"):
        est = bayesnb.NaiveBayes(alpha="hierarchical", structure=structure, forbidden_edges=pairs).fit(X, y)
        model = est._mixed
        assert all(pa == () for pa in est.structure_.values()) and all(pa == () for pa in model.parents)
        for j, nd in enumerate(model.nodes):
            np.testing.assert_array_equal(model.priors[j].concentration[0], blk.prior.concentration[nd.col])
        np.testing.assert_allclose(est.predict_proba(X), naive.predict_proba(X), rtol=1e-12)
        np.testing.assert_allclose(est.log_evidence_, naive.log_evidence_, rtol=1e-12)
    cats = {c: sorted(X[c].unique()) for c in X.columns}
    for col, name in enumerate(blk.names):  # the prior from the counts directly: the all-classes top level
        n = _brute_counts(X, y, list(X.columns).index(name), (), cats, naive.classes_)
        h = hierarchical_prior(n, alpha_root=1.0, root="all")
        np.testing.assert_allclose(blk.prior.concentration[col], h.alpha, rtol=1e-12)
        np.testing.assert_allclose(blk.prior.concentration[col].sum(1), h.class_concentration, rtol=1e-12)
    flat = bayesnb.NaiveBayes(alpha=1.0).fit(X, y)
    assert not np.allclose(naive.predict_proba(X), flat.predict_proba(X))  # smoothed towards all classes
    c = bayesnb.CategoricalNB(alpha="hierarchical").fit(X, y)
    np.testing.assert_allclose(c.predict_proba(X), naive.predict_proba(X), rtol=1e-12)


def test_categorical_nb_and_naive_bayes_agree():
    X, y = _table(2)
    a = bayesnb.NaiveBayes(alpha="hierarchical", structure="kdb").fit(X, y)
    b = bayesnb.CategoricalNB(alpha="hierarchical", structure="kdb").fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10)
    assert np.isclose(a.log_evidence_, b.log_evidence_, rtol=1e-12)
    flat = bayesnb.NaiveBayes(alpha=1.0, structure="kdb").fit(X, y)
    assert a.structure_ == flat.structure_ and a.log_evidence_ != flat.log_evidence_


def test_hierarchical_model_file_round_trip(tmp_path):
    X, y = _table(3)
    est = bayesnb.NaiveBayes(alpha="hierarchical", structure="kdb").fit(X, y)
    est.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))


def test_refusals():
    X, y = _table(4, n=60)
    with pytest.raises(ValueError, match="alpha"):
        bayesnb.NaiveBayes(alpha="hierarchic", structure="kdb").fit(X, y)
    with pytest.raises(ValueError, match="m-estimate"):
        Categorical(alpha="hierarchical", m=2.0).make_prior(
            Categorical().stats(np.zeros((3, 1), np.int64), np.ones((3, 1)), Categorical().encode(np.zeros((3, 1)))[1]),
            Categorical().encode(np.zeros((3, 1)))[1])


@pytest.mark.parametrize("bounds, xatol", [((-5.0, 5.0), 1e-4), ((np.log(1e-3), np.log(1e4)), 1e-4),
                                           ((-1.0, 1e-9), 1e-3), ((2.0, 3.0), 1e-8), ((0.0, 0.0), 1e-4)])
def test_bounded_brent_takes_scipys_steps_bit_for_bit(bounds, xatol):
    """The search under every evidence maximisation is scipy's ``minimize_scalar(method="bounded")`` to the last
    bit (a port on Python floats, ~5x cheaper), on a smooth, a wiggly and a flat function and on the
    concentration evidence of a level of counts."""
    from scipy.optimize import minimize_scalar

    from bayesnb.structure.hierarchical import bounded_brent
    from bayesnb.structure.hierarchical import _level_evidence_fn

    n = _counts(3, (2, 3, 4))
    base = np.broadcast_to(n.sum((0, 1)) / n.sum(), n.shape)
    ev = _level_evidence_fn(n, base)
    for f in (lambda x: (x - 0.3) ** 2 * np.cosh(x) + 0.1 * np.sin(7 * x), lambda x: abs(x - 0.7), lambda x: 1.0,
              lambda t: -ev(float(np.exp(t)))):
        want = minimize_scalar(f, bounds=bounds, method="bounded", options={"xatol": xatol}).x
        assert bounded_brent(f, *bounds, xatol) == want


def test_bounded_brent_refuses_bad_bounds():
    from bayesnb.structure.hierarchical import bounded_brent

    with pytest.raises(ValueError, match="finite bounds"):
        bounded_brent(abs, 1.0, 0.0)
    with pytest.raises(ValueError, match="finite bounds"):
        bounded_brent(abs, 0.0, np.inf)


def test_a_repeated_table_gets_the_same_fit_and_its_own_arrays(monkeypatch):
    """hierarchical_prior keeps recent fits (a structure search refits the same node's counts for several
    candidates): a repeat returns what a fresh fit returns, in arrays of its own (changing them changes no later
    answer), a different table or option is fitted anew, and the cache keeps to its byte budget."""
    import bayesnb.structure.hierarchical as H

    # a cache of the test's own: the stand-in fits below must not stay in the process's cache
    monkeypatch.setattr(H, "_CACHE", type(H._CACHE)())
    monkeypatch.setattr(H, "_CACHE_TOTAL", [0])
    n = _counts(5, (2, 3, 4))
    first = hierarchical_prior(n, root="all")
    calls = []
    monkeypatch.setattr(H, "_fit", lambda *a: calls.append(a) or H.HierarchicalPrior(np.zeros(1), (), ()))
    again = hierarchical_prior(n.copy(), root="all")
    assert calls == []  # served from the cache
    assert np.array_equal(again.alpha, first.alpha) and again.concentrations == first.concentrations
    assert again.class_concentration == first.class_concentration and np.array_equal(again.root, first.root)
    assert all(np.array_equal(a, b) for a, b in zip(again.estimates, first.estimates))
    again.alpha[:] = -1.0
    again.estimates[0][:] = -1.0
    assert np.array_equal(hierarchical_prior(n).alpha, first.alpha) and hierarchical_prior(n).estimates[0].min() > 0
    for other in ({"root": "class"}, {"alpha_root": 0.5}, {"noise_var": 3.0}):
        hierarchical_prior(n, **other)
    hierarchical_prior(n + 1.0)
    assert len(calls) == 4
    monkeypatch.undo()
    monkeypatch.setattr(H, "CACHE_BYTES", 3 * n.nbytes + 600)
    monkeypatch.setattr(H, "_CACHE", type(H._CACHE)())
    monkeypatch.setattr(H, "_CACHE_TOTAL", [0])
    for k in range(3):
        hierarchical_prior(n + k)
    assert len(H._CACHE) == 1 and H._CACHE_TOTAL[0] <= H.CACHE_BYTES
    monkeypatch.undo()  # later callers in this process get real fits, not the stand-ins
    assert all(hierarchical_prior(n, **o).alpha.shape == n.shape for o in ({"root": "class"}, {"alpha_root": 0.5}))
