"""The cross-validation guard of ``structure="auto"`` from per-fold statistics (:func:`fold_losses`).

Every statistic the guard needs is a sum over rows, so it is counted once per fold and the
statistics of a fold's training rows are the other folds' merged (each family's ``merge``):

- the pairwise count tables of the edge scores (:func:`bayesnb.structure.learn.pair_counts`)
  of every fold, from which the candidate's structure is *re-learned* on each fold's training
  rows, as the guard requires (it measures the procedure that chose the structure);
- every node's family statistics over (fold, class, parents' states) contexts, one pass over
  the rows per distinct parent set a node has in naive and in the folds' structures
  (:func:`bayesnb.structure.engine.node_stats` with fold-and-class codes);
- the class counts of every fold.

Each fold's models are then assembled from its training statistics
(:func:`bayesnb.structure.engine.model_from_stats`) and score its held-out rows exactly
(:func:`bayesnb.structure.infer.log_likelihood`); naive is the structure without parents.
What the fit resolved from all training rows is kept in every fold: the columns' families
(``features="auto"``), the encodings (categories, a numeric node's bin edges) and the
numeric nodes' priors. The cost is about one pass over the rows per parent set plus one
scoring of every row per model, instead of two full fits per fold.
"""

from __future__ import annotations

import numpy as np

from ..inference import nb_posterior as _post
from . import infer as _si
from . import engine as _mx
from .learn import PairCounts, edge_scores_from_counts, learn_parents, pair_counts

__all__ = ["SCORE_ROWS", "fold_losses", "whole_stats"]

#: Held-out rows scored at once (the exact scoring holds a few (rows, K, states) arrays).
SCORE_ROWS = 4096


def _sum_counts(parts):
    """Element-wise sum of :class:`PairCounts`."""
    return PairCounts(*(tuple(sum(ts) for ts in zip(*(getattr(p, f) for p in parts))) for f in PairCounts._fields))


def _fold_parents(kind, k, states, y, w, n_states, K, fold, F, edge_score="bdeu"):
    """Per fold, ``kind``'s parents learned from the pairwise counts of the other folds' rows."""
    counts = []
    for f in range(F):
        test = np.flatnonzero(fold == f)
        counts.append(pair_counts(states[test], y[test], n_states, K, w[test]))
    out = []
    for f in range(F):
        scores = edge_scores_from_counts(_sum_counts([c for g, c in enumerate(counts) if g != f]), n_states,
                                         edge_score=edge_score)
        out.append(learn_parents(states, y, n_states, K, kind, k, scores=scores))
    return out


def _fold_stats(nodes, data, y, w, K, fold, F, structures):
    """``{(j, parents of j): stats over (fold, class, parents' states)}`` for every parent set in ``structures``."""
    # the context axis of every node becomes (fold, class, parents' states); rows in no fold have weight 0
    yf = np.maximum(fold, 0).astype(np.int64) * K + y
    todo = {}
    for pa in structures:
        for j, p in enumerate(pa):
            todo.setdefault(j, [])
            if p not in todo[j]:
                todo[j].append(p)
    out = {}
    for r in range(max(len(v) for v in todo.values())):  # one pass over the rows per round of parent sets
        only = {j for j, v in todo.items() if r < len(v)}
        parents = tuple(todo[j][r] if j in only else () for j in range(len(nodes)))
        got = _mx.node_stats(nodes, data, yf, w, F * K, parents, only=only)
        out.update({(j, parents[j]): got[j] for j in only})
    return out


def _train_stats(nd, st, f, n_folds, C):
    """Node statistics over its ``C`` contexts of every fold but ``f`` (merged), from (fold, context) ones."""
    total = None
    for g in range(n_folds):
        if g != f:
            part = _mx.take_contexts(st, slice(g * C, (g + 1) * C))
            total = part if total is None else nd.family.merge(total, part)
    return total


