"""What CategoricalNB's and NaiveBayes's ``structure=`` share once a structure is fitted.

:class:`StructureCommonMixin` holds what a fitted structure has no use for, hidden with
scikit-learn's ``available_if`` (``hasattr`` False, and the AttributeError says why: the
linear view), the predict methods, ``score_samples``, ``log_evidence_``, ``sample``, ``_impute``,
``_latent_class_draws`` and ``sample_posterior`` of
:class:`~bayesnb.estimators._structured.StructureMixin` (CategoricalNB's and NaiveBayes's, on
the one structure engine :mod:`bayesnb.structure.engine`); ``run_mcmc`` and ``_model_inputs`` are
the base's, on the one NumPyro model. The subclass names
``_structure_attr`` (the attribute holding the fitted structure, None when naive: every
method then falls back on the estimator's base) and answers
the hooks :meth:`_structure_joint` (``log p(x | y=k)`` under it),
:meth:`_structure_latent_draws` (plug-in latent-class models from ``run_mcmc``'s draws),
:meth:`_structure_sample` (feature values drawn given the classes), :meth:`_structure_imputer`
(missing cells filled given the class weights), :meth:`_structure_draws` (exact posterior
draws) and, from
:class:`~bayesnb.estimators._structure_uses.StructureUsesMixin`, ``_structure_classes`` and
``_structure_given`` (the rows' classes; conditional sampling).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..io import dask_data as _dask
from ..inference import nb_posterior as _post
from .._utils import as_generator
from ..generative.method_checks import check_prior_flag, check_prior_options
from ..generative.conditions import has_constraints
from ..generative.functions import class_log_weights, warn_empty_columns
from ..generative.support import blank_impossible, impossible_rows
from ..generative.tables import label_codes
from ..generative.values import complete, median_draws
from ..inference.em import allowed_states
from ._posterior_methods import NotLinearError
from . import _on_call as on_call

__all__ = ["StructureCommonMixin"]


def _linear_view(self):
    """``available_if`` check of the linear view: refused (AttributeError) under a fitted structure."""
    if self._structure_fitted() is not None:  # NotLinearError: an AttributeError (hasattr False), and a ValueError
        raise NotLinearError(
            f"{type(self).__name__} has no linear view under its fitted structure {self.structure_kind_!r}: "
            "a feature's term depends on its parents' values, so log-odds are not linear in one-hot features "
            "(coef_, intercept_, coef_names_, coef_draws need structure='naive').")
    return True


class StructureCommonMixin:
    """Predict, score and sample under a fitted structure (see the module docstring)."""

    _structure_attr: str = ""

    # ------------------------------------------------- what a fitted structure has no use for
    def _check_linear(self):
        """The base's check of the linear view (``coef_``, ``intercept_``, ``coef_names_``),
        refused first under a fitted structure (:func:`_linear_view`)."""
        _linear_view(self)
        return super()._check_linear()

    @available_if(_linear_view)
    def coef_draws(self, n_draws=1000, random_state=None):
        """As :meth:`bayesnb.estimators._posterior_methods.PosteriorMixin.coef_draws`; not under a fitted structure."""
        return super().coef_draws(n_draws, random_state)

    def _latent_class_draws(self, idata, *, n_draws=None, random_state=None):
        """:func:`~bayesnb.generative.latent.latent_class_draws`: the naive model's, or under a
        structure one plug-in model over the (class, component) states per draw."""
        if self._structure_fitted() is None:
            return super()._latent_class_draws(idata, n_draws=n_draws, random_state=random_state)
        check_is_fitted(self, "posterior_")
        return self._structure_latent_draws(idata, n_draws, random_state)

    def _structure_fitted(self):
        """The fitted structure (with a ``log_evidence``), or None under the naive structure."""
        return getattr(self, self._structure_attr, None)

    def sample_posterior(self, n_draws=1000, random_state=None):
        """Exact draws from the conjugate posterior (no MCMC needed); under a structure, one per context.

        Under a structure other than naive (TAN, k-DB): ``pi`` (class) and, per feature, one
        variable ``<param>_<feature>`` per parameter of its family, drawn exactly in every
        context (class, parents' states) by the family's ``sample_params``, with dims
        ``(class, <parent>_state, ...)`` then the parameter's own: ``theta_<feature>`` (a
        Dirichlet per context, last dim ``<feature>_category``) for a categorical feature (all
        of ``CategoricalNB``'s), ``mu_<feature>`` and
        ``sigma2_<feature>`` (a Normal-Inverse-Gamma per context) for a Gaussian one, ...; a
        numeric parent's states are its bins (:mod:`bayesnb.structure.structure_draws`). ``run_mcmc``
        returns the same layout. Under the naive structure, as
        :meth:`bayesnb.estimators._posterior_methods.PosteriorMixin.sample_posterior`.

        Parameters
        ----------
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        xarray.DataTree
            Group ``posterior`` with dims ``(chain=1, draw=n_draws, ...)``.
        """
        if self._structure_fitted() is None:
            return super().sample_posterior(n_draws, random_state)
        check_is_fitted(self, "posterior_")
        n_draws = self._check_n_draws(n_draws)
        t0 = time.perf_counter()
        draws, dims, coords = self._structure_draws(n_draws, as_generator(random_state))
        secs = time.perf_counter() - t0
        attrs = {"inference": "exact conjugate posterior", "sampling_seconds": secs, "estimator": self._who,
                 "structure": self.structure_kind_}
        return on_call.diagnostics.datatree_from_layout({k: v[None] for k, v in draws.items()}, dims, coords,
                                                        attrs=attrs)

    def _impute(self, X, *, strategy, n_imputations, random_state, parameter_uncertainty, y, n_components, latent,
                median_cells=None, stacklevel=2):
        """:meth:`impute` with its options checked, and ``median_cells`` and ``stacklevel`` (see
        ``GenerativeMixin._impute``)."""
        if self._structure_fitted() is None:
            return super()._impute(X, strategy=strategy, n_imputations=n_imputations, random_state=random_state,
                                   parameter_uncertainty=parameter_uncertainty, y=y, n_components=n_components,
                                   latent=latent, median_cells=median_cells, stacklevel=stacklevel + 1)
        m = n_imputations
        rng = as_generator(random_state)
        if latent is None and (n_components == "auto" or int(n_components) != 1):
            latent = self.fit_latent_class(X, y, n_components=n_components, random_state=rng)
        post = self.posterior_
        model, states, group = (None, post, np.arange(len(self.classes_))) if latent is None else \
            self._structure_latent(latent)
        # one MCMC draw (latent_class_draws): its parameters are used as they are
        parameter_uncertainty = parameter_uncertainty and not (latent is not None and latent.point)
        X = self._check_X(X, reset=False)
        encoded, _ = self._encode_blocks(X, post)
        allowed = np.ones((X.shape[0], len(group)), dtype=bool) if y is None else allowed_states(
            group, label_codes(self.classes_, y, X.shape[0], self._who))
        warn_empty_columns(post, "impute", self._who, encoded, stacklevel=stacklevel + 1)
        fill = self._structure_imputer(encoded, strategy, rng, model)
        draws = median_draws(self, X, y, latent)  # "auto"'s conditional medians (generative.values)
        outs = []
        for _ in range(m):
            r = rng if strategy == "draw" and parameter_uncertainty else None
            logw = np.where(allowed, class_log_weights(states, r)[None, :], -np.inf)
            outs.append(complete(self, X, fill(logw, r), strategy, draws, median_cells))
        return outs[0] if m == 1 else outs

    @property
    def log_evidence_(self):
        """Closed-form ``log p(X, y)`` under the fitted structure (None under an improper prior)."""
        check_is_fitted(self, "posterior_")
        fitted = self._structure_fitted()
        if fitted is None:
            return _post.log_evidence(self.posterior_)
        label = _post.label_log_evidence(self.posterior_)
        return None if label is None else label + fitted.log_evidence

    def predict_joint_log_proba(self, X):
        """``log p(x, y=k)`` per row and class, shape (n_samples, n_classes).

        Under a structure other than naive, missing cells are marginalised exactly given the
        class (see :mod:`bayesnb.structure.engine`); otherwise, and for a Dask ``X`` (a lazy
        Dask array, partition by partition), as :meth:`BaseNB.predict_joint_log_proba`.
        """
        if self._structure_fitted() is None or _dask.is_dask(X):
            return super().predict_joint_log_proba(X)
        return self._structure_joint(X) + self.posterior_.class_log_prior

    def _class_scores(self, X):
        """The scores ``predict``, ``predict_proba`` and ``predict_log_proba`` normalise: under a
        structure, its exact joint (missing cells marginalised)."""
        if self._structure_fitted() is None:
            return super()._class_scores(X)
        return self.predict_joint_log_proba(X)

    def score_samples(self, X, *, latent=None):
        """``log p(x)`` (densities for numeric cells): logsumexp over classes of :meth:`predict_joint_log_proba`.

        ``latent``: a model of this structure's :meth:`fit_latent_class` (or one draw of
        :func:`~bayesnb.generative.latent.latent_class_draws`), scored at its plug-in (logsumexp over its (class,
        component) states). A Dask ``X`` gives a lazy Dask array.
        """
        if self._structure_fitted() is None or _dask.is_dask(X):
            return super().score_samples(X, latent=latent)
        X, bad = blank_impossible(self, X)  # a cell outside its family's support: the row is -inf
        if latent is not None:
            model, post, _ = self._structure_latent(latent)
            return impossible_rows(logsumexp(self._structure_joint(X, model) + post.class_log_prior, axis=1), bad)
        return impossible_rows(logsumexp(self.predict_joint_log_proba(X), axis=1), bad)

    def sample(self, n_samples=1, *, y=None, random_state=None, parameter_uncertainty=True, **kwargs):
        """Rows ``(X, y)`` in ancestral order: the class, then every feature after its parents.

        Under a structure other than naive, categorical cells are category values and numeric
        cells come from the conditional Gaussian of their context (one exact posterior draw
        per call with ``parameter_uncertainty``, else each row from the Student-t posterior
        predictive); ``X`` is an object array, or a DataFrame with the training names (numeric
        columns float). ``given`` (as in :meth:`bayesnb.generative.GenerativeMixin.sample`):
        the class and the other cells are drawn exactly from ``p(y, x_rest | x_given)`` under
        the call's parameters (one exact posterior draw, or the plug-in), by backward sampling
        on a forest (naive, TAN) and on k-DB over the missing ancestors of given cells, by
        enumeration or variable elimination (:mod:`bayesnb.structure.elimination`); a given
        numeric value enters through its density. Sets, ranges, ``forbid`` and
        ``return_probability`` as there, by the same message passing with the constrained
        nodes' factors restricted (:mod:`bayesnb.structure.constrained_draws`); those draws use the
        call's posterior draw or, with ``parameter_uncertainty=False``, the plug-in. ``latent``:
        a model of this structure's :meth:`fit_latent_class` (or one draw of
        :func:`~bayesnb.generative.latent.latent_class_draws`, its parameters used as they are): each row's (class,
        component) state from the state weights (within its class when ``y`` is given), then
        every feature after its parents in that state's context; with ``given`` (values, sets or
        ranges) or ``forbid``, the state from ``p(state | condition)`` by the same message passing
        on the model over the states (``return_probability``: ``p(condition)`` under that model's
        posterior predictive, or under the draw's law for one MCMC draw). ``length`` needs
        structure='naive'. ``prior=True``: the prior predictive (every context's parameters drawn
        from its prior, shared by the rows), taking only ``n_samples``, ``y``, ``random_state``.
        """
        if check_prior_flag(self._who, kwargs.pop("prior", False)):  # the prior predictive (naive or this structure's)
            check_prior_options(self._who, parameter_uncertainty, {k: v for k, v in kwargs.items() if k != "length"})
            return self._sample_prior(n_samples, y=y, random_state=random_state, length=kwargs.get("length"))
        if self._structure_fitted() is None or _dask.is_dask(kwargs.get("given")):  # Dask: partition by partition
            return super().sample(n_samples, y=y, random_state=random_state,
                                  parameter_uncertainty=parameter_uncertainty, **kwargs)
        given, forbid = kwargs.pop("given", None), kwargs.pop("forbid", None)
        return_probability = bool(kwargs.pop("return_probability", False))
        latent = kwargs.pop("latent", None)
        odd = [k for k, v in kwargs.items() if v is not None]
        if odd:
            raise NotImplementedError(f"{self._who}.sample({', '.join(odd)}=...) needs structure='naive'.")
        rng = as_generator(random_state)
        if forbid is not None or return_probability or has_constraints(given) or isinstance(y, (set, frozenset)):
            return self._structure_constrained(n_samples, y, given, forbid, rng, parameter_uncertainty,
                                               return_probability, latent)
        if given is not None:
            return self._structure_given(n_samples, y, given, rng, parameter_uncertainty, latent)
        return self._structure_rows(n_samples, y, rng, parameter_uncertainty, latent)
