"""``structure=`` for CategoricalNB and NaiveBayes: naive, TAN, k-DB, or chosen by closed-form evidence.

:class:`StructureMixin` goes before the estimator's base, the one mixin of both estimators
and of the one structure engine (:mod:`bayesnb.structure.engine`). ``fit`` fits the naive
posterior as always and, for another structure, learns the parent lists on every column
(:mod:`bayesnb.structure`; a numeric column through its quantile bins) and fits each
feature's family over its contexts (class, parents' states). A CategoricalNB is the case whose
one Categorical block makes every node categorical. The predict methods, ``score_samples``,
``sample``, ``impute`` and ``sample_posterior`` then use them
(:class:`~bayesnb.estimators._structure_common.StructureCommonMixin`, which also hides
with scikit-learn's ``available_if`` what a fitted structure has no use for: the linear
view), and ``run_mcmc`` (NUTS; ``estimator_inputs``) the base's, on the one NumPyro model
(:mod:`bayesnb.inference.numpyro_model`) with every feature a block on its contexts (the
hooks ``_numpyro_inputs``, ``_point_sites``, ``_mcmc_tree``). ``fit_semi_supervised`` learns the
structure on the labelled rows, then runs EM on it, and ``fit_latent_class`` runs EM over
(class, component) states with the structure inside each component
(:mod:`bayesnb.structure.structured_em`). Under ``privacy=DP(...)`` the structure and the nodes' tables are
released privately instead (:mod:`~bayesnb.estimators._private_structure`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _num_samples

from ..inference import nb_posterior as _post
from ..generative.functions import block_cells
from ..generative.tables import assemble_table
from ..inference import em
from ..structure import (
    edge_scores,
    learn_parents,
    scoring_rows,
    topological_order,
    without_edges,
)
from ..io.dask_data import is_dask
from . import _dask_structure
from . import _on_call as on_call
from . import validation as _val
from ._private_structure import PrivateStructureMixin
from ._structure_common import StructureCommonMixin
from ._structure_uses import StructureUsesMixin

__all__ = ["STRUCTURE_CONSTRAINTS", "StructureMixin"]

#: Hyperparameter constraints of ``structure`` and ``k``.
STRUCTURE_CONSTRAINTS: dict = {
    "structure": [StrOptions({"naive", "tan", "kdb", "auto"})],
    "k": [Interval(Integral, 1, None, closed="left")],
    "auto_cv": ["boolean"],
    "forbidden_edges": [list, tuple, None],
}

#: what a model file keeps of a fitted structure (files of 0.1's CategoricalNB have no edges: all categorical)
_FILE_ATTRS = ("structure_parents_", "structure_stats_", "structure_bin_edges_")


class StructureMixin(PrivateStructureMixin, StructureUsesMixin, StructureCommonMixin):
    """Fit and predict with a learned structure (see the module docstring).

    Attributes set by ``fit``: ``structure_kind_``, ``structure_`` (dict: feature name ->
    tuple of parent names) and, with ``structure="auto"``, ``structure_scores_`` (DataFrame:
    structure, log_evidence, n_cells, chosen; log_evidence is the label evidence plus ``sum_j
    log p(x_j | y, pa_j)`` with feature ``j`` on the rows where it and every parent it has in
    any candidate are observed, the same cells for every candidate,
    :func:`bayesnb.structure.scoring_rows`; n_cells counts those cells). A fitted structure
    other than naive also sets the model file's ``structure_parents_``, ``structure_stats_``
    and ``structure_bin_edges_``; ``fit_semi_supervised`` also ``structure_priors_`` (the priors
    resolved on the labelled rows, which EM held fixed).
    """

    _structure_attr = "_mixed"

    def fit(self, X, y, sample_weight=None):
        """Fit the naive posterior, then the structure's conditional families.

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`BaseNB.fit`.

        Returns
        -------
        self : object
        """
        self._check_structure_privacy()
        self._mixed = None
        for attr in ("structure_scores_", *_FILE_ATTRS):
            self.__dict__.pop(attr, None)
        super().fit(X, y, sample_weight)
        return self._learn_structure(X, y, sample_weight)

    def _learn_structure(self, X, y, sample_weight):
        """Learn the parents on the rows ``X, y`` and fit every node over its contexts (after the naive fit)."""
        self._mixed = None
        self._forbidden_pairs()  # a clear error for a bad constraint, whatever the structure
        if self.structure == "naive":  # the naive posterior is the model (_set_attributes set structure_)
            return self
        if self.privacy is not None:  # released by fit's private release (_private_structure)
            return self._store_private_structure()
        if is_dask(X):  # learned from pairwise, then context statistics reduced over the partitions
            self._store_structure(*_dask_structure.fit_structure(self, X, y, sample_weight))
            return self
        n = _num_samples(X)
        ycodes = np.searchsorted(self.classes_, _val.check_y(y, n, self._who))
        return self._fit_structure(X, ycodes, self._check_weights(sample_weight, n))

    def _fit_structure(self, X, ycodes, w):
        """Learn the structure on the rows ``X`` (class codes ``ycodes``, weights ``w``) and fit it."""
        post = self.posterior_
        encoded = self._encoded(X)
        K = len(self.classes_)
        nodes = on_call.engine.make_nodes(post.blocks, encoded, w)
        data = on_call.engine.node_data(nodes, encoded)
        del encoded  # node_data holds what the structure needs (the numeric blocks' values, views of the codes)
        n_states = [nd.n_states for nd in nodes]
        states = data[2]
        scores = None
        if len(nodes) > 1:
            scores = without_edges(edge_scores(states, ycodes, n_states, K, w, edge_score=self._edge_score()),
                                   self._forbidden_pairs(nodes))
        cands = on_call.select.candidates(self.structure, self.k, self.alpha is None)
        parents = {c.kind: learn_parents(states, ycodes, n_states, K, c.kind, self.k, w, scores=scores)
                   for c in cands}
        scored, n_cells = None, 0
        if self.structure == "auto":  # every candidate's node j scored on the same rows (structure.scoring_rows)
            rows = scoring_rows(data[1], list(parents.values()), w, names=self._node_names(nodes), who=self._who)
            scored = {kind: on_call.engine.node_stats(nodes, data, ycodes, w, K, pa, rows)
                      for kind, pa in parents.items()}
            n_cells = int(rows.sum())
        complete = not data[1].any()  # every row scored: the scoring statistics are the fit's
        kept = {}  # the CV check's per-fold node statistics, merged for the fit where they serve

        def all_stats(kind):
            if scored is not None and complete:
                return scored[kind]
            return on_call.cv.whole_stats(nodes, data, ycodes, w, K, parents[kind], kept)

        def cv(best):  # (rows of weight 0, e.g. EM's unlabelled rows, are left out of the folds)
            return on_call.select.cv_check(self, X, self.classes_[ycodes], None if np.all(w == 1) else w, best,
                                           fitted=(nodes, data), kept=kept)

        chosen, frame, fitted = on_call.select.choose(self, nodes, parents, cands, scored, n_cells, all_stats,
                                                      cv if self.auto_cv else None,
                                                      _post.label_log_evidence(post) or 0.0)
        self._store_structure(chosen, frame, fitted, nodes, parents)
        return self

    def _edge_score(self):
        """The edge score TAN and k-DB learn from (``edge_score``; estimators without it: ``"bdeu"``)."""
        return getattr(self, "edge_score", "bdeu")

    def _forbidden_pairs(self, nodes=None):
        """``forbidden_edges`` as node positions ``(i, j)`` of ``nodes`` (feature positions without them: the
        check alone); a clear error for anything else. Nodes come in block order, not column order."""
        given = getattr(self, "forbidden_edges", None)
        if not given:
            return []
        names = getattr(self, "feature_names_in_", None)
        d = int(self.n_features_in_)
        where = {} if names is None else {str(n): j for j, n in enumerate(names)}

        def position(f):
            if isinstance(f, str) and f in where:
                return where[f]
            if isinstance(f, Integral) and not isinstance(f, bool) and 0 <= int(f) < d:
                return int(f)
            known = f"feature names {list(where)}" if where else f"positions 0 to {d - 1}"
            raise ValueError(f"{self._who}: forbidden_edges names {f!r}, which is not a feature; expected {known}.")

        pairs = []
        for pair in given:
            if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise ValueError(f"{self._who}: forbidden_edges must be a list of (feature, feature) pairs; "
                                 f"received the entry {pair!r}.")
            i, j = position(pair[0]), position(pair[1])
            if i == j:
                raise ValueError(f"{self._who}: forbidden_edges pairs a feature with itself: {pair!r}.")
            pairs.append((i, j))
        if nodes is None:
            return pairs
        post = self.posterior_
        node_of = {int(post.blocks[nd.block].columns[nd.col]): n for n, nd in enumerate(nodes)}
        return [(node_of[i], node_of[j]) for i, j in pairs]

    def _store_structure(self, chosen, frame, fitted, nodes, parents):
        """The fitted attributes of the structure ``chosen`` (:func:`bayesnb.structure.select.choose`)."""
        if frame is not None:
            self.structure_scores_ = frame
        if chosen.kind == "naive" and chosen.hierarchical:  # alpha="hierarchical"'s naive model, no engine
            self._hierarchical_naive()
            fitted = None
        self.structure_kind_ = chosen.kind
        self.structure_hierarchical_ = chosen.hierarchical
        self.structure_ = self._named([(nd.block, nd.col) for nd in nodes], parents[chosen.kind])
        if fitted is not None:
            self._mixed = fitted
            self.structure_parents_ = self._mixed.parents
            self.structure_stats_ = self._mixed.stats
            self.structure_bin_edges_ = tuple(nd.edges for nd in nodes)

    def _hierarchical_naive(self):
        """Make the naive posterior ``auto``'s hierarchical naive candidate: each block with its family's
        hierarchical variant (where it has one), the prior from the block's counts, as
        ``alpha="hierarchical"`` fits it; so ``posterior_``, ``coef_`` and the exact draws are the model's."""
        post, blocks, specs = self.posterior_, [], []
        for b, (cols, fam) in zip(post.blocks, self._specs):
            h = b.family.hierarchical_variant()
            blocks.append(b if h is None else
                          _post.block_posterior(h, b.columns, b.names, b.state, b.stats, self._who, post.classes))
            specs.append((cols, fam if h is None else h))
        self._specs = specs
        self._store_posterior(post._replace(blocks=tuple(blocks)), self._never_observed)

    def _restore_fitted(self):
        """Rebuild a structure from ``structure_parents_``, ``structure_stats_`` and
        ``structure_bin_edges_`` (model files), checking each against the naive posterior.

        A file without ``structure_bin_edges_`` (0.1's CategoricalNB) is all categorical.
        """
        parents, stats, edges = (getattr(self, a, None) for a in _FILE_ATTRS)
        if parents is None and stats is None and edges is None:
            return
        post = self.posterior_
        d = sum(len(b.names) for b in post.blocks)
        if edges is None and all(b.family.value_columns(b.state) is not None for b in post.blocks):
            edges = (np.empty(0),) * d
        got = (parents, stats, edges)
        if (any(g is None or len(g) != d for g in got)
                or any(not 0 <= p < d or p == j for j, pa in enumerate(parents) for p in pa)):
            raise ValueError(f"structure_parents_, structure_stats_ and structure_bin_edges_ must describe {d} "
                             f"features (parents among the other features); received {parents!r}.")
        topological_order(parents)  # refuses a cycle
        K = len(self.classes_)
        nodes = on_call.engine.make_nodes(post.blocks, None, None, edges=[np.asarray(e, dtype=float) for e in edges])
        hierarchical = getattr(self, "structure_hierarchical_", False)
        if not isinstance(hierarchical, (bool, np.bool_)):
            raise ValueError(f"structure_hierarchical_ must be True or False; received {hierarchical!r}.")
        if hierarchical:  # the k-DB default (alpha unset): the nodes' hierarchical smoothing
            nodes = on_call.select.hierarchical_nodes(nodes)
        nodes = self._bounded_nodes(nodes)  # a private model's declared support
        for j, nd in enumerate(nodes):
            e = nd.edges
            if (e.ndim != 1 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0)
                    or e.size > (on_call.engine.N_BINS - 1 if nd.numeric else 0)):
                raise ValueError(f"structure_bin_edges_[{j}] must be increasing finite edges (at most "
                                 f"{on_call.engine.N_BINS - 1}, none for a categorical feature); received {e!r}.")
        # values (finite, counts non-negative, optional fields None) were checked by the loader's
        # field rules (bayesnb.io.loadcheck); the contexts, which depend on the structure, are checked here
        on_call.engine.check_node_stats(nodes, parents, stats, K, "structure_stats_")
        self._mixed = on_call.engine.model_from_stats(nodes, stats, K, parents, self._check_predictive(), self._who,
                                                      noise_var=self._noise_variances())
        if getattr(self, "structure_priors_", None) is not None:  # the priors EM held fixed
            self._mixed = on_call.structured_em.with_priors(self._mixed, self.structure_priors_, self._who)
        self.structure_ = self._named([(nd.block, nd.col) for nd in nodes], parents)

    def _node_names(self, nodes):
        """The feature name of every node."""
        return [str(self.posterior_.blocks[nd.block].names[nd.col]) for nd in nodes]

    def _named(self, cells, parents):
        """``structure_``: feature name -> parent names, in the order of the columns of X (``cells``: the
        ``(block, column in block)`` of each node)."""
        post = self.posterior_
        names = [str(nm) for b in post.blocks for nm in b.names]
        pos = [int(post.blocks[b].columns[c]) for b, c in cells]
        return {names[j]: tuple(names[p] for p in parents[j]) for j in np.argsort(pos, kind="stable")}

    def _set_attributes(self):
        """The base attributes, and the naive structure's (a naive fit or a loaded model keeps them)."""
        super()._set_attributes()
        self.structure_kind_ = "naive"
        self.structure_hierarchical_ = False
        cells = [(b, c) for b, blk in enumerate(self.posterior_.blocks) for c in range(len(blk.names))]
        self.structure_ = self._named(cells, [()] * len(cells))  # no engine: a naive fit never needs it

    def _structure_joint(self, X, model=None):
        """``log p(x | y=k)`` under the fitted structure (or ``model``, one of :meth:`_structure_latent`'s,
        over its states), shape (n_samples, n_classes)."""
        model = self._mixed if model is None else model
        encoded = self._encoded(X)
        return on_call.infer.log_likelihood(model, on_call.engine.node_data(model.nodes, encoded), self._who)

    def _structure_sample(self, z, rng, parameter_uncertainty, model=None):
        """Rows drawn in ancestral order in the contexts of ``z`` (classes, or ``model``'s latent states)."""
        model = self._mixed if model is None else model
        return self._node_table(on_call.engine.sample_nodes(model, z, rng, parameter_uncertainty), len(z))

    def _node_columns(self, values):
        """Per column of ``X``, its values from every node's (categorical codes decoded)."""
        out = [None] * self.n_features_in_
        for b, blk in enumerate(self.posterior_.blocks):
            js = [j for j, nd in enumerate(self._mixed.nodes) if nd.block == b]
            codes = [j for j in js if not self._mixed.nodes[j].numeric]  # numeric nodes' values are raw already
            cols = blk.family.gen_decode(np.column_stack([values[j] for j in codes]), blk.state) if codes else []
            for j in js:
                out[int(blk.columns[self._mixed.nodes[j].col])] = cols[codes.index(j)] if j in codes else values[j]
        return out

    def _node_table(self, values, n, decoded=False):
        """The rows of every node's ``values`` (or, ``decoded``, of the columns of ``X``) as a table."""
        out = values if decoded else self._node_columns(values)
        # the training dtypes where the values fit (whole-number columns stay integers)
        return assemble_table(self.posterior_, out, n, getattr(self, "feature_names_in_", None),
                              getattr(self, "feature_dtypes_", None))

    def _structure_imputer(self, encoded, strategy, rng, model=None):
        """A function ``fill(logw, r)`` -> the imputed cells (``write_cells``' list) of the encoded rows, given
        their (n, K) class log weights and a generator ``r`` for one posterior draw of the parameters (None:
        the posterior itself), exact on the structure (:mod:`bayesnb.structure.exact_impute`); ``model``
        another model of the same nodes (a latent-class one over states, the weights then over them)."""
        post = self.posterior_
        base = self._mixed if model is None else model
        data = on_call.engine.node_data(base.nodes, encoded)

        def fill(logw, r):
            model = base if r is None else on_call.exact_impute.drawn_model(base, r)
            values = on_call.exact_impute.impute_nodes(model, data, logw, strategy, rng, self._who)
            cells = []
            for b, blk in enumerate(post.blocks):
                miss = blk.family.gen_missing(encoded[b])
                if not np.any(miss):
                    continue
                js = [j for j, nd in enumerate(self._mixed.nodes) if nd.block == b]
                miss = miss & np.array([self._mixed.nodes[j].n_states > 0 for j in js])  # never observed: left missing
                filled = np.column_stack([values[j] for j in js])
                cells.append(block_cells(blk, filled.astype(np.int64) if blk.family.raw_values else filled, miss))
            return cells
        return fill

    def _structure_draws(self, n_draws, rng):
        """Exact draws of every feature's family parameters per context (:mod:`bayesnb.structure.structure_draws`)."""
        dims, coords, shapes, variables = self._mixed_layout()
        draws = on_call.structure_draws.mixed_draws(self._mixed, self.posterior_.class_concentration, dims, shapes,
                                                    n_draws, rng, variables)
        return draws, dims, coords

    def _exact_moments(self):
        """Closed-form posterior mean and sd of every variable of :meth:`sample_posterior`
        (``{variable: (mean, sd)}``, for :func:`bayesnb.compare_posteriors`)."""
        dims, _, shapes, variables = self._mixed_layout()
        return on_call.structure_draws.mixed_moments(self._mixed, self.posterior_.class_concentration, dims, shapes,
                                                     variables)

    def _mixed_layout(self):
        """``(dims, coords, shapes, variables)`` of the draws of the fitted structure."""
        post, model = self.posterior_, self._mixed
        names, cats = [], []
        for nd in model.nodes:
            blk = post.blocks[nd.block]
            names.append(str(blk.names[nd.col]))
            labels = None if nd.numeric else blk.family.value_labels(blk.state)
            cats.append(None if labels is None else labels[nd.col])
        dims, coords, shapes = on_call.structure_draws.mixed_layout(model, post.classes, names, cats,
                                                                    post.fixed_class_prior)
        return dims, coords, shapes, on_call.structure_draws.node_variables(model, names)

    def _numpyro_inputs(self, X, codes, C, likelihood):
        """Under a structure, the one model over every feature's contexts (class[, component],
        parents' states): :func:`~bayesnb.inference.numpyro_model.structure_inputs`."""
        if self._structure_fitted() is None:
            return super()._numpyro_inputs(X, codes, C, likelihood)
        post, model = self.posterior_, self._mixed
        data = on_call.engine.node_data(model.nodes, self._encode_blocks(X, post)[0])
        return on_call.numpyro_model.structure_inputs(post, model, data, codes, likelihood, C)

    def _point_sites(self, spec, priors, fit=None):
        """Under a structure, the plug-in of every node (of ``fit``'s structure over its states)."""
        if self._structure_fitted() is None:
            return super()._point_sites(spec, priors, fit)
        post, model = (self.posterior_, self._mixed) if fit is None else (fit.posterior, self._structure_latent(fit)[0])
        return on_call.numpyro_model.point_sites(post, spec, priors, [(nd.family, pr, po) for nd, pr, po in
                                                 zip(model.nodes, model.priors, model.posteriors)])

    def _mcmc_tree(self, spec, samples, sample_stats, attrs):
        """Under a structure, the NUTS draws in :meth:`sample_posterior`'s layout (with ``n_components
        > 1``, a dim ``component`` after ``class`` and ``w`` (class, component))."""
        if self._structure_fitted() is None:
            return super()._mcmc_tree(spec, samples, sample_stats, attrs)
        dims, coords, shapes, variables = self._draw_layout(spec.n_components)
        return on_call.diagnostics.datatree_from_layout(on_call.nuts.mcmc_draws(spec, samples, variables, shapes), dims,
                                                        coords, sample_stats=sample_stats,
                                                        attrs={**attrs, "structure": self.structure_kind_})

    def _draw_layout(self, C):
        """``(dims, coords, shapes, variables)`` of ``run_mcmc``'s draws under the structure with ``C``
        components (``C > 1``: a dim ``component`` after ``class`` and ``w`` (class, component))."""
        dims, coords, shapes, variables = self._mixed_layout()
        if C > 1:
            dims = {v: d if v == "pi" else d[:1] + ["component"] + d[1:] for v, d in dims.items()}
            shapes = {v: s if v == "pi" else s[:1] + (C,) + tuple(s[1:]) for v, s in shapes.items()}
            dims["w"], shapes["w"], coords["component"] = ["class", "component"], (len(self.classes_), C), np.arange(C)
        return dims, coords, shapes, variables

    def _structure_latent_draws(self, idata, n_draws, random_state):
        """One plug-in latent-class model of the structure per draw of ``run_mcmc`` (``LatentClassFit``
        with ``point=True``, its ``structure`` the model over the states at that draw)."""
        values, pick, C = on_call.latent.read_draws(idata, lambda c: self._draw_layout(c)[:2], n_draws, random_state,
                                                    self._who)
        group, variables = np.repeat(np.arange(len(self.classes_)), C), self._draw_layout(C)[3]
        return em.latent_class_from_draws(self.posterior_, values, None, C, pick,
                                          structure=lambda d: on_call.structured_em.draw_model(self._mixed, group, d,
                                                                                               variables))

    def fit_semi_supervised(self, X, y, *, unlabeled="auto", sample_weight=None, unlabeled_weight=None, tol=1e-6,
                            max_iter=100, public_unlabeled=False):
        """Fit with some labels missing; under a structure, EM over the structure's nodes.

        Under a structure other than naive the structure (parents, bins) and the priors are
        learned on the labelled rows (``structure="auto"`` chooses on them), then EM
        (:mod:`bayesnb.structure.structured_em`) alternates the class responsibilities of the unlabelled
        rows under the structured model (missing cells summed out exactly) with every
        feature's statistics over its contexts (class, parents' states), each row counted in
        its context under every class with its responsibility; the M-step is the posterior
        mean (the MAP of ``em_objective_``'s log posterior). With every label present this is
        exactly :meth:`fit`. Under naive, as :meth:`GenerativeMixin.fit_semi_supervised`.

        Parameters
        ----------
        X, y, unlabeled, sample_weight, unlabeled_weight, tol, max_iter, public_unlabeled
            As in :meth:`GenerativeMixin.fit_semi_supervised` (under ``privacy=``, with
            ``structure="naive"`` only).

        Returns
        -------
        self
            With ``em_objective_``, ``n_iter_``, ``converged_`` and ``transduction_``.
        """
        self._mixed = None
        self.__dict__.pop("_em_structure", None)
        super().fit_semi_supervised(X, y, unlabeled=unlabeled, sample_weight=sample_weight,
                                    unlabeled_weight=unlabeled_weight, tol=tol, max_iter=max_iter,
                                    public_unlabeled=public_unlabeled)
        learned = self.__dict__.pop("_em_structure", None)
        if learned is not None:  # storing the EM posterior set the naive structure's attributes back
            self.__dict__.update(learned)
        return self

    def _check_private_em(self):
        """Under ``privacy=``, semi-supervised EM runs on the naive release only."""
        if self.structure != "naive":
            raise NotImplementedError(
                f"{self._who}.fit_semi_supervised with privacy= runs EM on the naive release; structure="
                f"{self.structure!r} is not supported there: pass structure='naive', or fit on the labelled rows.")

    def _semi_supervised_em(self, X, encoded, codes, rw, labelled_weight, tol, max_iter):
        """The structure learned on the labelled rows, then EM on it (:mod:`bayesnb.structure.structured_em`)."""
        if self.structure != "naive":
            self._fit_structure(X, np.maximum(codes, 0), labelled_weight)
        if self._mixed is None:  # naive, or "auto" chose it
            return super()._semi_supervised_em(X, encoded, codes, rw, labelled_weight, tol, max_iter)
        self._em_structure = {a: getattr(self, a) for a in ("structure_kind_", "structure_", "structure_hierarchical_")}
        params = self._check_class_params(len(self.classes_))
        model, _, resp, hist, conv, trans = on_call.structured_em.fit_semi_supervised(
            self._mixed, self.posterior_, on_call.engine.node_data(self._mixed.nodes, encoded), codes, rw, params,
            tol=tol, max_iter=max_iter, who=self._who)
        post = self.posterior_ if resp is None else em.m_step(em.block_meta(self.posterior_), encoded, resp, params,
                                                              self.classes_)
        self._mixed = model
        self.structure_stats_ = model.stats
        self.structure_priors_ = model.priors  # resolved on the labelled rows, not from the EM's statistics
        return em.SemiSupervisedFit(post, hist, conv, trans)

    def _latent_em(self, encoded, class_part, y_codes, n_components, **opts):
        """Under a structure, :func:`bayesnb.structure.structured_em.fit_latent_class`: (class, component) states,
        every feature's contexts (state, parents' states) with its class's prior; the fit's
        ``structure`` is that model, its ``posterior`` the naive blocks at the same responsibilities."""
        if self._structure_fitted() is None:  # naive (or a model loaded before any structure was fitted)
            return super()._latent_em(encoded, class_part, y_codes, n_components, **opts)
        if opts.pop("component_prior", "class") != "class":
            raise ValueError(f"{self._who}: component_prior='hierarchical' needs structure='naive'; under a "
                             "structure each component keeps its class's prior (component_prior='class').")
        model, _, resp, hist, group = on_call.structured_em.fit_latent_class(
            self._mixed, on_call.engine.node_data(self._mixed.nodes, encoded), class_part, y_codes, n_components,
            who=self._who, **opts)
        S = len(group)
        post = em.m_step(em.block_meta(self.posterior_, group), encoded, resp, (np.ones(S), True, None),
                         np.arange(S))
        return em.LatentClassFit(post, group, int(n_components), hist, None, structure=model)

    def _latent_log_px(self, fit, encoded, y_codes):
        """Under a structure, ``log p(x)`` per row by the exact engine over the fit's states."""
        if fit.structure is None:
            return super()._latent_log_px(fit, encoded, y_codes)
        data = on_call.engine.node_data(fit.structure.nodes, encoded)
        jll = on_call.infer.log_likelihood(fit.structure, data, self._who)
        allowed = em.allowed_states(fit.group, y_codes)
        return _post.log_marginal(np.where(allowed, jll + fit.posterior.class_log_prior, -np.inf))

    def _structure_latent(self, latent):
        """``(model over the states, the states' posterior, class of each state)`` of a latent-class
        model of this structure (:meth:`fit_latent_class`, :func:`~bayesnb.generative.latent.latent_class_draws`); a ValueError
        for anything else."""
        model = getattr(latent, "structure", None)
        if (not isinstance(latent, em.LatentClassFit) or model is None
                or model.parents != self._mixed.parents or len(model.nodes) != len(self._mixed.nodes)
                or any(a.n_states != b.n_states or type(a.family) is not type(b.family)
                       for a, b in zip(model.nodes, self._mixed.nodes))
                or np.max(latent.group, initial=-1) >= len(self.classes_)):
            raise ValueError(f"{self._who}: latent must be a LatentClassFit from this estimator's fit_latent_class "
                             f"or latent_class_draws (structure {self.structure_kind_!r}); received "
                             f"{type(latent).__name__}"
                             f"{'' if model is not None else ' without a structure'}.")
        return model, latent.posterior, np.asarray(latent.group)
