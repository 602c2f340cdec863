"""privacy= on count, positive and zero-inflated blocks: Multinomial/Complement (row length), Poisson,
LogNormal, Hurdle; Histogram refused. The released statistics at a huge epsilon are compared with
the exact statistics of the clipped (or row-scaled) data, computed here by brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln

import bayesnb as bn
from bayesnb.families.dp_release import scale_rows

HUGE = 1e9  # noise of scale ~1e-8: the release is the clipped statistic itself


def counts_data(n=200, d=6, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.poisson(2.0, (n, d)).astype(float)
    X[y == 1, 0] += 4
    X[:5, 1] += 40  # a few long rows, to be scaled down
    return X, y


def test_dp_row_length_is_validated_and_stored():
    for bad in (0, -1.0, math.inf, True, "10"):
        with pytest.raises(ValueError, match="row_length must be a finite number > 0"):
            bn.DP(1.0, row_length=bad)
    dp = bn.DP(1.0, row_length=12)
    assert bn.DP(**dp.as_dict()) == bn.DP(1.0, row_length=12.0)


def test_scale_rows_keeps_proportions_and_sparsity_and_does_not_modify_input():
    X, _ = counts_data()
    L = 10.0
    lengths = X.sum(1)
    expect = np.array([row * min(1.0, L / t) if t > 0 else row for row, t in zip(X, lengths)])
    np.testing.assert_allclose(scale_rows(X, L), expect)
    for fmt in ("csr", "csc"):
        S = sp.csr_matrix(X).asformat(fmt)
        before = S.copy()
        out = scale_rows(S, L)
        assert sp.issparse(out) and out.format == fmt
        np.testing.assert_allclose(out.toarray(), expect)
        assert (S != before).nnz == 0
    assert scale_rows(X, L).sum(1).max() <= L + 1e-12


@pytest.mark.parametrize("cls", [bn.MultinomialNB, bn.ComplementNB])
def test_private_multinomial_releases_the_row_scaled_counts(cls):
    X, y = counts_data()
    L = 10.0
    Xs = scale_rows(X, L)
    exact = np.stack([Xs[y == k].sum(0) for k in (0, 1)])
    m = cls(privacy=bn.DP(HUGE, row_length=L, classes=[0, 1], random_state=0)).fit(X, y)
    np.testing.assert_allclose(m.posterior_.blocks[0].stats.counts, exact, atol=1e-6)
    split = m.privacy_spent_["split"]
    assert split["class_count"] == split[f"block 0 ({m._specs[0][1].__class__.__name__}, 6 columns)"] == (HUGE / 2, 0.0)


def test_private_multinomial_sparse_equals_dense_and_noise_shrinks_with_epsilon():
    X, y = counts_data(n=400)
    dp = bn.DP(1.0, row_length=10, classes=[0, 1], random_state=3)
    dense = bn.MultinomialNB(privacy=dp).fit(X, y)
    sparse = bn.MultinomialNB(privacy=dp).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.feature_count_, dense.feature_count_)
    exact = np.stack([scale_rows(X, 10)[y == k].sum(0) for k in (0, 1)])
    err = [np.abs(bn.MultinomialNB(privacy=bn.DP(e, row_length=10, classes=[0, 1], random_state=s)).fit(X, y)
                  .posterior_.blocks[0].stats.counts - exact).mean() for e in (0.5, 50.0) for s in range(5)]
    assert np.mean(err[:5]) > 10 * np.mean(err[5:])
    assert (dense.posterior_.blocks[0].stats.counts >= 0).all()
    Xs, _ = dense.sample(5, random_state=0)  # the API works on the private model
    assert Xs.shape == (5, 6) and np.isfinite(dense.predict_proba(X)).all()


def test_private_multinomial_treats_every_column_as_observed():
    X, y = counts_data()
    X[:, 2] = np.nan  # a column no row observes: which columns are observed is read from the data
    X[0, 3] = np.nan  # a partial row: left out (complete cases)
    L = 10.0
    with pytest.warns(bn.AllMissingWarning):
        m = bn.MultinomialNB(privacy=bn.DP(HUGE, row_length=L, classes=[0, 1], random_state=0)).fit(X, y)
    assert m.posterior_.blocks[0].state.all()
    with pytest.warns(bn.AllMissingWarning):
        plain = bn.MultinomialNB().fit(X, y)
    assert not plain.posterior_.blocks[0].state.all()
    keep = ~np.isnan(X).any(1)  # every column observed: a row with any missing cell is partial
    Xs = scale_rows(np.nan_to_num(X[keep]), L)
    exact = np.stack([Xs[y[keep] == k].sum(0) for k in (0, 1)])
    np.testing.assert_allclose(m.posterior_.blocks[0].stats.counts, exact, atol=1e-6)


def test_private_multinomial_refusals():
    X, y = counts_data()
    with pytest.raises(ValueError, match="DP\\(row_length=L\\)"):
        bn.MultinomialNB(privacy=bn.DP(1.0, classes=[0, 1])).fit(X, y)
    with pytest.raises(ValueError, match="alpha='auto'"):
        bn.MultinomialNB(alpha="auto", privacy=bn.DP(1.0, row_length=5, classes=[0, 1])).fit(X, y)
    with pytest.raises(ValueError, match="bounds apply to numeric"):
        bn.MultinomialNB(privacy=bn.DP(1.0, row_length=5, bounds={0: (0, 3)}, classes=[0, 1])).fit(X, y)


def mixed_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    P = rng.poisson(np.where(y == 1, 4.0, 1.0)[:, None], (n, 2)).astype(float)
    P[0, 0] = 50  # above the bound: clipped
    G = np.exp(rng.normal(np.where(y == 1, 1.0, 0.0)[:, None], 1.0, (n, 2)))
    H = np.where(rng.random(n) < 0.5, 0.0, G[:, 0] + 0.5)
    return np.column_stack([P, G, H]), y


FEATURES = {(0, 1): bn.Poisson(), (2, 3): bn.LogNormal(), (4,): bn.Hurdle()}
BOUNDS = {0: (0, 10), 1: (0, 10), 2: (0.1, 20.0), 3: (0.1, 20.0), 4: (0.1, 20.0)}


def test_private_poisson_lognormal_hurdle_release_the_clipped_statistics():
    X, y = mixed_data()
    m = bn.NaiveBayes(FEATURES, privacy=bn.DP(HUGE, bounds=BOUNDS, classes=[0, 1], random_state=0)).fit(X, y)
    onehot = np.eye(2)[y]
    P = np.clip(X[:, :2], 0, 10)
    s = m.posterior_.blocks[0].stats
    np.testing.assert_allclose(s.total, onehot.T @ P, atol=1e-5)
    np.testing.assert_allclose(s.n, onehot.T @ np.ones_like(P), atol=1e-6)
    np.testing.assert_allclose(s.log_fact, onehot.T @ gammaln(P + 1), atol=1e-5)
    logs = np.log(np.clip(X[:, 2:4], 0.1, 20.0))
    g = m.posterior_.blocks[1].stats
    np.testing.assert_allclose(g.mean, (onehot.T @ logs) / onehot.sum(0)[:, None], atol=1e-6)
    h = m.posterior_.blocks[2].stats
    at = (X[:, 4] == 0).astype(float)
    np.testing.assert_allclose(h.at_count[:, 0], onehot.T @ at, atol=1e-6)
    np.testing.assert_allclose(h.other_count[:, 0], onehot.T @ (1 - at), atol=1e-6)
    assert np.isfinite(m.predict_proba(X)).all()
    assert set(m.privacy_spent_["split"]) == {"class_count", "block 0 (Poisson, 2 columns)",
                                              "block 1 (LogNormal, 2 columns)", "block 2 (Hurdle, 1 column)"}
    # one share per released statistic: Poisson and LogNormal 3 per column, Hurdle 1 + its base's 3
    eps = [e for e, _ in m.privacy_spent_["split"].values()]
    assert eps == pytest.approx(np.array([1, 6, 6, 4]) * HUGE / 17)


def test_private_poisson_lognormal_hurdle_at_epsilon_one_are_valid():
    X, y = mixed_data(n=3000)
    m = bn.NaiveBayes(FEATURES, privacy=bn.DP(1.0, bounds=BOUNDS, classes=[0, 1], random_state=1)).fit(X, y)
    s = m.posterior_.blocks[0].stats
    assert (s.n >= 0).all() and (s.total >= 0).all() and (s.total <= 10 * s.n + 1e-9).all()
    exact = bn.NaiveBayes(FEATURES).fit(X, y).score(X, y)
    assert m.score(X, y) > exact - 0.1 and np.isfinite(m.predict_proba(X)).all()
    Xs, _ = m.sample(10, random_state=0)
    assert np.isfinite(Xs).all()


@pytest.mark.parametrize(("bounds", "match"), [
    ({**BOUNDS, 0: (0.5, 10)}, "whole numbers with 0 <= lo"),
    ({**BOUNDS, 2: (0.0, 20.0)}, "LogNormal column are values of x > 0"),
    ({k: v for k, v in BOUNDS.items() if k != 1}, "private Poisson block needs declared bounds"),
    ({k: v for k, v in BOUNDS.items() if k != 3}, "private LogNormal block needs declared bounds"),
])
def test_private_count_and_positive_blocks_refuse_bad_or_missing_bounds(bounds, match):
    X, y = mixed_data()
    with pytest.raises(ValueError, match=match):
        bn.NaiveBayes(FEATURES, privacy=bn.DP(1.0, bounds=bounds, classes=[0, 1])).fit(X, y)


def test_private_histogram_is_refused_with_the_reason():
    X, y = mixed_data()
    with pytest.raises(NotImplementedError, match="bin edges are quantiles of the data"):
        bn.NaiveBayes({(0, 1): bn.Histogram()}, privacy=bn.DP(1.0, classes=[0, 1])).fit(X[:, :2], y)


def test_a_private_count_model_round_trips_through_a_model_file(tmp_path):
    X, y = counts_data()
    dp = bn.DP(1.0, delta=1e-6, mechanism="gaussian", row_length=10, classes=[0, 1], random_state=0)
    m = bn.MultinomialNB(privacy=dp).fit(sp.csr_matrix(X), y)
    assert (m.posterior_.blocks[0].stats.counts >= 0).all()
    path = tmp_path / "m.bnb"
    m.save(path)
    back = bn.load(path)
    assert back.privacy == dp and back.privacy.row_length == 10.0 and back.privacy_spent_ == m.privacy_spent_
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))


def _sorted_projection(v, total):
    """The textbook one-vector projection onto ``{x >= 0, sum(x) = total}`` (sort, cumulative sums), a reference."""
    if total <= 0:
        return np.zeros_like(v)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - total
    rho = np.flatnonzero(u - css / np.arange(1, len(v) + 1) > 0)[-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


def test_project_rows_is_the_simplex_projection_of_each_row():
    from bayesnb.privacy import project_rows, project_simplex

    rng = np.random.default_rng(0)
    for _ in range(300):
        v = rng.normal(0, 3, (int(rng.integers(1, 5)), int(rng.integers(1, 8)))) * rng.integers(0, 3)
        got = project_rows(v)
        want = np.stack([_sorted_projection(r, max(r.sum(), 0.0)) for r in v])
        np.testing.assert_allclose(np.stack([project_simplex(r, max(r.sum(), 0.0)) for r in v]), want, atol=1e-12)
        np.testing.assert_allclose(got, want, atol=1e-12)
        assert (got >= 0).all()


def test_released_counts_keep_the_noisy_total_and_add_no_mass_to_empty_cells():
    """Each class's noisy vector is projected onto its noisy total: clipping each cell at 0 instead would add
    the positive part of nine empty cells' Laplace noise (9 x b/2 = 9 at epsilon 1) to a 50-count class."""
    from bayesnb.families.dp_release import noisy_counts
    from bayesnb.privacy import Budget

    counts = np.zeros((1, 10))
    counts[0, 0] = 50
    released = np.stack([noisy_counts([counts], Budget(1.0, 0.0, "laplace", np.random.default_rng(s)))[0][0]
                         for s in range(400)])
    clipped = np.stack([np.maximum(Budget(1.0, 0.0, "laplace", np.random.default_rng(s)).noisy(counts[0], 2.0, 1.0), 0)
                        for s in range(400)])  # the same noise, clipped cell by cell
    assert (released >= 0).all()
    assert abs(released.sum(1).mean() - 50) < 3 * 2 * np.sqrt(2 * 10) / np.sqrt(400) + 0.5  # unbiased total
    assert abs(clipped[:, 1:].sum(1).mean() - 9) < 1.5
    assert released[:, 1:].sum(1).mean() < 0.6 * clipped[:, 1:].sum(1).mean()
