"""Exact posterior draws of a mixed structure (``NaiveBayes(structure=...).sample_posterior``).

Variables (dims without ``chain``/``draw``), parents as named dims:

- ``pi`` ``(class,)``: Dirichlet (absent under a fixed class prior);
- feature ``f``: ``<param>_f`` for each of its family's ``param_names``, dims ``(class,
  <parent>_state, ...)`` followed by the parameter's own axes: ``f_category`` for a
  categorical feature (``theta_f``, one Dirichlet posterior per context, as
  ``CategoricalNB(structure=...)``), ``<param>_f_dim_<i>`` (positions) for any other. A
  Gaussian feature has ``mu_f`` and ``sigma2_f`` (one Normal-Inverse-Gamma posterior per
  context: ``sigma2 ~ InvGamma(a_n, b_n)``, ``mu ~ Normal(mu_n, sigma2 / kappa_n)``); a
  LogNormal the same on log x; a Poisson ``lam_f``; a Hurdle ``pi_f`` and its base's; a
  Histogram ``theta_f`` with its bins as ``theta_f_dim_0``.

Every draw is the node family's ``sample_params`` on its context axis, so the layout is that
of the NUTS draws of :mod:`bayesnb.inference.numpyro_model` (``compare_posteriors``
compares them). A numeric parent's states are its bins, labelled ``"(lo, hi]"`` by their edges.
"""

from __future__ import annotations

import numpy as np

from ..criticism.diagnostics import coord_values
from ..families.numeric import dirichlet_draws

__all__ = ["mixed_draws", "mixed_layout", "mixed_moments", "node_variables"]


def _state_labels(node, categories):
    if not node.numeric:
        return coord_values(list(categories))
    e = ["-inf", *(f"{v:.6g}" for v in node.edges), "inf"]
    return [f"({e[i]}, {e[i + 1]}]" for i in range(node.n_states)]


def _clean(names):
    names = [str(n).replace("/", "_") for n in names]  # DataTree names cannot hold "/"
    if len(set(names)) != len(names):
        names = [f"{n}_{j}" for j, n in enumerate(names)]
    return names


def node_variables(model, names) -> list:
    """Per node, ``{param name: variable name}``: ``<param>_<feature>`` for its family's ``param_names``."""
    names = _clean(names)
    return [{p: f"{p}_{names[j]}" for p in nd.family.param_names} for j, nd in enumerate(model.nodes)]


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
    variables = node_variables(model, names)
    names = _clean(names)
    dims, coords, shapes = {}, {"class": coord_values(list(classes))}, {}
    K = len(classes)
    if not fixed_class_prior:
        dims["pi"], shapes["pi"] = ["class"], (K,)
    for j, (nd, pa) in enumerate(zip(model.nodes, model.parents)):
        ctx_dims = ["class", *(f"{names[p]}_state" for p in pa)]
        ctx_shape = (K, *(model.nodes[p].n_states for p in pa))
        for p in pa:
            coords[f"{names[p]}_state"] = _state_labels(model.nodes[p], categories[p])
        moments = nd.family.posterior_moments(model.posteriors[j])
        for p, var in variables[j].items():
            rest = np.shape(moments[p][0])[2:]  # (contexts, 1, own axes...)
            if not nd.numeric and len(rest) == 1:
                own = [f"{names[j]}_category"]
                coords[own[0]] = coord_values(list(categories[j]))
            else:
                own = [f"{var}_dim_{i}" for i in range(len(rest))]
                coords.update({d: np.arange(s) for d, s in zip(own, rest)})
            dims[var], shapes[var] = [*ctx_dims, *own], (*ctx_shape, *rest)
    return dims, coords, shapes


def mixed_draws(model, class_concentration, dims, shapes, n_draws, rng, variables) -> dict:
    """Exact conjugate draws ``{variable: (n_draws, ...)}`` in the order of ``dims``.

    ``variables`` is :func:`node_variables` of the names ``dims`` was built with.
    """
    out = {}
    if "pi" in dims:
        out["pi"] = dirichlet_draws(np.asarray(class_concentration, float), n_draws, rng)
    for nd, post, names in zip(model.nodes, model.posteriors, variables):
        draws = nd.family.sample_params(post, n_draws, rng)  # (n_draws, contexts, 1, ...)
        for p, var in names.items():
            out[var] = np.asarray(draws[p], dtype=float).reshape((n_draws, *shapes[var]))
    return {v: out[v] for v in dims}


def mixed_moments(model, class_concentration, dims, shapes, variables) -> dict:
    """Closed-form posterior mean and sd ``{variable: (mean, sd)}`` of every variable of ``dims``.

    Each node's from its family's ``posterior_moments`` on its context axis (NaN where a moment
    is undefined, e.g. a Gaussian variance's sd when ``a_n <= 2``); ``pi``'s from its Dirichlet.
    ``variables`` is :func:`node_variables` of the names ``dims`` was built with. For
    :func:`bayesnb.compare_posteriors` (no Monte-Carlo error on the exact side).
    """
    out = {}
    if "pi" in dims:
        a = np.asarray(class_concentration, dtype=float)
        m = a / a.sum()
        out["pi"] = (m, np.sqrt(m * (1 - m) / (a.sum() + 1)))
    for nd, post, names in zip(model.nodes, model.posteriors, variables):
        moments = nd.family.posterior_moments(post)  # (contexts, 1, ...)
        for p, var in names.items():
            mean, sd = (np.asarray(v, dtype=float).reshape(shapes[var]) for v in moments[p])
            out[var] = (mean, sd)
    return {v: out[v] for v in dims}
