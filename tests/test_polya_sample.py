"""Sampling a multinomial block from an unmaterialised posterior draw (the Polya urn, issue 32).

The urn's tokens follow the exact Dirichlet-multinomial sequence law (chi-squared against
closed-form probabilities); sampling through the urn and through a materialised theta give
the same law of rows (two-sample chi-squared, fixed seeds); theta read after urn draws is
drawn given them; and a wide vocabulary's sample takes memory in the tokens, not K x d.
"""

import itertools
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chi2_contingency, chisquare

from bayesnb import MultinomialNB
from bayesnb.families._dirichlet_rows import PolyaDraw, polya_tokens
from bayesnb.generative import class_log_weights, length_rates, parameter_points, sample_rows

P_MIN = 0.01


def _sequence_prob(a, seq, old=()):
    """Closed-form probability of the token sequence ``seq`` after ``old`` under the Polya urn of ``a``."""
    c = np.zeros(len(a))
    np.add.at(c, np.asarray(old, dtype=int), 1)
    p = 1.0
    for t in seq:
        p *= (a[t] + c[t]) / (a.sum() + c.sum())
        c[t] += 1
    return p


@pytest.mark.parametrize("a, old", [([0.3, 1.0, 2.0], ()), ([0.05, 0.05, 0.05], ()), ([0.5, 0.0, 1.5], (0, 2, 2))])
def test_polya_tokens_follow_the_exact_sequence_law(a, old):
    a = np.asarray(a)
    T, R = 3, 12_000
    rng = np.random.default_rng(0)
    old_arr = np.asarray(old, dtype=np.int64)
    cells = list(itertools.product(range(len(a)), repeat=T))
    index = {c: i for i, c in enumerate(cells)}
    seen = np.zeros(len(cells))
    for _ in range(R):
        seen[index[tuple(polya_tokens(a, old_arr, T, rng))]] += 1
    expected = np.array([_sequence_prob(a, c, old) for c in cells]) * R
    assert seen[expected == 0].sum() == 0  # a column of concentration 0 is never drawn fresh
    keep = expected > 0
    # cells with tiny expectations pooled into one, so the chi-squared approximation holds
    small = keep & (expected < 5)
    obs = np.append(seen[keep & ~small], seen[small].sum())
    exp = np.append(expected[keep & ~small], expected[small].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert chisquare(obs, exp).pvalue > P_MIN


def test_theta_read_after_urn_draws_is_drawn_given_them():
    # one token from the urn, then theta materialised, then one token from theta: the pair has
    # the urn's law a_i / A * (a_j + [i == j]) / (A + 1)
    a = np.array([[0.4, 1.0, 0.6]])
    R = 2_000  # theta drawn without the urn's first token: p < 1e-68 (5 seeds); with it p > 0.39 (the same 5)
    rng = np.random.default_rng(1)
    seen = np.zeros((3, 3))
    one = np.ones(1, dtype=np.int64)
    for _ in range(R):
        point = PolyaDraw(a, np.random.default_rng(rng.integers(2**63)))
        from bayesnb.families.multinomial import Multinomial

        fam = Multinomial()
        first = fam.gen_sample(point, np.zeros(1, dtype=np.int64), rng, one)
        assert isinstance(point, PolyaDraw) and not point.materialised
        theta = point.concentration  # materialised here, given the first token
        assert point.materialised and np.isclose(theta.sum(), 1.0)
        second = fam.gen_sample(point, np.zeros(1, dtype=np.int64), rng, one)
        seen[first.indices[0], second.indices[0]] += 1
    A = a.sum()
    expected = np.array([[a[0, i] / A * (a[0, j] + (i == j)) / (A + 1) for j in range(3)] for i in range(3)]) * R
    assert chisquare(seen.ravel(), expected.ravel()).pvalue > P_MIN


def test_polya_draw_reads_as_the_dirichlet_rows_of_its_theta():
    point = PolyaDraw(np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]), np.random.default_rng(0))
    assert not point.materialised and repr(point).startswith("PolyaDraw(K=2, d=3")
    theta = point.concentration
    assert point.materialised and point.concentration is theta
    np.testing.assert_allclose(theta.sum(axis=1), [1.0, 0.0])  # a row of zeros stays zeros (uniform in use)
    assert theta[0, 2] == 0.0  # a zero concentration: probability 0
    rebuilt = PolyaDraw(theta)  # without a generator: the concentrations are theta, already drawn
    assert rebuilt.materialised and rebuilt.concentration is theta
    assert point._replace(concentration=theta * 2).concentration[0, 1] == 2 * theta[0, 1]


