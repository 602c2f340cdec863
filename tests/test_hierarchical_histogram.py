"""Hierarchical smoothing of Histogram nodes under TAN / k-DB (issue 25): each (class, parents)
context's Dirichlet over the bins is centred on its parent context's bin probabilities."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln

import bayesnb
from bayesnb.families import Histogram
from bayesnb.structure.hierarchical import CONCENTRATION_BOUNDS, hierarchical_prior

ALPHA = 0.5  # the unit tests' Histogram pseudo-count


def _table(seed=0, n=600):
    """Two categorical columns and two whole-number ones with negatives (``features="auto"`` gives them
    Histogram blocks); u depends on the class, on x and on ``a``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.3 + 0.4 * y, "p", "q")
    b = np.where(rng.random(n) < 0.5, "r", "s")
    x = np.round(rng.normal(5 * y, 4))
    u = np.round(x + 6 * (a == "p") + rng.normal(0, 2, n))
    return pd.DataFrame({"a": a, "b": b, "x": x, "u": u}), y


def _fit(seed=0, **kw):
    X, y = _table(seed)
    est = bayesnb.NaiveBayes(structure="kdb", k=2, **kw).fit(X, y)
    assert all(isinstance(est._mixed.nodes[j].family, Histogram) for j in _numeric_nodes(est))
    return est, X, y


def _alpha(m, j):
    return m.nodes[j].family.alpha


def _dm(alpha, n):
    """Dirichlet-multinomial log evidence summed over contexts (rows)."""
    return float(np.sum(gammaln(alpha.sum(-1)) - gammaln((alpha + n).sum(-1)))
                 + np.sum(gammaln(alpha + n) - gammaln(alpha)))


def _numeric_nodes(est):
    m = est._mixed
    return [j for j, nd in enumerate(m.nodes) if nd.numeric]


def test_histogram_has_a_hierarchical_variant_that_keeps_bins_and_alpha():
    h = Histogram(bins=7, alpha=0.3).hierarchical_variant()
    assert (h.bins, h.alpha, h.hierarchical) == (7, 0.3, True)


def test_no_parents_is_the_naive_prior():
    """Without parents the prior is the class level under the all-classes ``Dirichlet(alpha)``: the
    hierarchical naive model's (``make_prior``), not the flat one."""
    fam = Histogram(bins=4, alpha=ALPHA, hierarchical=True)
    block, state = fam.encode(np.random.default_rng(1).normal(size=(50, 1)))
    resp = np.eye(3)[np.random.default_rng(2).integers(0, 3, 50)]
    st = fam.stats(block, resp, state)
    prior = fam.context_prior(st, state, (3,))
    np.testing.assert_array_equal(prior.concentration[0], fam.make_prior(st, state).concentration[0])
    h = hierarchical_prior(st.counts[0], alpha_root=ALPHA, root="all")
    np.testing.assert_allclose(prior.concentration[0], h.alpha, rtol=1e-12)
    assert not np.allclose(prior.concentration[0], ALPHA)
    flat = Histogram(bins=4, alpha=ALPHA)
    np.testing.assert_array_equal(flat.make_prior(st, state).concentration[0], np.full(h.alpha.shape, ALPHA))


def test_kdb_default_uses_it_and_a_root_node_is_the_hierarchical_naive_one():
    est, X, y = _fit()
    assert est.structure_hierarchical_
    m = est._mixed
    nodes = _numeric_nodes(est)
    assert all(m.nodes[j].family.hierarchical for j in nodes)
    for j in nodes:
        if not m.parents[j]:  # no parents: the class level under the all-classes Dirichlet(alpha)
            want = hierarchical_prior(m.stats[j].counts[0], alpha_root=_alpha(m, j), root="all").alpha
            np.testing.assert_allclose(m.priors[j].concentration[0], want, rtol=1e-12)
    # the same node under the flat prior (alpha given) differs, with parents or without
    flat = bayesnb.NaiveBayes(structure="kdb", k=2, alpha=1.0).fit(X, y)
    assert flat.structure_ == est.structure_
    assert any(m.parents[j] for j in nodes) and any(not m.parents[j] for j in nodes)
    for j in nodes:
        assert not np.array_equal(m.priors[j].concentration[0], flat._mixed.priors[j].concentration[0])


def _with_parents(est):
    m = est._mixed
    j = next(j for j in _numeric_nodes(est) if m.parents[j])
    return m, j


