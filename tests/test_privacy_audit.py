"""An empirical audit of the private release: the privacy loss between neighbouring datasets.

Two datasets differ in one row (its value replaced). The released statistics are drawn many
times on each; for the events ``{f > t}`` and ``{f <= t}`` of a released 1-D statistic ``f``,
``P_D(S) <= e^eps P_D'(S) + delta`` must hold, so

    eps_lb = max over S of log((p_lo(S) - delta) / q_hi(S))

with one-sided Clopper-Pearson bounds (Bonferroni over every event tried) is a lower bound on
the true privacy loss with probability ``1 - ALPHA`` (Jagielski et al. 2020; Nasr et al. 2021).
A correct mechanism keeps it below ``eps``; the negative control, noise scaled for
probabilities instead of counts (DataSynthesizer issue #34), must push it far above.

The draws are vectorised: a family's statistics are computed per *context* (tests/families),
so one ``dp_stats`` call on rows that belong to every one of ``R`` contexts releases the same
counts ``R`` times with independent noise, through the family's own code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import beta

import bayesnb as bn
from bayesnb.privacy import Budget

ALPHA = 1e-3
R = 20_000
N_THRESHOLDS = 40


def epsilon_lower_bound(a, b, delta=0.0, alpha=ALPHA, n_thresholds=N_THRESHOLDS):
    """The highest Clopper-Pearson lower bound on the privacy loss over threshold events, both ways.

    Parameters
    ----------
    a, b : ndarray of shape (R,)
        Draws of the released statistic on the two neighbouring datasets.
    delta : float
    alpha : float
        Family-wise error of every bound together.

    Returns
    -------
    float
    """
    ts = np.quantile(np.concatenate([a, b]), np.linspace(0.01, 0.99, n_thresholds))
    m = 4 * n_thresholds  # events {> t} and {<= t}, in both orders
    al = alpha / m / 2  # each bound uses two one-sided intervals
    best = 0.0
    for p_draws, q_draws in ((a, b), (b, a)):
        n_p, n_q = len(p_draws), len(q_draws)
        above_p = n_p - np.searchsorted(np.sort(p_draws), ts, side="right")
        above_q = n_q - np.searchsorted(np.sort(q_draws), ts, side="right")
        for kp, kq in ((above_p, above_q), (n_p - above_p, n_q - above_q)):
            p_lo = np.where(kp > 0, beta.ppf(al, np.maximum(kp, 1), n_p - kp + 1), 0.0)
            q_hi = np.where(kq < n_q, beta.ppf(1 - al, kq + 1, np.maximum(n_q - kq, 1)), 1.0)
            ok = p_lo - delta > 0
            if ok.any():
                best = max(best, float(np.max(np.log((p_lo[ok] - delta) / q_hi[ok]))))
    return best


def categorical_releases(values, budget):
    """``R`` releases of one categorical column's counts, through ``Categorical.dp_stats``; f = n_a - n_b."""
    fam = bn.Categorical(categories=[["a", "b"]])
    codes, state = fam.encode(np.asarray(values, dtype=object)[:, None])
    resp = np.ones((len(values), R))  # every row in every context
    counts = fam.dp_stats(codes, resp, state, budget, [None], ["x"], who="audit").counts[0]
    return counts[:, 0] - counts[:, 1]


NEIGHBOURS = (["a"] * 30 + ["b"] * 20, ["a"] * 29 + ["b"] * 21)  # one row's value replaced


@pytest.mark.parametrize(("mechanism", "delta"), [("laplace", 0.0), ("gaussian", 1e-5)])
def test_the_audit_passes_for_the_calibrated_mechanism(mechanism, delta):
    eps = 1.0
    rng = np.random.default_rng(11)
    a = categorical_releases(NEIGHBOURS[0], Budget(eps, delta, mechanism, rng))
    b = categorical_releases(NEIGHBOURS[1], Budget(eps, delta, mechanism, rng))
    lb = epsilon_lower_bound(a, b, delta)
    assert lb <= eps
    assert lb > 0.25 * eps  # the audit sees the noise: it is not vacuous


