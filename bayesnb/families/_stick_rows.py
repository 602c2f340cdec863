"""The NUTS site of a padded Dirichlet block: each row's stick-breaking logits.

A row ``theta ~ Dirichlet(alpha)`` over its ``V`` valid values is, by stick breaking,
``theta_v = z_v prod_{i<v} (1 - z_i)`` for ``v < V - 1`` and ``theta_{V-1} = prod_{i<V-1} (1 - z_i)``,
with **independent** ``z_i ~ Beta(a_i, b_i)``, ``a_i = alpha_i``, ``b_i = sum_{v>i} alpha_v``.
The site samples ``x_i``, with ``logit z_i = t_i = shift_i + x_i``: ``V - 1`` unconstrained
numbers per row (NumPyro's ``Dirichlet`` uses the same ``V - 1`` stick fractions and the same
centring ``shift_i = -log(V - 1 - i)``, so that ``x = 0`` is the uniform row), and no direction
the posterior does not identify. Per cell, with ``s = softplus(t)`` (so ``log z = t - s``,
``log(1 - z) = -s``)::

    log p(x_i) = a_i t_i - (a_i + b_i) s_i - log B(a_i, b_i)

and the labelled-data log-likelihood ``sum_v n_v log theta_v`` is, per stick,
``n_i t_i - (n_i + m_i) s_i`` with ``m_i = sum_{v>i} n_v`` the counts past stick ``i``
(computed once in NumPy). So the potential and its gradient are elementwise: no row sum,
no cumulative product, no transform. Conjugacy carries over: given the counts the sticks are
still independent, ``z_i ~ Beta(a_i + n_i, b_i + m_i)``, which a diagonal mass matrix fits.
The coordinates depend on the prior only, so a point's site values (``logits_from_theta``)
mean the same in every model built on that prior.

Pad cells (past a row's ``V - 1`` sticks) have ``a = b = 1``, shift 0: independent standard
logistic draws that never enter ``theta`` or the likelihood. A row of the padded block has
``max(V_max - 1, 1)`` cells. Normalising constants are computed once with SciPy
(``log_norm``), so no ``lgamma`` is compiled into the sampler.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln

from ._tilted_gamma import valid_cells

__all__ = ["logits_from_theta", "prior_args", "sample_site", "sampler_args", "site_values", "stats_args",
           "stick_log_theta", "stick_logit_rows", "suffstat_loglik"]

def _sizes(sizes):
    return np.asarray(sizes, dtype=np.int64).reshape(-1)


def _width(vmax: int) -> int:
    return max(int(vmax) - 1, 1)


def _stick_valid(sizes, width):
    """(d, W) bool: stick ``i`` of feature ``j`` is real (``i < V_j - 1``)."""
    return valid_cells(_sizes(sizes) - 1, width)


def _sticks(conc, sizes):
    """``(a, b)`` (..., d, W) of padded rows ``conc`` (..., d, V_max): ``a_i = c_i``, ``b_i = sum_{V_j > v > i} c_v``;
    pads 1."""
    conc = np.asarray(conc, dtype=float)
    vmax = conc.shape[-1]
    W = _width(vmax)
    valid_v = valid_cells(sizes, vmax)
    c = np.where(valid_v, conc, 0.0)
    tail = np.cumsum(c[..., ::-1], axis=-1)[..., ::-1]  # sum_{v >= i}
    ok = _stick_valid(sizes, W)
    a = np.ones(conc.shape[:-1] + (W,))
    b = np.ones_like(a)
    n = min(W, vmax - 1)
    a[..., :n] = np.where(ok[:, :n], c[..., :n], 1.0)
    b[..., :n] = np.where(ok[:, :n], tail[..., 1:n + 1], 1.0)
    return a, b, ok


def prior_args(alpha, sizes) -> dict:
    """Prior arguments of :func:`stick_logit_rows` for padded Dirichlet rows.

    Parameters
    ----------
    alpha : ndarray of shape (K, d, V_max)
        Pseudo-counts; cells past feature ``j``'s ``sizes[j]`` values are ignored.
    sizes : sequence of int, length d
        The number of values of each feature.

    Returns
    -------
    dict
        ``{"a", "b", "shift"}`` float32 (K, d, W), ``W = max(V_max - 1, 1)``, and ``"log_norm"``
        (K, d): ``shift`` is NumPyro's centring ``-log(V_j - 1 - i)``.
    """
    a, b, ok = _sticks(alpha, sizes)
    W = a.shape[-1]
    rest = (_sizes(sizes) - 1)[:, None] - np.arange(W)[None, :]
    shift = np.broadcast_to(np.where(ok, -np.log(np.maximum(rest, 1)), 0.0), a.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_norm = (-betaln(a, b)).sum(-1).astype(np.float32)
    return {"a": a.astype(np.float32), "b": b.astype(np.float32), "shift": shift.astype(np.float32),
            "log_norm": log_norm}


def stats_args(counts, sizes) -> dict:
    """Labelled counts per stick: ``{"counts": n_i, "tail": m_i = sum_{v>i} n_v}``, float32 (K, d, W).

    Parameters
    ----------
    counts : ndarray of shape (K, d, V_max)
    sizes : sequence of int
    """
    n, m, ok = _sticks(counts, sizes)
    return {"counts": np.where(ok, n, 0.0).astype(np.float32), "tail": np.where(ok, m, 0.0).astype(np.float32)}


def suffstat_loglik(params, stats_args):
    """``sum_v n_v log theta_v`` from the sticks: ``sum_i n_i t_i - (n_i + m_i) s_i``."""
    n, m = stats_args["counts"], stats_args["tail"]
    return (n * params["t"]).sum() - ((n + m) * params["softplus"]).sum()


def stick_log_theta(t, sp, sizes):
    """``log theta`` (K, d, V_max) of the logits ``t`` and their ``softplus`` ``sp`` (K, d, W); pads 0.

    ``log theta_v = (t_v - s_v) + sum_{i<v} (-s_i)`` over the real sticks, the last value taking
    only the sum. The cumulative sum over more than 32 values is a product with a triangular
    matrix (one library call; see :func:`~bayesnb.families._numpyro_dists.row_sum`).
    """
    import jax.numpy as jnp

    sz = _sizes(sizes)
    vmax = int(sz.max()) if sz.size else 1
    W = t.shape[-1]
    ok = _stick_valid(sz, W)
    lz = jnp.where(ok, t - sp, 0.0)
    l1 = jnp.where(ok, -sp, 0.0)
    cs = jnp.cumsum(l1, axis=-1) if W <= 32 else l1 @ jnp.triu(jnp.ones((W, W), l1.dtype))
    zero = jnp.zeros(t.shape[:-1] + (1,), t.dtype)
    lt = jnp.concatenate([lz, zero], -1)[..., :vmax] + jnp.concatenate([zero, cs], -1)[..., :vmax]
    return jnp.where(valid_cells(sz, vmax), lt, 0.0)


def logits_from_theta(theta, sizes, prior_args=None):
    """The site values ``x`` (..., K, d, W) whose rows are ``theta`` (..., K, d, V_max); pads 0.

    ``logit z_i = log theta_i - log sum_{v>i} theta_v``, then ``x = logit z - shift`` with
    ``prior_args``' shift (0 when absent). Probabilities are floored at
    1e-30 (a zero is the edge of the simplex, never reached by a draw).
    """
    theta = np.maximum(np.nan_to_num(np.asarray(theta, dtype=float)), 1e-30)
    z, rest, ok = _sticks(theta, sizes)  # theta_i and sum_{v>i} theta_v, per stick
    shift = 0.0 if prior_args is None else np.asarray(prior_args.get("shift", 0.0), dtype=float)
    return np.where(ok, np.log(z) - np.log(np.maximum(rest, 1e-30)) - shift, 0.0)


def stick_logit_rows(a, b, shift, log_norm=None):
    """The law of the site ``x``: independent ``logit z = shift + x``, ``z ~ Beta(a, b)``.

    Parameters
    ----------
    a, b, shift : arrays of shape (..., W)
    log_norm : array of shape (...) or None
        ``-sum_i log B(a_i, b_i)`` per row (:func:`prior_args`); None:
        computed in the density (JAX's ``lgamma``).

    Returns
    -------
    numpyro.distributions.Distribution
        Batch shape ``a.shape[:-1]``, event shape ``(W,)``, real support.
    """
    from ._numpyro_dists import StickLogitRows

    return StickLogitRows(a, b, shift, log_norm)


# ------------------------------------------------------------ the site form of a Categorical block
# (a :class:`~bayesnb.families.categorical.DirichletSite`, as :mod:`bayesnb.families._tilted_gamma`;
# :func:`~bayesnb.families.categorical.site_for` picks one)
SITE = "stick"


def sampler_args(alpha, conc, sizes) -> dict:
    """None: the sticks' coordinates depend on the prior only (measured: centring and scaling them
    on the fitted posterior changed no ESS per second beyond noise on house votes and penguins)."""
    return {}


def sample_site(label, sizes, prior_args, feature_plate, class_plate):
    """The sample site ``theta_<label>__stick`` (K, d, W) under plates ``class_plate`` x ``feature_plate``
    and the deterministic ``theta_<label>`` (K, d, V_max), pads at 0.

    Returns ``{"t", "softplus", "log_theta"}``: the logits and their softplus (K, d, W), from which
    :func:`suffstat_loglik` is elementwise, and ``log theta`` (K, d, V_max), pads at 0, for the rows.
    """
    import jax.numpy as jnp
    import numpyro

    a = prior_args["a"]
    K, d, _ = a.shape
    site = stick_logit_rows(a, prior_args["b"], prior_args["shift"], prior_args.get("log_norm"))
    with numpyro.plate(class_plate, K, dim=-2), numpyro.plate(feature_plate, d, dim=-1):
        x = numpyro.sample(f"theta_{label}__{SITE}", site)
    t, sp = site.logits(x)
    log_theta = stick_log_theta(t, sp, sizes)
    valid = valid_cells(sizes, log_theta.shape[-1])
    numpyro.deterministic(f"theta_{label}", jnp.where(valid, jnp.exp(log_theta), 0.0))
    return {"t": t, "softplus": sp, "log_theta": log_theta}


def site_values(label, theta, sizes, prior_args=None) -> dict:
    """``{"theta_<label>__stick": x}`` whose rows are ``theta`` (:func:`logits_from_theta`)."""
    return {f"theta_{label}__{SITE}": logits_from_theta(theta, sizes, prior_args)}
