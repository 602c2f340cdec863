"""Bins of :class:`~bayesnb.families.histogram.Histogram`: edges from training quantiles,
the within-bin empirical distributions, binning and within-bin draws; pure functions of arrays."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["BinShapes", "HistogramEncoding", "auto_bins", "bin_codes", "bin_labels", "build_state", "check_state",
           "draw_within", "cell_tail_costs", "end_cells", "end_counts", "merge_states", "outside_support",
           "pooled_counts", "range_fractions", "row_terms",
           "tail_costs", "tail_scales", "within_means", "within_modes"]

#: the most bins ``bins="auto"`` makes
MAX_AUTO_BINS = 20


class BinShapes(tuple):
    """A Histogram block's ``numpyro_static``: the tuple of each feature's number of bins, what the compiled
    NumPyro program depends on (its equality, hash and repr, so the in-memory and on-disk compile caches).

    ``ends`` (:func:`end_counts` of the prior, a training statistic) rides along outside them: it is read
    host-side only, by ``numpyro_row_args``, so fits with the same bins but other data share a program.
    """

    def __new__(cls, bins=(), ends=None):
        """The tuple ``bins`` (ints) carrying ``ends`` (per column ``(n_below, n_above)``, or None)."""
        obj = super().__new__(cls, bins)
        obj.ends = ends
        return obj


class HistogramEncoding(NamedTuple):
    """Bins learned at fit, one entry per column ``j`` with ``B_j`` bins.

    Attributes
    ----------
    edges : tuple of ndarray
        ``edges[j]`` (B_j + 1,), strictly increasing: bin ``b`` is ``[edges[b], edges[b+1])``
        (the last bin closed). Integer columns have half-integer edges.
    integer : ndarray of bool, shape (d,)
        Whether column ``j``'s training values were all whole numbers.
    values : tuple of ndarray
        ``values[j]``: the distinct observed training values of column ``j``, sorted (all
        bins' values flat; pooled over classes).
    counts : tuple of ndarray
        ``counts[j]``: how many training cells held each of ``values[j]`` (float64, > 0).
    offsets : tuple of ndarray
        ``offsets[j]`` (B_j + 1,), int64: bin ``b``'s values are
        ``values[j][offsets[j][b]:offsets[j][b+1]]``.
    """

    edges: tuple
    integer: np.ndarray
    values: tuple
    counts: tuple
    offsets: tuple


def auto_bins(n_unique: int) -> int:
    """``bins="auto"``: ``min(20, max(2, round(sqrt(n_unique))))`` (1 for a constant column).

    A whole-number column with at most 20 distinct values gets one bin per value instead
    (see ``_column_edges``).
    """
    if n_unique <= 1:
        return 1
    return int(min(MAX_AUTO_BINS, max(2, round(n_unique ** 0.5))))


def _column_edges(uniq: np.ndarray, cnt: np.ndarray, bins, integer: bool) -> np.ndarray:
    """Edges of one column from its distinct observed values ``uniq`` (sorted, non-empty) and how
    many cells hold each (``cnt``): quantiles, merged, no empty bin.

    In a whole-number column a value held by at least ``1 / B`` of the cells and at least
    ``1 / MAX_AUTO_BINS`` (5%) of them (a spike, such as the zeros of a zero-inflated count)
    gets a bin of its own, ``[v - 0.5, v + 0.5]``, so that its mass is not spread over the
    integers around it. These are counts of cells: unlike the quantile edges, a row repeated
    can make a spike where the same row weighted does not.
    """
    n_cells = cnt.sum()
    lo, hi = uniq[0], uniq[-1]
    B = auto_bins(uniq.size) if isinstance(bins, str) else bins
    # integer columns: half-integer edges; a constant real column: one bin of width 1 around its value
    outer = (lo - 0.5, hi + 0.5) if integer or lo == hi else (lo, hi)
    # quantiles of the distinct values: a row's weight (or its repetition) never moves these edges
    inner = np.quantile(uniq, np.linspace(0.0, 1.0, B + 1)[1:-1]) if B > 1 else np.empty(0)
    if integer and isinstance(bins, str) and uniq.size <= MAX_AUTO_BINS:
        inner = (uniq[:-1] + uniq[1:]) / 2  # few whole numbers: one bin per value
    spike_edges = np.empty(0)
    if integer:
        inner = np.floor(inner) + 0.5
        if B > 1:
            spikes = uniq[cnt * min(B, MAX_AUTO_BINS) >= n_cells]
            spike_edges = np.unique(np.concatenate([spikes - 0.5, spikes + 0.5]))
            inner = np.concatenate([inner, spike_edges])
    inner = np.unique(inner[(inner > outer[0]) & (inner < outer[1])])
    edges = np.concatenate([[outer[0]], inner, [outer[1]]])
    # merge bins that hold no training value into a neighbour: the right one (the last bin: the
    # left one), unless that would widen a spike's bin while the other side would not
    while True:
        n_in = np.bincount(bin_of(edges, uniq), minlength=edges.size - 1)
        empty = np.flatnonzero(n_in == 0)
        if empty.size == 0:
            return edges
        b = empty[0]
        drop = b + 1 if b + 1 < edges.size - 1 else b
        if np.isin(edges[drop], spike_edges):
            other = b if drop == b + 1 else b + 1
            if 0 < other < edges.size - 1 and not np.isin(edges[other], spike_edges):
                drop = other
        edges = np.delete(edges, drop)


def bin_of(edges: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Bin index of each value (int64); values below/above the edges fall in the end bins."""
    return np.searchsorted(edges[1:-1], x, side="right").astype(np.int64)


def build_state(A: np.ndarray, bins) -> HistogramEncoding:
    """The :class:`HistogramEncoding` of a validated float block ``A`` (n, d), NaN = missing."""
    tables = (np.unique(col[~np.isnan(col)], return_counts=True) for col in A.T)
    return _state([(u, c.astype(np.float64)) for u, c in tables], bins)


def merge_states(a: HistogramEncoding, b: HistogramEncoding, bins) -> HistogramEncoding:
    """The state :func:`build_state` makes of two disjoint batches' rows together, from their
    states ``a``, ``b`` and the family's validated ``bins``: each column's tables of distinct
    values and cell counts added, and the edges (a function of that table alone,
    :func:`_column_edges`) made again."""
    if len(a.edges) != len(b.edges):
        raise ValueError(f"Histogram: the two states have {len(a.edges)} and {len(b.edges)} columns; expected the "
                         "same block.")
    tables = []
    for j in range(len(a.edges)):
        v = np.concatenate([a.values[j], b.values[j]])
        u, inverse = np.unique(v, return_inverse=True)
        tables.append((u, np.bincount(inverse, weights=np.concatenate([a.counts[j], b.counts[j]]),
                                      minlength=u.size).astype(np.float64)))
    return _state(tables, bins)


def _state(tables, bins) -> HistogramEncoding:
    """The state of per-column ``(distinct values, cell counts)`` tables."""
    edges, integer, offsets = [], [], []
    for u, c in tables:
        integer.append(bool(u.size) and bool(np.all(u == np.floor(u))))
        # all missing: one bin [0, 1) with no value to draw
        edges.append(_column_edges(u, c, bins, integer[-1]) if u.size else np.array([0.0, 1.0]))
        off = np.searchsorted(u, edges[-1][1:-1])
        offsets.append(np.concatenate([[0], off, [u.size]]).astype(np.int64))
    values, counts = (tuple(t[i] for t in tables) for i in (0, 1))
    return HistogramEncoding(tuple(edges), np.array(integer, dtype=bool), values, counts,
                             tuple(offsets))


def outside_support(state: HistogramEncoding, X) -> np.ndarray:
    """Bool (n, d): the finite cells of ``X`` outside the support the training values declare.

    A column whose training values were all whole numbers (``state.integer``: a count, a year,
    a 0/1 flag) takes whole numbers only, so a fraction there has probability 0; one whose
    whole-number training values were also all ``>= 0`` (a count) takes no negative value
    either. A real-valued column's support is the whole line (values beyond its range are
    charged by the tails, :func:`tail_costs`). An all-missing column declares nothing.
    """
    A = np.asarray(X, dtype=np.float64)
    whole = np.asarray(state.integer, dtype=bool)
    counts = whole & np.array([v.size > 0 and v[0] >= 0 for v in state.values], dtype=bool)
    with np.errstate(invalid="ignore"):
        bad = (whole[None, :] & (A != np.floor(A))) | (counts[None, :] & (A < 0))
    return np.isfinite(A) & bad


def tail_scales(state: HistogramEncoding, j: int) -> tuple:
    """``(below, above)``: the scales of column ``j``'s exponential tails beyond its first and last edge.

    Each is the maximum-likelihood scale of an exponential fitted to the end bin's distinct
    training values as excesses over the bin's inner edge (the exponential limit of the peaks
    over a threshold: the mean of ``|value - inner edge|``), so a tail is as steep as the column
    thins out towards its extreme values. Distinct values, as for the edges, so that a row's
    sample weight and its repetition give the same tails. It is at most the end bin's width,
    which it is when the end bin holds no value (an all-missing column).
    """
    e, u, off = state.edges[j], state.values[j], state.offsets[j]
    w = np.diff(e)
    scales = []
    for lo, hi, inner, width in ((off[0], off[1], e[1], w[0]), (off[-2], off[-1], e[-2], w[-1])):
        mean = float(np.mean(np.abs(u[lo:hi] - inner))) if hi > lo else width
        scales.append(min(mean, width) if mean > 0 else width)
    return tuple(scales)


def end_cells(state: HistogramEncoding, j: int) -> tuple:
    """``(n_below, n_above)``: the training cells of column ``j``'s first and last bin that the bins were made from
    (:attr:`HistogramEncoding.counts`, unweighted), the fallback of :func:`tail_costs`."""
    cnt, off = state.counts[j], state.offsets[j]
    return float(cnt[off[0]:off[1]].sum()), float(cnt[off[-2]:off[-1]].sum())


def tail_costs(state: HistogramEncoding, j: int, x: np.ndarray, ends=None) -> np.ndarray:
    """``log`` of the end bin's density over the density at ``x`` (0 inside the range), shape of ``x``.

    Beyond the range the density is the end bin's probability times ``1 / (n + 1)``, the chance that
    a new cell exceeds all ``n`` training cells of the end bin (exchangeability, ties counted), spread
    as an exponential of scale ``s`` (:func:`tail_scales`)::

        log p(x | k) = log theta_k,end - log(n + 1) - log s - t / s      (t: distance beyond the edge)

    ``ends = (n_below, n_above)``: the end bins' weighted training cells over every class and context
    (:func:`pooled_counts`, so that a row's weight and its repetition count alike); None: the cells the
    bins were made from (:func:`end_cells`). ``n`` below the bin's ``m`` distinct values (fractional
    weights) counts as ``m``. The cost is at least 0: a value beyond the range is never denser than the
    end bin.
    """
    e, off = state.edges[j], state.offsets[j]
    w = np.diff(e)
    ends = end_cells(state, j) if ends is None else ends
    out = np.zeros(np.shape(x))
    for side, (scale, m, n, width) in enumerate(zip(tail_scales(state, j), (off[1] - off[0], off[-1] - off[-2]),
                                                    ends, (w[0], w[-1]))):
        t = np.maximum(e[0] - x, 0.0) if side == 0 else np.maximum(x - e[-1], 0.0)
        step = max(float(np.log((max(float(n), m) + 1) * scale / width)), 0.0)
        out += np.where(t > 0, step + t / scale, 0.0)
    return out


def pooled_counts(counts) -> tuple:
    """Per column, its weighted training cells per bin summed over every class and context, repeated on
    each context's row (``(C, B_j)``, so that contexts taken or tiled keep the training total): the
    ``pooled`` field of :class:`~bayesnb.families.histogram.BinDirichlets`, from statistics' ``counts``."""
    return tuple(np.broadcast_to(np.asarray(c, dtype=float).sum(axis=0), np.shape(c)).copy() for c in counts)


def end_counts(*params):
    """Per column, the end bins' ``(n_below, n_above)`` that the tails' share ``1 / (n + 1)`` counts.

    Read from the ``pooled`` field of the first of ``params`` (BinDirichlets: prior, posterior or
    draw, in order of preference) that has it: a training total (weighted, every class and
    context), the same for the posterior, an exact or MCMC draw and contexts tiled over draws.
    None when none has it (a model file written before it existed, a point from parameters):
    :func:`cell_tail_costs` then counts the cells the bins were made from (:func:`end_cells`).
    """
    pooled = next((p.pooled for p in params if getattr(p, "pooled", None) is not None), None)
    if pooled is None:
        return None
    return tuple((float(np.asarray(c)[0][0]), float(np.asarray(c)[0][-1])) for c in pooled)


def cell_tail_costs(state: HistogramEncoding, X, ends=None) -> np.ndarray:
    """The tail cost (:func:`tail_costs`) of every cell of ``X`` (n, d); 0 inside the range.

    This is the one place a cell's tail is costed: the encoding holds only each bin's log width.
    ``ends``: per column ``(n_below, n_above)`` (:func:`end_counts`, from the parameters the
    likelihood is assembled with); None: each column's :func:`end_cells`.
    """
    A = np.asarray(X, dtype=float)
    out = np.zeros(A.shape)
    for j, e in enumerate(state.edges):
        x = A[:, j]
        outside = (x < e[0]) | (x > e[-1])  # NaN (missing) compares False
        if outside.any():
            out[outside, j] = tail_costs(state, j, x[outside], None if ends is None else ends[j])
    return out


def row_terms(block, *params) -> np.ndarray:
    """Each cell's class-free term of an encoded Histogram block, (n, d): its bin's log width plus,
    beyond the range, its tail cost (:func:`cell_tail_costs`), with the end bins' ``n`` of the
    parameters ``params`` the likelihood is assembled with (:func:`end_counts`)."""
    return block.log_width + cell_tail_costs(block.state, block.X, end_counts(*params))


def bin_labels(edges: np.ndarray, integer: bool) -> list:
    """The interval of each bin as text: ``"[a, b)"`` (the last ``"[a, b]"``), or for an integer column
    the whole numbers it holds, ``"lo..hi"`` (``"v"`` for one)."""
    if integer:
        lo, hi = np.ceil(edges[:-1]).astype(np.int64), np.floor(edges[1:]).astype(np.int64)
        return [str(a) if a == b else f"{a}..{b}" for a, b in zip(lo, hi)]
    last = len(edges) - 2
    return [f"[{a:.6g}, {b:.6g}{']' if i == last else ')'}" for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))]