@pytest.mark.parametrize(("mechanism", "delta"), [("laplace", 0.0), ("gaussian", 1e-5)])
def test_the_audit_fails_for_noise_scaled_for_probabilities(mechanism, delta):
    eps, n = 1.0, len(NEIGHBOURS[0])
    rng = np.random.default_rng(12)
    # the mistake of DataSynthesizer #34: a count's sensitivity taken as a probability's (2 / n),
    # i.e. noise n times too small, as if epsilon were n times larger
    a = categorical_releases(NEIGHBOURS[0], Budget(eps * n, delta, mechanism, rng))
    b = categorical_releases(NEIGHBOURS[1], Budget(eps * n, delta, mechanism, rng))
    assert epsilon_lower_bound(a, b, delta) > 2 * eps


def test_gaussian_shares_composed_by_gdp_pass_the_audit():
    """Ten Gaussian shares of one budget (``Budget.split``: mu**2 split, Gaussian DP) each release the
    counts; the sum of the ten differences is the likelihood-ratio statistic of the joint release. The
    negative control gives every share the whole budget, as if composition were free."""
    eps, delta, k = 1.0, 1e-5, 10

    def joint(budgets):
        return [sum(categorical_releases(v, b) for b in budgets) for v in NEIGHBOURS]

    rng = np.random.default_rng(15)
    lb = epsilon_lower_bound(*joint(Budget(eps, delta, "gaussian", rng).split([1] * k)), delta)
    assert 0.15 * eps < lb <= eps  # 0.25-0.29 over noise seeds 0-5
    assert epsilon_lower_bound(*joint([Budget(eps, delta, "gaussian", rng)] * k), delta) > 1.2 * eps  # 1.49-1.62


def test_the_gaussian_block_release_passes_the_audit():
    """The clipped mean of a Gaussian block, one value moved from one bound to the other."""
    eps = 1.0
    fam = bn.Gaussian()
    rng = np.random.default_rng(13)
    out = []
    for last in (0.0, 10.0):
        X = np.r_[np.linspace(2, 8, 39), last][:, None]
        block, state = fam.encode(X)
        s = fam.dp_stats(block, np.ones((40, R)), state, Budget(eps, 0.0, "laplace", rng), [(0.0, 10.0)], ["x"])
        out.append(s.mean[:, 0] * s.n[:, 0])  # the released sum (post-processing of the release)
    lb = epsilon_lower_bound(*out)
    assert 0.05 * eps < lb <= eps


def test_the_audit_statistic_is_a_valid_lower_bound_on_a_known_loss():
    """Two Laplace laws one scale apart: the true loss is exactly 1; the bound is below it and near it."""
    rng = np.random.default_rng(14)
    a, b = rng.laplace(0.0, 1.0, R), rng.laplace(1.0, 1.0, R)
    lb = epsilon_lower_bound(a, b)
    assert 0.5 < lb <= 1.0
    assert math.isclose(epsilon_lower_bound(a, a[::-1]), 0.0, abs_tol=0.2)


def multinomial_releases(last_row, L, budget):
    """``R`` releases of a count block's counts through ``Multinomial.dp_stats``; f = c_0 - c_1."""
    fam = bn.Multinomial()
    X = np.vstack([np.tile([2.0, 1.0, 3.0], (19, 1)), last_row])
    block, state = fam.encode(X)
    counts = fam.dp_stats(block, np.ones((20, R)), state, budget, ([None] * 3, L), ["a", "b", "c"], who="audit").counts
    return counts[:, 0] - counts[:, 1]


# one row replaced: a long row all in column a, or all in column b (both scaled down to length L)
MULTINOMIAL_NEIGHBOURS = ([15.0, 0.0, 0.0], [0.0, 15.0, 0.0])


def test_the_multinomial_release_passes_the_audit():
    eps, L = 1.0, 5.0
    rng = np.random.default_rng(15)
    a, b = (multinomial_releases(row, L, Budget(eps, 0.0, "laplace", rng)) for row in MULTINOMIAL_NEIGHBOURS)
    lb = epsilon_lower_bound(a, b)
    assert 0.25 * eps < lb <= eps


def test_the_audit_fails_for_a_multinomial_release_that_forgets_the_row_length():
    eps, L = 1.0, 5.0
    rng = np.random.default_rng(16)
    # the mistake: each row taken to move one count (sensitivity 2, as a categorical column) instead
    # of up to L counts (2 L): noise L times too small, as if epsilon were L times larger
    a, b = (multinomial_releases(row, L, Budget(eps * L, 0.0, "laplace", rng)) for row in MULTINOMIAL_NEIGHBOURS)
    assert epsilon_lower_bound(a, b) > 2 * eps
