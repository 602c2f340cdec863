"""The NUTS site of a Gaussian block: the Normal-Inverse-Gamma prior as one density on the
unconstrained scale.

Per (class, feature) cell the site holds ``z = (m, t)``: the standardised mean ``m`` and
the log of the standardised variance, ``t = log v``. With ``v ~ InvGamma(a, b)`` and
``m | v ~ Normal(m0, v / kappa)``, the change of variables ``v = exp(t)`` (Jacobian ``v``)
gives the density of ``z`` on the whole plane::

    log p(m, t) = log_norm - a t - b exp(-t) - t / 2 - kappa (m - m0)**2 exp(-t) / 2
    log_norm    = a log b - lgamma(a) + (log kappa - log(2 pi)) / 2

which is exactly the law NumPyro's two sites (an InverseGamma with its ``exp`` transform
and a Normal) gave, on the same unconstrained coordinates. Written as one distribution
with real support, the sampler's program holds one site, no transform and no ``lgamma``
(``log_norm`` comes in precomputed by :func:`nig_log_norm`): a smaller program to compile.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

__all__ = ["nig_log_norm", "nig_unconstrained"]

def nig_log_norm(a, b, kappa):
    """``a log b - lgamma(a) + (log kappa - log 2 pi) / 2`` per cell, float32 (computed in float64).

    Parameters
    ----------
    a, b, kappa : arrays of the same shape
        Shape and scale of the variance's InverseGamma, and the mean's pseudo-count
        (a non-positive one, an improper prior, gives -inf or NaN: NUTS refuses those priors).

    Returns
    -------
    ndarray of float32
    """
    a, b, kappa = (np.asarray(v, dtype=float) for v in (a, b, kappa))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a * np.log(b) - gammaln(a) + 0.5 * (np.log(kappa) - np.log(2 * np.pi))
    return out.astype(np.float32)


def nig_unconstrained(mu0, kappa, a, b, log_norm):
    """The distribution of ``(m, log v)`` per cell under ``v ~ InvGamma(a, b)``, ``m | v ~ Normal(mu0, v / kappa)``.

    Parameters
    ----------
    mu0, kappa, a, b, log_norm : arrays of the batch shape
        ``log_norm`` from :func:`nig_log_norm`.

    Returns
    -------
    numpyro.distributions.Distribution
        Batch shape that of the arguments, event shape ``(2,)``, real support.
    """
    from ._numpyro_dists import NIGUnconstrained

    return NIGUnconstrained(mu0, kappa, a, b, log_norm)

