"""A naive latent-class fit (:class:`~bayesnb.LatentClassFit`) in a model file: written and checked once.

The model files of an :class:`~bayesnb.Imputer` (its ``"latent"`` configuration) and of a
:class:`~bayesnb.Synthesizer` that chose a latent-class model hold one beside the estimator it belongs
to, as a JSON object:

- ``posterior``: the posterior over the ``n_classes * n_components`` latent states (an
  ``NBPosterior``, written by the file's :class:`~bayesnb._persist_tree.Encoder` and checked on
  reading like an estimator's posterior, against that estimator's blocks and columns, the states'
  weights with the prior EM gives them: Dirichlet(1) each, or Dirichlet(1/C) under
  ``component_prior="hierarchical"``);
- ``group``: the class index of each state (each class repeated once per component);
- ``n_components``, ``em_objective`` (floats) and ``selection`` (``{components: score}`` or null).

Only a naive fit found by EM is written: a fit made from one MCMC draw (``point``) or one over a
structure (``fit_latent_class`` of a TAN / k-DB estimator) is refused with a ``TypeError`` naming it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ._loadcheck import check_model
from ._safeio import ModelFileError
from .inference.em import LatentClassFit
from .posterior import NBPosterior

__all__ = ["latent_from_file", "latent_to_file"]


def latent_to_file(fit, enc, who="save"):
    """The JSON object of a naive latent-class fit (see the module docstring).

    Parameters
    ----------
    fit : LatentClassFit
        From ``fit_latent_class`` of a naive-structure estimator.
    enc : Encoder
        The file's encoder (arrays go into it).
    who : str, default="save"
        Name used in the error message.

    Returns
    -------
    dict
        ``posterior``, ``group``, ``n_components``, ``em_objective`` and ``selection``.

    Raises
    ------
    TypeError
        ``fit`` is over a structure, or is one MCMC draw: only a naive fit by EM can be saved.
    """
    if fit.structure is not None or fit.point:
        what = "over a structure (fit_latent_class of a TAN / k-DB estimator)" if fit.structure is not None \
            else "made from one MCMC draw"
        raise TypeError(f"{who}: only a naive latent-class fit by EM can be saved; received one {what}.")
    return {"posterior": enc(fit.posterior, "latent"), "group": enc(np.asarray(fit.group), "group"),
            "n_components": int(fit.n_components),
            "em_objective": [enc(float(v)) for v in fit.em_objective],
            "selection": enc(None if fit.selection is None else
                             {int(k): float(v) for k, v in fit.selection.items()})}


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
    post = dec(node["posterior"])
    if not isinstance(post, NBPosterior):
        raise ModelFileError("the latent-class posterior is not an NBPosterior")
    C, K = node["n_components"], len(model.classes_)
    if not isinstance(C, int) or isinstance(C, bool) or C < 1:
        raise ModelFileError(f"a latent-class fit's n_components must be a positive int; the file holds {C!r}")
    # the states' weights: Dirichlet(1) each, or Dirichlet(1/C) under component_prior="hierarchical"
    alpha = post.class_prior_alpha
    pick = next((a for a in (1.0, 1.0 / C) if isinstance(alpha, np.ndarray) and alpha.dtype == np.float64
                 and alpha.ndim == 1 and np.array_equal(alpha, np.full(alpha.shape, a))), None)
    if pick is None:
        raise ModelFileError(f"the latent states' weights must have a Dirichlet(1) or Dirichlet(1/{C}) prior each")
    states = clone(model).set_params(class_alpha=pick, fit_prior=True, class_prior=None)
    check_model(states, post, model.n_features_in_, getattr(model, "feature_names_in_", None))
    S = post.classes.shape[0]
    if S != K * C:
        raise ModelFileError(f"a latent-class fit of {K} class(es) with {C!r} component(s) each has {K} x {C} "
                             f"states; the file holds {S}")
    group = dec(node["group"])
    if not isinstance(group, np.ndarray) or group.dtype.kind not in "iu" or not np.array_equal(
            group, np.repeat(np.arange(K), C)):
        raise ModelFileError("the latent states' classes must be each class repeated once per component")
    objective = [float(dec(v)) for v in node["em_objective"]]
    selection = dec(node["selection"])
    if selection is not None and not (isinstance(selection, dict) and all(
            isinstance(k, int) and isinstance(v, float) for k, v in selection.items())):
        raise ModelFileError("the latent-class selection must be None or {components: score}")
    return LatentClassFit(post, group, C, objective, selection)
