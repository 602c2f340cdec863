"""Synthesizer(support="backoff"): thin contexts draw their posterior predictive on the pairs seen in training.

(bayesnb.synth.backoff.) A context with fewer rows than its prior's strength backs off to its
posterior predictive, restricted to the values seen with its class and with each parent's state.
A context with enough rows keeps its counts, as on the observed support."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnb import Synthesizer
from bayesnb.synth.backoff import backoff_rule, pairwise_support
from bayesnb.synth.observed_support import observed_support
from bayesnb.families import Categorical
from bayesnb.families.categorical import Dirichlets


@pytest.fixture(scope="module")
def table():
    """3,000 rows of four linked categorical columns with rare values (thin contexts)."""
    rng = np.random.default_rng(3)
    n = 3000
    a = rng.choice(6, n, p=[0.4, 0.3, 0.15, 0.1, 0.04, 0.01])
    b = (a + rng.choice(4, n, p=[0.7, 0.2, 0.07, 0.03])) % 8
    c = np.where(rng.random(n) < 0.6, (a * b) % 7, rng.integers(7, size=n))
    d = np.where(rng.random(n) < 0.7, (b + c) % 5, rng.integers(5, size=n))
    y = np.where(rng.random(n) < 0.8, (a + d) % 2, rng.integers(2, size=n))
    return pd.DataFrame({"a": [f"a{v}" for v in a], "b": [f"b{v}" for v in b], "c": [f"c{v}" for v in c],
                         "d": [f"d{v}" for v in d], "y": [f"y{v}" for v in y]})


def _fit(df, support, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Synthesizer(target="y", structure="kdb", latent=None, random_state=0, support=support, **kw).fit(df)


def test_pairwise_support_by_hand():
    # two classes x two parent states, three values; context (k, s) is row 2k + s
    counts = np.array([[2.0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 1, 0]])
    got = pairwise_support(counts, (2, 2))
    # value 0 seen with class 0 and with parent state 0; value 1 with class 1 and parent state 1
    np.testing.assert_array_equal(got, [[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="do not factor"):
        pairwise_support(counts, (3, 2))


def test_the_rule_keeps_counts_where_data_outweigh_the_prior_and_backs_off_elsewhere():
    prior = np.array([[1.0, 1.0, 1.0], [0.5, 0.25, 0.25], [0.3, 0.3, 0.4]])  # strengths 3, 1, 1
    counts = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    got = backoff_rule((3,))(prior, prior + counts)  # one factor (the class): the support is the class's own values
    np.testing.assert_allclose(got[0], [2.0, 0.0, 2.0])  # N = 2 < 3: predictive on the values seen with the class
    np.testing.assert_allclose(got[1], [0.0, 2.0, 0.0])  # N = 2 >= 1: its counts
    np.testing.assert_allclose(got[2], prior[2])  # no values seen in that class: its prior
    # the family applies it per column; without a rule it keeps the observed support
    post = Dirichlets((prior + counts,))
    np.testing.assert_allclose(Categorical().gen_observed_support(Dirichlets((prior,)), post, backoff_rule((3,)))
                               .concentration[0], got)


def test_backoff_never_draws_a_value_outside_the_support_it_promises(table):
    synth = _fit(table, "backoff")
    model = synth.model_
    mixed = model._structure_fitted()
    assert any(mixed.parents), "the fixture should give a structure with parents"
    drawn = observed_support(model, "backoff")._structure_fitted()
    for j, (pa, pr, po, dr) in enumerate(zip(mixed.parents, mixed.priors, mixed.posteriors, drawn.posteriors)):
        a0, a, got = pr.concentration[0], po.concentration[0], dr.concentration[0]
        n = np.maximum(a - a0, 0)
        axes = (mixed.n_classes, *(mixed.nodes[p].n_states for p in pa))
        full = n.sum(1) >= a0.sum(1)
        promised = np.where(full[:, None], n > 0, pairwise_support(n, axes))
        fallback = (promised.sum(1) == 0)[:, None] & (got == a0)  # nothing promised: the prior, as documented
        assert ((got == 0) | promised | fallback).all(), f"node {j} puts mass outside its promised support"
        assert (got[full] == n[full]).all()  # a context with enough rows keeps its counts
    # and in the rows: every linked pair (parent, child) and (class, value) drawn was seen in training
    rows = synth.sample(20000, random_state=5)
    links = model.structure_
    assert any(links.values())
    for child, parents in links.items():
        for p in list(parents) + ["y"]:
            assert set(zip(rows[p], rows[child])) <= set(zip(table[p], table[child])), (p, child)


def test_backoff_is_deterministic_with_random_state_and_differs_from_observed(table):
    back, obs = _fit(table, "backoff"), _fit(table, "observed")
    one, two = back.sample(3000, random_state=7), back.sample(3000, random_state=7)
    pd.testing.assert_frame_equal(one, two)
    assert not one.equals(obs.sample(3000, random_state=7))  # thin contexts back off
    # between observed and smoothed: no unseen pair beyond observed's on the linked columns
    smooth = _fit(table, "smoothed").sample(20000, random_state=1)
    rows = back.sample(20000, random_state=1)

    pairs = {(u, v): set(zip(table[u], table[v])) for u, v in itertools.combinations(table.columns, 2)}

    def unseen(df):
        return np.mean([any((r[u], r[v]) not in pairs[(u, v)] for u, v in pairs) for _, r in df.iterrows()])
    assert unseen(rows.head(3000)) < unseen(smooth.head(3000))


def test_a_bad_support_is_refused(table):
    with pytest.raises(ValueError, match="support must be one of"):
        _fit(table, "thin")
    with pytest.raises(ValueError, match="support must be 'observed' or 'backoff'"):
        observed_support(_fit(table, "backoff").model_, "smoothed")