def whole_stats(nodes, data, y, w, K, parents, kept=None) -> list:
    """Every node's statistics over its contexts on all rows (:func:`~bayesnb.structure.engine.node_stats`), the
    guard's per-fold ones merged over the folds where :func:`fold_losses` counted ``(j, parents[j])``
    (``kept``), the others counted here.

    The folds' rows are all the rows (a row in no fold has weight 0), so the merged statistics are
    the one-pass ones, added in another order.
    """
    got = [None] * len(nodes)
    if kept:
        F = kept["folds"]
        for j, (nd, pa) in enumerate(zip(nodes, parents)):
            st = kept["stats"].get((j, tuple(pa)))
            if st is not None:
                got[j] = _train_stats(nd, st, -1, F, K * _mx.n_parent_states(nodes, pa))
    todo = {j for j, st in enumerate(got) if st is None}
    if todo:
        fresh = _mx.node_stats(nodes, data, y, w, K, parents, only=todo)
        got = [fresh[j] if j in todo else st for j, st in enumerate(got)]
    return got


def fold_losses(nodes, data, y, w, K, fold, candidate, *, k, class_params, predictive, who, hier_nodes=None,
                kept=None, edge_score="bdeu"):
    """Out-of-fold ``-log p(y_i | x_i)`` of naive and of ``candidate`` (module docstring).

    Parameters
    ----------
    nodes : tuple of Node
        The fit's nodes (families, encodings and bin edges of all training rows).
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the training rows.
    y : ndarray of int of shape (n,)
        Class codes.
    w : ndarray of shape (n,)
        Row weights.
    K : int
    fold : ndarray of int of shape (n,)
        Each row's fold, ``0..F-1`` (its held-out fold; the others train on it), or ``-1`` for a row in
        no fold (its weight must be 0).
    candidate : Candidate
        Its ``kind`` is re-learned in every fold; ``hierarchical`` selects ``hier_nodes``.
    k : int
        Parents per feature of k-DB.
    class_params : tuple
        ``(class_alpha, fit_prior, class_prior)``, validated.
    predictive : str
    who : str
    hier_nodes : tuple of Node, optional
        The nodes with hierarchical smoothing (a hierarchical candidate).
    kept : dict, optional
        Receives the per-fold node statistics (``"stats"``, ``"folds"``) for :func:`whole_stats`.
    edge_score : str, default="bdeu"
        The edge score each fold's parents are learned from (:func:`~bayesnb.structure.edge_scores`).

    Returns
    -------
    dict
        ``{"naive": loss, "cand": loss}``, each of shape (n,) (0 outside the folds' test rows).
    """
    states, n_states, F = data[2], [nd.n_states for nd in nodes], int(fold.max()) + 1
    naive = tuple(() for _ in nodes)
    learned = _fold_parents(candidate.kind, k, states, y, w, n_states, K, fold, F, edge_score)
    stats = _fold_stats(nodes, data, y, w, K, fold, F, [naive, *learned])
    if kept is not None:
        kept.update(stats=stats, folds=F)
    cand_nodes = hier_nodes if candidate.hierarchical else nodes
    loss = {"naive": np.zeros(len(y)), "cand": np.zeros(len(y))}
    per_fold = np.bincount(np.maximum(fold, 0).astype(np.int64) * K + y, weights=np.where(fold >= 0, w, 0.0),
                           minlength=F * K)
    for f in range(F):
        test = np.flatnonzero(fold == f)
        counts = per_fold.reshape(F, K)[np.arange(F) != f].sum(axis=0)  # the class counts of the other folds
        log_prior = _post.class_posterior(counts, *class_params)[2]
        for key, pa, nds in (("naive", naive, nodes), ("cand", learned[f], cand_nodes)):
            C = [K * _mx.n_parent_states(nodes, p) for p in pa]
            fs = [_train_stats(nd, stats[j, p], f, F, C[j]) for j, (nd, p) in enumerate(zip(nodes, pa))]
            model = _mx.model_from_stats(nds, fs, K, pa, predictive, who)
            tables = _si.state_tables(model)
            for a in range(0, test.size, SCORE_ROWS):  # rows are independent: bound the scoring's memory
                r = test[a:a + SCORE_ROWS]
                jll = _si.log_likelihood(model, _mx.node_rows(data, r), who, tables=tables) + log_prior
                loss[key][r] = -_post.normalise(jll, log_prior, who)[np.arange(r.size), y[r]]
    return loss
