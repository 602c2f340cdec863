"""Latent-class models given to the generative methods: checked, or built from MCMC draws."""

from __future__ import annotations

import numpy as np

from .._utils import as_generator
from ..criticism.diagnostics import variable_layout
from ..inference import em

__all__ = ["check_latent", "latent_class_draws", "latent_fits_from_draws", "read_draws"]


def check_latent(post, latent, n_classes, who):
    """``(posterior, class of each state, point)`` of a latent-class model of the estimator.

    Parameters
    ----------
    post : Posterior
        The estimator's posterior (``posterior_``).
    latent : LatentClassFit
        From ``fit_latent_class`` or ``latent_class_draws`` of that estimator.
    n_classes : int
        Number of the estimator's classes.
    who : str
        Name used in error messages.

    Returns
    -------
    posterior : Posterior
    group : ndarray of int
        The class of each latent state.
    point : bool
        Whether the model is one MCMC draw (its parameters used as they are).

    Raises
    ------
    ValueError
        ``latent`` is not a latent-class model of this estimator.
    """
    if getattr(latent, "structure", None) is not None:
        raise ValueError(f"{who}: latent is a latent-class model of a structure (fit_latent_class or "
                         "latent_class_draws of an estimator with structure='tan'/'kdb'); use it with that "
                         "estimator.")
    ours, theirs = post.blocks, getattr(getattr(latent, "posterior", None), "blocks", None)
    if theirs is None or len(theirs) != len(ours) or any(
            type(a.family) is not type(b.family) or not np.array_equal(a.columns, b.columns)
            for a, b in zip(ours, theirs)) or np.max(latent.group, initial=-1) >= n_classes:
        raise ValueError(f"{who}: latent must be a LatentClassFit of this estimator (from "
                         f"fit_latent_class or latent_class_draws); received {type(latent).__name__}.")
    return latent.posterior, latent.group, bool(latent.point)


def read_draws(idata, layout, n_draws, random_state, who):
    """The draws of ``run_mcmc``'s ``idata``, checked against the estimator's layout.

    Parameters
    ----------
    idata : xarray.DataTree
        The result of the estimator's ``run_mcmc``.
    layout : callable
        ``n_components`` -> ``(dims, coords)`` of the estimator's draws (``{variable: dims}``
        without ``chain``/``draw``; ``coords`` the length of every dim).
    n_draws : int or None
        Draws taken at random without replacement; None: all, in (chain, draw) order.
    random_state : None, int or Generator
    who : str
        Name used in error messages.

    Returns
    -------
    values : dict
        ``{variable: ndarray (chains * draws, ...)}``.
    pick : ndarray of int
        The draws to use.
    n_components : int
        From ``w``'s last axis (1 without ``w``).

    Raises
    ------
    TypeError
        ``idata`` is not a DataTree with a ``posterior`` group.
    ValueError
        Its variables, dims or shapes are not the estimator's (another estimator's or
        structure's draws), or ``n_draws`` is out of range.
    """
    try:
        ds = idata["posterior"]
        names = set(ds.data_vars)
    except (KeyError, TypeError, AttributeError):
        raise TypeError(f"{who}: idata must be the DataTree returned by run_mcmc.") from None
    C = int(ds["w"].shape[-1]) if "w" in names else 1
    dims, coords = layout(C)
    if names != set(dims) or any(tuple(ds[v].dims[2:]) != tuple(dims[v])
                                 or ds[v].shape[2:] != tuple(len(coords[d]) for d in dims[v]) for v in dims):
        raise ValueError(f"{who}: idata does not match this estimator's model (variables "
                         f"{sorted(names)}; expected {sorted(dims)}, with their dims and shapes): pass the result "
                         "of its run_mcmc.")
    chains, draws = ds[next(iter(dims))].shape[:2]
    pick = np.arange(chains * draws)
    if n_draws is not None:
        n = int(n_draws)
        if n < 1 or n > pick.size:
            raise ValueError(f"{who}: n_draws must be in [1, {pick.size}]; received {n_draws!r}.")
        pick = as_generator(random_state).choice(pick.size, size=n, replace=False)
    values = {v: np.asarray(ds[v].values, dtype=float).reshape((chains * draws,) + ds[v].shape[2:]) for v in dims}
    return values, pick, C


