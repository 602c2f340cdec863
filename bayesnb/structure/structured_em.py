"""Semi-supervised and latent-class EM on the one structure engine (TAN, k-DB, ``structure="auto"``).

The model is :mod:`bayesnb.structure.engine`'s, with the structure (parents and bin edges) and
every prior fixed, both learned on the labelled rows. EM climbs the naive EM's objective
(:mod:`bayesnb.inference.em`, Nigam et al. 2000): the E-step is the structured model's exact
class posterior (:func:`bayesnb.structure.infer.log_likelihood`), the M-step every node's
statistics with each row in its context under every class, weighted by its responsibility
(:func:`~bayesnb.structure.engine.fit_nodes`), then the conjugate update with the prior held
fixed. :func:`fit_latent_class` runs the same EM over (class, component) states, state
``k * C + c`` (:func:`state_model`). The priors resolved on the labelled rows are held fixed and
kept in a model file (``structure_priors_``; :func:`with_priors` puts them back). Rows are
scored by the plug-in during EM, whatever ``predictive``. See docs/structure.md, "Unlabelled
rows: EM and NUTS on a structure", for the steps and when the objective never decreases.
"""

from __future__ import annotations

import numpy as np

from . import infer as _si
from . import engine as _mx
from ..inference.em import allowed_states, climb, log_penalty
from ..inference.nb_posterior import build

__all__ = ["draw_model", "fit_latent_class", "fit_semi_supervised", "m_step", "same_layout", "state_model",
           "structure_log_penalty", "with_priors"]


