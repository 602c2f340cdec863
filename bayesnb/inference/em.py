"""EM beside the model: semi-supervised and latent-class fits that produce an :class:`~bayesnb.NBPosterior`.

Both routines climb the log posterior of a naive-Bayes model whose rows may have an
unknown state, with the closed-form conjugate M-step of the families (the posterior
mean, i.e. the MAP of the prior shifted by a pseudo-count, so the objective carries
the matching :func:`log_penalty`):

- :func:`fit_semi_supervised` -- states are the classes; unlabelled rows weigh in with
  their responsibilities (Nigam et al. 2000).
- :func:`fit_latent_class` -- states are (class, component) pairs: each class a mixture
  of naive-Bayes components (a :class:`LatentClassFit`); :func:`latent_holdout_scores`
  chooses the number of components on held-out cells.
- :func:`latent_class_from_draws` -- the same model at one MCMC draw per fit.

The routines take encoded blocks and class codes; validation and encoding are the
estimator's (:class:`~bayesnb.generative.GenerativeMixin`).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .._progress import progress
from .._utils import SearchEdgeWarning
from .nb_posterior import (
    BlockPosterior,
    NBPosterior,
    _row_logsumexp,
    build,
    index_params,
    joint_log_likelihood_parts,
    log_marginal,
    normalise,
)

__all__ = ["LatentClassFit", "SemiSupervisedFit", "allowed_states", "block_meta", "climb", "component_contexts",
           "fit_latent_class", "fit_semi_supervised", "holdout_cells", "latent_class_from_draws",
           "latent_holdout_scores", "latent_log_px", "log_penalty", "m_step", "run_em", "search_components",
           "widening_steps"]


class LatentClassFit(NamedTuple):
    """A latent-class (mixture-of-naive-Bayes) model fitted by EM.

    Attributes
    ----------
    posterior : NBPosterior
        Posterior over the ``n_classes * n_components`` latent states (state
        ``k * n_components + c`` is component ``c`` of class ``k``); its ``classes``
        are the state indices.
    group : ndarray of int, shape (n_states,)
        Class index of each state.
    n_components : int
    em_objective : list of float
        Log posterior (up to a constant) after each EM iteration; never decreases
        (empty for a model made from an MCMC draw; under ``component_prior="hierarchical"``
        the EM's before the final smoothing, :func:`fit_latent_class`).
    selection : dict or None
        ``{n_components: held-out log-likelihood}`` when the count was chosen.
    point : bool, default=False
        True for a model made from one MCMC draw (:func:`~bayesnb.generative.latent.latent_class_draws`):
        its parameters are that draw, used as they are (``parameter_uncertainty`` is
        ignored: the uncertainty is in the set of draws).
    structure : MixedModel or None, default=None
        Under a structure other than naive (``fit_latent_class`` of a TAN / k-DB estimator):
        the structure over the latent states (:func:`bayesnb.structure.structured_em.fit_latent_class`),
        which that estimator's ``score_samples`` and ``impute`` use; ``posterior``'s blocks
        are then the naive model at the same responsibilities (none for one MCMC draw,
        ``latent_class_draws``: :func:`bayesnb.structure.structured_em.draw_model`). None: a naive
        latent-class model.
    starts : int, default=1
        EM starts pooled into the fit (:func:`bayesnb.inference.latent_pool.pool_fits`): each start's
        ``n_components // starts`` components, the best start's first.
    """

    posterior: object
    group: np.ndarray
    n_components: int
    em_objective: list
    selection: dict | None
    point: bool = False
    structure: object = None
    starts: int = 1


class SemiSupervisedFit(NamedTuple):
    """The result of :func:`fit_semi_supervised`.

    Attributes
    ----------
    posterior : NBPosterior
        The posterior at the last M-step.
    em_objective : list of float
        Log posterior (up to a constant) after each iteration; never decreases.
    converged : bool
    transduction : ndarray of int, shape (n_samples,)
        Most probable class index of every row (its own class for a labelled row).
    """

    posterior: NBPosterior
    em_objective: list
    converged: bool
    transduction: np.ndarray


def allowed_states(group, y_codes):
    """States a row may take: those of its class, or all when its label is unknown.

    Parameters
    ----------
    group : ndarray of int, shape (S,)
        Class index of each state (``arange(K)`` for plain naive Bayes).
    y_codes : ndarray of int, shape (n,)
        Class index per row, -1 where unknown.

    Returns
    -------
    ndarray of bool, shape (n, S)
    """
    return (y_codes[:, None] < 0) | (group[None, :] == y_codes[:, None])


def log_penalty(post):
    """Log prior (up to a constant) whose MAP is the posterior-mean plug-in of ``post``.

    The sum of the families' ``gen_log_penalty`` and, when the class proportions are
    learned, the Dirichlet term ``sum_k alpha_k log pi_k``.
    """
    total = sum(b.family.gen_log_penalty(b.prior, b.posterior) for b in post.blocks)
    if not post.fixed_class_prior:
        a = post.class_prior_alpha
        with np.errstate(invalid="ignore"):
            total += float(np.where(a > 0, a * post.class_log_prior, 0.0).sum())
    return total


def m_step(meta, encoded, resp, class_params, classes, contexts=None):
    """Closed-form conjugate M-step: statistics of the responsibilities + prior (fixed, or refitted).

    Parameters
    ----------
    meta : list of (family, columns, names, state, prior)
        The blocks, their priors held fixed (resolved, broadcast to the S states).
    encoded : list
        Encoded blocks, in block order.
    resp : ndarray of shape (n, S)
        Row weights per state (responsibilities times row weights).
    class_params : (class_alpha, fit_prior, class_prior)
        As in :func:`~bayesnb.inference.nb_posterior.class_posterior`.
    classes : ndarray of shape (S,)
    contexts : (K, C) or None
        A latent-class model's classes and components per class: each block's prior is refitted
        from the statistics by its family's ``component_prior`` (hierarchical), the fixed prior of
        ``meta`` its class level. None: the priors of ``meta``, held fixed.

    Returns
    -------
    NBPosterior
    """
    blocks = [(fam, cols, names, state, fam.stats(e, resp, state), "EM") for (fam, cols, names, state, _), e
              in zip(meta, encoded)]
    priors = [m[4] if contexts is None else m[0].component_prior(m[4], b[4], m[3], contexts)
              for m, b in zip(meta, blocks)]
    return build(classes, resp.sum(0), *class_params, blocks, priors=priors)


def run_em(post, meta, encoded, allowed, rw, class_params, classes, tol, max_iter):
    """EM from ``post``: E-step (plug-in), objective, M-step.

    Parameters
    ----------
    post : NBPosterior
        The starting point.
    meta, encoded, class_params, classes
        As in :func:`m_step`.
    allowed : ndarray of bool, shape (n, S)
        From :func:`allowed_states`.
    rw : ndarray of shape (n,)
        Row weights.
    tol : float
        Stop when the relative objective change is at most ``tol``.
    max_iter : int

    Returns
    -------
    post, history, converged, resp
        The last posterior, the objective after each iteration, whether it converged
        and the last E-step's weighted responsibilities (n, S).
    """
    def joint(p):
        return joint_log_likelihood_parts(p, encoded, allowed=allowed)

    def update(resp):
        return m_step(meta, encoded, resp, class_params, classes)

    return climb(post, joint, log_penalty, update, rw, tol, max_iter)


def climb(state, joint, penalty, update, rw, tol, max_iter):
    """The EM loop: E-step, objective, M-step, until the objective settles.

    Parameters
    ----------
    state : object
        The starting parameters.
    joint : callable
        ``joint(state) -> (jll, row)``: ``log p(x_i, s)`` (n, S), ``-inf`` where a row may not take
        state ``s``, and a per-row term (n,) added to the objective (or 0).
    penalty : callable
        ``penalty(state) -> float``: the log prior whose MAP is the M-step.
    update : callable
        ``update(resp) -> state``: the M-step from the weighted responsibilities (n, S).
    rw : ndarray of shape (n,)
        Row weights.
    tol, max_iter
        As in :func:`run_em`.

    Returns
    -------
    state, history, converged, resp
        As :func:`run_em`'s.
    """
    history = []
    converged = False
    resp = None
    ok = rw > 0
    for _ in range(max_iter + 1):
        jll, row = joint(state)
        ll, resp = _e_step(jll)
        ll = ll + row
        history.append(float((rw[ok] * ll[ok]).sum()) + penalty(state))
        resp *= rw[:, None]
        if len(history) > 1 and abs(history[-1] - history[-2]) <= tol * max(1.0, abs(history[-1])):
            converged = True
            break
        if len(history) > max_iter:
            break
        state = update(resp)
    return state, history, converged, resp


def _e_step(jll):
    """``(log p(x_i), p(s | x_i))`` from the joint ``jll`` (n, S), one log-sum-exp per row.

    When every row has a finite entry, the normaliser is computed once and shared by the objective and
    the responsibilities (the responsibilities equal :func:`~bayesnb.inference.nb_posterior.normalise`'s, which uses
    the same row sum); otherwise :func:`~bayesnb.inference.nb_posterior.log_marginal` (``-inf`` for an impossible
    row) and ``normalise`` (uniform weights for it).
    """
    jll = np.asarray(jll, dtype=float)
    if jll.ndim == 2 and jll.shape[1] and np.isfinite(jll.max(axis=1)).all():
        lm = _row_logsumexp(jll)
        with np.errstate(under="ignore"):
            return lm, np.exp(jll - lm[:, None])
    return log_marginal(jll), np.exp(normalise(jll, None))


def block_meta(post, group=None):
    """(family, columns, names, state, prior) per block; priors taken per state with ``group``."""
    return [(b.family, b.columns, b.names, b.state, b.prior if group is None else index_params(b.prior, group))
            for b in post.blocks]


def fit_semi_supervised(post, encoded, y_codes, row_weight, class_params, *, tol=1e-6, max_iter=100):
    """Semi-supervised EM (Nigam et al. 2000) from a posterior fitted on the labelled rows.

    Parameters
    ----------
    post : NBPosterior
        Fitted on the labelled rows (its priors are held fixed).
    encoded : list
        Encoded blocks of every row.
    y_codes : ndarray of int, shape (n,)
        Class index per row, -1 for an unlabelled row.
    row_weight : ndarray of shape (n,)
        Weight of each row (sample weight, times ``unlabeled_weight`` for unlabelled rows).
    class_params : (class_alpha, fit_prior, class_prior)
    tol : float, default=1e-6
    max_iter : int, default=100

    Returns
    -------
    SemiSupervisedFit
    """
    allowed = allowed_states(np.arange(len(post.classes)), y_codes)
    post, hist, conv, _ = run_em(post, block_meta(post), encoded, allowed, row_weight, class_params, post.classes,
                                 tol, int(max_iter))
    transduction = np.argmax(joint_log_likelihood_parts(post, encoded, allowed=allowed)[0], axis=1)
    return SemiSupervisedFit(post, hist, conv, transduction)


def fit_latent_class(base, encoded, class_part, y_codes, n_components, *, n_init=3, tol=1e-6, max_iter=200,
                     rng, component_prior="class"):
    """EM for a latent-class model: each class of ``base`` a mixture of ``n_components`` components.

    Parameters
    ----------
    base : NBPosterior
        The fitted classifier; its resolved priors are every state's prior, the state
        weights get a symmetric Dirichlet(1) prior.
    encoded : list
        Encoded blocks of the rows to model.
    class_part : ndarray of shape (n, K)
        Starting class weights per row (one-hot for a known label, else ``p(y | x)``).
    y_codes : ndarray of int, shape (n,)
        Class index per row, -1 where unknown.
    n_components : int
    n_init : int, default=3
        Random starts (one when ``n_components == 1``); the best final objective wins.
    tol, max_iter
        As in :func:`run_em`.
    rng : numpy.random.Generator
    component_prior : {"class", "hierarchical"}, default="class"
        ``"class"``: every component has its class's prior and the states' weights a Dirichlet(1)
        each. ``"hierarchical"``: the weights get Dirichlet(1/C) each (a class's sum is the
        classifier's Dirichlet(1)), and after EM (priors fixed) every component's table is smoothed
        towards its class's estimate with a concentration per feature fitted by evidence, at the
        EM's last responsibilities (:meth:`Family.component_prior`; docs/synthetic.md "Hierarchical
        component priors"); ``em_objective`` is the EM's, before that step.

    Returns
    -------
    LatentClassFit
    """
    C = n_components
    K = len(base.classes)
    S = K * C
    group = np.repeat(np.arange(K), C)
    meta = block_meta(base, group)
    n = class_part.shape[0]
    allowed = allowed_states(group, y_codes)
    ctx = component_contexts(component_prior, K, C)
    # "hierarchical": Dirichlet(1/C) per state, which sums to the classifier's Dirichlet(1) per class
    params = (np.ones(S) if ctx is None else np.full(S, 1.0 / C), True, None)
    best = None
    for _ in range(max(1, int(n_init) if C > 1 else 1)):
        comp = rng.dirichlet(np.ones(C), size=n)
        resp = (class_part[:, :, None] * comp[:, None, :]).reshape(n, S) * allowed
        post0 = m_step(meta, encoded, resp, params, np.arange(S))
        post, hist, _, resp = run_em(post0, meta, encoded, allowed, np.ones(n), params, np.arange(S), tol, max_iter)
        if best is None or hist[-1] > best[1][-1]:
            best = (post, hist, resp)
    if ctx is not None:  # the tables smoothed at the EM's responsibilities (refitted in every M-step, the
        # evidence would tie the components to their class before they separate)
        best = (m_step(meta, encoded, best[2], params, np.arange(S), ctx), best[1])
    return LatentClassFit(best[0], group, C, best[1], None)


def component_contexts(component_prior, K, C):
    """``(K, C)`` for :func:`m_step` under ``component_prior="hierarchical"`` with ``C > 1``, else None."""
    if component_prior not in ("class", "hierarchical"):
        raise ValueError(f"component_prior must be 'class' or 'hierarchical'; received {component_prior!r}.")
    return (K, C) if component_prior == "hierarchical" and C > 1 else None


def holdout_cells(base, observed, fraction, rng):
    """Observed cells to hold out, at random: ``(rows, cols)``.

    Blocks whose columns are one joint observation (a family's ``joint_columns``, e.g.
    counts) are never held out cell by cell.

    Parameters
    ----------
    base : NBPosterior
    observed : ndarray of bool, shape (n, n_features)
        The observed (non-missing) raw cells.
    fraction : float
        Probability that an observed cell is held out.
    rng : numpy.random.Generator
    """
    obs = observed.copy()
    obs[:, [int(c) for b in base.blocks if b.family.joint_columns for c in b.columns]] = False
    rows, cols = np.nonzero(obs)
    pick = rng.random(rows.size) < fraction
    return rows[pick], cols[pick]


def latent_log_px(fit, encoded, y_codes):
    """``log p(x_i)`` of every row under a naive latent-class model, each row restricted to its class's
    states where its label is known (missing cells marginalised), shape (n,)."""
    jll, row = joint_log_likelihood_parts(fit.posterior, encoded, allowed=allowed_states(fit.group, y_codes))
    return log_marginal(jll) + row


def latent_holdout_scores(base, train, encoded_full, y_codes, hidden_rows, candidates, *, n_init, tol, max_iter,
                          rng, fit=None, log_px=None, verbose=None):
    """Held-out log-likelihood ``log p(x_hidden | x_rest)`` of each number of components.

    Parameters
    ----------
    base : NBPosterior
    train : (encoded, class_part)
        The rows with the held-out cells missing: encoded blocks and starting class
        weights, as :func:`fit_latent_class` takes them.
    encoded_full : list
        Encoded blocks of the same rows with every cell.
    y_codes : ndarray of int, shape (n,)
    hidden_rows : ndarray of int
        Rows with a held-out cell.
    candidates : iterable of int
    n_init, tol, max_iter, rng
        As in :func:`fit_latent_class`.
    fit : callable, optional
        ``fit(encoded, class_part, y_codes, n_components, n_init=, tol=, max_iter=, rng=)`` ->
        LatentClassFit; by default :func:`fit_latent_class` on ``base`` (a structure passes its own).
    log_px : callable, optional
        ``log_px(fit, encoded, y_codes)`` -> (n,) ``log p(x)`` per row; by default :func:`latent_log_px`.
    verbose : bool or None
        A progress bar over the candidates (:mod:`bayesnb._progress`).

    Returns
    -------
    dict
        ``{n_components: held-out log-likelihood}``.
    """
    fit = (lambda *a, **k: fit_latent_class(base, *a, **k)) if fit is None else fit
    log_px = latent_log_px if log_px is None else log_px
    scores = {}
    h = hidden_rows
    for C in progress(list(candidates), desc="latent classes: component counts", verbose=verbose):
        f = fit(*train, y_codes, int(C), n_init=n_init, tol=tol, max_iter=max_iter, rng=rng)
        scores[int(C)] = float((log_px(f, encoded_full, y_codes)[h] - log_px(f, train[0], y_codes)[h]).sum())
    return scores


def widening_steps(start, cap):
    """Component counts above ``start`` up to ``cap``: 12, 16, 24, 32, 48, ... (powers of 2 and 1.5 times them)."""
    steps = sorted({m * 2 ** e for e in range(1, 40) for m in (1, 3)})  # 2, 3, 4, 6, 8, 12, 16, 24, ...
    return [c for c in steps if start < c <= cap]


def search_components(base, train, encoded_full, y_codes, hidden_rows, candidates, cap, *, n_init, tol, max_iter,
                      rng, who="NaiveBayes", stacklevel=2, fit=None, log_px=None, verbose=None):
    """Held-out scores of ``candidates``, widened past the largest while it scores best.

    When the best candidate is the largest tried, the next count of
    :func:`widening_steps` is tried, and so on up to ``cap``; if the largest count
    tried still scores best when no wider one is allowed, a
    :class:`~bayesnb.SearchEdgeWarning` says the search stopped at its edge.

    Parameters
    ----------
    base, train, encoded_full, y_codes, hidden_rows, candidates
        As in :func:`latent_holdout_scores`.
    cap : int
        Largest count the widening may try (candidates above it are still scored).
    n_init, tol, max_iter, rng
        As in :func:`fit_latent_class`.
    who, stacklevel : str, int
        Estimator name for the warning; where it points (as for :func:`warnings.warn` called here).
    fit, log_px : callable, optional
        As in :func:`latent_holdout_scores`.
    verbose : bool or None
        Progress bars (:func:`latent_holdout_scores`).

    Returns
    -------
    dict
        ``{n_components: held-out log-likelihood}`` of every count tried, in the order tried.
    """
    opts = {"n_init": n_init, "tol": tol, "max_iter": max_iter, "rng": rng, "fit": fit, "log_px": log_px,
            "verbose": verbose}
    scores = latent_holdout_scores(base, train, encoded_full, y_codes, hidden_rows, candidates, **opts)
    while scores and max(scores, key=scores.get) == max(scores):
        wider = widening_steps(max(scores), cap)
        if not wider:
            warnings.warn(
                f"{who}: n_components='auto' chose {max(scores)}, the largest count it tried (scores "
                f"{ {c: round(v, 2) for c, v in scores.items()} }): the search stopped at its edge, the cap of "
                f"{cap} components per class (n_rows / (10 * n_classes)); pass candidates= with larger counts "
                "or an int n_components to go further.", SearchEdgeWarning, stacklevel=stacklevel)
            break
        scores.update(latent_holdout_scores(base, train, encoded_full, y_codes, hidden_rows, wider[:1], **opts))
    return scores


def _states(a, S, C):
    """(K, [C,] ...) parameters of one draw -> (S, ...) over the (class, component) states."""
    return a.reshape((S,) + a.shape[1 + (C > 1):])


def latent_class_from_draws(base, values, layouts, n_components, pick, structure=None):
    """One plug-in :class:`LatentClassFit` per MCMC draw of the latent-class model.

    Parameters
    ----------
    base : NBPosterior
        The fitted classifier the draws belong to.
    values : dict
        ``{variable: ndarray (n_draws, ...)}``, chains and draws flattened, named as in
        :func:`~bayesnb.criticism.diagnostics.variable_layout` (``pi``, ``w`` when
        ``n_components > 1``, and each block's parameters).
    layouts : list
        The blocks' layouts (their ``label`` suffixes the variable names).
    n_components : int
    pick : ndarray of int
        Draws to use.
    structure : callable, optional
        Under a structure other than naive: ``{variable: one draw's values}`` -> the
        structure over the states at that draw (``LatentClassFit.structure``); the draws are
        then the structure's (``layouts`` is not read) and the fits' posteriors hold only the
        state weights (no blocks).

    Returns
    -------
    list of LatentClassFit
        With ``point=True``; document-length rates come from ``base``'s statistics.
    """
    C = n_components
    K = len(base.classes)
    S = K * C
    group = np.repeat(np.arange(K), C)
    class_count = base.class_count[group]
    blocks = []
    for b, lay in zip(() if structure is not None else base.blocks, layouts or ()):
        params = list(b.family.point_params(b.posterior))
        blocks.append((b, params, lay.label, index_params(b.stats, group), index_params(b.prior, group)))
    out = []
    for i in pick:
        with np.errstate(divide="ignore"):
            log_pi = np.log(values["pi"][i]) if "pi" in values else base.class_log_prior
            log_w = np.log(values["w"][i]) if C > 1 else np.zeros((K, 1))
        logw = (log_pi[:, None] + log_w).reshape(S)
        bp = []
        for b, params, label, stats, prior in blocks:
            point = b.family.posterior_from_params({p: _states(values[f"{p}_{label}"][i], S, C) for p in params})
            bp.append(BlockPosterior(b.family, b.columns, b.names, b.state, stats, prior, point))
        post = NBPosterior(np.arange(S), class_count, np.ones(S), np.ones(S) + class_count, logw, True, tuple(bp))
        model = None if structure is None else structure({v: a[i] for v, a in values.items()})
        out.append(LatentClassFit(post, group, C, [], None, True, model))
    return out