def bin_codes(A: np.ndarray, state: HistogramEncoding):
    """``(codes, log_width)``: each cell's bin (int64, -1 where missing) and ``log`` of that bin's width
    (0 where missing), both (n, d). A value outside the bins' range is put in the end bin; its tail cost is
    added where the likelihood is assembled (:func:`cell_tail_costs`), from the parameters' ``n``."""
    observed = ~np.isnan(A)
    codes = np.full(A.shape, -1, dtype=np.int64)
    lw = np.zeros(A.shape)
    for j, e in enumerate(state.edges):
        rows = observed[:, j]
        c = bin_of(e, A[rows, j])
        codes[rows, j] = c
        lw[rows, j] = np.log(np.diff(e))[c]
    return codes, lw


def draw_within(state: HistogramEncoding, j: int, b: np.ndarray, u: np.ndarray, counts=None) -> np.ndarray:
    """Values of column ``j`` drawn from the within-bin empirical distribution of bins ``b``.

    ``u`` holds Uniform(0, 1) numbers, one per draw. A column with no training value gives NaN.
    ``counts``: other weights of ``values[j]`` (:func:`range_fractions`' for draws within a range).
    """
    vals, off = state.values[j], state.offsets[j]
    cnt = state.counts[j] if counts is None else counts
    if vals.size == 0:
        return np.full(b.shape, np.nan)
    cum = np.concatenate([[0.0], np.cumsum(cnt)])
    start, stop = off[b], off[b + 1]
    target = cum[start] + u * (cum[stop] - cum[start])
    idx = np.searchsorted(cum, target, side="right") - 1
    return vals[np.clip(idx, start, stop - 1)]


