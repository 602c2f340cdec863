"""Semi-supervised EM on the one structure engine (TAN, k-DB, ``structure="auto"``).

The model is :mod:`bayesnb._structured_mixed`'s, ``p(y) prod_j p(x_j | y, pa_j)``, with the
structure (parents and bin edges) and every prior fixed, both learned on the labelled rows.
EM climbs the same objective as the naive EM (:mod:`bayesnb.inference.em`, Nigam et al.
2000): ``sum_i w_i log p(x_i, y_i)`` over the labelled rows plus ``sum_i w_i log sum_k
p(x_i, y=k)`` over the unlabelled ones (times ``unlabeled_weight``), plus the log prior
whose MAP is the posterior-mean plug-in (the families' ``gen_log_penalty`` and the class
Dirichlet term):

- **E-step**: the class responsibilities ``r_ik = p(y=k | x_i)`` of every unlabelled row
  under the structured model (:func:`bayesnb._structure_infer.log_likelihood` plus the
  class log prior, normalised; missing cells summed out exactly), one-hot for a labelled row;
- **M-step**: every node's statistics over its contexts with each row added to its context
  ``k * prod_p B_p + u_i`` (``u_i`` its parents' joint state) with weight ``w_i r_ik``, for
  every class ``k`` (:func:`~bayesnb._structured_mixed.fit_nodes` with class weights), then
  the family's conjugate update with the prior held fixed: the posterior mean, which is the
  MAP of that objective. The class counts are ``sum_i w_i r_ik``.

Rows are scored by the plug-in (``predictive="mean"``) during EM, whatever the model's
``predictive``. A row adds to node ``j``'s statistics when ``x_j`` and all its parents are
observed (the rule of ``fit``); the objective never decreases when no cell is missing (with
missing cells the M-step keeps that rule while the E-step marginalises them exactly).
"""

from __future__ import annotations

import numpy as np

from . import _structure_infer as _si
from . import _structured_mixed as _mx
from .inference.em import allowed_states, climb, log_penalty
from .posterior import build

__all__ = ["fit_semi_supervised", "m_step", "structure_log_penalty"]


def structure_log_penalty(model, class_part) -> float:
    """Log prior (up to a constant) whose MAP is the posterior-mean plug-in of ``model`` and ``class_part``.

    Parameters
    ----------
    model : ~bayesnb._structured_mixed.MixedModel
    class_part : NBPosterior
        The class prior (its blocks are not read).

    Returns
    -------
    float
        Every node's family ``gen_log_penalty`` over its contexts, plus the class Dirichlet term
        of :func:`bayesnb.inference.em.log_penalty`.
    """
    nodes = sum(nd.family.gen_log_penalty(prior, post)
                for nd, prior, post in zip(model.nodes, model.priors, model.posteriors))
    return float(nodes) + log_penalty(class_part._replace(blocks=()))


def m_step(model, data, resp, who="NaiveBayes"):
    """Every node refitted on the rows weighted by their class responsibilities, priors fixed.

    Parameters
    ----------
    model : ~bayesnb._structured_mixed.MixedModel
        Its nodes, parents and priors are kept.
    data : tuple
        :func:`~bayesnb._structured_mixed.node_data` of the rows.
    resp : ndarray of shape (n, K)
        Row weight times class responsibility.
    who : str

    Returns
    -------
    MixedModel
    """
    stats = _mx.node_stats(model.nodes, data, resp, np.ones(resp.shape[0]), model.n_classes, model.parents)
    return _mx.model_from_stats(model.nodes, stats, model.n_classes, model.parents, model.predictive, who,
                                priors=model.priors)


def fit_semi_supervised(model, post, data, y_codes, row_weight, class_params, *, tol=1e-6, max_iter=100,
                        who="NaiveBayes"):
    """Semi-supervised EM on a structure, from the model fitted on the labelled rows.

    Parameters
    ----------
    model : ~bayesnb._structured_mixed.MixedModel
        Fitted on the labelled rows; its structure and priors are held fixed.
    post : NBPosterior
        The naive posterior fitted on the labelled rows (its class part starts EM).
    data : tuple
        :func:`~bayesnb._structured_mixed.node_data` of every row.
    y_codes : ndarray of int of shape (n,)
        Class index per row, -1 for an unlabelled row.
    row_weight : ndarray of shape (n,)
        Weight of each row (sample weight, times ``unlabeled_weight`` for unlabelled rows).
    class_params : (class_alpha, fit_prior, class_prior)
        As in :func:`~bayesnb.posterior.class_posterior`.
    tol : float, default=1e-6
        Stop when the relative objective change is at most ``tol``.
    max_iter : int, default=100
    who : str

    Returns
    -------
    model : MixedModel
        The structure at the last M-step (with the input model's ``predictive``).
    class_part : NBPosterior
        Its class prior (no blocks).
    resp : ndarray of shape (n, K) or None
        The weighted responsibilities of the last M-step (None if there was none).
    history : list of float
        The objective after each iteration (never decreases when no cell is missing).
    converged : bool
    transduction : ndarray of int of shape (n,)
        Most probable class index of every row (its own class for a labelled row).
    """
    K = model.n_classes
    classes = np.arange(K)
    allowed = allowed_states(classes, y_codes)
    predictive = model.predictive

    def joint(state):
        mdl, cls, _ = state
        return np.where(allowed, _si.log_likelihood(mdl, data, who) + cls.class_log_prior, -np.inf), 0.0

    def update(resp):
        return m_step(state0[0], data, resp, who), build(classes, resp.sum(0), *class_params, []), resp

    state0 = (model._replace(predictive="mean"), post._replace(blocks=()), None)
    (model, cls, used), history, converged, _ = climb(state0, joint, lambda s: structure_log_penalty(*s[:2]),
                                                      update, np.asarray(row_weight, dtype=float), tol, int(max_iter))
    transduction = np.argmax(joint((model, cls, used))[0], axis=1)
    return model._replace(predictive=predictive), cls, used, history, converged, transduction
