"""Per-cell surprise: each cell's log score ranked against the training rows' cells of its column.

A cell's log density (``log p(x_ij | pa_ij, y)``, or its marginal ``log p(x_ij | y)`` under a naive model)
is on a scale of its own: a heavy-tailed numeric column spreads its training cells over several nats, a
yes/no column over a fraction of one. Summed, the wide columns drown the narrow ones, so a row whose only
oddity is a value held by 7% of the training rows scores like a typical one. The **surprise** of a cell
is minus the log of its empirical p-value, the weighted share of the training cells of its column that
score at most as high,

    s_ij = -log((W_j(<= c_ij) + 1) / (W_j + 1)),

``W_j`` the training weight of the column's observed cells and ``W_j(<= c)`` that of those scoring at most
``c`` (the ``+ 1`` counts the scored cell itself, as a conformal p-value does). A column's rarest category,
held by 7% of the rows, costs ``-log 0.07 = 2.7`` whatever the other columns' spread; a continuous cell's
surprise is about Exp(1) under the model, so every column weighs alike, and a row's surprise is Fisher's
combination of its cells' p-values (without the factor 2). Below the lowest training cell the p-value cannot be estimated from
the rows, and the surprise goes on in nats of the cell's log score: ``log(W_j + 1) + (lowest - c_ij)``, so a
value far out keeps its improbability. A cell outside its family's support (``c = -inf``) is infinitely
surprising; a missing cell is not surprising (0).

:class:`CellReference` keeps, per column, the sorted distinct training scores with the weight at or below
each, thinned to at most :data:`MAX_POINTS` points: the first point of each band of ``log(W(<= c) + 1)`` of
width ``log(W_j + 1) / (MAX_POINTS - 2)``, and the last (so a value holding many rows, or a heavy row, is
always kept). A score between two kept points is credited with the weight at or below the lower one, so the
surprise errs high, by less than that width: 0.0068 nats for a column of a million rows' weight.

Scores equal to a training score up to rounding (``1e-9`` relative, :data:`TIE_TOLERANCE`, and at most
``1e-6`` nats, :data:`MAX_TIE`) count as equal:
the same cell scored in another batch can differ from its training twin by a few ulps, and a category whose
training cells all share one score would otherwise charge that whole step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["MAX_POINTS", "MAX_TIE", "TIE_TOLERANCE", "CellReference", "cell_surprise", "fit_cell_reference"]

#: Points kept per column by :func:`fit_cell_reference` (sorted distinct training scores, thinned in weight).
MAX_POINTS = 2048

#: Relative tolerance within which a cell's score counts as equal to a training score ...
TIE_TOLERANCE = 1e-9

#: ... and at most this many nats (a score of -1e12 would otherwise tie over 1,000 nats).
MAX_TIE = 1e-6


class CellReference(NamedTuple):
    """The training cells' scores per column (:func:`fit_cell_reference`).

    ``points`` (d, P): each column's sorted distinct scores, NaN-padded at the end; ``below`` (d, P): the
    training weight at or below each point (NaN where ``points`` is); ``total`` (d,): the weight of the
    column's observed, finite training cells (0: none, and every finite cell of it is unsurprising).
    """

    points: np.ndarray
    below: np.ndarray
    total: np.ndarray


def fit_cell_reference(cells, observed, weights=None, max_points=MAX_POINTS):
    """The :class:`CellReference` of training cell scores.

    Parameters
    ----------
    cells : ndarray of shape (n_samples, n_features)
        Each training cell's log score (``-inf`` outside its family's support).
    observed : ndarray of bool, shape (n_samples, n_features)
        The observed cells; only those with a finite score enter the reference.
    weights : ndarray of shape (n_samples,), optional
        Finite non-negative row weights (a row of weight 2 counts as the row repeated; weight 0: left out).
    max_points : int, default=MAX_POINTS
        Points kept per column at most (>= 3; module docstring, the thinning).

    Returns
    -------
    CellReference
    """
    cells = np.asarray(cells, dtype=float)
    observed = np.asarray(observed, dtype=bool)
    if cells.ndim != 2 or observed.shape != cells.shape:
        raise ValueError(f"fit_cell_reference: cells must be 2-D and observed of the same shape; received shapes "
                         f"{cells.shape} and {observed.shape}.")
    n, d = cells.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"fit_cell_reference: weights must be {n} finite non-negative numbers; received shape "
                         f"{w.shape}.")
    if not isinstance(max_points, int | np.integer) or isinstance(max_points, bool) or max_points < 3:
        raise ValueError(f"fit_cell_reference: max_points must be a whole number >= 3; received {max_points!r}.")
    columns = []
    for j in range(d):
        keep = observed[:, j] & np.isfinite(cells[:, j]) & (w > 0)
        v, wj = cells[keep, j], w[keep]
        order = np.argsort(v, kind="stable")
        v, cum = v[order], np.cumsum(wj[order])
        last = np.r_[v[1:] != v[:-1], True] if len(v) else np.zeros(0, dtype=bool)
        v, cum = v[last], cum[last]
        if len(v) > max_points:  # the first point of each band of log(W(<= c) + 1), and the last
            band = np.floor(np.log1p(cum) / (np.log1p(cum[-1]) / (max_points - 2)))
            kept = np.r_[True, band[1:] != band[:-1]]
            kept[-1] = True
            v, cum = v[kept], cum[kept]
        columns.append((v, cum))
    width = max([len(v) for v, _ in columns] + [1])
    points, below = np.full((d, width), np.nan), np.full((d, width), np.nan)
    for j, (v, cum) in enumerate(columns):
        points[j, :len(v)], below[j, :len(v)] = v, cum
    total = np.array([cum[-1] if len(cum) else 0.0 for _, cum in columns])
    return CellReference(points, below, total)


def cell_surprise(reference, cells, observed):
    """Each cell's surprise against ``reference`` (module docstring): an (n, d) array, 0 for cells not
    observed, ``inf`` for a cell scored ``-inf``.

    Parameters
    ----------
    reference : CellReference
    cells : ndarray of shape (n_samples, n_features)
        The cells' log scores, by the same model and method as the reference's. NaN (a cell of a row
        that is impossible without it too) counts as not surprising; its row is scored by the impossible
        cell.
    observed : ndarray of bool, shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    cells = np.asarray(cells, dtype=float)
    out = np.zeros(cells.shape)
    for j in range(cells.shape[1]):
        m = int(np.sum(~np.isnan(reference.points[j])))
        c = cells[:, j]
        finite = np.isfinite(c)
        if m:
            v, cum, total = reference.points[j, :m], reference.below[j, :m], float(reference.total[j])
            safe = np.where(finite, c, 0.0)
            tol = np.minimum(TIE_TOLERANCE * (1.0 + np.abs(safe)), MAX_TIE)
            k = np.searchsorted(v, safe + tol, side="right")
            at_or_below = np.where(k > 0, cum[np.maximum(k - 1, 0)], 0.0)
            s = np.log(total + 1.0) - np.log(at_or_below + 1.0)
            low = finite & (c < v[0] - tol)
            s[low] = np.log(total + 1.0) + (v[0] - c[low])
            out[:, j] = np.where(finite, s, 0.0)
        out[np.isneginf(c), j] = np.inf
    out[~np.asarray(observed, dtype=bool)] = 0.0
    return out