def range_fractions(state: HistogramEncoding, j: int, lo, hi):
    """``(frac, counts)``: per bin of column ``j``, the share (B_j,) of its training cells whose value lies in
    ``[lo, hi]``, and the counts of ``values[j]`` with those outside set to 0 (what :func:`draw_within`
    draws from to stay inside); for bounds of shape (m,), (m, B_j) and (m, V_j)."""
    vals, cnt, off = state.values[j], state.counts[j], state.offsets[j]
    lo, hi = np.asarray(lo, dtype=float)[..., None], np.asarray(hi, dtype=float)[..., None]
    inside = np.where((vals >= lo) & (vals <= hi), cnt, 0.0)
    if vals.size == 0:
        return np.zeros(inside.shape[:-1] + (off.size - 1,)), inside
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.add.reduceat(inside, off[:-1], axis=-1) / np.add.reduceat(cnt, off[:-1])
    return np.where(np.diff(off) > 0, np.nan_to_num(frac), 0.0), inside


def within_means(state: HistogramEncoding, j: int) -> np.ndarray:
    """Empirical mean of each bin's training values, (B_j,) (NaN for a column with no value)."""
    vals, cnt, off = state.values[j], state.counts[j], state.offsets[j]
    if vals.size == 0:
        return np.full(off.size - 1, np.nan)
    return np.add.reduceat(vals * cnt, off[:-1]) / np.add.reduceat(cnt, off[:-1])


