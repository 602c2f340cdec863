"""Text under differential privacy: count blocks with rows bounded in Euclidean norm (Gaussian noise),
noise-aware smoothing and the class counts' share of the budget (docs/privacy.md, "Text (count blocks)").

The released statistics at a huge epsilon are compared with the exact class sums of the row-scaled
data, computed here by brute force; the noise scale with the analytic Gaussian calibration of the
stated sensitivity; an empirical audit checks the release on neighbouring datasets, and its negative
control (noise calibrated for rows L times shorter than they are) must fail it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from test_privacy_audit import R, epsilon_lower_bound

import bayesnb as bn
from bayesnb.families.dp_release import RowBound, noisy_row_counts, row_sensitivity, scale_rows
from bayesnb.privacy import Budget, analytic_gaussian_sigma, gaussian_mu

HUGE = 1e9
L2 = {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5}


def text_data(n=400, d=40, seed=0):
    """Two classes of 'documents': each class uses its own half of the vocabulary a little more."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.ones((2, d))
    p[0, : d // 2] += 1.5
    p[1, d // 2:] += 1.5
    p /= p.sum(1, keepdims=True)
    lengths = rng.integers(5, 60, n)
    X = np.stack([rng.multinomial(m, p[k]) for m, k in zip(lengths, y)]).astype(float)
    return X, y


def test_dp_text_settings_are_validated_and_stored():
    with pytest.raises(ValueError, match="row_norm must be 'l1' or 'l2'"):
        bn.DP(1.0, row_norm="l3")
    with pytest.raises(ValueError, match="row_norm='l2' .* needs mechanism='gaussian'"):
        bn.DP(1.0, row_length=1.0, row_norm="l2")
    for bad in (-1.0, math.inf, True, "3"):
        with pytest.raises(ValueError, match="noise_prior must be a finite number >= 0"):
            bn.DP(1.0, noise_prior=bad)
    for bad in (0, 1, 1.5, -0.1, True, "0.1"):
        with pytest.raises(ValueError, match="class_share must be a number with 0 < class_share < 1"):
            bn.DP(1.0, class_share=bad)
    dp = bn.DP(1.0, noise_prior=3, class_share=0.05, **L2)
    assert bn.DP(**dp.as_dict()) == dp


def test_scale_rows_l2_bounds_the_euclidean_norm_keeps_proportions_and_sparsity():
    X, _ = text_data()
    L = 2.0
    norms = np.linalg.norm(X, axis=1)
    expect = X * np.minimum(1.0, L / np.where(norms > 0, norms, 1.0))[:, None]
    np.testing.assert_allclose(scale_rows(X, L, "l2"), expect)
    for fmt in ("csr", "csc"):
        S = sp.csr_matrix(X).asformat(fmt)
        out = scale_rows(S, L, "l2")
        assert sp.issparse(out) and out.format == fmt
        np.testing.assert_allclose(out.toarray(), expect)
    assert np.linalg.norm(scale_rows(X, L, "l2"), axis=1).max() <= L + 1e-12


def test_row_sensitivity():
    assert row_sensitivity(3.0, "l1", 100) == (6.0, pytest.approx(3.0 * math.sqrt(2)))
    l1, l2 = row_sensitivity(3.0, "l2", 100)
    assert l1 == pytest.approx(2 * 10 * 3.0) and l2 == pytest.approx(3.0 * math.sqrt(2))


@pytest.mark.parametrize("cls", [bn.MultinomialNB, bn.ComplementNB])
def test_private_l2_release_is_the_class_sums_of_norm_scaled_rows(cls):
    X, y = text_data()
    Xs = scale_rows(X, 1.0, "l2")
    exact = np.stack([Xs[y == k].sum(0) for k in (0, 1)])
    m = cls(privacy=bn.DP(HUGE, classes=[0, 1], random_state=0, **L2)).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(m.posterior_.blocks[0].stats.counts, exact, atol=1e-3)  # Gaussian sd ~1e-4


def test_the_noise_scale_is_the_analytic_gaussian_of_the_l2_sensitivity():
    eps, delta, L = 0.7, 1e-6, 2.0
    counts = np.full((3, 20_000), 1e6)  # far from 0: nothing is clipped
    out = noisy_row_counts(counts, L, Budget(eps, delta, "gaussian", np.random.default_rng(0)), "l2")
    sigma = analytic_gaussian_sigma(math.sqrt(2) * L, eps, delta)
    assert np.std(out - counts) == pytest.approx(sigma, rel=0.02)
    assert abs(np.mean(out - counts)) < 0.02 * sigma


def test_noise_prior_adds_that_many_noise_sds_to_every_released_cell():
    X, y = text_data()
    eps, share = 1.0, 0.2
    fits = [bn.MultinomialNB(privacy=bn.DP(eps, classes=[0, 1], random_state=5, noise_prior=c, class_share=share,
                                           **L2)).fit(X, y) for c in (0.0, 3.0)]
    sigma = math.sqrt(2) / (gaussian_mu(eps, 1e-5) * math.sqrt(1 - share))  # the block's share of mu**2
    diff = fits[1].posterior_.blocks[0].stats.counts - fits[0].posterior_.blocks[0].stats.counts
    np.testing.assert_allclose(diff, 3.0 * sigma)


def test_class_share_sets_the_class_counts_fraction_of_the_budget():
    X, y = text_data()
    m = bn.MultinomialNB(privacy=bn.DP(2.0, classes=[0, 1], class_share=0.05, **L2)).fit(X, y)
    mu = gaussian_mu(2.0, 1e-5)  # Gaussian shares split mu**2 (Budget.split)
    split = m.privacy_spent_["split"]
    assert gaussian_mu(*split["class_count"]) == pytest.approx(mu * math.sqrt(0.05), rel=1e-6)
    assert gaussian_mu(*split["block 0 (Multinomial, 40 columns)"]) == pytest.approx(mu * math.sqrt(0.95), rel=1e-6)
    # without it: one share each (the default rule, unchanged)
    m = bn.MultinomialNB(privacy=bn.DP(2.0, classes=[0, 1], **L2)).fit(X, y)
    assert gaussian_mu(*m.privacy_spent_["split"]["class_count"]) == pytest.approx(mu * math.sqrt(0.5), rel=1e-6)


def test_the_release_is_deterministic_given_random_state():
    X, y = text_data()
    fit = lambda s: bn.MultinomialNB(privacy=bn.DP(1.0, classes=[0, 1], random_state=s, noise_prior=1.0,  # noqa: E731
                                                   class_share=0.1, **L2)).fit(X, y).posterior_.blocks[0].stats.counts
    np.testing.assert_array_equal(fit(3), fit(3))
    assert not np.array_equal(fit(3), fit(4))


def test_l2_with_laplace_is_refused_at_the_release_too():
    X, y = text_data()
    fam = bn.Multinomial()
    block, state = fam.encode(X)
    with pytest.raises(ValueError, match="row_norm='l2'\\) needs mechanism='gaussian'"):
        fam.dp_stats(block, np.eye(2)[y], state, Budget(1.0, 0.0, "laplace", np.random.default_rng(0)),
                     ([None] * X.shape[1], RowBound(1.0, "l2")), [str(j) for j in range(X.shape[1])])


def test_l2_release_beats_the_l1_release_on_many_columns():
    """The point of the L2 bound: with 400 columns, the noise per cell no longer grows with a row's
    spread over them. Same epsilon, the same documents."""
    X, y = text_data(n=3000, d=400, seed=1)
    Xt, yt = text_data(n=2000, d=400, seed=2)
    acc = {}
    for name, kw in (("l1", {"row_length": 20.0}), ("l2", {**L2, "delta": 1e-6})):
        acc[name] = np.mean([bn.MultinomialNB(privacy=bn.DP(1.0, classes=[0, 1], random_state=s, class_share=0.1,
                                                            **kw)).fit(X, y).score(Xt, yt) for s in range(3)])
    assert acc["l2"] > acc["l1"] + 0.05, acc


def l2_releases(last_row, L, budget):
    """``R`` releases of a count block's counts with rows of Euclidean norm <= L; f = c_0 - c_1."""
    fam = bn.Multinomial()
    X = np.vstack([np.tile([2.0, 1.0, 3.0], (19, 1)), last_row])
    block, state = fam.encode(X)
    counts = fam.dp_stats(block, np.ones((20, R)), state, budget, ([None] * 3, RowBound(L, "l2")),
                          ["a", "b", "c"], who="audit").counts
    return counts[:, 0] - counts[:, 1]


# one row replaced: a long row all in column a, or all in column b (both scaled down to norm L)
NEIGHBOURS = ([15.0, 0.0, 0.0], [0.0, 15.0, 0.0])


def test_the_l2_release_passes_the_audit():
    eps, delta, L = 1.0, 1e-5, 2.0
    rng = np.random.default_rng(21)
    a, b = (l2_releases(row, L, Budget(eps, delta, "gaussian", rng)) for row in NEIGHBOURS)
    lb = epsilon_lower_bound(a, b, delta)
    assert 0.25 * eps < lb <= eps


def test_the_audit_fails_for_an_l2_release_calibrated_for_unit_rows():
    eps, delta, L = 1.0, 1e-5, 5.0
    rng = np.random.default_rng(22)
    # the mistake: the noise of rows of norm 1 (sensitivity sqrt 2) on rows of norm L
    sigma_wrong = analytic_gaussian_sigma(math.sqrt(2), eps, delta)
    released = []
    for row in NEIGHBOURS:
        X = np.vstack([np.tile([2.0, 1.0, 3.0], (19, 1)), row])
        c = scale_rows(X, L, "l2").sum(0)
        draws = c[None, :2] + rng.normal(0.0, sigma_wrong, (R, 2))
        released.append(draws[:, 0] - draws[:, 1])
    assert epsilon_lower_bound(*released, delta) > 2 * eps


def test_a_model_with_the_text_settings_round_trips_through_a_model_file(tmp_path):
    X, y = text_data()
    dp = bn.DP(1.0, classes=[0, 1], random_state=0, noise_prior=2.0, class_share=0.1, **L2)
    m = bn.MultinomialNB(privacy=dp).fit(sp.csr_matrix(X), y)
    m.save(tmp_path / "m.bnb")
    back = bn.load(tmp_path / "m.bnb")
    assert back.privacy == dp and back.privacy_spent_ == m.privacy_spent_
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