def latent_class_draws(model, idata, *, n_draws=None, random_state=None):
    """One plug-in latent-class model per posterior draw of ``model.run_mcmc``.

    Turns the NUTS draws of ``model.run_mcmc(X, y, n_components=C)`` (the latent-class model,
    component marginalised; or exact draws of ``model.sample_posterior``) into
    :class:`~bayesnb.inference.em.LatentClassFit` objects that ``model.impute`` and
    ``model.score_samples`` accept (``latent=``): imputing once per draw
    (``strategy="draw"``) is multiple imputation from the MCMC posterior, and ``logsumexp``
    of the per-draw scores minus ``log(n_draws)`` is the posterior-predictive ``log p(x)``.
    These quantities are invariant to the components' labels, which may switch between
    chains. Under a structure (TAN, k-DB) each fit's ``structure`` is the model over the
    (class, component) states at that draw (:func:`bayesnb.structure.structured_em.draw_model`).
    Replaces the method ``model.latent_class_draws`` (0.1).

    Parameters
    ----------
    model : fitted bayesnb estimator
    idata : xarray.DataTree
        The result of ``model.run_mcmc`` (any ``n_components``) or ``model.sample_posterior``.
    n_draws : int or None, default=None
        Number of draws to use, taken at random without replacement over chains and
        draws; None: all of them, in (chain, draw) order.
    random_state : None, int or Generator

    Returns
    -------
    list of LatentClassFit
        With ``point=True`` and an empty ``em_objective``; state ``k * C + c`` is
        component ``c`` of class ``k``. (Document-length rates of multinomial blocks,
        which the model does not sample, are the class's training mean length.)

    Raises
    ------
    ValueError
        ``idata`` is not of this model's posterior (another estimator's, or another
        structure's: its variables, dims or shapes differ).
    """
    draws = getattr(model, "_latent_class_draws", None)
    if draws is None:
        raise TypeError(f"latent_class_draws: expected a bayesnb estimator; received {type(model).__name__}.")
    return draws(idata, n_draws=n_draws, random_state=random_state)


def latent_fits_from_draws(base, idata, n_draws, random_state, who):
    """One plug-in :class:`LatentClassFit` per posterior draw of ``run_mcmc`` (see ``latent_class_draws``).

    Parameters
    ----------
    base : Posterior
        The estimator's posterior (``posterior_``).
    idata : xarray.DataTree
        The result of the estimator's ``run_mcmc``.
    n_draws : int or None
        Draws taken at random without replacement; None: all, in (chain, draw) order.
    random_state : None, int or Generator
    who : str
        Name used in error messages.

    Returns
    -------
    list of LatentClassFit
    """
    values, pick, C = read_draws(idata, lambda C: _naive_layout(base, C), n_draws, random_state, who)
    return em.latent_class_from_draws(base, values, variable_layout(base, C)[3], C, pick)


def _naive_layout(base, C):
    """``(dims, coords)`` of the naive model's draws: :func:`~bayesnb.criticism.diagnostics.variable_layout`'s,
    with a parameter's own axes beyond its category axis (a Histogram's bins) named as the DataTree
    names them, ``<variable>_dim_<i>``."""
    dims, coords, _, layouts = variable_layout(base, C)
    for b, lay in zip(base.blocks, layouts):
        point = b.family.point_params(b.posterior)
        for p in (p for p in b.family.param_names if p in point):
            v = f"{p}_{lay.label}"
            own = np.shape(point[p])[2 + bool(lay.category_dim):]  # (K, d[, categories], own...)
            dims[v] = dims[v] + [f"{v}_dim_{i}" for i in range(len(own))]
            coords.update({f"{v}_dim_{i}": np.arange(n) for i, n in enumerate(own)})
    return dims, coords
