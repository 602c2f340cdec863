"""Declared equal-width bins for a private Synthesizer's numeric columns (docs/privacy.md, "Private synthetic data").

Under ``privacy=DP(...)`` a numeric column with ``DP(bounds={column: (lo, hi)})`` is, by default, cut into
equal-width bins over its declared bounds and modelled as a :class:`~bayesnb.Categorical` over the bin codes
``0 .. B - 1``; a drawn bin is decoded to a value uniform within it (a whole number within it for an
integer-dtype column), always inside the bounds. The edges come from the bounds, ``B`` and the column's
dtype, all public, so the fit's release is the Categorical's noisy counts and everything else is
post-processing. ``categories={column: "gaussian"}`` keeps the Gaussian for a column, and
``categories={column: B}`` (an int) sets its number of bins.

The default ``B`` (:func:`default_bins`) reads public quantities only: the number of rows ``n``, epsilon,
the number of declared classes ``K`` and of modelled columns ``d``. Each released count of a bin in a class
has Laplace noise of scale about ``d / epsilon`` (the budget split over the columns) and expects
``n / (K B)`` rows; with ``m = n epsilon / (K d)`` and ``B = sqrt(m)`` the expected count of a bin is
``sqrt(m)`` noise scales: the bins get finer exactly as fast as each bin's signal-to-noise ratio grows.
Under the Gaussian mechanism half the sd of a count of a ``1 / d`` share takes the place of ``d / epsilon``.
``B`` is kept within ``[MIN_BINS, MAX_BINS]`` (20, the number measured on census), and an integer column
never has more bins than whole numbers within its bounds (each bin holds a whole number of them).
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np
import pandas as pd

from ..privacy import Budget

__all__ = ["GAUSSIAN", "MAX_BINS", "MIN_BINS", "bin_bounds", "binned_columns", "decode", "default_bins", "edges_of", "encode",
           "range_codes"]

#: the ``categories`` value that keeps a private numeric column Gaussian
GAUSSIAN = "gaussian"
#: the most bins :func:`default_bins` gives (census, 20 bins: docs/privacy.md)
MAX_BINS = 20
#: the fewest bins :func:`default_bins` gives
MIN_BINS = 2


def default_bins(n_rows, epsilon, n_classes, n_columns, delta=0.0, mechanism="laplace"):
    """The default number of bins of a private numeric column: ``round(sqrt(n / (K c)))`` within
    ``[MIN_BINS, MAX_BINS]`` (module docstring), ``c`` half the noise scale of one released count
    when the budget is split over the ``d`` columns: ``d / epsilon`` under Laplace (so
    ``sqrt(n epsilon / (K d))``), half the sd of a ``1 / d`` Gaussian share (:meth:`bayesnb.privacy.Budget.split`).

    Parameters
    ----------
    n_rows : int
        Rows of the table.
    epsilon : float
        The privacy budget.
    n_classes : int
        Declared classes (1 without a target).
    n_columns : int
        Columns the model releases counts of.
    delta : float, default=0.0
    mechanism : {"laplace", "gaussian"}, default="laplace"
        As in :class:`bayesnb.DP`.

    Returns
    -------
    int
    """
    c = 0.5 * Budget(float(epsilon), float(delta), mechanism, None).count_scale(max(n_columns, 1))
    m = n_rows / (max(n_classes, 1) * c)
    return int(min(MAX_BINS, max(MIN_BINS, round(math.sqrt(max(m, 0.0))))))


def edges_of(bounds, n_bins, integer):
    """Equal-width edges over ``bounds``; for an integer column, half-integer edges each bin holding a
    whole number of the whole numbers within the bounds (at most one bin per whole number).

    Parameters
    ----------
    bounds : (float, float)
    n_bins : int
    integer : bool

    Returns
    -------
    ndarray
        ``n + 1`` increasing edges (``n <= n_bins``).
    """
    lo, hi = float(bounds[0]), float(bounds[1])
    if integer:
        first, last = math.ceil(lo), math.floor(hi)
        whole = last - first + 1
        cuts = np.unique(np.round(np.linspace(0, whole, min(int(n_bins), whole) + 1)))
        return first - 0.5 + cuts
    if hi <= lo:
        return np.array([lo, lo])
    return np.linspace(lo, hi, int(n_bins) + 1)


def labels_of(edges, integer):
    """The bins' labels, which hold their edges: ``"a..b"`` (the whole numbers ``a`` to ``b``) for an integer
    column, ``"[a, b)"`` (``repr`` of the floats, exact) otherwise; :func:`edges_from` reads them back."""
    if integer:
        return [f"{int(a + 0.5)}..{int(b - 0.5)}" for a, b in zip(edges[:-1], edges[1:])]
    return [f"[{float(a)!r}, {float(b)!r})" for a, b in zip(edges[:-1], edges[1:])]


_WHOLE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")
_REAL = re.compile(r"^\[([^,\s]+), ([^,\s]+)\)$")


def edges_from(labels):
    """``(edges, integer)`` from bins' labels (:func:`labels_of`), or None when ``labels`` are not such."""
    if not isinstance(labels, (list, tuple)) or not labels or not all(isinstance(v, str) for v in labels):
        return None
    for pattern, integer in ((_WHOLE, True), (_REAL, False)):
        found = [pattern.match(v) for v in labels]
        if all(found):
            try:
                pairs = np.array([[float(m.group(1)), float(m.group(2))] for m in found])
            except ValueError:
                return None
            if integer:
                pairs = pairs + np.array([-0.5, 0.5])
            if np.allclose(pairs[1:, 0], pairs[:-1, 1]) and (pairs[:, 1] >= pairs[:, 0]).all():
                return np.append(pairs[:, 0], pairs[-1, 1]), integer
    return None


