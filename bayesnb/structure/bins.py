"""The quantile bins of a numeric node: its states as a parent and for the mutual informations
(:mod:`bayesnb.structure.engine`)."""

from __future__ import annotations

import numpy as np

__all__ = ["N_BINS", "bin_edges", "bin_edges_from_table"]

#: Number of quantile bins of a numeric column (its states as a parent and for the mutual informations).
N_BINS = 5


def bin_edges(x, w=None) -> np.ndarray:
    """Interior quantile edges of the observed values of ``x`` (rows with ``w > 0``), distinct, sorted.

    The quantiles are NumPy's default (linear) ones of the values, each repeated as many times
    as its weight (so a weight of 2 is exactly a duplicated row; fractional weights interpolate
    the same rule); without weights, or with every weight 1, :func:`numpy.quantile` itself.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Values, NaN missing.
    w : ndarray of shape (n,), optional
        Row weights; rows of weight 0 are left out.

    Returns
    -------
    ndarray of shape (m,), ``m <= N_BINS - 1``
    """
    x = np.asarray(x, dtype=float)
    keep = np.isfinite(x) if w is None else np.isfinite(x) & (np.asarray(w) > 0)
    if not keep.any():
        return np.empty(0)
    levels = np.arange(1, N_BINS) / N_BINS
    if w is None or np.all(np.asarray(w)[keep] == 1):
        q = np.quantile(x[keep], levels)
    else:
        q = _repeated_quantiles(x[keep], np.asarray(w, dtype=float)[keep], levels)
    return np.unique(q[q > x[keep].min()])  # an edge at the minimum would leave its bin empty


def bin_edges_from_table(values, weights) -> np.ndarray:
    """:func:`bin_edges` of a column given as its distinct observed values and their summed weights.

    The table of disjoint batches adds, so a fit over partitions (Dask) gets the edges of the whole
    column without its rows: the same edges as :func:`bin_edges` of the rows (bit for bit with whole
    weights, unit weights included, as ``numpy.quantile``'s linear rule is the repeated values'
    rule; fractional weights are summed in another order, which can move an edge in its last digits).

    Parameters
    ----------
    values : ndarray of shape (m,)
        The distinct finite values of positive weight, sorted.
    weights : ndarray of shape (m,)
        The sum of the weights of the rows holding each (> 0).

    Returns
    -------
    ndarray of shape (k,), ``k <= N_BINS - 1``
    """
    values = np.asarray(values, dtype=float)
    if not values.size:
        return np.empty(0)
    q = _repeated_quantiles(values, np.asarray(weights, dtype=float), np.arange(1, N_BINS) / N_BINS)
    return np.unique(q[q > values[0]])


def _repeated_quantiles(x, w, levels):
    """:func:`numpy.quantile` (linear) of ``x`` with each value repeated ``w`` times, for any ``w > 0``."""
    order = np.argsort(x, kind="stable")
    v, c = x[order], np.cumsum(w[order])
    top = max(c[-1] - 1.0, 0.0)
    h = np.clip(levels * top, 0.0, top)  # position in the repeated, sorted values

    def at(p):  # the repeated values' element at position p: the first value whose cumulative weight exceeds p
        return v[np.minimum(np.searchsorted(c, p, side="right"), v.size - 1)]

    lo, t = np.floor(h), h - np.floor(h)
    a, b = at(lo), at(np.ceil(h))
    return np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t)  # NumPy's lerp
