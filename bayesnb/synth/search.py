"""Step 2 of :class:`~bayesnb.Synthesizer`'s choice: the latent-class search, stopped early when it cannot win.

The component count is searched as ``fit_latent_class(n_components="auto")`` does, and widening
(each wider count a larger EM) is what costs. :func:`latent_search` adds a check on the question
the search serves, "can the latent-class model beat the structure on held-out rows?": the
structure is fitted on the same search rows with the same cells hidden, and before each widening
step the search stops when the latent model is *clearly behind* (paired per-row ``gap < -z * se``,
``z`` = :data:`Z_BEHIND`) and its last step's gain, repeated for every step left, would not close
the gap (a count's gain is assumed not to grow with the count: the new components explain ever
rarer patterns). A count clearly behind at the search size is not refitted. Every count tried is
a row of the trace (``Synthesizer.latent_search_``), and ``stop`` says why the search ended. See
docs/synthetic.md, "Fit time: the latent-class search and its early stop".
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._utils import SearchEdgeWarning
from ..generative.tables import label_codes, mask_cells, missing_cells
from ..inference import em
from ..structure.select import variant_label

__all__ = ["EDGE_SCORES", "Z_BEHIND", "add_rows", "choose_edges", "edge_name", "holdout_rows", "latent_search",
           "variant", "widen_k"]

_WHO = "Synthesizer"

#: standard errors of the paired per-row differences by which the latent model must trail the structure
Z_BEHIND = 3.0
#: the edge scores a TAN / k-DB structure is learned with and compared by (the first is step 1's)
EDGE_SCORES = ("bdeu", "hierarchical")


def holdout_rows(model, X, codes, latent=None):
    """``log p(x_i, y_i)`` of each row of ``X`` with class codes ``codes`` (missing cells marginalised).

    Parameters
    ----------
    model : NaiveBayes
        A fitted estimator (under a latent-class model, the naive one it was fitted from).
    X : DataFrame of shape (n, d)
    codes : ndarray of int, shape (n,)
        Class index of each row in ``model.classes_``.
    latent : LatentClassFit, optional
        Score under this latent-class model of ``model`` (the row's class's states summed).

    Returns
    -------
    ndarray of shape (n,)
    """
    if latent is None:
        return model.predict_joint_log_proba(X)[np.arange(len(codes)), codes]
    out = np.empty(len(codes))
    prior = latent.posterior.class_log_prior
    for k in np.unique(codes):  # log sum over class k's states of w_s p(x | s): p(x, y=k)
        rows = np.flatnonzero(codes == k)
        only = latent._replace(posterior=latent.posterior._replace(
            class_log_prior=np.where(latent.group == k, prior, -np.inf)))
        out[rows] = model.score_samples(X.iloc[rows], latent=only)
    return out


def _paired(a, b):
    """Mean and standard error of the paired differences ``a - b``."""
    d = np.asarray(a) - np.asarray(b)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else np.inf


def add_rows(rows, index, scores, notes):
    """Held-out scores and notes into ``Synthesizer.selection_``'s rows (in place).

    Parameters
    ----------
    rows : list of dict
        The selection rows; a row is added for a candidate first scored in step 2 (the latent
        model, a widened k-DB, naive as the reference of an explicit structure).
    index : dict
        ``{candidate: position in rows}``, updated.
    scores : dict
        ``{candidate: mean held-out log p(x, y)}`` (NaN where not computed).
    notes : dict
        ``{candidate: note}``.
    """
    for cand, score in scores.items():
        if cand not in index:
            index[cand] = len(rows)
            rows.append({"candidate": cand, "log_evidence": np.nan, "cv_log_loss": np.nan, "chosen": False})
        rows[index[cand]]["holdout_loglik"] = score
        if cand in notes:
            rows[index[cand]]["note"] = notes[cand]


def edge_name(name, edge):
    """The ``selection_`` name of structure ``name`` learned with edge score ``edge`` (``"bdeu"``: ``name``)."""
    return name if edge == EDGE_SCORES[0] else f"{name} [{edge} edges]"


def choose_edges(fit, scores, Xte, codes):
    """The structure's edge score by held-out likelihood: the one whose fit has the higher mean held-out score.

    Step 1 learns TAN's and k-DB's parents from BDeu edge weights; the same variant is refitted on
    the training part with each other edge score of :data:`EDGE_SCORES` (e.g. ``"hierarchical"``,
    :mod:`bayesnb.structure.hier_edges`) and the edge score whose fit scores the higher mean
    held-out ``log p(x, y)`` is kept (ties: BDeu), the rule by which the latent-class model
    replaces the structure. It is chosen once, at step 1's ``k``; :func:`widen_k` then uses it.

    Parameters
    ----------
    fit : callable
        ``fit(edge_score) -> fitted NaiveBayes``: the variant fitted on the training part.
    scores : ndarray
        The BDeu fit's per-row held-out ``log p(x, y)``.
    Xte : DataFrame
        The held-out rows.
    codes : ndarray of int
        Their class indices.

    Returns
    -------
    edge : str
        The edge score kept.
    rows : ndarray
        Its fit's per-row held-out scores.
    means : dict
        ``{edge score: mean held-out score}``.
    """
    rows = {EDGE_SCORES[0]: np.asarray(scores)}
    for edge in EDGE_SCORES[1:]:
        rows[edge] = holdout_rows(fit(edge), Xte, codes)
    means = {edge: float(r.mean()) for edge, r in rows.items()}
    edge = max(means, key=means.get)
    return edge, rows[edge], means


def widen_k(fit, k, scores, Xte, codes, max_k):
    """k-DB's number of parents by held-out likelihood: ``k + 1`` replaces ``k`` while it is *clearly* better.

    The evidence of step 1 compares structures at one ``k``; a larger ``k`` gives every node
    more parents (thinner contexts, each shrunk toward its parent context under hierarchical
    smoothing), and whether the data carry that much dependence is asked of the held-out rows:
    ``k + 1`` is kept when its paired per-row gain over ``k`` in ``log p(x, y)`` exceeds
    :data:`Z_BEHIND` standard errors, and the widening stops at the first ``k`` that is not.

    Parameters
    ----------
    fit : callable
        ``fit(k) -> fitted NaiveBayes``: the k-DB variant with ``k`` parents, fitted on the training part.
    k : int
        The ``k`` of step 1.
    scores : ndarray
        Its per-row held-out ``log p(x, y)``.
    Xte : DataFrame
        The held-out rows.
    codes : ndarray of int
        Their class indices.
    max_k : int
        The largest ``k`` tried (a k-DB node has at most ``n_features - 1`` parents).

    Returns
    -------
    k : int
        The ``k`` kept.
    tried : list of tuple
        ``(k, mean held-out score, gain over k - 1, its standard error, kept)`` per ``k`` tried
        beyond the first.
    """
    tried = []
    while k < max_k:
        rows = holdout_rows(fit(k + 1), Xte, codes)
        gain, se = _paired(rows, scores)
        keep = bool(gain > Z_BEHIND * se)
        tried.append((k + 1, float(rows.mean()), gain, se, keep))
        if not keep:
            break
        k, scores = k + 1, rows
    return k, tried


def latent_search(base, structure, X, y, Xte, codes, candidates, rng, *, holdout=0.1, n_init=3, tol=1e-6,
                  max_iter=200, component_prior="class"):
    """The component search of the module docstring on the search rows ``X``.

    Parameters
    ----------
    base : NaiveBayes
        Fitted naive estimator whose ``fit_latent_class`` the latent-class candidate is.
    structure : callable
        ``structure(X, y) -> fitted NaiveBayes``: the structure candidate, its variant fixed.
    X : DataFrame of shape (n, d)
        The search rows.
    y : ndarray of shape (n,)
        Their labels.
    Xte : DataFrame
        The held-out rows.
    codes : ndarray of int
        Their class indices in ``base.classes_``.
    candidates : sequence of int
        Counts always tried; the widening goes on past them (:func:`~bayesnb.inference.em.widening_steps`).
    rng : numpy.random.Generator
    holdout, n_init, tol, max_iter, component_prior
        As in :meth:`~bayesnb.NaiveBayes.fit_latent_class`.

    Returns
    -------
    fit : LatentClassFit
        The chosen count's fit on the search rows (held-out cells hidden); its ``selection`` the
        cell scores.
    trace : DataFrame
        One row per count tried: ``n_components``, ``cell_score`` (the search's criterion),
        ``holdout_loglik`` (mean held-out ``log p(x, y)`` at the search size), ``gap`` and
        ``se`` (paired difference to the structure at the search size and its standard error).
    info : dict
        ``structure_loglik`` and ``latent_loglik`` (the structure's and the chosen count's mean
        held-out scores at the search size),
        ``behind`` (the chosen count trails the structure by more than :data:`Z_BEHIND` standard
        errors) and ``stop`` (why the search ended).
    """
    Xv = base._check_X(X, reset=False)
    n = Xv.shape[0]
    y_codes = label_codes(base.classes_, y, n, base._who)
    full, _ = base._encode_blocks(Xv, base.posterior_)
    rows, cols = em.holdout_cells(base.posterior_, ~missing_cells(base.posterior_, full, Xv.shape), holdout, rng)
    masked = mask_cells(Xv, rows, cols)
    train = base._latent_start(masked, y_codes)
    hidden = np.unique(rows)
    cap = max(1, n // (10 * len(base.classes_)))
    ref = holdout_rows(structure(masked, y), Xte, codes)
    te, _ = base._encode_blocks(base._check_X(Xte, reset=False), base.posterior_)  # encoded once for every count
    fits, per_row, trace = {}, {}, []

    def run(counts):
        for C in counts:
            f = base._latent_em(*train, y_codes, int(C), n_init=n_init, tol=tol, max_iter=max_iter, rng=rng,
                                component_prior=component_prior)
            score = float((base._latent_log_px(f, full, y_codes)[hidden]
                           - base._latent_log_px(f, train[0], y_codes)[hidden]).sum())
            # log p(x, y) of the held-out rows: their class's states summed (as holdout_rows scores them)
            fits[int(C)], per_row[int(C)] = f, base._latent_log_px(f, te, codes)
            gap, se = _paired(per_row[int(C)], ref)
            trace.append({"n_components": int(C), "cell_score": score,
                          "holdout_loglik": float(per_row[int(C)].mean()), "gap": gap, "se": se})

    run(candidates)
    scores = {r["n_components"]: r["cell_score"] for r in trace}
    stop = "the best count is not the largest tried"
    while max(scores, key=scores.get) == max(scores):
        wider = em.widening_steps(max(scores), cap)
        if not wider:
            stop = f"the cap of {cap} components per class (n_rows / (10 * n_classes))"
            warnings.warn(f"{_WHO}: the latent-class search chose {max(scores)}, the largest count it tried: it "
                          f"stopped at its edge, {stop}; pass latent_candidates= with larger counts or an int "
                          "latent to go further.", SearchEdgeWarning, stacklevel=4)
            break
        last = sorted(per_row)[-2:]
        gap, se = _paired(per_row[last[-1]], ref)
        gain = _paired(per_row[last[-1]], per_row[last[0]])[0] if len(last) == 2 else np.inf
        if gap < -Z_BEHIND * se and gain * len(wider) < -gap:
            stop = (f"C={last[-1]} trails the structure by {-gap:.3f} (> {Z_BEHIND:g} SE = {Z_BEHIND * se:.3f}) "
                    f"and its gain over C={last[0]}, {gain:.3f} per step, would not close it in the "
                    f"{len(wider)} allowed step(s)")
            break
        run(wider[:1])
        scores = {r["n_components"]: r["cell_score"] for r in trace}
    C = max(scores, key=scores.get)
    gap, se = _paired(per_row[C], ref)
    info = {"structure_loglik": float(ref.mean()), "latent_loglik": float(per_row[C].mean()),
            "behind": bool(gap < -Z_BEHIND * se), "stop": stop}
    return fits[C]._replace(selection=scores), pd.DataFrame(trace), info


def variant(model):
    """``(name, parameters)`` of a fitted structured NaiveBayes: its row in ``structure_scores_`` and the
    ``NaiveBayes`` parameters that fit that variant alone."""
    kind, hier = model.structure_kind_, bool(getattr(model, "structure_hierarchical_", False))
    if kind == "naive":  # auto's hierarchical naive candidate: alpha="hierarchical" under naive
        return ("naive (hierarchical)", {"structure": "naive", "alpha": "hierarchical"}) if hier else \
            ("naive", {"structure": "naive"})
    name = edge_name(variant_label(kind, model.k, hier), getattr(model, "edge_score", "bdeu"))
    alpha = "hierarchical" if hier else (1.0 if kind == "kdb" else None)
    return name, {"structure": kind, "k": model.k, "alpha": alpha}
