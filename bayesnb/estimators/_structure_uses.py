"""The naive model's other uses, written once on the structure engine.

:class:`StructureUsesMixin` gives CategoricalNB and NaiveBayes, under a fitted structure (TAN,
k-DB), the methods the naive model has besides predict / sample / impute (those are in
:mod:`~bayesnb.estimators._structure_common`): ``feature_log_contributions``,
``predict_proba_draws``, ``sample(prior=True)``, conditional and constrained sampling
(:meth:`_structure_given`, :meth:`_structure_constrained`) and ``partial_fit``, each documented on
its method. Every method falls back on the naive model's when no structure is fitted.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import _num_samples, check_is_fitted

from ..inference import nb_posterior as _post
from .._utils import DataError, ZeroProbabilityWarning, as_generator
from ..generative.method_checks import sample_request
from ..generative.conditional import check_known_values
from ..generative.conditions import class_set
from ..generative.constrained import finish_probability, parse_conditions
from ..generative.functions import class_log_weights, contribution_class_term, states_of_classes
from ..generative.given import encode_given, write_given
from ..generative.support import blank_impossible, impossible_cells
from ..inference.em import allowed_states
from . import _on_call as on_call
from . import validation as _val

__all__ = ["StructureUsesMixin"]

#: (draw, class) pairs that predict_proba_draws scores in one pass of the engine (bounds its memory)
_DRAW_CLASSES = 32


class StructureUsesMixin:
    """``feature_log_contributions``, ``predict_proba_draws``, ``sample(prior=True)``,
    conditional sampling and ``partial_fit`` on a fitted structure (see the module docstring)."""

    def _node_positions(self):
        """The column of ``X`` of every node."""
        post = self.posterior_
        return np.array([int(post.blocks[nd.block].columns[nd.col]) for nd in self._mixed.nodes], dtype=np.int64)

    def feature_log_contributions(self, X, *, return_class_term=False):
        """Per-feature contributions to ``log p(x)``: which features make a row unusual.

        Under a structure other than naive, ``C[i, j] = sum_k p(k | x_i) t_j(x_i, k)`` with
        ``t_j`` feature ``j``'s node term: ``log p(x_ij | pa_j, y=k)`` when its parents are
        observed (every feature of a complete row), the exact ``log p(x_ij | x_i<j, y=k)`` given
        the observed cells before it in the structure's topological order otherwise (missing
        parents summed out), 0 for a missing cell or a category never seen in training (scored
        as missing, as :meth:`predict_joint_log_proba` scores it). They add up exactly:
        ``score_samples(X) = C.sum(1) + class_term``, ``class_term[i] = sum_k p(k | x_i)
        (log p(y=k) - log p(k | x_i))``. Under naive, as
        :meth:`bayesnb.generative.GenerativeMixin.feature_log_contributions`.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        return_class_term : bool, default=False

        Returns
        -------
        C : ndarray of shape (n_samples, n_features), or DataFrame for DataFrame input
        class_term : ndarray of shape (n_samples,)
            Only with ``return_class_term=True``.
        """
        if self._structure_fitted() is None:
            return super().feature_log_contributions(X, return_class_term=return_class_term)
        post = self.posterior_
        X, bad = blank_impossible(self, X)  # a cell outside its family's support is -inf
        data = on_call.engine.node_data(self._mixed.nodes, self._encoded(X))
        terms = on_call.infer.node_log_terms(self._mixed, data, self._who)
        resp = np.exp(_post.normalise(terms.sum(axis=1) + post.class_log_prior, post.class_log_prior, self._who))
        out = np.zeros((terms.shape[0], int(self.n_features_in_)))
        out[:, self._node_positions()] = np.einsum("ijk,ik->ij", terms, resp)
        out = impossible_cells(out, bad, X)
        term = contribution_class_term(resp, post.class_log_prior)
        return (out, term) if return_class_term else out

    def predict_proba_draws(self, X, n_draws=1000, random_state=None):
        """``p(y=k | x)`` under each of ``n_draws`` exact posterior draws of the parameters.

        Under a structure other than naive, each draw is one exact posterior draw of the class
        weights and of every context's parameters (every node's family, on its context axis),
        and ``p(y | x)`` is exact under it (missing cells summed out as in :meth:`predict_proba`).
        Their mean over draws is ``E[p(y | x, theta)]``, close to :meth:`predict_proba` (which
        uses the posterior predictive) for large ``n_draws``. Under naive, as
        :meth:`bayesnb.estimators._posterior_methods.PosteriorMixin.predict_proba_draws`.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        n_draws : int, default=1000
        random_state : int, numpy Generator/RandomState or None

        Returns
        -------
        ndarray of shape (n_draws, n_samples, n_classes)
        """
        if self._structure_fitted() is None:
            return super().predict_proba_draws(X, n_draws, random_state)
        check_is_fitted(self, "posterior_")
        n_draws = self._check_n_draws(n_draws)
        rng = as_generator(random_state)
        post, model = self.posterior_, self._mixed
        data = on_call.engine.node_data(model.nodes, self._encoded(X))
        n, K = data[1].shape[0], len(post.classes)
        out = np.empty((n_draws, n, K))
        batch = max(1, _DRAW_CLASSES // K)
        for start in range(0, n_draws, batch):  # a batch of draws scored at once, as (draw, class) classes
            b = min(batch, n_draws - start)
            log_pi = np.stack([class_log_weights(post, rng) for _ in range(b)])  # (b, K)
            drawn = on_call.exact_impute.drawn_models(model, b, rng)
            jll = on_call.infer.log_likelihood(drawn, data, self._who).reshape(n, b, K) + log_pi
            with warnings.catch_warnings(action="ignore", category=ZeroProbabilityWarning):
                for s in range(b):
                    out[start + s] = np.exp(_post.normalise(jll[:, s], log_pi[s], self._who))
        return out

    def _structure_classes(self, n_samples, y, rng, log_p):
        """Class codes of the rows: those of ``y``, or ``n_samples`` drawn from ``exp(log_p)``."""
        post = self.posterior_
        if y is None:
            p = np.exp(log_p - np.max(log_p))
            return rng.choice(len(p), size=int(n_samples), p=p / p.sum())
        yy = np.atleast_1d(np.asarray(y, dtype=object if post.classes.dtype == object else None))
        if yy.shape[0] == 1:
            yy = np.repeat(yy, int(n_samples))
        _val.check_known_labels(yy, post.classes, self._who)
        return np.searchsorted(post.classes, yy)

    def _sample_prior(self, n_samples=1, *, y=None, random_state=None, length=None):
        """``sample(prior=True)``: rows from the prior predictive (prior predictive checks).

        Under a structure other than naive: one draw of the class weights from their
        Dirichlet prior and of every context's parameters from its prior (each node's family,
        the priors the fit resolved), shared by the rows, then the class and every feature
        after its parents (ancestral order), as :meth:`sample`. ``length`` needs
        structure='naive'. Under naive, as
        :meth:`bayesnb.generative.GenerativeMixin.sample` with ``prior=True``.

        Returns
        -------
        X, y
            As in :meth:`sample`.
        """
        if self._structure_fitted() is None:
            return super()._sample_prior(n_samples, y=y, random_state=random_state, length=length)
        if length is not None:
            raise NotImplementedError(f"{self._who}.sample(prior=True, length=...) needs structure='naive'.")
        rng = as_generator(random_state)
        post = self.posterior_
        z = self._structure_classes(n_samples, y, rng, class_log_weights(post, rng, use_prior=True))
        prior_model = self._mixed._replace(posteriors=self._mixed.priors)  # no data: the posterior is the prior
        values = on_call.engine.sample_nodes(prior_model, z, rng, parameter_uncertainty=True)
        return self._node_table(values, len(z)), post.classes[z]

    def _sampling_model(self, latent, parameter_uncertainty):
        """``(model, its class part, class of each state, parameter_uncertainty)`` that :meth:`sample` draws
        from: the fitted structure over the classes, or a latent-class model of it over its (class,
        component) states (one MCMC draw's parameters are used as they are)."""
        if latent is None:
            return self._mixed, self.posterior_, np.arange(len(self.classes_)), parameter_uncertainty
        model, states, group = self._structure_latent(latent)
        return model, states, group, bool(parameter_uncertainty) and not latent.point

    def _structure_rows(self, n_samples, y, rng, parameter_uncertainty, latent=None):
        """``sample()`` under the fitted structure: a class (with ``latent``, a state: within the row's
        class when ``y`` is given), then every node after its parents in that state's context."""
        model, states, group, pu = self._sampling_model(latent, parameter_uncertainty)
        logw = class_log_weights(states, rng if pu else None) if latent is not None or y is None else None
        z = self._structure_classes(n_samples, y, rng, None if y is not None else logw)
        if latent is not None and y is not None:  # the component among the class's states
            z = states_of_classes(group, z, logw, rng)
        return self._structure_sample(z, rng, pu, model), self.classes_[group[z]]

    def _structure_given(self, n_samples, y, given, rng, parameter_uncertainty, latent=None):
        """``sample(given=)`` under the fitted structure: ``(X, y)`` drawn from ``p(y, x_rest | x_given)``
        (with ``latent``, the row's state from ``p(state | x_given)``, within its class when ``y`` is given)."""
        post, who = self.posterior_, self._who
        d, names = int(self.n_features_in_), getattr(self, "feature_names_in_", None)
        n, z, values, labels = sample_request(self.classes_, n_samples, y, given, d, names, who)
        encoded = encode_given(self._gen_encode, values, labels, n, names, d, who)
        check_known_values(post, encoded, {j: v.to_numpy(dtype=object) for j, v in values.items()}, who)
        model, states, group, pu = self._sampling_model(latent, parameter_uncertainty)
        r = rng if pu else None
        model = model if r is None else on_call.exact_impute.drawn_model(model, r)
        logw = np.broadcast_to(class_log_weights(states, r), (n, len(group)))
        if z is not None:
            logw = np.where(allowed_states(group, z), logw, -np.inf)
        data = on_call.engine.node_data(model.nodes, encoded)
        zz, drawn = on_call.exact_impute.draw_rows(model, data, logw, rng, who)
        columns = write_given(self._node_columns(drawn), values)
        return self._node_table(columns, n, decoded=True), post.classes[group[zz]]

    def _structure_constrained(self, n_samples, y, given, forbid, rng, parameter_uncertainty, return_probability,
                               latent=None):
        """``sample(given=, forbid=)`` with sets, ranges or forbidden combinations under the fitted structure:
        ``(X, y)`` (and ``p``) drawn exactly by :func:`bayesnb.structure.constrained_draws.draw_constrained`. With
        ``latent``, the same message passing on the model over its (class, component) states: each row's
        state from ``p(state | condition)`` (among its class's, or a set ``y``'s, states)."""
        post, who = self.posterior_, self._who
        model, states, group, pu = self._sampling_model(latent, parameter_uncertainty)
        y, classes = class_set(post.classes, y, who)
        allowed = None if classes is None else classes[group]  # the states of a set y's classes
        req = parse_conditions(self, n_samples, y, given, forbid, value_tables=False)
        node_of = {int(c): j for j, c in enumerate(self._node_positions())}
        pieces = [{node_of[c]: cons for c, cons in p.items()} for p in req.pieces]
        r = rng if pu else None
        point = model._replace(predictive="mean") if r is None else on_call.exact_impute.drawn_model(model, r)
        data = on_call.engine.node_data(model.nodes, req.encoded)
        one = req.one is not None  # one condition for every row: its messages once, then req.n draws
        z = None if req.z is None else req.z[:1] if one else req.z
        logw = _class_weights(class_log_weights(states, r), z, 1 if one else req.n, allowed, group)
        zz, drawn, _ = on_call.constrained_draws.draw_constrained(point, data, logw, pieces, rng, who,
                                                                  n=req.n if one else None)
        columns = write_given(self._node_columns(drawn), req.values)
        out = (self._node_table(columns, req.n, decoded=True), post.classes[group[zz]])
        if not return_probability:
            return out
        logw = _class_weights(states.class_log_prior, z, 1 if one else req.n, allowed, group)
        law = "mean" if latent is not None and latent.point else "marginal"  # one MCMC draw: its own law
        logp = on_call.constrained_draws.log_probability(model._replace(predictive=law), data, logw, pieces, who)
        if z is not None or allowed is not None:
            logp = logp - logsumexp(logw, axis=1)
        return (*out, finish_probability(logp, req, who))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data to the posterior (counts accumulate).

        Under a structure other than naive, the first call (on an unfitted estimator) fits
        the naive posterior and learns the structure on its batch, as :meth:`fit`; later calls
        (after ``fit`` too) keep the structure and the numeric columns' bin edges, and add
        each node's statistics over its contexts (its family's ``merge``), so two batches give
        exactly the model ``fit`` gives on all their rows with that structure. A batch cannot
        add a category (it would change the contexts): declare every category at the first
        fit (``categories=``). Under naive, as
        :meth:`bayesnb.estimators._basenb.BaseNB.partial_fit`.

        Parameters
        ----------
        X, y, classes, sample_weight
            As in :meth:`bayesnb.estimators._basenb.BaseNB.partial_fit`.

        Returns
        -------
        self : object
        """
        fitted = getattr(self, "structure_kind_", None) if hasattr(self, "posterior_") else None
        if fitted is not None and self.structure not in (fitted, "auto"):
            raise ValueError(f"{self._who}.partial_fit continues the fitted structure {fitted!r}, but structure is "
                             f"now {self.structure!r}; call fit to learn it.")
        if self.structure == "naive":
            return super().partial_fit(X, y, classes, sample_weight)
        if fitted is None:
            self._check_structure_privacy()
            super().partial_fit(X, y, classes, sample_weight)
            return self._learn_structure(X, y, sample_weight)
        model = self._mixed
        if model is None:  # the structure learned was naive ("auto"): it stays naive
            kept = {a: getattr(self, a) for a in ("structure_kind_", "structure_", "structure_hierarchical_")
                    if hasattr(self, a)}
            super().partial_fit(X, y, classes, sample_weight)
            self.__dict__.update(kept)
            return self
        saved = dict(self.__dict__)
        super().partial_fit(X, y, classes, sample_weight)
        nodes = on_call.engine.make_nodes(self.posterior_.blocks, None, None, edges=[nd.edges for nd in model.nodes])
        # each node keeps the family it was fitted with (a hierarchical variant: structure_hierarchical_)
        nodes = tuple(nd._replace(family=old.family) for nd, old in zip(nodes, model.nodes))
        grown = [j for j, (a, b) in enumerate(zip(nodes, model.nodes)) if a.n_states != b.n_states]
        if grown:
            self.__dict__.clear()
            self.__dict__.update(saved)
            names = self._node_names(model.nodes)
            raise DataError(f"{self._who}.partial_fit: the batch adds categories to {[names[j] for j in grown]}, "
                             f"which would change the contexts of the fitted structure {self.structure_kind_!r}; "
                             "declare every category at the first fit (categories=).")
        n = _num_samples(X)
        ycodes = np.searchsorted(self.classes_, _val.check_y(y, n, self._who))
        w = self._check_weights(sample_weight, n)
        data = on_call.engine.node_data(nodes, self._encoded(X))
        batch = on_call.engine.node_stats(nodes, data, ycodes, w, len(self.classes_), model.parents)
        merged = [nd.family.merge(a, b) for nd, a, b in zip(nodes, model.stats, batch)]
        self._mixed = on_call.engine.model_from_stats(nodes, merged, len(self.classes_), model.parents,
                                                      self._check_predictive(), self._who)
        self.structure_kind_, self.structure_ = saved["structure_kind_"], saved["structure_"]
        self.structure_stats_ = self._mixed.stats
        return self


def _class_weights(log_w, z, n, allowed=None, group=None):
    """``log p(state=s)`` per row (n, S), ``-inf`` off the states of each row's class ``z`` when given, and
    off ``allowed`` (bool (S,), a set ``y``'s states) when given; ``group`` the class of each state
    (None: the states are the classes)."""
    logw = np.broadcast_to(log_w, (n, log_w.shape[0]))
    if allowed is not None:
        logw = np.where(allowed[None, :], logw, -np.inf)
    cls = np.arange(log_w.shape[0]) if group is None else np.asarray(group)
    return logw if z is None else np.where(cls[None, :] == np.asarray(z)[:, None], logw, -np.inf)
