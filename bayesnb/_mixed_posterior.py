"""Exact posterior draws of a mixed structure (``NaiveBayes(structure=...).sample_posterior``).

Variables (dims without ``chain``/``draw``), parents as named dims:

- ``pi`` ``(class,)``: Dirichlet (absent under a fixed class prior);
- a categorical feature ``f``: ``theta_f`` ``(class, <parent>_state, ..., f_category)``, one
  Dirichlet posterior per context, as ``CategoricalNB(structure=...)``;
- a numeric feature ``f``: ``mu_f`` and ``sigma_f`` ``(class, <parent>_state, ...)``, one
  Normal-Inverse-Gamma posterior per context: ``sigma^2 ~ InvGamma(a_n, b_n)``,
  ``mu ~ Normal(mu_n, sigma^2 / kappa_n)``.

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
            for v in ("mu", "sigma"):
                dims[f"{v}_{names[j]}"], shapes[f"{v}_{names[j]}"] = ctx_dims, ctx_shape
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
    thetas = [v for v in dims if v.startswith(("theta_", "mu_"))]
    for j, (nd, post) in enumerate(zip(model.nodes, model.posteriors)):
        var = thetas[j]
        if not nd.numeric:
            (conc,) = post.concentration
            out[var] = dirichlet_draws(np.asarray(conc, float), n_draws, rng).reshape((n_draws, *shapes[var]))
            continue
        mu, kappa, a, b = (np.asarray(f, dtype=float)[:, 0] for f in (post.mu, post.kappa, post.a, post.b))
        sigma2 = b / rng.standard_gamma(a, size=(n_draws, a.size))
        draws_mu = rng.normal(mu, np.sqrt(sigma2 / kappa))
        out[var] = draws_mu.reshape((n_draws, *shapes[var]))
        out["sigma_" + var[3:]] = np.sqrt(sigma2).reshape((n_draws, *shapes[var]))
    return {v: out[v] for v in dims}
