"""``structure=`` for CategoricalNB: naive, TAN, k-DB, or chosen by closed-form evidence.

:class:`StructureMixin` goes before the estimator's base: ``fit`` fits the naive posterior as
always and, for another structure, learns the parent lists (:mod:`bayesnb.structure`) and fits
the context tables (:mod:`bayesnb.structured`); the predict methods, ``score_samples`` and
``sample`` and ``impute`` then use them. Methods not written for structures yet raise NotImplementedError
rather than silently answering with the naive model: :class:`StructureNotSupportedError`, a
NotImplementedError that is also an AttributeError, so ``hasattr(model, "partial_fit")`` is
False on such a model (as scikit-learn's ``available_if``). ``partial_fit``,
``fit_semi_supervised`` and ``fit_latent_class`` are refused whenever ``structure`` is not
"naive" (they would fit the naive model and ignore it).
"""

from __future__ import annotations

from numbers import Integral
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, StrOptions

from .. import posterior as _post
from .. import structured as _st
from ..generative.functions import _block_cells
from ..structure import (
    edge_scores,
    learn_parents,
    scoring_rows,
    topological_order,
)
from . import _validation as _val
from ._structure_common import REFITS, StructureCommonMixin, StructureNotSupportedError


def _leaves(t):
    """The arrays of a (nested) NamedTuple / tuple of statistics."""
    if isinstance(t, tuple):
        return [a for x in t for a in _leaves(x)]
    return [t]


__all__ = ["STRUCTURE_CONSTRAINTS", "StructureMixin", "StructureNotSupportedError"]

#: Hyperparameter constraints of ``structure`` and ``k``.
STRUCTURE_CONSTRAINTS: dict = {
    "structure": [StrOptions({"naive", "tan", "kdb", "auto"})],
    "k": [Interval(Integral, 1, None, closed="left")],
}

#: methods not written for a fitted categorical structure yet
_UNSUPPORTED = frozenset({*REFITS, "feature_log_contributions", "sample_prior_predictive",
                          # the naive posterior's draws / NumPyro model / log-odds would be silently wrong
                          "model_inputs", "predict_proba_draws", "predict_proba_interval", "coef_",
                          "intercept_", "coef_names_", "coef_draws", "coef_interval"})


