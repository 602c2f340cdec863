"""Noise-aware hierarchical smoothing of a private structure's released context tables (issue 28, item 2)."""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb as bn
from bayesnb.privacy import Budget, project_rows
from bayesnb.structure import private_fit
from bayesnb.structure.hierarchical import hierarchical_prior
from test_privacy import PARTIES, votes  # noqa: F401


def simulated(seed, b, K=2, B=20, V=20, n=30000, c_true=30.0):
    """A node with a known structure: each (class, parent state) context's table drawn around its class's,
    counts drawn from them, then Laplace noise of scale ``b`` and the release's projection."""
    rng = np.random.default_rng(seed)
    top = rng.dirichlet(np.full(V, 2.0))
    cls = np.array([rng.dirichlet(100 * top) for _ in range(K)])
    theta = np.array([[rng.dirichlet(c_true * cls[k]) for _ in range(B)] for k in range(K)])
    weight = rng.dirichlet(np.full(K * B, 0.7)).reshape(K, B)
    N = rng.multinomial(n, weight.ravel()).reshape(K, B)
    counts = np.array([[rng.multinomial(N[k, u], theta[k, u]) for u in range(B)] for k in range(K)], dtype=float)
    noisy = project_rows((counts + rng.laplace(0.0, b, counts.shape)).reshape(-1, V)).reshape(counts.shape)
    return noisy, theta, weight


def table_error(counts, alpha, theta, weight):
    """The contexts' total-variation error of the posterior-mean tables, weighted by the contexts' mass."""
    post = (alpha + counts) / (alpha + counts).sum(-1, keepdims=True)
    return float(np.sum(weight[..., None] * np.abs(post - theta)) / 2)


def test_without_noise_it_is_the_smoothing_of_noise_free_counts():
    noisy, _, _ = simulated(0, 0.0)
    for root in ("all", "class"):
        old = hierarchical_prior(noisy, root=root)
        new = hierarchical_prior(noisy, root=root, noise_var=0.0)
        np.testing.assert_array_equal(new.alpha, old.alpha)
        assert new.concentrations == old.concentrations


@pytest.mark.parametrize("b", [5.0, 33.0])
def test_noise_aware_smoothing_lowers_the_error_of_noisy_context_tables(b):
    """Laplace noise of scale 33 per cell is the census binned TAN's at epsilon 1; 5 a milder one."""
    old, new = [], []
    for seed in range(5):
        noisy, theta, weight = simulated(seed, b)
        old.append(table_error(noisy, hierarchical_prior(noisy).alpha, theta, weight))
        new.append(table_error(noisy, hierarchical_prior(noisy, noise_var=2 * b * b).alpha, theta, weight))
    assert np.mean(new) < np.mean(old)
    assert sum(n < o for n, o in zip(new, old)) >= 4


def test_noise_aware_smoothing_is_deterministic_and_positive():
    noisy, _, _ = simulated(1, 33.0)
    a = hierarchical_prior(noisy, noise_var=2 * 33.0**2)
    b = hierarchical_prior(noisy, noise_var=2 * 33.0**2)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert np.all(np.isfinite(a.alpha)) and np.all(a.alpha > 0)


@pytest.mark.parametrize("bad", [-1.0, np.inf, np.nan])
def test_a_bad_noise_variance_is_refused(bad):
    with pytest.raises(ValueError, match="noise_var"):
        hierarchical_prior(np.ones((2, 3, 4)), noise_var=bad)


def test_the_noise_variance_comes_from_the_account_only(votes):  # noqa: F811
    X, y = votes
    m = bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], structure="tan",
                         privacy=bn.DP(1.0, classes=PARTIES, random_state=0)).fit(X, y)
    var = private_fit.node_noise_variances(m.privacy_spent_)
    eps = [e for k, (e, _) in m.privacy_spent_["split"].items() if k.startswith("node ")]
    assert len(var) == X.shape[1]
    np.testing.assert_allclose(var, [2 * (2.0 / e) ** 2 for e in eps])
    assert var[0] == Budget(eps[0], 0.0, "laplace", None).noise_variance(2.0, np.sqrt(2.0))


def private_tan(X, y, epsilon, seed):
    """A private TAN on house votes (the same release for the same epsilon and seed)."""
    return bn.CategoricalNB(categories=[["n", "y"]] * X.shape[1], structure="tan",
                            privacy=bn.DP(epsilon, classes=PARTIES, random_state=seed)).fit(X, y)


def test_the_private_structure_smooths_with_the_noise_and_the_switch_turns_it_off(votes, monkeypatch, tmp_path):  # noqa: F811
    X, y = votes

    def fit():
        return private_tan(X, y, 1.0, 3)

    aware = fit()
    monkeypatch.setattr(private_fit, "NOISE_AWARE_SMOOTHING", False)
    flat = fit()
    assert flat.privacy_spent_["noise_aware_smoothing"] is False
    assert "noise_aware_smoothing" not in aware.privacy_spent_
    # the same release (same noise), different smoothing
    assert not np.allclose(aware.predict_proba(X), flat.predict_proba(X))
    for i, m in enumerate((aware, flat)):  # each model file keeps its smoothing
        m.save(tmp_path / f"m{i}.bnb")
        np.testing.assert_allclose(bn.load(tmp_path / f"m{i}.bnb").predict_proba(X), m.predict_proba(X))


def test_negligible_noise_is_the_noise_free_fit_and_a_huge_epsilon_the_flat_model(votes, monkeypatch):  # noqa: F811
    noisy, _, _ = simulated(2, 0.0)
    np.testing.assert_array_equal(hierarchical_prior(noisy, noise_var=1e-9).alpha, hierarchical_prior(noisy).alpha)
    X, y = votes

    def fit():
        return private_tan(X, y, 1e6, 0)

    aware = fit()
    monkeypatch.setattr(private_fit, "NOISE_AWARE_SMOOTHING", False)
    np.testing.assert_array_equal(aware.predict_proba(X), fit().predict_proba(X))
