"""Which structures ``fit`` considers, and the cross-validation guard of ``structure="auto"``.

A *candidate* is a structure kind (``"naive"``, ``"tan"``, ``"kdb"``) and whether its
categorical nodes use hierarchical smoothing (:mod:`bayesnb.structure.hierarchical`) in place of
the flat ``alpha``. ``alpha=None`` means each structure's default (flat for naive and TAN,
hierarchical for k-DB), and ``"auto"`` then scores both smoothings of each, the hierarchical
naive candidate included so that the evidence compares like with like. Because the evidence
favours edges that happen to fit the training rows, the winner is checked against the user's
naive model by paired stratified K-fold cross-validation (:func:`cv_check`, ``auto_cv=False``
skips it): naive is kept when the winner's out-of-fold log loss is worse by more than one
standard error. See docs/structure.md, "The candidates, and the cross-validation check".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from . import cv as _cv
from . import engine as _mx
from ..io.dask_data import is_dask

__all__ = ["CV_FOLDS", "CV_SEED", "CVCheck", "Candidate", "candidates", "choose", "cv_check", "hierarchical_nodes",
           "scores_frame", "variant_label"]

#: Folds of the cross-validation guard of ``structure="auto"`` (fewer when a class has fewer rows).
CV_FOLDS = 5
#: Seed of its (shuffled, stratified) folds.
CV_SEED = 0


class Candidate(NamedTuple):
    """One structure that ``fit`` considers.

    Attributes
    ----------
    kind : str
        ``"naive"``, ``"tan"`` or ``"kdb"``.
    hierarchical : bool
        Whether its categorical nodes are switched to hierarchical smoothing (``alpha`` unset).
    label : str
        Its row label in ``structure_scores_``, e.g. ``"kdb (k=2, hierarchical)"``.
    """

    kind: str
    hierarchical: bool
    label: str


def variant_label(kind, k, hierarchical):
    """A structure variant's name in score tables: ``"tan"``, ``"kdb (k=2)"``, ``"tan (hierarchical)"``, ...

    Parameters
    ----------
    kind : {"naive", "tan", "kdb"}
    k : int
        k-DB's number of parents (shown for ``"kdb"`` only).
    hierarchical : bool
        Whether the variant uses hierarchical smoothing.

    Returns
    -------
    str
    """
    notes = ([f"k={k}"] if kind == "kdb" else []) + (["hierarchical"] if hierarchical else [])
    return kind + (f" ({', '.join(notes)})" if notes else "")


def candidates(structure, k, alpha_unset) -> list:
    """The candidates of ``structure`` (module docstring), in the order ties are broken (first wins).

    Parameters
    ----------
    structure : {"naive", "tan", "kdb", "auto"}
    k : int
        Parents per feature of k-DB.
    alpha_unset : bool
        Whether the estimator's ``alpha`` is None (each structure's default smoothing).

    Returns
    -------
    list of Candidate
    """
    if structure != "auto":
        hier = alpha_unset and structure == "kdb"
        return [Candidate(structure, hier, variant_label(structure, k, hier))]
    return [Candidate(kind, hier, variant_label(kind, k, hier)) for kind in ("naive", "tan", "kdb")
            for hier in ((False, True) if alpha_unset else (False,))]


def hierarchical_nodes(nodes) -> tuple:
    """The nodes with each family's hierarchical variant (``Family.hierarchical_variant``) where it has one."""
    return tuple(nd if (fam := nd.family.hierarchical_variant()) is None else nd._replace(family=fam)
                 for nd in nodes)


class CVCheck(NamedTuple):
    """What :func:`cv_check` measured.

    Attributes
    ----------
    naive_log_loss, candidate_log_loss : float
        Out-of-fold mean log loss (weighted by the row weights) of naive and of the candidate.
    diff_se : float
        Standard error of the mean of the paired per-row differences (candidate - naive).
    n_splits : int
        Folds used.
    worse : bool
        ``candidate_log_loss - naive_log_loss > diff_se``: the candidate is refused.
    """

    naive_log_loss: float
    candidate_log_loss: float
    diff_se: float
    n_splits: int
    worse: bool


def _row_log_loss(model, X, y):
    """``-log p(y_i | x_i)`` of every row."""
    logp = model.predict_log_proba(X)
    col = np.searchsorted(model.classes_, np.asarray(y))
    return -logp[np.arange(len(col)), col]


