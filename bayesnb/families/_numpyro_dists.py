"""The custom NumPyro distributions of the families' NUTS sites: the one module of the package that imports JAX.

It is imported only inside the functions that build a NumPyro model (``tools/architecture.py`` allows
a function-level import of this module alone), so ``import bayesnb`` loads neither JAX nor NumPyro.
Each distribution is documented by the NumPy-side function that builds it:

- :class:`DirichletFixedNorm` -- :func:`bayesnb.families.fixed_norm.dirichlet_fixed_norm`;
- :class:`NIGUnconstrained` -- the comment above :func:`bayesnb.families._gaussian_cells.nig_log_norm`;
- :class:`TiltedGammaRows`, :class:`LogTiltedGammaRows` -- :func:`bayesnb.families._tilted_gamma.tilted_gamma_rows`
  and :func:`~bayesnb.families._tilted_gamma.log_tilted_gamma_rows`;
- :class:`StickLogitRows` -- :func:`bayesnb.families._stick_rows.stick_logit_rows`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.scipy.special import betaln
from numpyro.distributions import Dirichlet, Distribution, Gamma, constraints

__all__ = ["DirichletFixedNorm", "LogTiltedGammaRows", "NIGUnconstrained", "StickLogitRows", "TiltedGammaRows",
           "row_sum"]


def row_sum(x):
    """Sum over the last axis; over more than 32 values, as a product with a vector of ones.

    XLA's CPU backend splits a reduction over a long axis into windows of 32 and emits a loop
    nest whose generated code, and so the LLVM compile time, grows with the row length; a
    matrix-vector product is one library call whatever the length.

    Parameters
    ----------
    x : jax array of shape (..., V)

    Returns
    -------
    jax array of shape (...)
    """
    if x.shape[-1] <= 32:
        return x.sum(-1)
    return x @ jnp.ones(x.shape[-1], x.dtype)


class DirichletFixedNorm(Dirichlet):
    """``Dirichlet(concentration)`` whose ``log_prob`` adds ``log_norm`` instead of computing it."""

    def __init__(self, concentration, log_norm, *, validate_args=None):
        self.log_norm = jnp.asarray(log_norm)
        super().__init__(concentration, validate_args=validate_args)

    def log_prob(self, value):
        """Log density with the precomputed normalising constant."""
        return jnp.sum(jnp.log(value) * (self.concentration - 1.0), axis=-1) + self.log_norm


class NIGUnconstrained(Distribution):
    """The Normal-Inverse-Gamma law of ``(m, log v)`` per cell, on the whole plane."""

    support = constraints.independent(constraints.real, 1)

    def __init__(self, mu0, kappa, a, b, log_norm, *, validate_args=None):
        self.mu0, self.kappa, self.a, self.b, self.log_norm = jnp.broadcast_arrays(
            *(jnp.asarray(v) for v in (mu0, kappa, a, b, log_norm)))
        super().__init__(jnp.shape(self.mu0), (2,), validate_args=validate_args)

    def log_prob(self, value):
        """``log p(m, t)`` (``log_norm``: :func:`bayesnb.families._gaussian_cells.nig_log_norm`)."""
        m, t = value[..., 0], value[..., 1]
        inv_v = jnp.exp(-t)
        return (self.log_norm - (self.a + 0.5) * t
                - (self.b + 0.5 * self.kappa * (m - self.mu0) ** 2) * inv_v)

    def sample(self, key, sample_shape=()):
        """Exact draws: ``v = b / Gamma(a)``, then ``m | v``."""
        k_v, k_m = jax.random.split(key)
        shape = tuple(sample_shape) + self.batch_shape
        g = jax.random.gamma(k_v, jnp.broadcast_to(self.a, shape), shape, dtype=self.a.dtype)
        t = jnp.log(self.b) - jnp.log(g)  # v = b / Gamma(a) ~ InvGamma(a, b)
        m = self.mu0 + jnp.exp(0.5 * t) / jnp.sqrt(self.kappa) * jax.random.normal(k_m, shape, self.a.dtype)
        return jnp.stack([m, t], axis=-1)


class TiltedGammaRows(Distribution):
    """Rows of Gamma(``alpha``) draws whose sum over the ``valid`` cells is Gamma(``s_shape``)."""

    arg_constraints = {"alpha": constraints.positive, "s_shape": constraints.positive}  # noqa: RUF012
    support = constraints.independent(constraints.positive, 1)

    def __init__(self, alpha, valid, s_shape, log_norm=None, *, validate_args=None):
        self.alpha = jnp.asarray(alpha)
        self.valid = jnp.broadcast_to(jnp.asarray(valid, dtype=bool), self.alpha.shape)
        self.log_norm = None if log_norm is None else jnp.asarray(log_norm, dtype=self.alpha.dtype)
        self.a_sum = jnp.where(self.valid, self.alpha, 0.0).sum(-1)
        self.tilted = s_shape is not None  # else S keeps its own law, Gamma(a_sum)
        self.s_shape = jnp.asarray(s_shape, dtype=self.alpha.dtype) if self.tilted else self.a_sum
        super().__init__(jnp.shape(self.alpha)[:-1], jnp.shape(self.alpha)[-1:], validate_args=validate_args)

    def log_prob(self, value):
        """Log density of the rows (the ``lgamma`` terms from ``log_norm`` when given)."""
        if self.log_norm is None:
            lp = Gamma(self.alpha).log_prob(value).sum(-1)
            if not self.tilted:
                return lp
            s = jnp.where(self.valid, value, 0.0).sum(-1)
            return lp + Gamma(self.s_shape).log_prob(s) - Gamma(self.a_sum).log_prob(s)
        lp = ((self.alpha - 1.0) * jnp.log(value) - value).sum(-1) + self.log_norm
        if not self.tilted:
            return lp
        # Gamma(s | s_shape) / Gamma(s | a_sum): the exp(-s) factors cancel, lgammas are in log_norm
        return lp + (self.s_shape - self.a_sum) * jnp.log(jnp.where(self.valid, value, 0.0).sum(-1))

    def sample(self, key, sample_shape=()):
        """Independent Gamma draws, rescaled so that the valid sum has its Gamma(``s_shape``) law."""
        k_g, k_s = jax.random.split(key)
        shape = tuple(sample_shape) + self.batch_shape + self.event_shape
        g = jax.random.gamma(k_g, jnp.broadcast_to(self.alpha, shape), shape, dtype=self.alpha.dtype)
        s_old = jnp.where(self.valid, g, 0.0).sum(-1, keepdims=True)
        if not self.tilted:
            return g
        s_new = jax.random.gamma(k_s, jnp.broadcast_to(self.s_shape, shape[:-1]), shape[:-1],
                                 dtype=self.alpha.dtype)[..., None]
        return jnp.where(self.valid, g / s_old * s_new, g)


class LogTiltedGammaRows(Distribution):
    """The law of ``u = log g`` for ``g ~`` :class:`TiltedGammaRows`: the same model on the reals."""

    arg_constraints = {}  # noqa: RUF012
    support = constraints.independent(constraints.real, 1)

    def __init__(self, alpha, valid, s_shape, log_norm=None, *, validate_args=None):
        self.base = TiltedGammaRows(alpha, valid, s_shape, log_norm)
        super().__init__(self.base.batch_shape, self.base.event_shape, validate_args=validate_args)

    def log_prob(self, value):
        """Log density of ``u`` (the Jacobian of ``g = exp(u)`` included)."""
        b = self.base
        g = jnp.exp(value)
        if b.log_norm is None:  # hand-written priors: the lgamma terms are computed in the graph
            return b.log_prob(g) + row_sum(value)
        lp = row_sum(b.alpha * value - g) + b.log_norm
        if not b.tilted:
            return lp
        return lp + (b.s_shape - b.a_sum) * jnp.log(row_sum(jnp.where(b.valid, g, 0.0)))

    def sample(self, key, sample_shape=()):
        """The log of :class:`TiltedGammaRows` draws."""
        return jnp.log(self.base.sample(key, sample_shape))


class StickLogitRows(Distribution):
    """The law of the stick site ``x``: independent ``logit z = shift + x``, ``z ~ Beta(a, b)``."""

    arg_constraints = {}  # noqa: RUF012
    support = constraints.independent(constraints.real, 1)

    def __init__(self, a, b, shift, log_norm=None, *, validate_args=None):
        self.a, self.b = jnp.asarray(a), jnp.asarray(b)
        self.shift = jnp.asarray(shift, self.a.dtype)
        self.log_norm = None if log_norm is None else jnp.asarray(log_norm, self.a.dtype)
        shape = jnp.broadcast_shapes(self.a.shape, self.b.shape, self.shift.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def logits(self, value):
        """``t = shift + x`` and ``softplus(t) = max(t, 0) + log1p(exp(-|t|))``.

        Written out: ``jax.nn.softplus`` (``logaddexp`` with its NaN handling and custom
        derivative) made the potential and gradient 4x slower on XLA's CPU backend."""
        t = self.shift + value
        return t, jnp.maximum(t, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(t)))

    def log_prob(self, value):
        """``sum_i a_i t_i - (a_i + b_i) s_i - log B(a_i, b_i)`` per row."""
        t, sp = self.logits(value)
        lp = row_sum(self.a * t - (self.a + self.b) * sp)
        if self.log_norm is None:
            return lp - row_sum(betaln(self.a, self.b))
        return lp + self.log_norm

    def sample(self, key, sample_shape=()):
        """Exact draws: ``logit z = log Gamma(a) - log Gamma(b)``, minus the shift."""
        ka, kb = jax.random.split(key)
        shape = tuple(sample_shape) + self.batch_shape + self.event_shape
        t = (jax.random.loggamma(ka, jnp.broadcast_to(self.a, shape), shape, self.a.dtype)
             - jax.random.loggamma(kb, jnp.broadcast_to(self.b, shape), shape, self.a.dtype))
        return t - self.shift