def within_modes(state: HistogramEncoding, j: int) -> np.ndarray:
    """Most frequent training value of each bin (the smallest among ties), (B_j,)."""
    vals, cnt, off = state.values[j], state.counts[j], state.offsets[j]
    if vals.size == 0:
        return np.full(off.size - 1, np.nan)
    return np.array([vals[off[b] + np.argmax(cnt[off[b]:off[b + 1]])] for b in range(off.size - 1)])


def _is_float_array(a, ndim):
    return isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == ndim and np.all(np.isfinite(a))


def check_state(state, d: int) -> list:
    """Raise TypeError/ValueError unless ``state`` is a :class:`HistogramEncoding` that
    :func:`build_state` could have made for ``d`` columns; the number of bins per column."""
    if not isinstance(state, HistogramEncoding):
        raise TypeError(f"its state must be a HistogramEncoding; the file holds {type(state).__name__}")
    if not all(isinstance(f, tuple) and len(f) == d for f in (state.edges, state.values, state.counts,
                                                              state.offsets)):
        raise ValueError(f"its state must hold edges, values, counts and offsets for {d} columns")
    if not isinstance(state.integer, np.ndarray) or state.integer.dtype != bool or state.integer.shape != (d,):
        raise ValueError(f"its state's integer flags must be a bool array of shape ({d},)")
    nbins = []
    for j, (e, v, c, o) in enumerate(zip(state.edges, state.values, state.counts, state.offsets)):
        ok = (_is_float_array(e, 1) and e.size >= 2 and np.all(np.diff(e) > 0)
              and _is_float_array(v, 1) and np.all(np.diff(v) > 0)
              and _is_float_array(c, 1) and c.shape == v.shape and np.all(c > 0)
              and isinstance(o, np.ndarray) and o.dtype == np.int64 and o.shape == e.shape
              and o[0] == 0 and o[-1] == v.size and np.all(np.diff(o) >= 0))
        if ok and v.size:
            ok = bool(np.all(np.diff(o) > 0) and np.array_equal(o[1:-1], np.searchsorted(v, e[1:-1])))
        if not ok:
            raise ValueError(f"its state's bins of column {j} are not those of a fitted histogram")
        nbins.append(e.size - 1)
    return nbins