def cv_check(est, X, y, sample_weight, candidate, fitted=None, kept=None):
    """Stratified K-fold log loss of ``candidate`` against naive on the training rows.

    In every fold both are refitted on the other folds (the candidate's structure *re-learned*
    in each fold, so that the guard measures the procedure that chose it, whose risk is exactly
    the learning of edges from few rows; the choice between the candidates is not re-made).
    With ``fitted`` (an in-memory fit) the folds' models come from per-fold statistics
    (:func:`bayesnb.structure.cv.fold_losses`: edges, node and class statistics of the other
    folds, with the families, encodings and bin edges of the whole fit); without it, they are
    clones of ``est`` fitted on the other folds' rows. The :data:`CV_FOLDS` folds are shuffled with :data:`CV_SEED`
    and stratified by class; their number is at most the smallest class's row count. On a Dask ``X`` (``y`` and
    ``sample_weight`` in memory) each fold's models are Dask fits with the held-out rows'
    weights set to 0, which see the rows of the in-memory fold fits (:func:`_dask_losses`).

    Parameters
    ----------
    est : StructureMixin
        The estimator being fitted (its parameters are cloned).
    X, y, sample_weight
        The training data as ``fit`` received it (validated already).
    candidate : Candidate
    fitted : tuple, optional
        ``(nodes, data)``: the fit's nodes and their :func:`~bayesnb.structure.engine.node_data` of
        the rows ``X`` (all of them, in order).
    kept : dict, optional
        With ``fitted``: receives the folds' node statistics (:func:`bayesnb.structure.cv.whole_stats`).

    Returns
    -------
    CVCheck or None
        None when some class has fewer than 2 rows (no fold would keep it in training).
    """
    from sklearn.model_selection import StratifiedKFold  # lazy: keeps `import bayesnb` light

    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    _, counts = np.unique(y[w > 0], return_counts=True)
    n_splits = int(min(CV_FOLDS, counts.min())) if counts.size else 0
    if n_splits < 2:
        return None
    alpha = ("hierarchical" if candidate.hierarchical
             else (1.0 if est.alpha is None and candidate.kind == "kdb" else est.alpha))
    models = {"naive": clone(est).set_params(structure="naive"),
              "cand": clone(est).set_params(structure=candidate.kind, alpha=alpha, auto_cv=False)}
    rows = np.flatnonzero(w > 0)
    split = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=CV_SEED).split(rows, y[rows])
    if fitted is not None and not is_dask(X):  # from per-fold statistics (bayesnb.structure.cv)
        fold = np.full(len(y), -1, dtype=np.int64 if n_splits > 127 else np.int8)
        for f, (_, test) in enumerate(split):  # each row's fold (no list of training rows held)
            fold[rows[test]] = f
        nodes, data = fitted
        K = len(est.classes_)
        loss = _cv.fold_losses(nodes, data, np.searchsorted(est.classes_, y), w, K, fold, candidate, k=est.k,
                               class_params=est._check_class_params(K), predictive=est._check_predictive(),
                               who=est._who, hier_nodes=hierarchical_nodes(nodes) if candidate.hierarchical else None,
                               kept=kept, edge_score=est._edge_score())
    else:
        folds = [(rows[train], rows[test]) for train, test in split]
        loss = (_dask_losses if is_dask(X) else _losses)(models, X, y, w, sample_weight is not None, folds)
    wt = w[rows]
    diff = loss["cand"][rows] - loss["naive"][rows]
    mean = float(np.average(diff, weights=wt))
    n_eff = wt.sum() ** 2 / np.sum(wt**2)
    var = float(np.average((diff - mean) ** 2, weights=wt)) * n_eff / max(n_eff - 1, 1)
    se = float(np.sqrt(var / n_eff))
    return CVCheck(float(np.average(loss["naive"][rows], weights=wt)),
                   float(np.average(loss["cand"][rows], weights=wt)), se, n_splits, mean > se)


def _losses(models, X, y, w, weighted, folds):
    """Out-of-fold ``-log p(y_i | x_i)`` of every model, each refitted on the rows of the other folds."""
    loss = {key: np.zeros(len(y)) for key in models}
    for train, test in folds:
        Xtr, Xte = _safe_indexing(X, train), _safe_indexing(X, test)
        for key, model in models.items():
            m = clone(model).fit(Xtr, y[train], w[train] if weighted else None)
            loss[key][test] = _row_log_loss(m, Xte, y[test])
    return loss


