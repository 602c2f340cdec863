"""``sample(latent=fit, given=sets/ranges, forbid=, y=set, return_probability=)`` under TAN / k-DB
(issue 25): the same message passing the structured sampler uses, on the model over the latent
(class, component) states, each row's state drawn from ``p(state | condition)``.

Exactness: on a tiny table, a latent-class model at one random draw (components far apart) is
enumerated by brute force from the draw's numbers; 20,000 constrained rows match
``p(x, y | condition)`` (chi-squared, p > 0.01), ``p`` equals the enumerated probability of the
condition, and a sampler that draws the state from the state weights without the condition (then
the cells given it) is rejected (negative control, p < 1e-6). On a mixed table: ranges and sets hold,
and ``p`` is additive over disjoint conditions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from bayesnb import CategoricalNB, NaiveBayes
from bayesnb.datasets import load_penguins
from bayesnb.generative.latent import latent_class_draws
from latent_structure import brute_states, random_draw, tiny

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
N = 20_000


def _point_fit(cls, structure, seed):
    X, y = tiny(0, 120)
    m = cls(structure=structure, k=2).fit(X, y)
    idata = random_draw(m.sample_posterior(1, random_state=0), 2, np.random.default_rng(seed),
                        random_pi=True, concentration=0.5)
    (fit,) = latent_class_draws(m, idata)
    return m, fit, brute_states(idata["posterior"], list(X.columns)), list(X.columns)


def _laws(states, keep, classes):
    """``(exact, prior_state)``: ``{(x..., label): p}`` under the condition ``keep(x)`` (rows of
    ``classes`` only): the exact conditional, and the wrong one whose state ignores the condition."""
    cells = sorted({s[:-2] for s in states})
    K, C = max(s[-2] for s in states) + 1, max(s[-1] for s in states) + 1
    w = {(k, c): sum(p for s, p in states.items() if s[-2:] == (k, c)) for k in range(K) for c in range(C)}
    exact, wrong = {}, {}
    for k in classes:
        for x in cells:
            if not keep(x):
                continue
            exact[(*x, k)] = sum(states[(*x, k, c)] for c in range(C))
            wrong[(*x, k)] = sum(w[k, c] * states[(*x, k, c)] / sum(states[(*u, k, c)] for u in cells if keep(u))
                                 for c in range(C))
    total = sum(exact.values())
    wsum = sum(w[k, c] for k in classes for c in range(C))
    return {c: p / total for c, p in exact.items()}, {c: p / wsum for c, p in wrong.items()}, total


def _check(counts, exact, wrong, cells):
    """Chi-squared: the counts fit ``exact`` (p > 0.01) and reject ``wrong`` (p < 1e-6), the draw's
    components being far enough apart under the condition for that (noncentrality > 100, asserted)."""
    e, w = (N * np.array([law[c] for c in cells]) for law in (exact, wrong))
    assert np.sum((e - w) ** 2 / w) > 100, "the draw does not make the negative control meaningful"
    assert chisquare(counts, e).pvalue > 0.01
    assert chisquare(counts, w).pvalue < 1e-6


def _counts(Xs, ys, names, labels, cells):
    seen = pd.Series(list(zip(*(Xs[c].astype(str) for c in names), [labels.index(v) for v in ys]))).value_counts()
    assert set(seen.index) <= set(cells), "a row outside the condition"
    return np.array([seen.get(c, 0) for c in cells])


@pytest.mark.parametrize("structure", ["tan", "kdb"])
@pytest.mark.parametrize("cls", [CategoricalNB, NaiveBayes])
def test_forbid_draws_the_exact_conditional_and_its_probability(cls, structure):
    m, fit, states, names = _point_fit(cls, structure, 4)
    labels = list(m.classes_)
    forbid = [{"a": "y", "c": "n"}, {"b": "n", "c": "y"}]
    keep = lambda x: not (x[0] == "y" and x[2] == "n") and not (x[1] == "n" and x[2] == "y")  # noqa: E731
    exact, wrong, total = _laws(states, keep, range(2))
    Xs, ys, p = m.sample(N, latent=fit, forbid=forbid, return_probability=True, random_state=7)
    assert np.isclose(p, total, rtol=1e-10, atol=0)  # p(condition), enumerated
    cells = list(exact)
    _check(_counts(Xs, ys, names, labels, cells), exact, wrong, cells)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_a_set_y_a_set_given_and_forbid_together(structure):
    m, fit, states, names = _point_fit(CategoricalNB, structure, 5)
    labels = list(m.classes_)
    keep = lambda x: x[1] == "y" and not (x[0] == "n" and x[2] == "y")  # noqa: E731
    exact, wrong, total = _laws(states, keep, [1])
    Xs, ys, p = m.sample(N, y={"v"}, given={"b": {"y"}}, forbid=[{"a": "n", "c": "y"}], latent=fit,
                         return_probability=True, random_state=3)
    assert (ys == "v").all() and (Xs["b"] == "y").all()
    class_mass = sum(q for s, q in states.items() if s[-2] == 1)
    assert np.isclose(p, total / class_mass, rtol=1e-10, atol=0)  # p(condition | y in the set)
    cells = list(exact)
    _check(_counts(Xs, ys, names, labels, cells), exact, wrong, cells)
    # per-row labels: each row's states restricted to its class
    Xr, yr = m.sample(6, y=np.array(["u", "v"] * 3), forbid=[{"a": "n"}], latent=fit, random_state=0)
    assert list(yr) == ["u", "v"] * 3 and (Xr["a"] == "y").all()


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_ranges_and_sets_on_a_mixed_table_with_an_em_fit(structure):
    df = load_penguins().iloc[::2]
    X, y = df[["island", "sex", "bill_length_mm", "flipper_length_mm"]], df["species"]
    m = NaiveBayes(structure=structure, k=2).fit(X, y)
    fit = m.fit_latent_class(X, y, n_components=2, n_init=1, max_iter=30, random_state=0)
    assert fit.structure is not None and not fit.point
    for pu in (True, False):
        Xs, ys, p = m.sample(200, latent=fit, given={"bill_length_mm": (40.0, 45.0), "island": {"Dream", "Torgersen"}},
                             forbid=[{"sex": "male", "flipper_length_mm": (None, 190.0)}], random_state=1,
                             parameter_uncertainty=pu, return_probability=True)
        assert Xs["bill_length_mm"].between(40.0, 45.0).all() and Xs["island"].isin(["Dream", "Torgersen"]).all()
        assert not ((Xs["sex"] == "male") & (Xs["flipper_length_mm"] <= 190.0)).any()
        assert 0 < p < 1 and set(ys) <= set(m.classes_)
        again = m.sample(200, latent=fit, given={"bill_length_mm": (40.0, 45.0), "island": {"Dream", "Torgersen"}},
                         forbid=[{"sex": "male", "flipper_length_mm": (None, 190.0)}], random_state=1,
                         parameter_uncertainty=pu, return_probability=True)
        pd.testing.assert_frame_equal(Xs, again[0])

    def prob(given):
        return m.sample(1, latent=fit, given=given, return_probability=True, random_state=0)[2]

    islands = sorted(X["island"].unique())
    assert np.isclose(prob({"island": set(islands[:2])}), prob({"island": islands[0]}) + prob({"island": islands[1]}))
    assert np.isclose(prob({"bill_length_mm": (None, 44.0)}) + prob({"bill_length_mm": (44.0, None)}), 1.0)
    assert np.isclose(prob({"island": set(islands)}), 1.0)
    # the latent model's probability, not the structure's without components
    plain = m.sample(1, given={"bill_length_mm": (None, 44.0)}, return_probability=True, random_state=0)[2]
    assert not np.isclose(prob({"bill_length_mm": (None, 44.0)}), plain, rtol=1e-6)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_an_em_fit_probability_is_the_enumerated_posterior_predictive(structure):
    """An EM fit (not one draw): ``p`` under its posterior predictive, which for one categorical row is
    the plug-in ``score_samples`` enumerates; the plain structure's probability differs."""
    import itertools
    X, y = tiny(1, 150)
    m = NaiveBayes(structure=structure, k=2).fit(X, y)
    fit = m.fit_latent_class(X, y, n_components=2, n_init=1, random_state=0)
    rows = pd.DataFrame(list(itertools.product("ny", repeat=3)), columns=list(X.columns)).astype(object)
    px = np.exp(m.score_samples(rows, latent=fit))
    assert np.isclose(px.sum(), 1.0)
    forbidden = ((rows["a"] == "y") & (rows["c"] == "n")).to_numpy()
    _, _, p = m.sample(1, latent=fit, forbid=[{"a": "y", "c": "n"}], return_probability=True, random_state=0)
    assert np.isclose(p, px[~forbidden].sum(), rtol=1e-10, atol=0)
    plain = m.sample(1, forbid=[{"a": "y", "c": "n"}], return_probability=True, random_state=0)[2]
    assert not np.isclose(plain, p, rtol=1e-6, atol=0)  # the latent model's, not the structure's alone
    _, _, p_set = m.sample(1, latent=fit, given={"b": {"y"}}, return_probability=True, random_state=0)
    assert np.isclose(p_set, px[(rows["b"] == "y").to_numpy()].sum(), rtol=1e-10, atol=0)
