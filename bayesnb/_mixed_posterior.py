"""Exact posterior draws of a mixed structure (``NaiveBayes(structure=...).sample_posterior``).

Variables (dims without ``chain``/``draw``), parents as named dims:

- ``pi`` ``(class,)``: Dirichlet (absent under a fixed class prior);
- a categorical feature ``f``: ``theta_f`` ``(class, <parent>_state, ..., f_category)``, one
  Dirichlet posterior per context, as ``CategoricalNB(structure=...)``;
- a numeric feature ``f``: one variable ``<param>_f`` ``(class, <parent>_state, ...)`` per
  parameter of its family (``Family.param_names``; e.g. ``mu_f``, ``sigma2_f`` for a Gaussian or
  LogNormal, ``lam_f`` for a Poisson, ``pi_f`` and the base's for a Hurdle, ``theta_f`` with a
  trailing ``f_bin`` dim for a Histogram), drawn by the family's exact ``sample_params`` from
  its posterior in every context.

A numeric parent's states are its bins, labelled ``"(lo, hi]"`` by their edges.
"""

from __future__ import annotations

import numpy as np

from .diagnostics import _coord_values
from .families._numeric import dirichlet_draws

__all__ = ["mixed_draws", "mixed_layout"]


def _state_labels(node, categories):
    if not node.numeric:
        return _coord_values(list(categories))
    e = ["-inf", *(f"{v:.6g}" for v in node.edges), "inf"]
    return [f"({e[i]}, {e[i + 1]}]" for i in range(node.n_states)]


def mixed_layout(model, classes, names, categories, fixed_class_prior=False):
    """``(dims, coords, shapes)`` of :func:`mixed_draws`.

    Parameters
    ----------
    model : MixedModel
    classes : array-like of shape (K,)
    names : sequence of str
        Per node, the feature name.
    categories : sequence
        Per node, its category values (code order; ignored for numeric nodes).
    fixed_class_prior : bool, default=False
        No ``pi`` variable.

    Returns
    -------
    dims : dict
    coords : dict
    shapes : dict
        ``{variable: shape}`` without ``chain``/``draw``.
    """
    names = [str(n).replace("/", "_") for n in names]
    if len(set(names)) != len(names):
        names = [f"{n}_{j}" for j, n in enumerate(names)]
    dims, coords, shapes = {}, {"class": _coord_values(list(classes))}, {}
    K = len(classes)
    if not fixed_class_prior:
        dims["pi"], shapes["pi"] = ["class"], (K,)
    for j, (nd, pa) in enumerate(zip(model.nodes, model.parents)):
        ctx_dims = ["class", *(f"{names[p]}_state" for p in pa)]
        ctx_shape = (K, *(model.nodes[p].n_states for p in pa))
        for p in pa:
            coords[f"{names[p]}_state"] = _state_labels(model.nodes[p], categories[p])
        if nd.numeric:
            shape_of = nd.family.sample_params(model.posteriors[j], 1, np.random.default_rng(0))
            for v, arr in shape_of.items():  # (1, C, 1, ...): trailing dims beyond the context
                extra = tuple(np.shape(arr)[3:])
                dims[f"{v}_{names[j]}"] = [*ctx_dims, *(f"{names[j]}_bin" for _ in extra[:1])]
                shapes[f"{v}_{names[j]}"] = (*ctx_shape, *extra)
        else:
            own = f"{names[j]}_category"
            coords[own] = _coord_values(list(categories[j]))
            dims[f"theta_{names[j]}"], shapes[f"theta_{names[j]}"] = [*ctx_dims, own], (*ctx_shape, nd.n_states)
    return dims, coords, shapes


def mixed_draws(model, class_concentration, dims, shapes, n_draws, rng) -> dict:
    """Exact conjugate draws ``{variable: (n_draws, ...)}`` in the order of ``dims``."""
    out = {}
    if "pi" in dims:
        out["pi"] = dirichlet_draws(np.asarray(class_concentration, float), n_draws, rng)
    variables = [v for v in dims if v != "pi"]
    for j, (nd, post) in enumerate(zip(model.nodes, model.posteriors)):
        if not nd.numeric:
            var = variables.pop(0)
            (conc,) = post.concentration
            out[var] = dirichlet_draws(np.asarray(conc, float), n_draws, rng).reshape((n_draws, *shapes[var]))
            continue
        for arr in nd.family.sample_params(post, n_draws, rng).values():
            var = variables.pop(0)
            out[var] = np.asarray(arr, dtype=float).reshape((n_draws, *shapes[var]))
    return {v: out[v] for v in dims}