def structure_log_penalty(model, class_part) -> float:
    """Log prior (up to a constant) whose MAP is the posterior-mean plug-in of ``model`` and ``class_part``.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
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
    model : ~bayesnb.structure.engine.MixedModel
        Its nodes, parents and priors are kept.
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows.
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
    model : ~bayesnb.structure.engine.MixedModel
        Fitted on the labelled rows; its structure and priors are held fixed.
    post : NBPosterior
        The naive posterior fitted on the labelled rows (its class part starts EM).
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of every row.
    y_codes : ndarray of int of shape (n,)
        Class index per row, -1 for an unlabelled row.
    row_weight : ndarray of shape (n,)
        Weight of each row (sample weight, times ``unlabeled_weight`` for unlabelled rows).
    class_params : (class_alpha, fit_prior, class_prior)
        As in :func:`~bayesnb.inference.nb_posterior.class_posterior`.
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
    template = model._replace(predictive="mean")
    allowed = allowed_states(np.arange(model.n_classes), y_codes)
    joint, run = _em(template, data, allowed, class_params, who)
    (mdl, cls, used), history, converged, _ = run((template, post._replace(blocks=()), None),
                                                  np.asarray(row_weight, dtype=float), tol, max_iter)
    transduction = np.argmax(joint((mdl, cls, used))[0], axis=1)
    return mdl._replace(predictive=model.predictive), cls, used, history, converged, transduction


def _em(template, data, allowed, class_params, who):
    """``(joint, run)`` of EM over the states of ``template`` (its priors fixed), ``allowed`` (n, S) per row:
    ``run(start, weights, tol, max_iter)`` is :func:`~bayesnb.inference.em.climb` from ``start``, a
    ``(model, class part, resp)`` state or the responsibilities (n, S) of a first M-step."""
    states = np.arange(template.n_classes)

    def joint(state):
        log_joint = _si.log_likelihood(state[0], data, who) + state[1].class_log_prior
        return np.where(allowed, log_joint, -np.inf), 0.0

    def update(resp):
        return m_step(template, data, resp, who), build(states, resp.sum(0), *class_params, []), resp

    def run(start, weights, tol, max_iter):
        start = update(start) if isinstance(start, np.ndarray) else start
        penalty = lambda s: structure_log_penalty(*s[:2])  # noqa: E731
        return climb(start, joint, penalty, update, weights, tol, int(max_iter))

    return joint, run


def state_model(model, group):
    """``model`` over latent states instead of classes, each context with its class's prior.

    Node ``j``'s context (state ``s``, parents ``u``) gets the prior of context (``group[s]``,
    ``u``); no statistics yet (an M-step fills them).

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
        Over ``K`` classes.
    group : ndarray of int of shape (S,)
        The class of each state.

    Returns
    -------
    MixedModel
        Over ``S`` states (its ``n_classes``), posteriors equal to the priors, evidence 0.
    """
    S = len(group)
    priors = []
    for nd, pa, prior in zip(model.nodes, model.parents, model.priors):
        P = _mx.n_parent_states(model.nodes, pa)
        ctx = np.arange(S * P)
        priors.append(_mx.take_contexts(prior, np.asarray(group)[ctx // P] * P + ctx % P))
    return model._replace(stats=(None,) * len(priors), priors=tuple(priors), posteriors=tuple(priors),
                          log_evidence=0.0, n_classes=S)


def draw_model(model, group, draw, variables):
    """``model`` over the latent states of ``group`` at one MCMC draw, its parameters used as they are.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
        The fitted structure, over ``K`` classes.
    group : ndarray of int of shape (S,)
        The class of each state (``S = K * C``, state ``k * C + c`` component ``c`` of class ``k``).
    draw : dict
        ``{variable: values}`` of one draw of ``run_mcmc`` under the structure: node ``j``'s
        parameter with dims ``(class, [component,] <parent>_state..., own axes...)``
        (``component`` only when ``C > 1``), as :func:`bayesnb.structure.structure_draws.mixed_layout`.
    variables : sequence of dict
        Per node, ``{param name: variable}`` (:func:`bayesnb.structure.structure_draws.node_variables`).

    Returns
    -------
    MixedModel
        Over the ``S`` states (:func:`state_model`: every context its class's prior), each
        node's posterior its family's ``posterior_from_params`` of the draw (its plug-in is
        the draw), ``predictive="mean"``: rows are scored and imputed at the draw.
    """
    template = state_model(model, group)
    lead = 2 if len(group) > model.n_classes else 1  # (class[, component]) axes before the parents'
    posts = []
    for nd, pa, names in zip(template.nodes, template.parents, variables):
        n_ctx = template.n_classes * _mx.n_parent_states(template.nodes, pa)
        params = {}
        for p, var in names.items():
            a = np.asarray(draw[var], dtype=float)
            params[p] = a.reshape((n_ctx, 1) + a.shape[lead + len(pa):])
        posts.append(nd.family.posterior_from_params(params))
    return template._replace(posteriors=tuple(posts), predictive="mean")


def fit_latent_class(model, data, class_part, y_codes, n_components, *, n_init=3, tol=1e-6, max_iter=200, rng,
                     who="NaiveBayes"):
    """EM for a latent-class model on a structure: each class a mixture of ``n_components`` components.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
        The fitted structure; its priors are every state's prior (by the state's class).
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows to model.
    class_part, y_codes, n_components, n_init, rng
        As in :func:`bayesnb.inference.em.fit_latent_class` (starting class weights (n, K), class
        index per row or -1, components per class, random starts, generator).
    tol, max_iter
        As in :func:`fit_semi_supervised`.
    who : str

    Returns
    -------
    model : MixedModel
        Over the ``K * n_components`` states (``predictive="mean"``).
    class_part : NBPosterior
        The state weights (no blocks).
    resp : ndarray of shape (n, S)
        The responsibilities of the last M-step.
    history : list of float
        The objective after each iteration (never decreases when no cell is missing).
    group : ndarray of int of shape (S,)
        The class of each state.
    """
    C, K = int(n_components), model.n_classes
    S = K * C
    group = np.repeat(np.arange(K), C)
    template = state_model(model._replace(predictive="mean"), group)
    allowed = allowed_states(group, y_codes)
    n = class_part.shape[0]
    _, run = _em(template, data, allowed, (np.ones(S), True, None), who)
    best = None
    for _ in range(max(1, int(n_init) if C > 1 else 1)):
        comp = rng.dirichlet(np.ones(C), size=n)
        state, hist, _, _ = run((class_part[:, :, None] * comp[:, None, :]).reshape(n, S) * allowed, np.ones(n),
                                tol, max_iter)
        if best is None or hist[-1] > best[1][-1]:
            best = (state, hist)
    (mdl, cls, resp), hist = best
    return mdl, cls, resp, hist, group


def same_layout(a, b) -> bool:
    """Whether ``a`` has the layout of ``b`` (a node's prior: a file's against the structure's).

    Parameters
    ----------
    a : object
        A family NamedTuple (or a field of one) to check.
    b : object
        The reference: its NamedTuple types, tuple lengths, None fields and array shapes.

    Returns
    -------
    bool
        True when ``a`` has every one of those, with finite numbers.
    """
    if isinstance(b, tuple):
        return (isinstance(a, tuple) and type(a) is type(b) and len(a) == len(b)
                and all(same_layout(x, y) for x, y in zip(a, b)))
    if b is None:
        return a is None
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        return False
    return arr.shape == np.shape(b) and bool(np.all(np.isfinite(arr)))


def with_priors(model, priors, who="NaiveBayes"):
    """``model`` with its nodes' priors replaced by ``priors`` (those EM held fixed; a model file's).

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
        Rebuilt from its statistics (priors resolved from them).
    priors : sequence
        Per node, its prior over its contexts.
    who : str

    Returns
    -------
    MixedModel

    Raises
    ------
    ValueError
        ``priors`` do not have the layout of the nodes' priors (types, shapes, finite values),
        or one is improper.
    """
    if not isinstance(priors, (tuple, list)) or len(priors) != len(model.priors) or not all(
            same_layout(p, q) for p, q in zip(priors, model.priors)):
        raise ValueError(f"{who}: structure_priors_ must be, per feature, its family's prior over its contexts "
                         f"(the layout of the priors its statistics give, finite); received {type(priors).__name__}.")
    return _mx.model_from_stats(model.nodes, model.stats, model.n_classes, model.parents, model.predictive, who,
                                priors=tuple(priors))