def test_polya_draw_is_not_a_tuple_and_equals_only_itself():
    """Two draws of one posterior are different draws: not equal, whatever they hold (materialised or not);
    not a tuple (nothing reads an empty field by index or as a pytree leaf)."""
    import jax

    a = np.array([[1.0, 2.0, 0.5]])
    one, two = PolyaDraw(a, np.random.default_rng(0)), PolyaDraw(a, np.random.default_rng(1))
    assert one == one and one != two and not (one == two)
    assert not isinstance(one, tuple) and len({one, two}) == 2
    with pytest.raises(TypeError):
        one[0]
    assert jax.tree.leaves(one) == [one]
    one.concentration, two.concentration
    assert one != two and not np.array_equal(one.concentration, two.concentration)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_copying_a_polya_draw_keeps_it_unmaterialised(how):
    """A copy neither materialises the original nor consumes its generator: both then read the same theta,
    also after tokens drawn from the urn before the copy."""
    import copy
    import pickle

    from bayesnb.families.multinomial import Multinomial

    a = np.array([[1.0, 2.0, 0.5], [0.3, 0.3, 3.0]])
    point = PolyaDraw(a, np.random.default_rng(7))
    Multinomial().gen_sample(point, np.array([0, 1, 1]), np.random.default_rng(0), np.array([5, 4, 6]))
    dup = {"copy": copy.copy, "deepcopy": copy.deepcopy,
           "pickle": lambda p: pickle.loads(pickle.dumps(p))}[how](point)
    assert isinstance(dup, PolyaDraw) and dup is not point and dup != point
    assert not point.materialised and not dup.materialised
    np.testing.assert_array_equal(dup.concentration, point.concentration)
    assert point.materialised and dup.materialised


def _fitted(alpha=0.5):
    X = sp.csr_matrix(np.array([[2, 0, 1, 0], [1, 1, 0, 0], [0, 0, 1, 3], [0, 1, 0, 2]], dtype=float))
    return MultinomialNB(alpha=alpha).fit(X, [0, 0, 1, 1])


def _row_stats(counts):
    """Per-row categorical summaries of a (3, 4) sample: length (capped) and most frequent column
    (-1 when empty) of each row, and whether rows 0 and 1 (both class 0) share it."""
    c = counts.toarray()
    lengths = np.minimum(c.sum(axis=1), 8).astype(int)
    mode = np.where(c.sum(axis=1) > 0, c.argmax(axis=1), -1)
    return {"length0": lengths[0], "length2": lengths[2], "mode0": mode[0], "mode2": mode[2],
            "pair01": (mode[0], mode[1]), "col0_row0": min(int(c[0, 0]), 4)}


@pytest.mark.parametrize("use_prior", [False, True])
def test_urn_and_materialised_theta_give_the_same_rows(use_prior):
    """The public sampling path through the urn against the same draw read as theta first (the dense path)."""
    m = _fitted()
    post, z = m.posterior_, np.array([0, 0, 1])
    # an urn without reinforcement (tokens iid from a / A) fails at 2,000 rows a path (pair01 p < 1e-5, 5 seed
    # pairs, both use_prior); the real urn passes at those 5 (each p > 0.02)
    R = 2_000
    tallies = {"urn": [], "dense": []}
    for path, seed in (("urn", 2), ("dense", 3)):
        rng = np.random.default_rng(seed)
        for _ in range(R):
            points = parameter_points(post, rng, use_prior=use_prior)
            if path == "dense":
                for p in points:
                    p.concentration  # noqa: B018  (materialise theta before any token is drawn)
            params = (points, class_log_weights(post, rng, use_prior=use_prior), length_rates(post, rng))
            cols, _ = sample_rows(post, None, 4, rng=rng, z=z, params=params)
            if path == "urn":
                assert not points[0].materialised
            tallies[path].append(_row_stats(cols[0].values))
    for key in tallies["urn"][0]:
        values = sorted({str(t[key]) for path in tallies for t in tallies[path]})
        table = np.array([[sum(str(t[key]) == v for t in tallies[path]) for v in values] for path in tallies])
        table = table[:, table.sum(axis=0) >= 10]  # rare cells left out (a valid, conservative comparison)
        assert chi2_contingency(table).pvalue > P_MIN, key


def test_sample_reproducible_with_given_lengths():
    m = _fitted(alpha=0.05)
    a, ya = m.sample(300, random_state=7)
    b, yb = m.sample(300, random_state=7)
    np.testing.assert_array_equal(a.toarray(), b.toarray())
    np.testing.assert_array_equal(ya, yb)
    assert not np.array_equal(a.toarray(), m.sample(300, random_state=8)[0].toarray())
    c = m.sample(y=[0] * 400, length=5, random_state=3)[0].toarray()
    np.testing.assert_array_equal(c.sum(axis=1), np.full(400, 5))


def test_wide_vocabulary_sample_memory_follows_tokens_not_k_by_d():
    # 10 classes x 100,000 columns: one posterior draw of theta is 7.6 MiB; 50 rows draw a few
    # thousand tokens. Before the urn, sample peaked at several K x d arrays.
    rng = np.random.default_rng(0)
    K, d = 10, 100_000
    X = sp.random(200, d, density=2e-4, format="csr", random_state=rng, dtype=float)
    X.data = 1.0 + rng.poisson(1.0, X.nnz)
    m = MultinomialNB().fit(X, np.arange(200) % K)
    m.sample(5, random_state=0)  # warm-up (imports, caches)
    tracemalloc.start()
    try:
        out, _ = m.sample(50, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sp.issparse(out) and out.shape == (50, d) and out.nnz > 0
    assert peak < K * d * 8 / 2, f"peak {peak / 2**20:.1f} MiB vs one K x d draw {K * d * 8 / 2**20:.1f} MiB"
