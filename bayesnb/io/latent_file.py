"""A latent-class fit (:class:`~bayesnb.LatentClassFit`) in a model file: written and checked once.

The model files of an :class:`~bayesnb.Imputer` (its ``"latent"`` configuration) and of a
:class:`~bayesnb.Synthesizer` that chose a latent-class model hold one beside the estimator it belongs
to, as a JSON object:

- ``posterior``: the posterior over the ``n_classes * n_components`` latent states (an
  ``NBPosterior``, written by the file's :class:`~bayesnb.io.tree.Encoder` and checked on
  reading like an estimator's posterior, against that estimator's blocks and columns, the states'
  weights with the prior EM gives them: Dirichlet(1) each, or Dirichlet(1/C) under
  ``component_prior="hierarchical"``);
- ``group``: the class index of each state (each class repeated once per component);
- ``n_components``, ``em_objective`` (floats) and ``selection`` (``{components: score}`` or null);
- ``starts`` (absent in older files: 1): EM starts pooled into the fit (:mod:`bayesnb.inference.latent_pool`);
- ``structure`` (absent or null for a naive fit): for a fit over the estimator's TAN / k-DB
  structure (``fit_latent_class`` of such an estimator), ``{"parents": [[int, ...], ...],
  "stats": [...], "priors": [...]}``: per feature its parents (feature indices; reading requires
  the estimator's, refusing a fit made over other parents whose statistics happen to have the same
  shapes; files written before the key are checked by shape alone), and its family's statistics and
  prior over its contexts (state, parents' states), as EM's last M-step left them. Reading
  rebuilds the model over the states from them with the estimator's nodes and parents
  (:func:`bayesnb.structure.engine.model_from_stats`, the M-step's own function, so scores,
  imputations and samples are bit for bit the saved fit's), after checking each by its family's
  field rules, the statistics against their contexts
  (:func:`bayesnb.structure.engine.check_node_stats`, before anything over the states is built)
  and the priors against the layout the estimator's structure gives
  (:func:`bayesnb.structure.structured_em.state_model`). Files written before this field load as before (a
  naive fit).

A fit made from one MCMC draw (``point``) is refused with a ``TypeError`` naming it, and so is
a fit whose structure is not the estimator's (a structured fit of an estimator whose *fitted*
structure is naive, or the reverse: one rule on saving and loading, whatever the ``structure``
parameter, so an estimator with ``structure="auto"`` that chose naive takes a naive fit).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from .loadcheck import check_model, check_node_tuples
from .archive import ModelFileError
from ..inference.em import LatentClassFit
from ..inference.latent_pool import poolable
from ..inference.nb_posterior import NBPosterior
from ..structure import structured_em as _se
from ..structure import engine as _mx

__all__ = ["check_states", "latent_from_file", "latent_to_file"]


def latent_to_file(fit, enc, who="save", model=None):
    """The JSON object of a latent-class fit by EM (see the module docstring).

    Parameters
    ----------
    fit : LatentClassFit
        From ``fit_latent_class`` (naive, TAN or k-DB).
    enc : Encoder
        The file's encoder (arrays go into it).
    who : str, default="save"
        Name used in the error message.
    model : NaiveBayes or None, default=None
        The estimator the fit belongs to: when given, a fit over a structure must be over its
        fitted structure, and a naive fit needs a naive fitted structure (whatever its ``structure``
        parameter: ``"auto"`` may choose naive).

    Returns
    -------
    dict
        ``posterior``, ``group``, ``n_components``, ``em_objective``, ``selection`` and
        ``structure`` (None for a naive fit).

    Raises
    ------
    TypeError
        ``fit`` is one MCMC draw, its structure is not a model over latent states, or it does
        not belong to ``model``'s structure.
    """
    if fit.point:
        raise TypeError(f"{who}: only a latent-class fit by EM can be saved; received one made from one MCMC "
                        "draw.")
    structure = fit.structure
    if structure is not None and not isinstance(structure, _mx.MixedModel):
        raise TypeError(f"{who}: a latent-class fit's structure must be the model over latent states that "
                        f"fit_latent_class gives; received {type(structure).__name__}.")
    why = None if model is None else _not_belonging(model, structure is not None)
    if why is not None:
        raise TypeError(f"{who}: {why}.")
    if model is not None and structure is not None:  # over the estimator's own structure
        try:
            model._structure_latent(fit)
        except ValueError as e:
            raise TypeError(f"{who}: {e}") from None
    node = None if structure is None else {
        "parents": [[int(p) for p in pa] for pa in structure.parents],
        "stats": enc(list(structure.stats), "latent_structure_stats"),
        "priors": enc(list(structure.priors), "latent_structure_priors")}
    return {"posterior": enc(fit.posterior, "latent"), "group": enc(np.asarray(fit.group), "group"),
            "n_components": int(fit.n_components),
            "em_objective": [enc(float(v)) for v in fit.em_objective],
            "selection": enc(None if fit.selection is None else
                             {int(k): float(v) for k, v in fit.selection.items()}),
            "structure": node, "starts": int(fit.starts)}


def _not_belonging(model, structured):
    """Why a latent-class fit (``structured``: over a TAN / k-DB structure, else naive) does not belong
    to ``model``, or None: the one rule of saving and loading, by ``model``'s *fitted* structure (a
    ``structure="auto"`` estimator that chose naive takes a naive fit)."""
    fitted = getattr(model, "_structure_fitted", lambda: None)()
    if (fitted is not None) == structured:
        return None
    what = "a structured (TAN / k-DB)" if structured else "a naive"
    return (f"{what} latent-class fit does not belong to an estimator of structure "
            f"{getattr(model, 'structure_kind_', 'naive')!r}")


def latent_from_file(model, node, dec):
    """The :class:`~bayesnb.LatentClassFit` of ``model`` that :func:`latent_to_file` wrote, checked.

    Parameters
    ----------
    model : NaiveBayes
        The fitted estimator the fit belongs to (already read and checked).
    node : dict
        The JSON object.
    dec : Decoder

    Returns
    -------
    LatentClassFit

    Raises
    ------
    ModelFileError
        The object is malformed or does not fit ``model`` (its blocks, columns or classes).
    """
    if not isinstance(node, dict):
        raise ModelFileError("the latent-class fit must be a JSON object")
    post, C, group = check_states(model, dec(node["posterior"]), node["n_components"], dec(node["group"]))
    objective = [float(dec(v)) for v in node["em_objective"]]
    selection = dec(node["selection"])
    if selection is not None and not (isinstance(selection, dict) and all(
            isinstance(k, int) and isinstance(v, float) for k, v in selection.items())):
        raise ModelFileError("the latent-class selection must be None or {components: score}")
    structure = _structure_from_file(model, node.get("structure"), group, dec)  # absent in older files
    fit = LatentClassFit(post, group, C, objective, selection, structure=structure)
    starts = node.get("starts", 1)  # absent in files written before pooled fits: one start
    if not (type(starts) is int and starts >= 1 and C % starts == 0 and (starts == 1 or poolable(fit))):
        raise ModelFileError(f"a latent-class fit's starts must be a positive int dividing its {C} component(s), "
                             f"and 1 unless the fit is naive with Dirichlet(1) state weights; the file holds {starts!r}")
    return fit._replace(starts=starts)


def check_states(model, post, C, group, own=False):
    """``(post, C, group)`` once checked as a posterior over ``model``'s ``K x C`` latent states.

    Parameters
    ----------
    model : NaiveBayes
        The fitted estimator the states belong to.
    post : object
        The decoded posterior: an NBPosterior whose states' weights have a Dirichlet(1) or Dirichlet(1/C)
        prior each (``own``: the prior of ``model``'s classes, a model over its classes alone, ``C`` 1).
    C : object
        Components per class (a positive int).
    group : object
        The class of each state: each class repeated once per component.
    own : bool, default=False

    Returns
    -------
    tuple

    Raises
    ------
    ModelFileError
    """
    if not isinstance(post, NBPosterior):
        raise ModelFileError("the latent-class posterior is not an NBPosterior")
    K = len(model.classes_)
    if not isinstance(C, int) or isinstance(C, bool) or C < 1 or (own and C != 1):
        raise ModelFileError(f"a latent-class fit's n_components must be a positive int{' (1)' if own else ''}; "
                             f"the file holds {C!r}")
    if own:
        states = clone(model)
    else:  # the states' weights: Dirichlet(1) each, or Dirichlet(1/C) under component_prior="hierarchical"
        alpha = post.class_prior_alpha
        pick = next((a for a in (1.0, 1.0 / C) if isinstance(alpha, np.ndarray) and alpha.dtype == np.float64
                     and alpha.ndim == 1 and np.array_equal(alpha, np.full(alpha.shape, a))), None)
        if pick is None:
            raise ModelFileError(f"the latent states' weights must have a Dirichlet(1) or Dirichlet(1/{C}) prior "
                                 "each")
        states = clone(model).set_params(class_alpha=pick, fit_prior=True, class_prior=None)
    check_model(states, post, model.n_features_in_, getattr(model, "feature_names_in_", None))
    S = post.classes.shape[0]
    if S != K * C:
        raise ModelFileError(f"a latent-class fit of {K} class(es) with {C!r} component(s) each has {K} x {C} "
                             f"states; the file holds {S}")
    if not isinstance(group, np.ndarray) or group.dtype.kind not in "iu" or not np.array_equal(
            group, np.repeat(np.arange(K), C)):
        raise ModelFileError("the latent states' classes must be each class repeated once per component")
    return post, C, group


def _structure_from_file(model, node, group, dec):
    """The model over the latent states of a fit's ``structure`` field (None: a naive fit), checked
    against ``model``'s fitted structure (see the module docstring)."""
    why = _not_belonging(model, node is not None)
    if why is not None:
        raise ModelFileError(why)
    if node is None:
        return None
    fitted = model._structure_fitted()
    if not isinstance(node, dict) or set(node) - {"parents"} != {"stats", "priors"}:
        raise ModelFileError("a latent-class fit's structure must be a JSON object of parents, stats and priors")
    if "parents" in node:  # absent in files written before it: those are checked by their layout only
        pa = node["parents"]
        if not (isinstance(pa, list) and all(isinstance(p, list) and all(type(i) is int for i in p) for p in pa)
                and tuple(tuple(p) for p in pa) == tuple(tuple(int(i) for i in p) for p in fitted.parents)):
            raise ModelFileError(f"the latent structure's parents must be the estimator's "
                                 f"{[list(map(int, p)) for p in fitted.parents]}; the file holds {str(pa)[:80]}")
    S, d = len(group), len(fitted.nodes)
    stats, priors = dec(node["stats"]), dec(node["priors"])
    for name, values in (("stats", stats), ("priors", priors)):  # the cheap checks first
        check_node_tuples(values, f"the latent structure's {name}")
        if len(values) != d:
            raise ModelFileError(f"the latent structure's {name} must hold one entry per feature ({d}); the "
                                 f"file holds {len(values)}")
    try:
        _mx.check_node_stats(fitted.nodes, fitted.parents, stats, S)
    except ValueError as e:
        raise ModelFileError(f"the latent structure's {e}") from None
    template = _se.state_model(fitted._replace(predictive="mean"), group)  # the priors' layout over S x parents
    for j, (pr, want) in enumerate(zip(priors, template.priors)):
        if not _se.same_layout(pr, want):
            raise ModelFileError(f"the latent structure's priors[{j}] must be the family's prior over its "
                                 f"{S} states x parents' states")
    try:
        return _mx.model_from_stats(template.nodes, tuple(stats), S, template.parents, "mean", model._who,
                                    priors=tuple(priors))
    except ValueError as e:  # an improper prior
        raise ModelFileError(f"the latent structure: {e}") from None
