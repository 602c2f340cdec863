"""The bins of a column's own value under a self-masking missingness node, and the M-step's quadrature.

A numeric column's node (:mod:`bayesnb.generative.mnar`) conditions its missingness on the quantile bin of
its value (:func:`node_edges`: :func:`quantile_edges`, moved between observed values by
:func:`between_values`). The M-step adds a missing cell's expected statistics through the family contract by quadrature: the bins are refined into
fine sub-bins (:func:`fine_edges`: finer observed quantiles, cuts past the observed range, and each point
mass of the family in a sub-bin of its own), each contributing its truncated predictive mean
(:func:`column_bins`) with its posterior weight (:func:`interval_pseudo_stats`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ..structure.columns import column_params, column_state

__all__ = ["SUB_BINS", "TAIL_SD", "between_values", "censored", "coarse_means", "column_bins", "fine_edges",
           "has_bins", "interval_pseudo_stats", "node_edges", "own_bins", "quantile_edges"]

#: Fine sub-bins per bin (quadrature of the M-step).
SUB_BINS = 8
#: Sub-bin cut points past each end of the observed range, in observed standard deviations.
TAIL_SD = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0)


def quantile_edges(x, n_bins):
    """Distinct interior quantile cut points (levels ``1/n_bins ... (n_bins-1)/n_bins``) of the finite values
    of ``x``."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0 or n_bins < 2:
        return np.empty(0)
    q = np.quantile(x, np.arange(1, n_bins) / n_bins)
    return np.unique(q[q > x.min()])


def between_values(x, edges):
    """``edges`` moved to the midpoint between each and the next larger value of ``x``; one at or above
    ``x``'s largest value dropped. The bins keep the same observed values, but no observed value lies on
    an edge, where a whole-number family (which puts ``e`` in the bin above it) and ``observed_bin`` (which
    puts it in the bin below) would disagree and count its mass twice, and no bin is left without one (a
    column of two values keeps one bin: no self-masking on it)."""
    u = np.unique(x)
    edges = edges[edges < u[-1]]
    return np.unique((edges + u[np.searchsorted(u, edges, side="right")]) / 2)


def node_edges(x, n_bins):
    """The cut points of a missingness node's bins of the values ``x`` (NaN: missing): its ``n_bins`` quantile
    cut points (:func:`quantile_edges`) moved between observed values (:func:`between_values`)."""
    x = np.asarray(x, dtype=float)
    return between_values(x[np.isfinite(x)], quantile_edges(x, n_bins))


def own_bins(x, edges):
    """The bin of each value of ``x`` among the cut points ``edges`` (a missingness node's own-value parent;
    a value on an edge is in the bin below it), -1 where the value is missing (not finite)."""
    obs = np.isfinite(x)
    return np.where(obs, np.searchsorted(edges, np.where(obs, x, 0.0), side="left"), -1)


def fine_edges(x, edges, n_bins, masses=()):
    """Quadrature cut points: the bins' edges, finer observed quantiles, cuts past the observed range, and
    each point mass ``v`` of the family isolated in a sub-bin ``[v, v + 1 ulp)`` of its own (see
    :func:`column_bins`)."""
    x = x[np.isfinite(x)]
    sd = float(np.std(x)) or 1.0
    inner = quantile_edges(x, n_bins * SUB_BINS)
    tails = np.concatenate([x.min() - sd * np.asarray(TAIL_SD), x.max() + sd * np.asarray(TAIL_SD)])
    masses = np.asarray(masses, dtype=float)
    return np.unique(np.concatenate([edges, inner, tails, masses, np.nextafter(masses, np.inf)]))


def has_bins(block, c, edges):
    """Whether column ``c`` of ``block`` has a binned predictive at cut points ``edges`` (its family gives
    ``predictive_bins``), so that it can take a missingness node."""
    try:
        column_bins(block, block.posterior, c, edges)
    except NotImplementedError:
        return False
    return True


