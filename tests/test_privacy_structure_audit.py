"""Private structure selection (bayesnb.structure.private_parents): its sensitivity, and an empirical audit.

The audit is that of tests/test_privacy_audit.py for a discrete release: on two datasets differing
in one row, chosen so that the row changes the best tree, the selection is drawn many times on each;
for every event (one output tree, or all but one) ``P_D(S) <= e^eps P_D'(S)`` must hold, so the
highest Clopper-Pearson lower bound of ``log(P_D(S) / P_D'(S))`` (Bonferroni over the events) is a
lower bound on the privacy loss. The calibrated selection keeps it below epsilon; the same
selection without noise, or with the sensitivity forgotten, must exceed it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import beta

from bayesnb.structure.learn import chow_liu_parents, kdb_parents
from bayesnb.structure.private_parents import (
    cmi_sensitivity,
    exponential_pick,
    mi_sensitivity,
    n_picks,
    private_kdb,
    private_parents,
    private_scores,
    private_tan,
)

ALPHA = 1e-3
R = 6000
N, D = 40, 3


def discrete_lower_bound(a, b, alpha=ALPHA):
    """The highest Clopper-Pearson lower bound of ``log(P_a(S) / P_b(S))`` over the events S (both ways).

    The events are each output alone and each output's complement.
    """
    outs = sorted(set(a) | set(b))
    events = [(o, inside) for o in outs for inside in (True, False)]
    al = alpha / (2 * len(events)) / 2
    best = 0.0
    for p, q in ((a, b), (b, a)):
        for o, inside in events:
            kp = sum((x == o) == inside for x in p)
            kq = sum((x == o) == inside for x in q)
            p_lo = beta.ppf(al, kp, len(p) - kp + 1) if kp > 0 else 0.0
            q_hi = beta.ppf(1 - al, kq + 1, len(q) - kq) if kq < len(q) else 1.0
            if p_lo > 0:
                best = max(best, float(np.log(p_lo / q_hi)))
    return best


def exact(s, y, kind="tan"):
    """The noiseless structure of ``kind`` on the scores of :func:`private_scores` (k-DB: k = 1)."""
    cmi, mi = private_scores(s, y, [2] * D, 2)
    return chow_liu_parents(cmi, 0) if kind == "tan" else kdb_parents(cmi, mi, 1)


def neighbours(kind="tan"):
    """Two datasets of ``N`` rows and ``D`` binary features (two classes) differing in one row, whose
    best (noiseless) structures differ: the first such replacement of a row of a random table whose
    features 1 and 2 copy feature 0 often."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, N)
    s = rng.integers(0, 2, (N, D))
    for j in (1, 2):
        s[:, j] = np.where(rng.random(N) < 0.7, s[:, 0], s[:, j])
    best = exact(s, y, kind)
    for i, v, label in itertools.product(range(N), range(2**D), range(2)):
        s2, y2 = s.copy(), y.copy()
        s2[i], y2[i] = [(v >> b) & 1 for b in range(D)], label
        if exact(s2, y2, kind) != best:
            return (s, y), (s2, y2)
    raise AssertionError("no neighbour flips the structure")


def releases(data, eps, sensitivity_factor=1.0, noise=True, seed=0):
    """``R`` private TAN selections on ``data`` (the scores computed once; the picks drawn ``R`` times)."""
    s, y = data
    cmi = private_scores(s, y, [2] * D, 2)[0]
    rng = np.random.default_rng(seed)
    if not noise:
        return [chow_liu_parents(cmi, 0)] * R
    # sensitivity_factor < 1: a selection calibrated to a wrong (too small) sensitivity, as if eps were larger
    return [private_tan(cmi, N, eps / sensitivity_factor, rng) for _ in range(R)]


def test_the_neighbours_flip_the_best_tree():
    (s, y), (s2, y2) = neighbours()
    assert int(np.sum(np.any(s != s2, axis=1) | (y != y2))) == 1


def test_the_structure_selection_passes_the_audit():
    eps = 2.0
    a, b = (releases(data, eps, seed=k) for k, data in enumerate(neighbours()))
    lb = discrete_lower_bound(a, b)
    assert lb <= eps
    assert len(set(a)) > 1  # the selection is random (the audit sees the noise)


def test_the_audit_fails_for_the_selection_without_noise():
    eps = 2.0
    a, b = (releases(data, eps, noise=False) for data in neighbours())
    assert discrete_lower_bound(a, b) > 2 * eps


def test_the_audit_fails_for_a_selection_that_forgets_the_sensitivity():
    # the mistake: the score taken as a count-like quantity of sensitivity 2 / n^2 ... i.e. the noise
    # scaled for a sensitivity N times too small (as if epsilon were N times larger)
    eps = 2.0
    a, b = (releases(data, eps, sensitivity_factor=1.0 / N, seed=k) for k, data in enumerate(neighbours()))
    assert discrete_lower_bound(a, b) > 2 * eps


