"""``structure=`` on Dask collections: the structure learned from partition statistics.

After the naive fit (:mod:`bayesnb.estimators._dask_fit`, which fixes the classes, every
column's categories and, with ``NaiveBayes(features="auto")``, every numeric column's family),
two more passes over the partitions, each tree-reduced (three with a numeric feature):

0. **Bins** (numeric features): per partition each numeric column's distinct values and their
   summed weights; the summed table gives the column's quantile bins, the edges the in-memory
   fit takes from the rows (:func:`bayesnb.structure.engine.bin_edges_from_table`).

1. **Pairwise statistics**: per partition the count tables of every pair of features and the
   class (:func:`bayesnb.structure.pair_counts`); they add, and the summed tables give the
   edge weights of the whole table (:func:`bayesnb.structure.edge_scores_from_counts`), from
   which every candidate's parents are learned on the driver.
2. **Context statistics**: per partition and candidate structure, every node's family
   statistics over its contexts (:func:`bayesnb.structure.engine.node_stats`), on all rows
   and, for ``structure="auto"``, on the scoring cells (:func:`bayesnb.structure.scoring_rows`
   is row by row); they add (``Family.merge``).

The choice and the fitted model then come from the summed statistics through the code the
in-memory fit runs (:func:`bayesnb.structure.select.choose`), so parents, evidence and
predictions are those of the in-memory fit up to the order of floating-point additions.
The cross-validation check of ``structure="auto"`` (``auto_cv=True``) computes the labels
(and weights) in memory for its folds and fits each fold's models on the Dask collection with
the held-out rows' weights set to 0 (:func:`bayesnb.structure.select.cv_check`): the rows,
categories, families, bins and statistics of the in-memory fold fits (the folds are drawn from
the labels in memory, so they are the in-memory folds).
"""

from __future__ import annotations

import numpy as np

from ..io import dask_data as _dask
from ..inference import nb_posterior as _post
from ..structure import (
    edge_scores_from_counts,
    learn_parents,
    pair_counts,
    scoring_rows,
    warn_few_rows,
    without_edges,
)
from . import _on_call as on_call
from . import validation as _val
from ._dask_fit import _light, _rows
from .auto_features import merge_tables

__all__ = ["fit_structure"]


def _in_memory(v):
    """A Dask vector computed (labels and weights of the cross-validation check); others unchanged."""
    return None if v is None else np.asarray(v.compute() if _dask.is_dask(v) else v)


def _nodes(est, parts, light):
    """The structure's nodes; a numeric node's bin edges from its column's table of distinct values and
    summed weights over the partitions (:func:`bayesnb.structure.engine.bin_edges_from_table`)."""
    import dask

    post = est.posterior_
    d = sum(len(b.names) for b in post.blocks)
    nodes = on_call.engine.make_nodes(post.blocks, None, None, edges=[np.empty(0)] * d)
    numeric = [j for j, nd in enumerate(nodes) if nd.numeric]
    if not numeric:
        return nodes
    post_d, nodes_d, light_d = dask.delayed(post), dask.delayed(nodes), dask.delayed(light)
    tables = _dask.tree_reduce([dask.delayed(_value_weights, pure=True)(light_d, post_d, nodes_d, numeric, *p)
                                for p in parts], _merge_value_weights).compute()
    edges = [np.empty(0)] * d
    for j, (values, weights) in zip(numeric, tables):
        edges[j] = on_call.engine.bin_edges_from_table(values, weights)
    return on_call.engine.make_nodes(post.blocks, None, None, edges=edges)


def _value_weights(light, post, nodes, numeric, X, y, w):
    """Per numeric node, its column's distinct finite values in a partition and their summed weights."""
    X, y, w = _rows(light, X, y, w) if X.shape[0] else (X, y, np.zeros(0))
    encoded = light._encode_blocks(X, post)[0] if X.shape[0] else None
    out = []
    for j in numeric:
        if encoded is None:
            out.append((np.empty(0), np.empty(0)))
            continue
        x = np.asarray(nodes[j].family.gen_values(encoded[nodes[j].block]), dtype=float)[:, nodes[j].col]
        keep = np.isfinite(x)
        values, inverse = np.unique(x[keep], return_inverse=True)
        out.append((values, np.bincount(inverse, weights=w[keep], minlength=values.size)))
    return out


def _merge_value_weights(a, b):
    return [merge_tables(x, z) for x, z in zip(a, b)]


def _partition(light, post, nodes, X, y, w):
    """A partition's ``(data, class codes, weights)`` as the in-memory fit sees its rows (None if empty)."""
    X, y, w = _rows(light, X, y, w) if X.shape[0] else (X, y, w)
    if X.shape[0] == 0:
        return None
    encoded = light._encode_blocks(X, post)[0]
    return on_call.engine.node_data(nodes, encoded), np.searchsorted(post.classes, y), w