class StructureMixin(StructureCommonMixin):
    """Fit and predict with a learned structure (see the module docstring).

    Attributes set by ``fit``: ``structure_`` (dict: feature name -> tuple of parent names) and,
    with ``structure="auto"``, ``structure_scores_`` (DataFrame: structure, log_evidence,
    n_cells, chosen; log_evidence is the label evidence plus ``sum_j log p(x_j | y, pa_j)`` with
    feature ``j`` on the rows where it and every parent it has in any candidate are observed,
    the same cells for every candidate, :func:`bayesnb.structure.scoring_rows`; n_cells counts
    those cells).
    """

    _structure_constraints: ClassVar[dict] = STRUCTURE_CONSTRAINTS

    _structure_unsupported = _UNSUPPORTED
    _structure_attr = "_tables"

    def _dask_unsupported(self):
        if self.structure != "naive":
            return f"structure={self.structure!r} (its tables condition on parent values learned from all rows)"
        return super()._dask_unsupported()

    def fit(self, X, y, sample_weight=None):
        """Fit the naive posterior, then the structure's tables (see :class:`CategoricalNB`).

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`BaseNB.fit`.

        Returns
        -------
        self : object
        """
        if self.privacy is not None and self.structure != "naive":
            raise ValueError(f"{self._who}: structure={self.structure!r} is not available with privacy=: learning "
                             "the structure reads mutual information from the raw data. Use structure='naive'.")
        self._tables = None
        for attr in ("structure_parents_", "structure_stats_", "structure_scores_"):
            self.__dict__.pop(attr, None)
        super().fit(X, y, sample_weight)
        if self.structure == "naive":  # the naive posterior is the model (_set_attributes set structure_)
            return self
        block = self.posterior_.blocks[0]
        codes = self._encoded(X)[0]
        yv = _val.check_y(y, codes.shape[0], self._who)
        ycodes = np.searchsorted(self.classes_, yv)
        w = self._check_weights(sample_weight, codes.shape[0])
        K = len(self.classes_)
        n_values = [len(v) for v, _ in block.family.value_columns(block.state)]
        names = [str(nm) for nm in block.names]
        label_ev = _post.label_log_evidence(self.posterior_)
        wanted = ("naive", "tan", "kdb") if self.structure == "auto" else (self.structure,)
        fits = {}
        scores = None
        if self.structure != "naive" and len(n_values) > 1:
            scores = edge_scores(codes, ycodes, n_values, K, w)
        parents = {s: learn_parents(codes, ycodes, n_values, K, s, self.k, w, scores=scores) for s in wanted}
        if self.structure == "auto":  # every candidate's feature j scored on the same rows (structure.scoring_rows)
            missing = (codes < 0) | (codes >= np.asarray(n_values, dtype=np.int64)[None, :])
            rows = scoring_rows(missing, list(parents.values()), w, names=names, who=self._who)
            ev = {}
            for s, pa in parents.items():
                m = _st.fit_tables(block.family, block.state, codes, ycodes, w, K, pa, n_values, self._who, rows)
                ev[s] = m.log_evidence + label_ev if label_ev is not None else m.log_evidence
                if not missing.any():  # every row scored: the scoring fit is the fit
                    fits[s] = m
            chosen = max(ev, key=ev.get)  # first on ties: naive before tan before kdb
            self.structure_scores_ = pd.DataFrame({
                "structure": [s + (f" (k={self.k})" if s == "kdb" else "") for s in ev],
                "log_evidence": list(ev.values()),
                "n_cells": [int(rows.sum())] * len(ev),
                "chosen": [s == chosen for s in ev]})
        else:
            chosen = self.structure
        if chosen not in fits:
            fits[chosen] = _st.fit_tables(block.family, block.state, codes, ycodes, w, K, parents[chosen], n_values,
                                          self._who)
        model = fits[chosen]
        self.structure_kind_ = chosen
        self.structure_ = {names[j]: tuple(names[p] for p in pa) for j, pa in enumerate(model.parents)}
        if chosen != "naive":
            self._tables = model
            self.structure_parents_ = model.parents
            self.structure_stats_ = model.stats
        return self

    def _restore_fitted(self):
        """Rebuild a structure's tables from ``structure_parents_`` and ``structure_stats_`` (model files)."""
        parents = getattr(self, "structure_parents_", None)
        stats = getattr(self, "structure_stats_", None)
        if parents is None and stats is None:
            return
        block = self.posterior_.blocks[0]
        fam, K = block.family, len(self.classes_)
        n_values = [len(v) for v, _ in fam.value_columns(block.state)]
        d = len(n_values)
        if (parents is None or stats is None or len(parents) != d or len(stats) != d
                or any(not 0 <= p < d or p == j for j, pa in enumerate(parents) for p in pa)):
            raise ValueError(f"structure_parents_ and structure_stats_ must describe {d} features "
                             f"(parents among the other features); received {parents!r}.")
        topological_order(parents)  # refuses a cycle
        for j, st in enumerate(stats):
            want = fam.empty_stats(_st.one_column_state(block.state, j), _st.n_contexts(K, parents, n_values, j))
            if type(st) is not type(want) or any(
                    np.shape(a) != np.shape(b) or not np.all(np.isfinite(a)) or np.any(np.asarray(a) < 0)
                    for a, b in zip(_leaves(st), _leaves(want))):
                raise ValueError(f"structure_stats_[{j}] must be the family's finite non-negative statistics "
                                 f"over its contexts.")
        self._tables = _st.tables_from_stats(fam, block.state, stats, K, parents, n_values, self._who)
        names = [str(nm) for nm in block.names]
        self.structure_ = {names[j]: tuple(names[p] for p in pa) for j, pa in enumerate(parents)}

    def _set_attributes(self):
        """The base attributes, and the naive structure's (a loaded or a naive fit keeps them)."""
        super()._set_attributes()
        self.structure_kind_ = "naive"
        self.structure_ = {str(nm): () for nm in self.posterior_.blocks[0].names}

    def _structure_joint(self, X):
        return _st.log_likelihood(self._tables, self._encoded(X)[0], self._who)

    def _structure_sample(self, z, rng, parameter_uncertainty):
        codes = _st.sample_codes(self._tables, z, rng, parameter_uncertainty)
        block = self.posterior_.blocks[0]
        cols = block.family.gen_decode(codes, block.state)
        X = np.column_stack(cols) if cols else np.empty((len(z), 0), dtype=object)
        if hasattr(self, "feature_names_in_"):
            X = pd.DataFrame(X, columns=self.feature_names_in_)
        return X

    def _structure_imputer(self, encoded, strategy, rng):
        """Missing cells of the context tables, exact on the structure (:func:`bayesnb.structured.impute_codes`)."""
        block, codes = self.posterior_.blocks[0], encoded[0]
        miss = block.family.gen_missing(codes)

        def fill(logw, r):
            tables = _st.drawn_tables(self._tables, r) if r is not None else self._tables
            filled = _st.impute_codes(tables, codes, logw, strategy="draw" if strategy == "draw" else "mode",
                                      rng=rng, who=self._who)
            return [_block_cells(block, filled, miss)] if miss.any() else []
        return fill
