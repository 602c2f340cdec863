"""``structure="tan" | "kdb" | "auto"`` under ``privacy=DP(...)``: the estimators' side of a private structure.

:class:`PrivateStructureMixin` replaces the naive private release of ``fit`` (the base's
``_fit_posterior`` hook) by :func:`bayesnb.structure.private_fit.private_structure_release`: the
parents selected by the exponential mechanism, every node's tables over its contexts released with
noise, the naive posterior their sums (post-processing). ``fit`` then builds the structured model
from the released node statistics (:meth:`_store_private_structure`). docs/privacy.md, "Private
structure".
"""

from __future__ import annotations

from ..generative.method_checks import declared_bounds
from ..inference.conjugate import posterior_from_stats
from . import _on_call as on_call

__all__ = ["PrivateStructureMixin"]


class PrivateStructureMixin:
    """The private structured fit (module docstring)."""

    def _private_kind(self, n, specs, states):
        """The structure a private fit of ``n`` rows learns (``"naive"``: the naive release); ``"auto"``
        by :func:`~bayesnb.structure.private_fit.auto_kind` (public quantities only)."""
        if self.structure == "auto":
            return on_call.private_fit.auto_kind(n, self.privacy, len(self.privacy.classes), specs, states)[0]
        return self.structure

    def _check_structure_privacy(self):
        """Refuse, naming privacy, what a private structure cannot do: ``auto_cv`` (cross-validation on
        the raw rows) with ``structure="auto"``."""
        if self.privacy is not None and self.structure == "auto" and getattr(self, "auto_cv", False):
            raise ValueError(f"{self._who}: structure='auto' with privacy= chooses by a rule on public "
                             "quantities (n, epsilon, the categories: docs/privacy.md); its cross-validation check reads the raw "
                             "rows, which is not differentially private: pass auto_cv=False.")

    def _fit_posterior(self, classes, resp, specs, encoded, states, names, class_alpha, fit_prior, class_prior,
                       *, privacy=None, all_names=None, who="NaiveBayes", **kwargs):
        self.__dict__.pop("_dp_structure", None)
        kind = self._private_kind(resp.shape[0], specs, states) if privacy is not None else "naive"
        if kind == "naive":
            return super()._fit_posterior(classes, resp, specs, encoded, states, names, class_alpha, fit_prior,
                                          class_prior, privacy=privacy, all_names=all_names, who=who, **kwargs)
        class_count, stats, release, spent = on_call.private_fit.private_structure_release(
            privacy, kind, self.k, resp, specs, encoded, states, names, all_names, self._forbidden_pairs(), who)
        post = posterior_from_stats(classes, class_count, specs, states, stats, names, class_alpha, fit_prior,
                                    class_prior, who=who)
        self._dp_structure = {**release, "kind": kind}
        return post, spent

    def _store_private_structure(self):
        """The structured model of the released node statistics (after ``fit``'s private release); the
        categorical nodes' tables with hierarchical smoothing unless ``alpha`` is set."""
        rel = self.__dict__.pop("_dp_structure", None)
        if rel is None:  # "auto" chose naive: the naive private release is the model
            return self
        post = self.posterior_
        nodes = self._bounded_nodes(on_call.engine.make_nodes(post.blocks, None, None, edges=rel["edges"]))
        hier = self.alpha is None
        cand = on_call.select.Candidate(rel["kind"], hier, on_call.select.variant_label(rel["kind"], self.k, hier))
        fitted = on_call.engine.model_from_stats(on_call.select.hierarchical_nodes(nodes) if hier else nodes,
                                                 rel["stats"], len(self.classes_), rel["parents"],
                                                 self._check_predictive(), self._who, noise_var=rel["noise_var"])
        self._store_structure(cand, None, fitted, nodes, {rel["kind"]: rel["parents"]})
        return self

    def _noise_variances(self):
        """Per node, the noise variance of its released counts (a private model, from ``privacy_spent_``:
        :func:`~bayesnb.structure.private_fit.node_noise_variances`); None without privacy."""
        spent = getattr(self, "privacy_spent_", None)
        return None if not spent or "split" not in spent else on_call.private_fit.node_noise_variances(spent)

    def _bounded_nodes(self, nodes):
        """``nodes`` with each numeric node's declared ``DP(bounds=...)`` (its draws and fills stay inside)."""
        declared = declared_bounds(self)
        if not declared:
            return nodes
        post = self.posterior_
        return tuple(nd._replace(bounds=declared.get(int(post.blocks[nd.block].columns[nd.col])))
                     if nd.numeric else nd for nd in nodes)