def encode(values, edges, integer=False):
    """Bin codes (object array: the bins' labels, None where missing) of ``values``, clipped into the edges."""
    x = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    codes = np.clip(np.searchsorted(edges, np.clip(x, edges[0], edges[-1]), side="right") - 1, 0, len(edges) - 2)
    out = np.asarray(labels_of(edges, integer), dtype=object)[codes]
    out[np.isnan(x)] = None
    return out


def decode(codes, edges, integer, rng, within=None):
    """Values uniform within the bins ``codes`` (their labels; whole numbers for ``integer``), inside
    ``within=(lo, hi)`` where given (the part of each bin that overlaps it); NaN where a code is missing."""
    index = {v: float(i) for i, v in enumerate(labels_of(edges, integer))}
    c = np.array([index.get(v, np.nan) if isinstance(v, str) else np.nan for v in np.asarray(codes, dtype=object)])
    ok = ~np.isnan(c)
    k = np.where(ok, c, 0).astype(np.int64)
    left, right = edges[k], edges[k + 1]
    if within is not None:
        left, right = np.maximum(left, within[0]), np.minimum(right, within[1])
    u = rng.random(len(k))
    if integer:  # the whole numbers of bin k: edges[k] + 0.5 .. edges[k + 1] - 0.5
        first = np.maximum(np.ceil(left), edges[k] + 0.5)
        last = np.minimum(np.floor(right), edges[k + 1] - 0.5)
        vals = first + np.floor(u * (np.maximum(last, first) - first + 1))
    else:
        vals = left + u * (right - left)
    return np.where(ok, vals, np.nan)


def bin_bounds(edges, integer):
    """The declared bounds that ``edges`` were made over (an integer column's: its first and last whole numbers)."""
    return (int(edges[0] + 0.5), int(edges[-1] - 0.5)) if integer else (float(edges[0]), float(edges[-1]))


def binned_columns(model, dtypes):
    """``{column: (edges, integer)}`` of a fitted private model's binned numeric columns: its Categorical
    columns of numeric training dtype whose categories are bins' labels (empty for any other model)."""
    out = {}
    for names, fam in getattr(model, "blocks_", []) if getattr(model, "privacy", None) is not None else []:
        cats = getattr(fam, "categories", None)
        if not isinstance(cats, (list, tuple)):
            continue
        for name, cat in zip(names, cats):
            dtype = dtypes.get(name) if hasattr(dtypes, "get") else None
            found = edges_from(list(cat)) if dtype is not None and not isinstance(dtype, pd.CategoricalDtype) \
                and pd.api.types.is_numeric_dtype(dtype) else None
            if found is not None:
                out[name] = found
    return out


