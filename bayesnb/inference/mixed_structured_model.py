"""The NumPyro model of a mixed structure (``NaiveBayes(structure="tan"|"kdb"|"auto")``).

The model (see :mod:`bayesnb.structure.model`)::

    pi              ~ Dirichlet(class_alpha)                  (absent if the class prior is fixed)
    params_j[c]     ~ prior of node j's family, one per context c = (class, parents' states)
    y, x            : sum_k n_k log pi_k + sum_j (node j's family log-likelihood of its
                      sufficient statistics over its contexts)
    x (unlabelled)  : per row, log sum_k pi_k prod_j p(x_j | params_j[k, state(pa_j)])

Every node is one column of its family on the *context axis*: the family's NumPyro hooks
(``numpyro_sample``, ``numpyro_stats_args``, ``numpyro_suffstat_loglik``,
``params_from_sites``) are called with the contexts in the place of the classes (plates
``context_<j>`` x ``node_<j>`` of size 1), exactly as the exact fit runs the family's
``stats`` / ``update`` on that axis. A categorical node is thus the Categorical family's
Dirichlet per context, a numeric node its family's prior per context (the Gaussian's
Normal-Inverse-Gamma, or any other family's); nothing here knows which family it holds.
A numeric parent's states are its quantile bins (the fitted nodes' edges). The statistics
are those of the exact fit's rule: a row adds to node ``j`` when ``x_j`` and all of ``j``'s
parents are observed. So the closed-form posterior of each context is the family's
conjugate update, and NUTS on this model samples the same posterior.

Unlabelled rows (:func:`unlabelled_inputs`) enter one factor each, their class summed out:
node ``j``'s family row log-likelihood (``numpyro_row_loglik``, every context) taken at the
row's context ``k * prod_p B_p + u_i`` under every class ``k``, summed over the nodes and
log-sum-exp'ed over the classes with ``log pi``. The rule of the statistics holds for them
too: node ``j`` adds its term when ``x_j`` and all its parents are observed (on a row without
missing cells, the exact likelihood of the row).

Draws (NUTS here, exact in :mod:`bayesnb.structure.draws`) share one layout:
``<param>_<feature>`` for each of the node family's ``param_names``, dims ``(class,
<parent>_state, ..., [<feature>_category])``.

- :class:`MixedSpec` -- hashable structure (the key of the compiled sampler)
- :func:`make_mixed_model` -- the NumPyro model ``model(priors, data=None)``
- :func:`mixed_inputs` -- its spec, prior and data arrays from a fitted :class:`~bayesnb.structure.model.MixedModel`
- :func:`unlabelled_inputs` -- the data arrays of unlabelled rows
- :func:`run_mixed_nuts` -- NUTS on it (the project's cached, chunked :func:`~bayesnb.inference.nuts.run_nuts`)

JAX and NumPyro are imported lazily.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from ..structure import model as _mx
from .numpyro_model import FamilyCode, class_prior_args, sample_class_log_prior
from .nuts import run_nuts, sample_stats_from_extra

__all__ = ["MixedSpec", "make_mixed_model", "mixed_inputs", "run_mixed_nuts", "unlabelled_inputs"]


class MixedSpec(NamedTuple):
    """Hashable structure of :func:`make_mixed_model`.

    Attributes
    ----------
    fixed_pi : bool
        The class prior is fixed (no ``pi`` site).
    nodes : tuple of (FamilyCode, static)
        Per node, its family (equal for equal family classes) and the family's
        ``numpyro_static`` of the node's prior.
    """

    fixed_pi: bool
    nodes: tuple

    def make_model(self):
        """The NumPyro model of this structure (:func:`make_mixed_model`)."""
        return make_mixed_model(self)


def make_mixed_model(spec: MixedSpec):
    """The NumPyro model ``model(priors, data=None)`` of a mixed structure.

    Parameters
    ----------
    spec : MixedSpec

    Returns
    -------
    callable
        Sites ``pi`` (unless fixed) and node ``j``'s family sites labelled ``n<j>`` under plates
        ``context_<j>`` x ``node_<j>``. ``priors = {"class_alpha" | "class_log_prior", "nodes":
        [family prior args, ...]}``; ``data = {"class_count": (K,), "stats": [family stats
        args, ...]}`` adds the labelled-data factors, and ``data["unlabelled"]``
        (:func:`unlabelled_inputs`) one factor per unlabelled row in plate ``obs_unlabelled``;
        ``data=None`` leaves the prior.
    """
    import jax.numpy as jnp
    import numpyro
    from jax.scipy.special import logsumexp

    fams = [code.family for code, _ in spec.nodes]

    def model(priors, data=None):
        log_pi = sample_class_log_prior(priors, spec.fixed_pi)
        params = [fam.numpyro_sample(f"n{j}", static, priors["nodes"][j], f"node_{j}", f"context_{j}")
                  for j, (fam, (_, static)) in enumerate(zip(fams, spec.nodes))]
        if data is None:
            return
        numpyro.factor("y", (data["class_count"] * log_pi).sum())
        for j, fam in enumerate(fams):
            numpyro.factor(f"x_{j}", fam.numpyro_suffstat_loglik(params[j], data["stats"][j]))
        if "unlabelled" in data:
            unl = data["unlabelled"]
            ll = log_pi[None, :]
            for j, fam in enumerate(fams):  # (m, contexts) -> each row's context under every class (m, K)
                at = jnp.take_along_axis(fam.numpyro_row_loglik(params[j], unl["rows"][j]), unl["context"][j], axis=1)
                ll = ll + at * unl["parents_seen"][j][:, None]
            with numpyro.plate("obs_unlabelled", ll.shape[0]):
                numpyro.factor("x_unlabelled", logsumexp(ll, axis=1))

    return model


def mixed_inputs(model, class_prior_alpha, class_log_prior, fixed_class_prior, class_count, stats):
    """``(spec, priors, data)`` of :func:`make_mixed_model`.

    Parameters
    ----------
    model : MixedModel
        The fitted structure: its nodes' families, priors and posteriors (the posteriors only
        tune the sampler through the family's ``numpyro_sampler_args``; the model is the prior's).
    class_prior_alpha, class_log_prior : ndarray of shape (K,)
        The class prior's Dirichlet pseudo-counts / fixed log probabilities.
    fixed_class_prior : bool
    class_count : ndarray of shape (K,)
        Class counts of the data.
    stats : sequence
        Per node, its family statistics of the data over its contexts (:func:`~bayesnb.structure.model.fit_nodes`).

    Returns
    -------
    spec : MixedSpec
    priors : dict
    data : dict
    """
    nodes, args = [], []
    for nd, prior, post in zip(model.nodes, model.priors, model.posteriors):
        fam = nd.family
        nodes.append((FamilyCode(fam), fam.numpyro_static(prior)))
        args.append({**fam.numpyro_prior_args(prior), **fam.numpyro_sampler_args(prior, post)})
    priors = {"nodes": args, **class_prior_args(fixed_class_prior, class_log_prior, class_prior_alpha)}
    data = {"class_count": np.asarray(class_count, dtype=np.float32),
            "stats": [nd.family.numpyro_stats_args(s) for nd, s in zip(model.nodes, stats)]}
    return MixedSpec(bool(fixed_class_prior), tuple(nodes)), priors, data


def unlabelled_inputs(model, spec, data):
    """``data["unlabelled"]`` of :func:`make_mixed_model`: the arrays of the unlabelled rows.

    Parameters
    ----------
    model : MixedModel
        The fitted structure.
    spec : MixedSpec
        From :func:`mixed_inputs` (each node's ``numpyro_static``).
    data : tuple
        :func:`~bayesnb.structure.model.node_data` of the unlabelled rows.

    Returns
    -------
    dict
        ``rows``: per node, its family's ``numpyro_row_args`` of its column (a numeric node's
        values encoded alone); ``context``: per node, (m, K) int32, the row's context
        ``k * prod_p B_p + u`` under every class ``k`` (``u`` its parents' joint state, 0 when
        one is missing); ``parents_seen``: per node, (m,) float32, 1 when every parent is observed.
    """
    cols, miss, states = data
    K = model.n_classes
    rows, context, seen = [], [], []
    for j, (nd, pa, (_, static)) in enumerate(zip(model.nodes, model.parents, spec.nodes)):
        P = _mx._n_parent_states(model.nodes, pa)
        ok = ~miss[:, list(pa)].any(axis=1)
        u = _mx._parent_index(model.nodes, pa, np.where(miss, 0, states))
        block = _mx.encode_values(nd, cols[j]) if nd.numeric else cols[j]
        rows.append(nd.family.numpyro_row_args(block, static))
        context.append((np.arange(K)[None, :] * P + u[:, None]).astype(np.int32))
        seen.append(ok.astype(np.float32))
    return {"rows": rows, "context": context, "parents_seen": seen}


def run_mixed_nuts(spec, priors, data, variables, shapes, *, num_warmup=500, num_samples=1000, num_chains=1,
                   seed=0, progress_bar=False, target_accept_prob=0.8):
    """NUTS on :func:`make_mixed_model` through :func:`~bayesnb.inference.nuts.run_nuts` (compiled
    sampler cached per structure, shapes and warmup; chains one after another).

    Parameters
    ----------
    spec, priors, data
        From :func:`mixed_inputs`.
    variables : sequence of dict
        Per node, ``{param name: variable name}`` (the family's ``param_names``).
    shapes : dict
        ``{variable: shape}`` without ``chain``/``draw`` (``(K, <parent states>..., ...)``).
    num_warmup, num_samples, num_chains, seed, progress_bar, target_accept_prob
        As in :func:`~bayesnb.inference.nuts.run_nuts`.

    Returns
    -------
    draws : dict
        ``{variable: (chain, draw, ...)}``, ``pi`` included unless the class prior is fixed.
    sample_stats : dict
        ArviZ ``sample_stats``.
    timing : dict
        ``compile_seconds``, ``sampling_seconds``, ``total_seconds`` (wall time of the whole call).
    """
    t0 = time.perf_counter()
    samples, extra, timing = run_nuts(spec, priors, data, num_warmup=int(num_warmup), num_samples=int(num_samples),
                                      num_chains=int(num_chains), chain_method="sequential", seed=int(seed),
                                      progress_bar=bool(progress_bar), target_accept_prob=target_accept_prob)
    draws = {} if spec.fixed_pi else {"pi": np.asarray(samples["pi"], dtype=float)}
    for j, ((code, static), names) in enumerate(zip(spec.nodes, variables)):
        params = code.family.params_from_sites(f"n{j}", static, samples)
        for p, var in names.items():
            a = np.asarray(params[p], dtype=float)  # (chain, draw, contexts, 1, ...)
            draws[var] = a.reshape(a.shape[:2] + tuple(shapes[var]))
    timing = dict(timing or {})
    timing["total_seconds"] = time.perf_counter() - t0
    return draws, sample_stats_from_extra(extra), timing
