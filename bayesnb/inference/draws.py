"""Exact conjugate draws and closed-form moments of every parameter of an :class:`~bayesnb.NBPosterior`.

Draws are NumPy (thousands per second): the Dirichlet of the class prior and each block's
family draws (:meth:`~bayesnb.families._base.Family.sample_params`), named as in the
NUTS output so both give the same ArviZ ``DataTree``.
"""

from __future__ import annotations

import numpy as np

from ..criticism.diagnostics import block_layouts
from ..families._numeric import dirichlet_draws

__all__ = ["posterior_moments", "sample_posterior_draws"]


def sample_posterior_draws(post, n_draws: int, rng) -> dict:
    """Exact conjugate draws of every parameter: ``{variable: (n_draws, ...)}``."""
    out = {}
    if not post.fixed_class_prior:
        out["pi"] = dirichlet_draws(post.class_concentration, n_draws, rng)
    for b, lay in zip(post.blocks, block_layouts(post)):
        for name, arr in b.family.sample_params(b.posterior, n_draws, rng).items():
            out[f"{name}_{lay.label}"] = arr
    return out


def posterior_moments(post) -> dict:
    """Closed-form posterior mean and sd of every parameter: ``{variable: (mean, sd)}``."""
    out = {}
    if not post.fixed_class_prior:
        a = post.class_concentration
        m = a / a.sum()
        out["pi"] = (m, np.sqrt(m * (1 - m) / (a.sum() + 1)))
    for b, lay in zip(post.blocks, block_layouts(post)):
        for name, mom in b.family.posterior_moments(b.posterior).items():
            out[f"{name}_{lay.label}"] = mom
    return out
