"""The NUTS site of a padded Dirichlet block: Gamma draws whose sum has a chosen Gamma law.

For independent ``g_v ~ Gamma(alpha_v, 1)`` over a row's valid values, ``theta = g / S``
(``S = sum_v g_v``) is Dirichlet(alpha) and independent of ``S ~ Gamma(sum alpha)``: the
change of variables ``g -> (theta, S)`` splits the product of Gamma densities into
``Dirichlet(theta | alpha) Gamma(S | sum alpha)`` times its Jacobian. :func:`tilted_gamma_rows`
replaces the second factor by ``Gamma(S | s_shape)``: ``theta`` keeps exactly its
Dirichlet(alpha) law (so the model is unchanged), while ``S`` takes whatever proper law
samples best. With ``s_shape`` the row's summed posterior concentration, the posterior of
``g`` is close to independent Gamma(alpha_v + n_v): no shared, wide direction along ``S``
for NUTS's diagonal mass matrix to miss. Pad cells (``valid`` False) are independent
Gamma(alpha) draws that never enter ``S`` or ``theta``.

The normalising constants (``lgamma`` of ``alpha``, ``s_shape`` and the valid sum of
``alpha``) can come in precomputed as ``log_norm`` (see :mod:`bayesnb.families.fixed_norm`:
no ``lgamma`` is then compiled into the sampler).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

__all__ = ["log_tilted_gamma_rows", "prior_args", "sample_site", "sampler_args", "site_values", "stats_args",
           "suffstat_loglik", "tilted_gamma_rows", "tilted_log_norm", "valid_cells"]

def tilted_gamma_rows(alpha, valid, s_shape, log_norm=None):
    """Rows of Gamma(``alpha``) draws whose sum over the ``valid`` cells is Gamma(``s_shape``).

    Parameters
    ----------
    alpha : array of shape (..., V)
        Gamma shapes; the event is the last axis.
    valid : array of bool, broadcastable to ``alpha``
        The valid cells of each row (the rest are pads).
    s_shape : array of shape (...) or None
        Shape of the Gamma law of each row's sum over its valid cells; None: the sum keeps
        its own law (independent Gamma(``alpha``) cells).
    log_norm : array of shape (...) or None
        Each row's normalising constant, ``-sum_v lgamma(alpha_v)`` (all cells) plus, with
        ``s_shape``, ``lgamma(sum_valid alpha) - lgamma(s_shape)`` (:func:`tilted_log_norm`);
        None: computed in the density (JAX's ``lgamma``).

    Returns
    -------
    numpyro.distributions.Distribution
        Batch shape ``alpha.shape[:-1]``, event shape ``(V,)``.
    """
    from ._numpyro_dists import TiltedGammaRows

    return TiltedGammaRows(alpha, valid, s_shape, log_norm)


def log_tilted_gamma_rows(alpha, valid, s_shape, log_norm=None):
    """The law of ``u = log g`` for ``g ~`` :func:`tilted_gamma_rows`: the same model on the reals.

    The change of variables ``g = exp(u)`` multiplies the density by ``prod_v g_v``, so per row::

        log p(u) = sum_v (alpha_v u_v - exp(u_v)) + (s_shape - a_sum) log S + log_norm

    with ``S`` the sum of ``exp(u)`` over the valid cells and ``a_sum`` that of ``alpha``
    (the last term only when ``s_shape`` is given). NUTS samples ``u`` directly: no
    transform, no log of a transformed value, and the row sums are :func:`~bayesnb.families._numpyro_dists.row_sum`. This is
    what keeps a Categorical block's part of the compiled sampler small.

    Parameters
    ----------
    alpha, valid, s_shape, log_norm
        As for :func:`tilted_gamma_rows`.

    Returns
    -------
    numpyro.distributions.Distribution
        Batch shape ``alpha.shape[:-1]``, event shape ``(V,)``, real support.
    """
    from ._numpyro_dists import LogTiltedGammaRows

    return LogTiltedGammaRows(alpha, valid, s_shape, log_norm)


def tilted_log_norm(alpha, valid, s_shape=None):
    """The ``log_norm`` (...) of :func:`tilted_gamma_rows` for the same ``alpha``, ``valid`` and
    ``s_shape``, float32, computed in float64 with SciPy."""
    alpha = np.asarray(alpha, dtype=float)
    out = -gammaln(alpha).sum(-1)
    if s_shape is not None:
        a_sum = np.where(np.broadcast_to(valid, alpha.shape), alpha, 0.0).sum(-1)
        out = out + gammaln(a_sum) - gammaln(np.asarray(s_shape, dtype=float))
    return out.astype(np.float32)


# ------------------------------------------------------------ the site form of a Categorical block
# (a :class:`~bayesnb.families.categorical.DirichletSite`, as :mod:`bayesnb.families._stick_rows`;
# :func:`~bayesnb.families.categorical.site_for` picks one)
SITE = "log_gamma"


def valid_cells(sizes, vmax):
    """(d, V_max) bool: value ``v`` of feature ``j`` is real (``v < V_j``), not padding."""
    return np.arange(vmax)[None, :] < np.asarray(sizes, dtype=np.int64).reshape(-1, 1)


def prior_args(alpha, sizes) -> dict:
    """Prior pseudo-counts ``alpha`` (K, d, V_max) as float32 (pads 1, unused) and ``log_norm`` (K, d)."""
    alpha = np.asarray(alpha, dtype=float)
    return {"alpha": alpha.astype(np.float32), "log_norm": tilted_log_norm(alpha, None)}


def sampler_args(alpha, conc, sizes) -> dict:
    """``s_shape`` (K, d), the summed concentration of ``conc`` (None: of ``alpha``) over each row's valid
    cells (the shape of the law :func:`sample_site` gives ``S``), and the ``log_norm`` that goes with it."""
    valid = valid_cells(sizes, np.shape(alpha)[-1])
    conc = alpha if conc is None else conc
    s_shape = np.where(valid, np.asarray(conc, dtype=float), 0.0).sum(-1)
    return {"s_shape": s_shape.astype(np.float32), "log_norm": tilted_log_norm(alpha, valid, s_shape)}


def stats_args(counts, sizes) -> dict:
    """Counts as one padded (K, d, V_max) float32 array."""
    return {"counts": np.asarray(counts, dtype=np.float32)}


def suffstat_loglik(params, stats_args):
    """``sum n log theta = sum n u - sum N log S`` (pads have no counts)."""
    n = stats_args["counts"]
    return (n * params["u"]).sum() - (n.sum(-1) * params["log_s"]).sum()


def sample_site(label, sizes, prior_args, feature_plate, class_plate):
    """The sample site ``theta_<label>__log_gamma`` (K, d, V_max), the logs ``u`` of the Gamma draws
    (:func:`log_tilted_gamma_rows`), and the deterministic ``theta_<label>``, each row normalised
    over its valid cells (pads at 0).

    Returns ``{"log_theta", "u", "log_s"}``: ``log theta`` and ``u`` (K, d, V_max), pads at 0, and
    ``log S`` (K, d), so that :func:`suffstat_loglik` is ``sum n u - sum N log S``.
    """
    import jax.numpy as jnp
    import numpyro

    from ._numpyro_dists import row_sum

    alpha = prior_args["alpha"]
    K, d, vmax = alpha.shape
    mask = valid_cells(sizes, vmax)  # (d, V_max) constant
    with numpyro.plate(class_plate, K, dim=-2), numpyro.plate(feature_plate, d, dim=-1):
        u = numpyro.sample(f"theta_{label}__{SITE}",
                           log_tilted_gamma_rows(alpha, mask, prior_args.get("s_shape"), prior_args.get("log_norm")))
    g = jnp.where(mask, jnp.exp(u), 0.0)
    s = row_sum(g)[..., None]
    log_s = jnp.log(s)
    numpyro.deterministic(f"theta_{label}", g / s)
    return {"log_theta": jnp.where(mask, u - log_s, 0.0), "u": jnp.where(mask, u, 0.0), "log_s": log_s[..., 0]}


def site_values(label, theta, sizes, prior_args=None) -> dict:
    """``{"theta_<label>__log_gamma": u}``: the log of ``theta`` times ``S`` (``prior_args``' ``s_shape``
    when given, else 1; pads at 0)."""
    theta = np.asarray(theta, dtype=float)
    valid = valid_cells(sizes, theta.shape[-1])
    shape = None if prior_args is None else prior_args.get("s_shape")
    scale = 1.0 if shape is None else np.asarray(shape, dtype=float)[..., None]
    return {f"theta_{label}__{SITE}": np.where(valid, np.log(np.maximum(np.nan_to_num(theta) * scale, 1e-30)), 0.0)}