def _dask_losses(models, X, y, w, weighted, folds):
    """:func:`_losses` on a Dask ``X``: each fold's model is the Dask fit with the held-out rows'
    weights set to 0 (a Dask fit drops them, as the in-memory fit on the other rows never sees them)."""
    loss = {key: np.zeros(len(y)) for key in models}
    for train, test in folds:
        wf = np.zeros(len(y))
        wf[train] = w[train]
        for key, model in models.items():
            m = clone(model).fit(X, y, wf)
            col = np.searchsorted(m.classes_, y)
            logp = np.asarray(m.predict_log_proba(X).compute())
            loss[key][test] = -logp[test, col[test]]
    return loss


def choose(est, nodes, parents, cands, scored, n_cells, all_stats, cv, label):
    """The candidate ``fit`` keeps, ``structure_scores_`` and the chosen structure's model.

    Written once for the in-memory and the Dask fit, from node statistics.

    Parameters
    ----------
    est : StructureMixin
        The estimator (its ``_who``, ``predictive`` and classes).
    nodes : tuple of Node
    parents : dict
        Structure kind -> parent lists.
    cands : list of Candidate
    scored : dict or None
        With ``structure="auto"``: kind -> every node's statistics on the scoring cells
        (:func:`bayesnb.structure.scoring_rows`); None otherwise (the one candidate is kept).
    n_cells : int
        How many cells were scored.
    all_stats : callable
        ``all_stats(kind)``: every node's statistics on all rows (the model's fit); it may return
        ``scored[kind]`` when no cell is missing.
    cv : callable or None
        ``cv(candidate)``: :func:`cv_check` of the evidence's best, or None to skip it.
    label : float
        The label evidence ``log p(y)``.

    Returns
    -------
    chosen : Candidate
    frame : DataFrame or None
    model : MixedModel or None
        None for the naive structure with the estimator's own smoothing (the naive posterior);
        the hierarchical naive candidate's is the structure engine's, with empty parent sets.
    """
    K, who, predictive = len(est.classes_), est._who, est._check_predictive()
    hier = hierarchical_nodes(nodes) if any(c.hierarchical for c in cands) else None

    def model(c, stats):
        return _mx.model_from_stats(hier if c.hierarchical else nodes, stats, K, parents[c.kind], predictive, who)

    chosen, frame, models = cands[0], None, {}
    if scored is not None:
        ev = {}
        for c in cands:
            models[c] = model(c, scored[c.kind])
            ev[c] = label + models[c].log_evidence
        best = chosen = max(ev, key=ev.get)  # first on ties: naive, then flat before hierarchical
        check = cv(best) if cv is not None and best != cands[0] else None  # against the user's naive
        if check is not None and check.worse:
            chosen = cands[0]
        frame = scores_frame(ev, n_cells, chosen, best, check)
    if chosen.kind == "naive" and not chosen.hierarchical:  # the naive posterior is the model
        return chosen, frame, None
    stats = all_stats(chosen.kind)
    if chosen in models and stats is scored[chosen.kind]:
        return chosen, frame, models[chosen]
    return chosen, frame, model(chosen, stats)


def scores_frame(evidence, n_cells, chosen, best, check):
    """``structure_scores_``: one row per candidate, in candidate order.

    Columns: ``structure`` (the label), ``log_evidence``, ``n_cells`` (the cells scored,
    :func:`bayesnb.structure.scoring_rows`), ``cv_log_loss`` (out-of-fold mean log loss of
    naive and of the evidence's best, NaN for the others and when no check ran),
    ``cv_diff_se`` (on the best's row: the standard error of its paired differences with
    naive) and ``chosen`` (after the check: naive when the best cross-validated worse).
    """
    labels = [c.label for c in evidence]
    cv, se = dict.fromkeys(evidence, np.nan), dict.fromkeys(evidence, np.nan)
    if check is not None:
        naive = next(c for c in evidence if c.kind == "naive")
        cv[naive], cv[best], se[best] = check.naive_log_loss, check.candidate_log_loss, check.diff_se
    return pd.DataFrame({"structure": labels, "log_evidence": list(evidence.values()),
                         "n_cells": [int(n_cells)] * len(labels), "cv_log_loss": list(cv.values()),
                         "cv_diff_se": list(se.values()), "chosen": [c == chosen for c in evidence]})