@pytest.mark.parametrize("n", [2, 5, 20, 60])
def test_the_mutual_information_sensitivity_bounds_every_replacement(n):
    """Replacing any one row of random small tables never moves I(X; Y) by more than S(n), nor the
    conditional mutual information by more than 2 S(n); and the bound is not loose by orders of magnitude."""
    rng = np.random.default_rng(n)
    worst_mi = worst_cmi = 0.0
    for _ in range(40):
        V = rng.integers(2, 4, size=2)
        s = np.column_stack([rng.integers(0, V[0], n), rng.integers(0, V[1], n)])
        y = rng.integers(0, 2, n)
        cmi, mi = private_scores(s, y, V, 2)
        for i in range(n):
            s2, y2 = s.copy(), y.copy()
            s2[i] = [rng.integers(-1, V[0]), rng.integers(-1, V[1])]  # -1: a missing cell, its own state
            y2[i] = rng.integers(0, 2)
            cmi2, mi2 = private_scores(s2, y2, V, 2)
            worst_mi = max(worst_mi, float(np.max(np.abs(mi2 - mi))))
            worst_cmi = max(worst_cmi, abs(cmi2[0, 1] - cmi[0, 1]))
    assert worst_mi <= mi_sensitivity(n) + 1e-12
    assert worst_cmi <= cmi_sensitivity(n) + 1e-12
    assert worst_cmi > 0.05 * cmi_sensitivity(n)


def test_the_exponential_pick_has_the_exponential_mechanism_law():
    rng = np.random.default_rng(3)
    q = np.array([0.0, 1.0, 2.0, -np.inf])
    picks = np.array([exponential_pick(q, 1.0, 0.5, rng) for _ in range(20000)])
    want = np.exp(q[:3]) / np.exp(q[:3]).sum()  # eps q / (2 Delta) = q
    got = np.bincount(picks, minlength=4) / len(picks)
    assert got[3] == 0
    np.testing.assert_allclose(got[:3], want, atol=0.015)


def test_the_private_structures_are_valid_and_tend_to_the_exact_ones():
    rng = np.random.default_rng(4)
    n, d = 3000, 5
    y = rng.integers(0, 2, n)
    s = np.empty((n, d), dtype=np.int64)
    s[:, 0] = np.where(rng.random(n) < 0.8, y, rng.integers(0, 2, n))
    for j in range(1, d):
        s[:, j] = np.where(rng.random(n) < 0.9 - 0.15 * j, s[:, j - 1], rng.integers(0, 2, n))
    cmi, mi = private_scores(s, y, [2] * d, 2)
    exact = chow_liu_parents(cmi, 0)
    tan = private_parents(s, y, [2] * d, 2, "tan", 2, 1e6, rng)
    assert tan == exact
    kdb = private_kdb(cmi, mi, n, 2, 1e6, rng)
    assert kdb == kdb_parents(cmi, mi, 2)
    for eps in (0.01, 1.0):
        for parents in (private_tan(cmi, n, eps, rng), private_kdb(cmi, mi, n, 2, eps, rng)):
            assert len(parents) == d and sum(len(p) == 0 for p in parents) >= 1
            assert all(len(p) <= 2 and j not in p for j, p in enumerate(parents))
    assert n_picks(d, 2, "tan") == d - 1 and n_picks(d, 2, "kdb") == (d - 1) + (0 + 1 + 2 + 2 + 2)


def test_forbidden_edges_are_never_selected():
    rng = np.random.default_rng(5)
    cmi = np.ones((4, 4)) - np.eye(4)
    for _ in range(50):
        tan = private_tan(cmi, 100, 1.0, rng, forbidden=[(0, 1), (0, 2)])
        assert tan[1] != (0,) and tan[2] != (0,)
        kdb = private_kdb(cmi, np.arange(4.0), 100, 2, 1.0, rng, forbidden=[(0, 1)])
        assert 0 not in kdb[1] and 1 not in kdb[0]


def test_parentless_features_take_no_parent_and_the_picks_are_counted():
    rng = np.random.default_rng(6)
    cmi = rng.random((5, 5))
    cmi = cmi + cmi.T
    for _ in range(20):
        tan = private_tan(cmi, 100, 1.0, rng, parentless=[1, 3])
        assert tan[1] == () and tan[3] == () and all(len(tan[j]) == 1 for j in (0, 2, 4))
        kdb = private_kdb(cmi, rng.random(5), 100, 2, 1.0, rng, parentless=[1, 3])
        assert kdb[1] == () and kdb[3] == ()
    assert n_picks(5, 2, "tan", [1, 3]) == 3
    # k-DB: the order's 4 picks, and the parents' counted at the latest positions (2, 3, 4): 2 + 2 + 2
    assert n_picks(5, 2, "kdb", [1, 3]) == 4 + 6


def kdb_releases(data, eps, noise=True, seed=0):
    """``R`` private k-DB (k = 1) selections on ``data``: the order and the parents picked privately."""
    s, y = data
    cmi, mi = private_scores(s, y, [2] * D, 2)
    if not noise:
        return [kdb_parents(cmi, mi, 1)] * R
    rng = np.random.default_rng(seed)
    return [private_kdb(cmi, mi, N, 1, eps, rng) for _ in range(R)]


def test_the_kdb_selection_passes_the_audit_and_its_noiseless_version_fails():
    eps = 2.0
    data = neighbours("kdb")
    a, b = (kdb_releases(d, eps, seed=k) for k, d in enumerate(data))
    assert discrete_lower_bound(a, b) <= eps and len(set(a)) > 1
    a, b = (kdb_releases(d, eps, noise=False) for d in data)
    assert discrete_lower_bound(a, b) > 2 * eps