def _pairs(light, post, nodes, X, y, w):
    """Pass 1 of a partition: its :class:`~bayesnb.structure.PairCounts` (None when it has no rows)."""
    part = _partition(light, post, nodes, X, y, w)
    if part is None:
        return None
    data, yc, w = part
    return pair_counts(data[2], yc, [nd.n_states for nd in nodes], len(post.classes), w)


def _add_pairs(a, b):
    if a is None or b is None:
        return b if a is None else a
    return type(a)(*(tuple(x + z for x, z in zip(fa, fb)) for fa, fb in zip(a, b)))


def _contexts(light, post, nodes, parents, auto, X, y, w):
    """Pass 2 of a partition: ``(all, scored, observed, n_scored)``: per kind every node's statistics on
    all rows and (``auto``) on the scoring cells, and per feature its observed and scored rows."""
    K, d = len(post.classes), len(nodes)
    part = _partition(light, post, nodes, X, y, w)
    if part is None:
        empty = {kind: [nd.family.empty_stats(nd.state, K * on_call.engine.n_parent_states(nodes, pa)) for nd, pa in zip(nodes, p)]
                 for kind, p in parents.items()}
        return empty, (dict(empty) if auto else None), np.zeros(d), np.zeros(d)
    data, yc, w = part
    full = {kind: on_call.engine.node_stats(nodes, data, yc, w, K, pa) for kind, pa in parents.items()}
    if not auto:
        return full, None, np.zeros(d), np.zeros(d)
    rows = scoring_rows(data[1], list(parents.values()), w, min_rows=0)
    scored = {kind: on_call.engine.node_stats(nodes, data, yc, w, K, pa, rows) for kind, pa in parents.items()}
    return full, scored, ((w > 0)[:, None] & ~data[1]).sum(axis=0), rows.sum(axis=0)


def _merge_contexts(nodes):
    def add(stats_a, stats_b):
        if stats_a is None:
            return None
        return {kind: [nd.family.merge(x, z) for nd, x, z in zip(nodes, stats_a[kind], stats_b[kind])]
                for kind in stats_a}

    def merge(a, b):
        return add(a[0], b[0]), add(a[1], b[1]), a[2] + b[2], a[3] + b[3]

    return merge


def fit_structure(est, X, y, sample_weight):
    """Learn and fit ``est.structure`` on a Dask ``X`` after its naive Dask fit (module docstring).

    Returns
    -------
    chosen, frame, model, nodes, parents
        What :meth:`StructureMixin._store_structure` stores.
    """
    import dask

    post, who = est.posterior_, est._who
    parts = _dask.row_partitions(X, y, sample_weight, who=who)
    light = _light(est)
    nodes = _nodes(est, parts, light)
    K, d = len(post.classes), len(nodes)
    post_d, nodes_d, light_d = dask.delayed(post), dask.delayed(nodes), dask.delayed(light)
    n_states = [nd.n_states for nd in nodes]
    cands = on_call.select.candidates(est.structure, est.k, est.alpha is None)
    scores = None
    if d > 1:
        pairs = _dask.tree_reduce([dask.delayed(_pairs, pure=True)(light_d, post_d, nodes_d, *p) for p in parts],
                                  _add_pairs).compute()
        if pairs is None:  # no row of positive weight (the naive fit refuses this first)
            pairs = pair_counts(np.zeros((0, d), np.int64), np.zeros(0, np.int64), n_states, K)
        scores = without_edges(edge_scores_from_counts(pairs, n_states, edge_score=est._edge_score()),
                               est._forbidden_pairs(nodes))
    none = np.zeros((0, d), np.int64)
    parents = {c.kind: learn_parents(none, none[:, 0], n_states, K, c.kind, est.k, scores=scores) for c in cands}
    auto = est.structure == "auto"
    task = dask.delayed(_contexts, pure=True)
    full, scored, observed, n_scored = _dask.tree_reduce(
        [task(light_d, post_d, nodes_d, parents, auto, *p) for p in parts], _merge_contexts(nodes)).compute()
    if auto:
        warn_few_rows(observed, n_scored, est._node_names(nodes), who)
    def cv(best):  # the folds' fits are Dask fits with the held-out rows' weights 0 (structure.select)
        labels = _in_memory(y)  # (aligned with X's rows: the Dask fit checked it)
        return on_call.select.cv_check(est, X, _val.check_y(labels, len(labels), who), _in_memory(sample_weight), best)

    chosen, frame, model = on_call.select.choose(est, nodes, parents, cands, scored, int(np.sum(n_scored)),
                                                 full.__getitem__, cv if est.auto_cv else None,
                                                 _post.label_log_evidence(post) or 0.0)
    return chosen, frame, model, nodes, parents