def test_context_probabilities_lie_between_own_frequencies_and_parent_estimate():
    est, _, _ = _fit()
    m, j = _with_parents(est)
    a = m.priors[j].concentration[0]  # (C, B): c * base per context
    n = m.stats[j].counts[0]
    c = a.sum(1)
    np.testing.assert_allclose(c, c[0])  # one concentration for the leaf level
    assert CONCENTRATION_BOUNDS[0] * 1.01 < c[0] < CONCENTRATION_BOUNDS[1] / 1.01
    base = a / c[:, None]
    post = (a + n) / (a + n).sum(1, keepdims=True)
    seen = n.sum(1) > 0
    own = n[seen] / n[seen].sum(1, keepdims=True)
    lo, hi = np.minimum(own, base[seen]), np.maximum(own, base[seen])
    assert np.all(post[seen] >= lo - 1e-12) and np.all(post[seen] <= hi + 1e-12)
    assert np.any(post[seen] > lo + 1e-6) and np.any(post[seen] < hi - 1e-6)  # strictly inside somewhere
    # the base is not the flat Dirichlet(alpha): the contexts are centred on their parents' estimates
    assert np.ptp(base[seen], axis=1).max() > 0.05


def test_leaf_concentration_maximises_the_evidence_on_a_grid():
    est, _, _ = _fit()
    m, j = _with_parents(est)
    a = m.priors[j].concentration[0]
    n = m.stats[j].counts[0]
    c = a.sum(1)[0]
    base = a / c
    grid = np.exp(np.linspace(np.log(CONCENTRATION_BOUNDS[0]), np.log(CONCENTRATION_BOUNDS[1]), 2001))
    ev = np.array([_dm(g * base, n) for g in grid])
    best = grid[np.argmax(ev)]
    step = grid[1] / grid[0]
    assert best / step**1.5 <= c <= best * step**1.5
    assert _dm(c * base, n) >= ev.max() - 1e-6
    # the node's evidence in the model is this Dirichlet-multinomial less the cells' log widths
    lw = m.stats[j].log_width[0].sum()
    assert np.isclose(float(np.sum(m.nodes[j].family.log_evidence(m.priors[j], m.posteriors[j]))),
                      _dm(a, n) - lw, rtol=1e-10)


def test_model_file_round_trip(tmp_path):
    est, X, _ = _fit(3)
    est.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    assert back.structure_hierarchical_
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(back.score_samples(X), est.score_samples(X))


def test_alpha_hierarchical_switches_histogram_nodes_too(tmp_path):
    """``alpha="hierarchical"`` given explicitly: the k-DB default's model, the hierarchical class level under naive,
    and a TAN whose Histogram blocks are saved with ``hierarchical=True``."""
    est, X, y = _fit()
    given = bayesnb.NaiveBayes(structure="kdb", k=2, alpha="hierarchical").fit(X, y)
    np.testing.assert_array_equal(given.predict_proba(X), est.predict_proba(X))
    assert given.log_evidence_ == est.log_evidence_
    naive = [bayesnb.NaiveBayes(alpha=a).fit(X, y) for a in ("hierarchical", 1.0)]
    assert not np.allclose(naive[0].predict_proba(X), naive[1].predict_proba(X))
    hist = [b for b in naive[0].posterior_.blocks if isinstance(b.family, Histogram)]
    assert hist and all(b.family.hierarchical for b in hist)
    for b in hist:  # each column's class level under the all-classes Dirichlet(alpha)
        for c, n in zip(b.prior.concentration, b.stats.counts):
            want = hierarchical_prior(n, alpha_root=b.family.alpha, root="all").alpha
            np.testing.assert_allclose(c, want, rtol=1e-12)
    tan = bayesnb.NaiveBayes(structure="tan", alpha="hierarchical").fit(X, y)
    flat = bayesnb.NaiveBayes(structure="tan", alpha=1.0).fit(X, y)
    m = tan._mixed
    hist = [j for j in _numeric_nodes(tan) if m.parents[j]]
    assert hist and all(m.nodes[j].family.hierarchical for j in hist)
    assert all(not np.array_equal(m.priors[j].concentration[0], flat._mixed.priors[j].concentration[0]) for j in hist)
    tan.save(tmp_path / "tan.bnb")
    back = bayesnb.load(tmp_path / "tan.bnb")
    np.testing.assert_array_equal(back.predict_proba(X), tan.predict_proba(X))


def test_hierarchical_must_be_a_bool():
    fam = Histogram(bins=4, hierarchical="yes")
    block, state = fam.encode(np.arange(20.0)[:, None])
    st = fam.stats(block, np.ones((20, 1)), state)
    with pytest.raises(ValueError, match="hierarchical must be True or False"):
        fam.context_prior(st, state, (1, 2))