class BinSet(frozenset):
    """The bin codes a ``given`` value or range on a binned column allows, with the range itself
    (``.within``) that the drawn value is decoded inside."""

    def __new__(cls, codes, within):
        obj = super().__new__(cls, codes)
        obj.within = within
        return obj


class BinRows(list):
    """Per-row ``given`` values on a binned column as their bins' labels (None: the row is not conditioned),
    with ``.within`` the per-row ``(lo, hi)`` that each drawn value is decoded inside (the value itself)."""

    def __init__(self, codes, within):
        super().__init__(codes)
        self.within = within


def _per_row(c, v, edges, integer, who):
    """Per-row numbers (a 1-D array-like, NaN or None: not conditioned) as a :class:`BinRows`, else None."""
    if isinstance(v, (str, bytes, tuple, set, frozenset, dict)) or np.ndim(v) != 1:
        return None
    vals = list(v)
    if not all(u is None or (isinstance(u, numbers.Real) and not isinstance(u, bool)) for u in vals):
        return None
    x = np.array([np.nan if u is None else float(u) for u in vals])
    seen = x[~np.isnan(x)]
    half = 0.5 if integer else 0.0
    if ((seen < edges[0] + half) | (seen > edges[-1] - half)).any() or np.isinf(seen).any():
        raise ValueError(f"{who}: given[{c!r}] holds values outside the declared bounds [{edges[0] + half:g}, "
                         f"{edges[-1] - half:g}] of the private model (DP(bounds=...)), where it draws every value.")
    if integer and (seen != np.round(seen)).any():
        raise ValueError(f"{who}: given[{c!r}] holds values that are not whole numbers; the column's dtype is integer.")
    codes = encode(x, edges, integer)
    return BinRows([None if u is None else u for u in codes],
                   (np.where(np.isnan(x), -np.inf, x), np.where(np.isnan(x), np.inf, x)))


def range_codes(c, v, edges, integer, who, forbid=False):
    """A ``given`` (or ``forbid``) value or range on a binned column as the codes of the bins it overlaps.

    A ``given`` becomes a :class:`BinSet` (decoded within the range). A ``forbid`` range must cover whole
    bins (a part of a bin cannot be forbidden once the bin is drawn): otherwise ValueError.
    """
    rows = _per_row(c, v, edges, integer, who) if not forbid else None
    if rows is not None:
        return rows
    if isinstance(v, tuple) and len(v) == 2:
        lo = edges[0] if v[0] is None else float(v[0])
        hi = edges[-1] if v[1] is None else float(v[1])
    elif isinstance(v, numbers.Real) and not isinstance(v, bool):
        lo = hi = float(v)
    else:
        return v
    half = 0.5 if integer else 0.0
    if not (lo <= edges[-1] - half and hi >= edges[0] + half and lo <= hi):  # (NaN too)
        raise ValueError(f"{who}: {'forbid' if forbid else 'given'}[{c!r}] = {v!r} lies outside the declared bounds "
                         f"[{edges[0] + half:g}, {edges[-1] - half:g}] of the private model (DP(bounds=...)), "
                         "where it draws every value.")
    if integer:  # the whole numbers it holds
        lo, hi = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
        if lo > hi:
            raise ValueError(f"{who}: the range {v!r} on the integer column {c!r} holds no whole number; a private "
                             "model draws whole numbers (its dtype).")
    lo, hi = max(lo, edges[0] + half), min(hi, edges[-1] - half)
    inner = edges[1:-1]
    first = int(np.searchsorted(inner, lo, side="right"))
    last = int(np.searchsorted(inner, hi, side="right" if integer or hi == lo else "left"))
    labels = labels_of(edges, integer)
    codes = labels[first:last + 1]
    if forbid:
        covered = edges[first] + half >= lo and edges[last + 1] - half <= hi
        if not covered:
            raise ValueError(f"{who}: forbid range {v!r} on column {c!r} covers part of a bin of the private model "
                             f"(its bins' edges: {np.round(edges, 6).tolist()}); a binned column can forbid whole "
                             "bins only. Give a range between edges, or categories={column: 'gaussian'}.")
        return set(codes)
    return BinSet(codes, (lo, hi))
