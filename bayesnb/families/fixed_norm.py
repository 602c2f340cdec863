"""Prior densities whose normalising constants come in as arrays, computed once in NumPy.

The prior hyperparameters reach the compiled NUTS program as arguments, so every
``lgamma`` of a hyperparameter in a log density (Dirichlet, Gamma, InverseGamma) is
compiled into the program, although it never depends on the sampled parameters. JAX's
float32 ``lgamma`` is a large routine (polynomial tables, reflection paths): each call
site added roughly 50,000 characters of StableHLO and several seconds of XLA compile
time, once in the initialiser and once in the NUTS chunk. The distributions here take
those constants precomputed (``scipy.special.gammaln`` in float64, see
:func:`lgamma32`), so the log density is the same function with no ``lgamma`` in it.
Sampling (``Predictive``) and the support are the parent class's. (The Gaussian block's
InverseGamma has its own site density, :class:`._numpyro_dists.NIGUnconstrained`.)
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

__all__ = ["dirichlet_fixed_norm", "lgamma32"]

def lgamma32(x):
    """``log Gamma(x)`` computed in float64, returned as float32 (a normalising constant)."""
    return gammaln(np.asarray(x, dtype=float)).astype(np.float32)


def dirichlet_fixed_norm(concentration, log_norm):
    """``Dirichlet(concentration)`` whose ``log_prob`` adds ``log_norm`` instead of computing it.

    Parameters
    ----------
    concentration : array of shape (..., V)
    log_norm : array of shape (...)
        ``lgamma(sum concentration) - sum lgamma(concentration)`` (e.g. from :func:`lgamma32`).

    Returns
    -------
    numpyro.distributions.Dirichlet
    """
    from ._numpyro_dists import DirichletFixedNorm

    return DirichletFixedNorm(concentration, log_norm)

