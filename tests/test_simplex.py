"""The log-ratio parametrisation of padded Dirichlet rows (bayesnb.families._simplex) is exact."""

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("numpyro")

from bayesnb.families import _simplex


def _setup():
    rng = np.random.default_rng(0)
    V = np.array([2, 3, 1, 4])
    mask = np.arange(4)[None, :] < V[:, None]
    alpha = np.where(mask[None], rng.uniform(0.3, 3.0, (2, 4, 4)), 1.0)
    return V, mask, alpha, rng


def test_log_prob_is_dirichlet_times_jacobian_and_round_trips():
    """log p(z) = log Dirichlet(theta(z) | alpha) + sum_v log theta_v (scipy), pads Normal(0, 1);
    z_from_theta inverts log_theta_from_z; the precomputed log-normaliser equals the traced one."""
    V, mask, alpha, rng = _setup()
    theta = np.where(mask[None], rng.dirichlet(np.ones(4), (2, 4)), 0.0)
    theta /= theta.sum(-1, keepdims=True)
    z = _simplex.z_from_theta(theta, mask)
    z = np.where(mask[:, 1:][None], z, 0.7)  # a pad value that must be scored Normal(0, 1)
    lt = np.asarray(_simplex.log_theta_from_z(z.astype(np.float32), mask))
    np.testing.assert_allclose(np.exp(lt) * mask, theta, rtol=1e-5, atol=1e-7)
    for ln in (None, _simplex.log_norm(alpha, mask).astype(np.float32)):
        lp = np.asarray(_simplex.log_ratio_dirichlet(alpha.astype(np.float32), mask, ln).log_prob(z.astype(np.float32)))
        for k in range(2):
            for j in range(4):
                t = theta[k, j, : V[j]]
                want = np.log(t).sum() + (stats.dirichlet.logpdf(t, alpha[k, j, : V[j]]) if V[j] > 1 else 0.0)
                want += stats.norm.logpdf(0.7) * (3 - max(V[j] - 1, 0))
                assert lp[k, j] == pytest.approx(want, rel=1e-4, abs=1e-3)


def test_samples_are_dirichlet():
    """Draws of z map to theta with the Dirichlet mean and variance (z-scores under 5)."""
    import jax

    _, mask, alpha, _ = _setup()
    z = _simplex.log_ratio_dirichlet(alpha.astype(np.float32), mask).sample(jax.random.PRNGKey(1), (20000,))
    theta = np.exp(np.asarray(_simplex.log_theta_from_z(z, mask))) * mask
    a0 = np.where(mask[None], alpha, 0).sum(-1, keepdims=True)
    m = np.where(mask[None], alpha / a0, 0.0)
    var = m * (1 - m) / (a0 + 1)
    se = np.sqrt(np.maximum(var, 1e-12) / z.shape[0])
    assert np.all(np.abs(theta.mean(0) - m)[..., :] <= 5 * se + 1e-6)
    np.testing.assert_allclose(theta.var(0), var, rtol=0.1, atol=1e-6)
