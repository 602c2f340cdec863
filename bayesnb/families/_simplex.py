"""A padded block of Dirichlets for NumPyro, sampled on ``V_j - 1`` free log-ratios per row.

A categorical block has rows (class k, feature j) with ``V_j`` values, padded to ``V_max``.
Its NumPyro site ``z`` has event shape ``(V_max - 1,)`` (at least 1): for ``1 <= v < V_j``,
``z[v - 1] = log theta_v - log theta_0`` (additive log-ratio, value 0 the reference), so

    theta = softmax over the valid values of (0, z[0], ..., z[V_j - 2]).

Why this is exactly ``Dirichlet(alpha)``: the map ``z -> (theta_1, ..., theta_{V-1})`` has
Jacobian ``diag(theta) - theta theta^T`` (over the free coordinates), whose determinant is
``prod_{v=0}^{V-1} theta_v``. The density of ``z`` is therefore

    p(z) = Dirichlet(theta(z) | alpha) prod_v theta_v = prod_v theta_v^alpha_v / B(alpha),

the log-probability of :func:`log_ratio_dirichlet` below. The pad coordinates
(``v >= V_j``) are independent ``Normal(0, 1)``: they never enter ``theta`` or a likelihood,
so they keep their (proper) prior and do not change ``theta``'s law. Sampling draws
``log g_v ~ logGamma(alpha_v)`` and takes ``z = log g_v - log g_0`` (``g / sum g`` is
``Dirichlet(alpha)``), so ``Predictive`` simulates the same prior.

Unlike the ``Gamma(alpha, 1)`` construction (V_j free coordinates, one of them the sum
``S ~ Gamma(sum alpha)``, much wider than the posterior of ``theta`` and strongly correlated
with every ``log g_v``), NUTS sees only the ``V_j - 1`` free directions: for a binary feature
one logit, as NumPyro's stick-breaking ``Dirichlet`` does, which a diagonal mass matrix fits.
JAX and NumPyro are imported when :func:`log_ratio_dirichlet` is first called.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.special import gammaln

__all__ = ["log_norm", "log_ratio_dirichlet", "log_theta_from_z", "z_from_theta"]


def _masks(mask):
    """Full (d, V_max) validity mask -> validity of the free coordinates (d, n_free), n_free >= 1."""
    mask = np.asarray(mask, bool)
    free = mask[:, 1:] if mask.shape[1] > 1 else np.zeros((mask.shape[0], 1), bool)
    return mask, free


def log_theta_from_z(z, mask):
    """``log theta`` (..., V_max), pads at 0, from the free log-ratios ``z`` (..., n_free) (JAX)."""
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp

    mask, _ = _masks(mask)
    vmax = mask.shape[1]
    zeros = jnp.zeros_like(z[..., :1])
    logits = jnp.concatenate([zeros, z[..., : vmax - 1]], axis=-1)
    logits = jnp.where(mask, logits, -jnp.inf)
    return jnp.where(mask, logits - logsumexp(logits, axis=-1, keepdims=True), 0.0)


def z_from_theta(theta, mask):
    """Inverse of :func:`log_theta_from_z` (NumPy): ``theta`` (..., V_max) -> ``z`` (..., n_free), pads 0."""
    mask, free = _masks(mask)
    lt = np.log(np.maximum(np.nan_to_num(np.asarray(theta, dtype=float)), 1e-30))
    z = lt[..., 1:] - lt[..., :1] if mask.shape[1] > 1 else np.zeros(lt.shape[:-1] + (1,))
    return np.where(free, z, 0.0)


@functools.lru_cache(maxsize=1)
def _distribution_class():
    import jax
    import jax.numpy as jnp
    from jax.scipy.special import gammaln as jgammaln
    from numpyro.distributions import Distribution, constraints

    class LogRatioDirichlet(Distribution):
        """Padded Dirichlet rows on their free log-ratios (see :mod:`bayesnb.families._simplex`)."""

        arg_constraints = {}
        support = constraints.real_vector
        reparametrized_params = []

        def __init__(self, alpha, mask, log_norm=None, *, validate_args=None):
            self.alpha = alpha
            self._valid, self._free = _masks(mask)
            if log_norm is None:
                a = jnp.where(self._valid, alpha, 1.0)
                log_norm = (jgammaln(jnp.where(self._valid, a, 0.0).sum(-1))
                            - jnp.where(self._valid, jgammaln(a), 0.0).sum(-1))
            self._log_norm = log_norm
            super().__init__(batch_shape=jnp.shape(alpha)[:-1], event_shape=(self._free.shape[1],),
                             validate_args=validate_args)

        def sample(self, key, sample_shape=()):
            k1, k2 = jax.random.split(key)
            shape = sample_shape + self.batch_shape + (self._valid.shape[1],)
            log_g = jax.random.loggamma(k1, jnp.broadcast_to(self.alpha, shape))
            pads = jax.random.normal(k2, sample_shape + self.batch_shape + self.event_shape)
            z = log_g[..., 1:] - log_g[..., :1] if self._valid.shape[1] > 1 else pads
            return jnp.where(self._free, z, pads)

        def log_prob(self, value):
            lt = log_theta_from_z(value, self._valid)
            lp = (jnp.where(self._valid, self.alpha, 0.0) * lt).sum(-1) + self._log_norm
            pad = jnp.where(self._free, 0.0, -0.5 * value ** 2 - 0.5 * np.log(2 * np.pi)).sum(-1)
            return lp + pad

    return LogRatioDirichlet


def log_norm(alpha, mask):
    """``-log B(alpha)`` per row (NumPy, (K, d)), over the valid values: precomputed so that the
    sampler does not trace (and lower) ``lgamma``, which is costly to lower in every new process."""
    mask = np.asarray(mask, bool)
    a = np.where(mask, np.asarray(alpha, dtype=float), 1.0)
    return gammaln(np.where(mask, a, 0.0).sum(-1)) - np.where(mask, gammaln(a), 0.0).sum(-1)


def log_ratio_dirichlet(alpha, mask, log_norm=None):
    """The NumPyro distribution of the free log-ratios ``z`` of padded ``Dirichlet(alpha)`` rows.

    Parameters
    ----------
    alpha : array (K, d, V_max)
        Pseudo-counts, any positive value in the pads (unused).
    mask : ndarray of bool (d, V_max)
        ``mask[j, v]`` is ``v < V_j``.
    log_norm : array (K, d), optional
        :func:`log_norm` of ``alpha`` and ``mask``; computed (in JAX) if not given.

    Returns
    -------
    numpyro.distributions.Distribution
        Batch shape (K, d), event shape ``(max(V_max - 1, 1),)``, support the reals.
    """
    return _distribution_class()(alpha, mask, log_norm)
