"""Exact conjugate draws and closed-form moments of every parameter of an :class:`~bayesnb.NBPosterior`.

Draws are NumPy (thousands per second): the Dirichlet of the class prior and each block's
family draws (:meth:`~bayesnb.families.capabilities.PosteriorDraws.sample_params`), named as in the
NUTS output so both give the same ArviZ ``DataTree``.
"""

from __future__ import annotations

import numpy as np

from ..criticism.diagnostics import block_layouts
from ..families.numeric import dirichlet_draws

__all__ = ["credible_interval", "posterior_moments", "sample_posterior_draws"]


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


def credible_interval(draws, ci=0.94, axis=None):
    """Equal-tailed credible interval of posterior draws (the ``ci`` central quantiles).

    The summary of any draws the estimators return: ``credible_interval(clf.predict_proba_draws(X))``
    for ``p(y | x)`` (replaces ``predict_proba_interval``), ``credible_interval(clf.coef_draws()[0])``
    for the log-odds weights (replaces ``coef_interval``), or a variable of ``sample_posterior``.

    Parameters
    ----------
    draws : array-like or xarray.DataArray
        Draws along ``axis`` (e.g. shape ``(n_draws, n_samples, n_classes)``), or a variable of
        ``sample_posterior`` / ``run_mcmc`` (dims ``chain``, ``draw``, ...: every chain's draws pooled).
    ci : float in (0, 1), default=0.94
        Posterior mass between the bounds (ArviZ's default level).
    axis : int or None, default=None
        The axis of the draws; None: the ``chain`` and ``draw`` dims of an ArviZ variable, else axis 0.

    Returns
    -------
    lower, upper : ndarray
        The ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles, of ``draws``'s shape without ``axis``
        (without ``chain`` and ``draw`` for an ArviZ variable).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = credible_interval(np.arange(101.0), ci=0.9)
    >>> round(float(lo), 9), round(float(hi), 9)
    (5.0, 95.0)
    """
    if not isinstance(ci, (float, int, np.floating, np.integer)) or isinstance(ci, bool) or not 0 < ci < 1:
        raise ValueError(f"credible_interval: ci must be a probability in (0, 1); received {ci!r}.")
    dims = tuple(getattr(draws, "dims", ()))
    draws = np.asarray(draws, dtype=float)
    if axis is None:
        axis = 0
        if "chain" in dims and "draw" in dims:  # an ArviZ variable: pool the chains' draws into axis 0
            draws = np.moveaxis(draws, [dims.index("chain"), dims.index("draw")], [0, 1])
            draws = draws.reshape((-1, *draws.shape[2:]))
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -draws.ndim <= axis < max(draws.ndim, 1):
        raise ValueError(f"credible_interval: axis {axis!r} is not an axis of draws with {draws.ndim} dimension(s).")
    if draws.ndim == 0 or draws.shape[axis] < 1:
        raise ValueError(f"credible_interval: draws need at least one draw along axis {axis}; "
                         f"received shape {draws.shape}.")
    q = (1 - float(ci)) / 2
    return np.quantile(draws, q, axis=axis), np.quantile(draws, 1 - q, axis=axis)