_BINS = {}


def column_bins(block, params, c, edges):
    """``(log_mass, mean)`` (S, B) of column ``c`` of ``block`` under ``params`` (plug-in predictive).

    An interval one ulp wide, ``[v, v + 1 ulp)`` (a point mass's, :func:`fine_edges`), has the mean ``v``.
    The last results are kept (by the identity of ``params`` and ``edges``, both held, so a key
    cannot be reused by another object): an EM iteration asks for the same bins in its E- and M-step.
    """
    key = (id(params), c, id(edges))
    hit = _BINS.get(key)
    if hit is not None and hit[0] is params and hit[1] is edges:
        return hit[2]
    logm, mean = block.family.predictive_bins(column_params(block.prior, c), column_params(params, c),
                                              column_state(block.state, c), edges, "mean")
    lo = np.flatnonzero(edges[1:] == np.nextafter(edges[:-1], np.inf))  # a point mass's own sub-bin: its value
    if lo.size:
        mean = mean.copy()
        mean[:, lo + 1] = np.where(np.isfinite(mean[:, lo + 1]), edges[lo], np.nan)
    out = (logm, mean)
    if len(_BINS) > 512:
        _BINS.clear()
    _BINS[key] = (params, edges, out)
    return out


def censored(values, sc):
    """``values`` moved into the column's support ``[fine[0], fine[-1]]``: the observed range widened by the
    last of :data:`TAIL_SD` observed sds at each end. Only the two unbounded end sub-bins' truncated means
    (and draws in them) move: a value past the support counts as lying on its bound. Without this a
    family with a heavy tail (a LogNormal with a large sigma) gives its unbounded top sub-bin a mean of
    1e17 and more; EM feeds it back into the family's statistics and diverges (breast cancer, 12 latent
    components per class)."""
    with np.errstate(invalid="ignore"):
        return np.clip(values, sc.fine[0], sc.fine[-1])


def coarse_means(block, params, sc, mean):
    """Each bin's mean (S, B) with the values past the support censored (:func:`censored`): the end bins'
    means from their sub-bins, the inner bins' as they are."""
    logm, fine_mean = column_bins(block, params, sc.col, sc.fine)
    fine_mean = np.nan_to_num(censored(fine_mean, sc))
    w = np.exp(logm - np.max(logm, axis=1, keepdims=True))
    B = mean.shape[1]
    num = np.stack([(w * fine_mean)[:, sc.coarse == b].sum(1) for b in range(B)], axis=1)
    den = np.stack([w[:, sc.coarse == b].sum(1) for b in range(B)], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ends = np.where(den > 0, num / den, mean)
    out = np.array(mean, dtype=float, copy=True)
    out[:, [0, B - 1]] = ends[:, [0, B - 1]]
    return out


def interval_pseudo_stats(block, sc, rho, weight):
    """The family statistics of a numeric column's missing cells by quadrature on its sub-bins (a one-column block's).

    ``weight`` (S,) is the summed state responsibility of the missing cells; each sub-bin ``f``
    adds its truncated mean with weight ``weight[s] * P(f | s) rho[s, bin(f)] / normaliser``.
    """
    logm, mean = column_bins(block, block.posterior, sc.col, sc.fine)
    mean = censored(mean, sc)
    with np.errstate(divide="ignore"):
        lw = logm + np.log(rho[:, sc.coarse])
    lw = lw - logsumexp(lw, axis=1, keepdims=True)
    w = np.exp(lw) * weight[:, None]
    s_idx, f_idx = np.nonzero(np.isfinite(mean) & (w > 0))
    resp = np.zeros((s_idx.size, w.shape[0]))
    resp[np.arange(s_idx.size), s_idx] = w[s_idx, f_idx]
    return block.family.interval_stats(mean[s_idx, f_idx][:, None], resp, column_state(block.state, sc.col))
