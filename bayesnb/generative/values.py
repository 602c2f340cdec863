"""The values a numeric column takes, recorded at fit, and imputations kept on them.

A fitted model remembers, per numeric column of its (dense) training table, a
:class:`ColumnSupport`: the set of values the column takes when it is small (a *coded* column:
at most :data:`MAX_CODES` distinct observed values, e.g. a 7-code income scale), else its
*point masses* (values holding at least :data:`POINT_MASS_SHARE` of the observed cells, at most
:data:`MAX_MASSES` of them, e.g. the zeros of a debt column) and the range of its other values,
and whether every observed value is a whole number. Its *support* is then the value set, or the
masses together with the range of the other values (whole numbers only, in a whole-number column).

Imputation keeps every filled cell on that support (:func:`keep_cells`), by the rules below. ``x``
is the missing cell, ``x_obs`` the row's observed cells (and label), ``S`` the column's support:

- ``strategy="auto"`` (the default), coded and whole-number columns (but the median-filled ones
  below): the point of ``S`` nearest the conditional mean ``mu = E[x | x_obs]``. This is the Bayes
  action for squared loss *restricted to the values the column takes*:
  ``E[(a - x)^2 | x_obs] = (a - mu)^2 + Var(x | x_obs)``, so among the points ``a`` of ``S`` the
  nearest to ``mu`` has the least expected loss.
- ``strategy="auto"``, columns whose point masses hold at least :data:`MEDIAN_MASS_SHARE` (half) of
  the observed cells, and coded columns of more than two values whose most frequent value holds that
  share (:func:`median_filled`): the conditional *median* (the Bayes action for
  absolute loss), estimated from :data:`MEDIAN_DRAWS` plug-in draws of ``p(x | x_obs)`` (an odd
  number: the median is one of the draws, so a value of the support) from a fixed random stream
  (:data:`MEDIAN_SEED`), so that the fill is the same on every call. A mixture of a mass and a
  continuous part has a mean that is neither (82% zeros and amounts in the thousands give a mean
  of a few hundred, a debt no row has); its median is the mass whenever the mass holds at least
  half of the conditional probability, and an amount otherwise.
- ``strategy="auto"``, the other columns with a point mass (mostly amounts, with some cells heaped
  on a value: 10% zeros in a years-employed column, 47% of the census rows at 40 hours a week):
  the point of ``S`` nearest the conditional mean, as for the columns without one. Such a column's
  marginal median is an amount, its conditional mean lies among its amounts wherever the mass is not
  nearly certain, and the median there gave up squared error for nothing the column needs
  (docs/benchmarks.md, "The median only where the masses hold half the column").
- ``"mode"`` and ``"draw"``: each value moved to the nearest point of ``S``. For a mode this is a
  no-op on families with discrete values; for a draw from a continuous family of a coded column it
  is a draw from the predictive *discretised* onto the codes (each code carries the predictive
  mass of the values nearest to it), so multiple imputations draw only values the column takes.
- ``"mean"``: unchanged, the conditional mean as asked (a probability in a 0/1 column).

A model fitted under ``privacy=`` records nothing (an exact value set would be released
unprotected), nor does one fitted on sparse or Dask data, nor one read from a model file written
before these records existed: their imputations are as before. :func:`bayesnb.impute_table`
keeps the cells of every configuration on the supports of the table it imputes.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._utils import all_finite, is_frame, take_rows
from ._column_scan import scan_columns, scannable
from .tables import write_cells
from .zero_links import keep_zero_links, numeric_columns, record_zero_links

__all__ = ["MAX_CODES", "MAX_MASSES", "MEDIAN_DRAWS", "MEDIAN_MASS_SHARE", "MEDIAN_SEED", "POINT_MASS_SHARE",
           "ColumnSupport", "column_supports", "complete", "forget_supports", "keep_cells", "median_draws",
           "median_filled", "merge_supports", "project", "record_supports"]

#: a numeric column with at most this many distinct observed values is coded: its imputations are among them
MAX_CODES = 20
#: a value holding at least this share of a column's observed cells is a point mass of the column
POINT_MASS_SHARE = 0.1
#: at most this many point masses per column (the heaviest)
MAX_MASSES = 3
#: plug-in draws per missing cell behind the conditional median of a median-filled column (:func:`median_filled`)
MEDIAN_DRAWS = 101
#: the seed of those draws (a fixed stream: the median fill is the same on every call)
MEDIAN_SEED = 0
#: a column whose point masses (or, coded with more than two values, whose most frequent value) hold at least
#: this share of its cells is filled by its conditional median
MEDIAN_MASS_SHARE = 0.5


class ColumnSupport(NamedTuple):
    """The values one numeric column takes (see the module docstring).

    Attributes
    ----------
    values : ndarray of shape (V,) or None
        The sorted distinct observed values of a coded column (``V <= MAX_CODES``); None otherwise.
    counts : ndarray of shape (V,) or (M,)
        Summed weight of the observed cells holding each of ``values`` (coded) or of ``masses``.
    masses : ndarray of shape (M,)
        The point masses of a column that is not coded (empty for a coded one).
    lo, hi : float
        The range of the observed values that are not masses (of all of them when coded).
    integer : bool
        Whether every observed value is a whole number.
    n : float
        Summed weight of the observed cells.
    """

    values: np.ndarray | None
    counts: np.ndarray
    masses: np.ndarray
    lo: float
    hi: float
    integer: bool
    n: float


#: cells of a column read first: more than MAX_CODES distinct values among them rule a value set out
_PROBE = 1024


def _heaviest(counts, n):
    """Indices (ascending) of the at most :data:`MAX_MASSES` heaviest of ``counts`` holding at least
    :data:`POINT_MASS_SHARE` of ``n`` (ties: the lower index first)."""
    heavy = np.flatnonzero(counts >= POINT_MASS_SHARE * n)
    return np.sort(heavy[np.argsort(-counts[heavy], kind="stable")][:MAX_MASSES])


def _support_of(x, w=None):
    """The :class:`ColumnSupport` of the observed (finite) values ``x`` with row weights ``w`` (None: 1
    each), or None when there are none. A value's count is its rows' summed weight (an integer weight
    is that many copies of the row), so the point masses are shares of the column's weight."""
    ok = None if all_finite(x) else np.isfinite(x)  # (one sum where every value is finite: no mask, no copy)
    if ok is not None:
        if not ok.any():
            return None
        x = x[ok]
    if not x.size:
        return None
    if w is None and np.unique(x[:_PROBE]).size > MAX_CODES:
        return _uncoded_support(x)
    if w is None:
        vals, counts = np.unique(x, return_counts=True)
    else:
        vals, inv = np.unique(x, return_inverse=True)
        counts = np.bincount(inv.ravel(), weights=np.asarray(w, dtype=float)[ok] if ok is not None
                             else np.asarray(w, dtype=float), minlength=vals.size)
    return _from_counts(vals, counts)


def _from_counts(vals, counts):
    """The :class:`ColumnSupport` of a column's sorted distinct finite values ``vals`` (float64) held by ``counts`` cells."""
    n, integer = counts.sum(), _integers(vals)
    if vals.size <= MAX_CODES:
        return ColumnSupport(vals, counts, np.zeros(0), float(vals[0]), float(vals[-1]), integer, n)
    heavy = _heaviest(counts, n)
    rest = np.delete(vals, heavy)
    return ColumnSupport(None, counts[heavy], vals[heavy], float(rest[0]), float(rest[-1]), integer, n)


def _integers(x):
    """Whether every value of ``x`` is a whole number."""
    return bool(np.all(x == np.round(x)))


def _uncoded_support(x):
    """:func:`_support_of` of unweighted observed values ``x`` known to hold more than :data:`MAX_CODES`
    distinct values, without counting every distinct value (this runs in every fit).

    A value holding at least :data:`POINT_MASS_SHARE` of the cells fills a run at least that long of the
    sorted column, so it is one of the values at ``ceil(1 / POINT_MASS_SHARE) + 1`` evenly spaced ranks
    (spaced at most that run's length apart); only those are counted (two binary searches each).
    """
    s = np.sort(x)
    n = np.int64(s.size)
    kth = np.round(np.linspace(0, s.size - 1, int(np.ceil(1 / POINT_MASS_SHARE)) + 1)).astype(np.intp)
    cand = np.unique(s[kth])
    counts = (np.searchsorted(s, cand, side="right") - np.searchsorted(s, cand, side="left")).astype(np.int64)
    heavy = _heaviest(counts, n)
    masses = cand[heavy]
    rest = s[~np.isin(s, masses)] if masses.size else s
    integer = _integers(s[:_PROBE]) and _integers(s)  # (most columns of reals fail on their first values)
    return ColumnSupport(None, counts[heavy], masses, float(rest[0]), float(rest[-1]), integer, n)


def table_array(X):
    """``X``'s cells as one 2-D array of a type :func:`~._column_scan.scan_columns` reads, never a copy.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
        A dense training table.

    Returns
    -------
    ndarray of shape (n_samples, n_features) or None
        The array itself, or the values of a DataFrame held in one block of one NumPy dtype (a
        view); None for any other table (its columns are then read one at a time).
    """
    if is_frame(X):
        kinds = set(X.dtypes)
        only = kinds.pop() if len(kinds) == 1 else None
        one_block = getattr(getattr(X, "_mgr", None), "nblocks", 0) == 1  # to_numpy() then copies nothing
        X = X.to_numpy() if one_block and isinstance(only, np.dtype) and scannable(only) else None
    return X if isinstance(X, np.ndarray) and X.ndim == 2 and scannable(X.dtype) else None


def _scanned(s, j):
    """The record of column ``j`` from the :class:`~._column_scan.ColumnScan` ``s`` when the scan decides it (a
    column of more than :data:`MAX_CODES` values whose fullest hash bucket holds under :data:`POINT_MASS_SHARE`
    of its cells: no point mass), else None."""
    if not s.many[j] or not s.fullest[j] < POINT_MASS_SHARE * s.n[j]:
        return None
    return ColumnSupport(None, np.zeros(0, dtype=np.int64), np.zeros(0), float(s.lo[j]), float(s.hi[j]),
                         bool(s.integer[j]), np.int64(s.n[j]))


def column_supports(X, sample_weight=None, skip=(), scan=None):
    """``{column position: ColumnSupport}`` of the numeric columns of a dense training table.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
        The validated training rows (missing cells NaN/None/``pd.NA``). Boolean and non-numeric
        columns have no record (their imputations are among their categories already); an object
        array's columns have one where every cell is a number or missing.
    sample_weight : ndarray of shape (n_samples,), optional
        Row weights: a value's count is its rows' summed weight (None: one per row).
    skip : collection of int, optional
        Column positions to leave out (not read).
    scan : ColumnScan, optional
        :func:`~._column_scan.scan_columns` of :func:`table_array` ``(X)``, when made already.

    Returns
    -------
    dict
        Columns with no observed value are left out.
    """
    out = {}
    if sample_weight is not None and np.all(sample_weight == 1):
        sample_weight = None  # plain counts
    if scan is None and sample_weight is None and (A := table_array(X)) is not None:
        scan = scan_columns(A, MAX_CODES)  # the table read once, every column at a time
    pos, get = numeric_columns(X)
    for j in pos:
        if j in skip:
            continue
        s = None
        if scan is not None and sample_weight is None:
            s = _from_counts(*scan.counted[j]) if j in scan.counted else _scanned(scan, j)
        if s is None:  # a coded column, or one with a point mass: its values counted
            s = _support_of(get(j), sample_weight)
        if s is not None:
            out[int(j)] = s
    return out


def merge_supports(a, b):
    """The records of two batches' rows together (``partial_fit``): ``a`` and ``b`` as from :func:`column_supports`.

    Value sets are merged exactly while the union stays coded; past :data:`MAX_CODES` values, the
    masses kept are the recorded ones (masses or codes of either batch) whose combined share reaches
    :data:`POINT_MASS_SHARE` (a value heavy only in the two batches together, and recorded in
    neither, is missed). A column recorded in one batch only keeps that record.
    """
    out = dict(a)
    for j, s in b.items():
        r = out.get(j)
        if r is None:
            out[j] = s
            continue
        n = r.n + s.n
        va, vb = (r.values if r.values is not None else r.masses), (s.values if s.values is not None else s.masses)
        vals = np.union1d(va, vb)
        counts = np.zeros(vals.size)
        counts[np.searchsorted(vals, va)] += r.counts
        counts[np.searchsorted(vals, vb)] += s.counts
        lo, hi, integer = min(r.lo, s.lo), max(r.hi, s.hi), r.integer and s.integer
        if r.values is not None and s.values is not None and vals.size <= MAX_CODES:
            out[j] = ColumnSupport(vals, counts, np.zeros(0), lo, hi, integer, n)
            continue
        heavy = _heaviest(counts, n)
        rest = np.delete(vals, heavy)
        if rest.size:
            lo, hi = min(lo, float(rest.min())), max(hi, float(rest.max()))
        out[j] = ColumnSupport(None, counts[heavy], vals[heavy], lo, hi, integer, n)
    return out


def project(values, support):
    """Each of ``values`` moved to the nearest point of the column's support (ties: the lower point).

    Parameters
    ----------
    values : array-like of float, shape (m,)
    support : ColumnSupport

    Returns
    -------
    ndarray of float, shape (m,)
        A new array; NaN stays NaN.
    """
    v = np.asarray(values, dtype=float)
    if support.values is not None:
        pts = support.values
    else:
        inner = np.clip(v, support.lo, support.hi)
        if support.integer:  # a whole number inside the range (lo and hi are whole numbers then)
            inner = np.clip(np.round(inner), support.lo, support.hi)
        if support.masses.size == 0:
            return np.where(np.isnan(v), np.nan, inner)
        cand = np.column_stack([inner, np.broadcast_to(support.masses, (v.size, support.masses.size))])
        best = np.abs(cand - v[:, None]).argmin(axis=1)  # the first of equals: the range's point
        return np.where(np.isnan(v), np.nan, cand[np.arange(v.size), best])
    i = np.clip(np.searchsorted(pts, v), 1, max(pts.size - 1, 1))
    lower, upper = pts[i - 1], pts[np.minimum(i, pts.size - 1)]
    out = np.where(np.abs(v - lower) <= np.abs(upper - v), lower, upper)
    return np.where(np.isnan(v), np.nan, out)


def median_filled(support):
    """Whether a column's ``"auto"`` fill is its conditional median (see the module docstring).

    Parameters
    ----------
    support : ColumnSupport or None
        The column's record (None: a column without one, e.g. categorical).

    Returns
    -------
    bool
        True when the column has point masses and they hold at least :data:`MEDIAN_MASS_SHARE` of its
        observed cells (by weight), or when it is coded with more than two values and its most frequent
        value holds that share (a count column that is 97% zeros, where the code nearest the mean is
        a count few rows have). With two values the median is the value nearest the mean already.
        Only the recorded masses count (at most :data:`MAX_MASSES`), and after :func:`merge_supports` a
        mass heavy in one batch only is not counted in the other: near the threshold the share is a lower
        bound, which can only turn a median fill into a mean one.
    """
    if support is None:
        return False
    if support.values is not None:
        return support.values.size > 2 and float(support.counts.max()) >= MEDIAN_MASS_SHARE * support.n
    return support.masses.size > 0 and float(support.counts.sum()) >= MEDIAN_MASS_SHARE * support.n


def _median_columns(cells, supports):
    """Columns of ``cells`` whose "auto" fill is the conditional median (:func:`median_filled`)."""
    cols = set()
    for _, c, vals in cells:
        if np.asarray(vals).dtype.kind in "biuf":
            cols |= {int(j) for j in np.unique(c) if median_filled(supports.get(int(j)))}
    return cols


def keep_cells(cells, supports, strategy, draws=None, median_cells=None):
    """Imputed cells kept on their columns' supports (see the module docstring).

    Parameters
    ----------
    cells : list of (rows, cols, values)
        One completed table's filled cells, as :func:`~bayesnb.generative.functions.impute_cells` gives them.
    supports : dict or None
        ``{column position: ColumnSupport}`` (the model's ``value_support_``); None: ``cells`` unchanged.
    strategy : {"auto", "mode", "mean", "draw"}
    draws : callable, optional
        ``draws(rows, S)``: ``S`` plug-in draws of those rows' missing cells from ``p(x_miss | x_obs)``,
        a float array of shape (S, len(rows), n_features) (:func:`median_draws`); needed for the
        conditional median of a :func:`median_filled` column under ``"auto"``.
    median_cells : ndarray of bool of shape (n_samples, n_features), optional
        The cells whose conditional median is wanted (None: every imputed cell of a :func:`median_filled`
        column); the other cells of those columns are moved onto the column's values like any numeric
        fill, and no row is drawn for them. :class:`~bayesnb.Imputer` passes the cells it will use
        (the hidden cells it scores; the columns a configuration fills): the draws for the medians
        are most of a fill's cost.

    Returns
    -------
    list of (rows, cols, values)
        New arrays where a value changed; categorical (object) values are left as they are.
    """
    if not supports or strategy == "mean":
        return cells
    medians = _median_columns(cells, supports) if strategy == "auto" and draws is not None else set()
    mask = None if median_cells is None else np.asarray(median_cells, dtype=bool)

    def wanted(rows, cols):  # cells of a median column whose median is wanted
        sel = np.isin(cols, list(medians))
        return sel if mask is None else sel & mask[rows, cols]

    if medians:
        need = np.unique(np.concatenate([r[wanted(r, c)] for r, c, _ in cells]))
        medians = medians if need.size else set()
        drawn = draws(need, MEDIAN_DRAWS) if need.size else None
    out = []
    for rows, cols, vals in cells:
        if np.asarray(vals).dtype.kind not in "biuf":
            out.append((rows, cols, vals))
            continue
        vals = np.asarray(vals, dtype=float).copy()
        want = wanted(rows, cols) if medians else None  # once per block, not once per column
        for j in np.unique(cols):
            s = supports.get(int(j))
            if s is None:
                continue
            sel = cols == j
            med = sel & want if int(j) in medians else np.zeros_like(sel)
            if med.any():
                stack = drawn[:, np.searchsorted(need, rows[med]), int(j)]  # (S, m)
                vals[med] = np.median(project(stack.ravel(), s).reshape(stack.shape), axis=0)
            rest = sel & ~med
            if rest.any():
                vals[rest] = project(vals[rest], s)
        out.append((rows, cols, vals))
    return out


def median_draws(model, X, y=None, latent=None):
    """The ``draws`` of :func:`keep_cells` for a fitted model: ``model.impute(..., strategy="draw")`` of
    the rows repeated ``S`` times, at the plug-in parameters, in one call, from the random stream of
    :data:`MEDIAN_SEED`: a fixed one, so that the medians, like the other point fills, do not change
    from call to call (they estimate a fixed quantity; ``impute``'s ``random_state`` is for its draws).

    Parameters
    ----------
    model : BaseNB
        The fitted estimator imputing ``X``.
    X : ndarray or DataFrame
        The validated rows being imputed.
    y : label or array-like, optional
        Their known labels, as given to ``impute``.
    latent : LatentClassFit, optional
        The latent-class model in use.

    Returns
    -------
    callable
    """
    def draws(rows, S):
        idx = np.tile(np.asarray(rows, dtype=np.int64), S)
        ys = np.asarray(y)[idx] if y is not None and np.ndim(y) > 0 else y
        with warnings.catch_warnings(action="ignore"):  # the fill's own call has given them
            out = model.impute(take_rows(X, idx), strategy="draw", parameter_uncertainty=False,
                               random_state=MEDIAN_SEED, y=ys, latent=latent)
        A = np.full((idx.size, int(model.n_features_in_)), np.nan)
        for j in range(A.shape[1]):
            col = out.iloc[:, j] if hasattr(out, "iloc") else np.asarray(out)[:, j]
            try:
                A[:, j] = np.asarray(col, dtype=float)
            except (TypeError, ValueError):  # a categorical column: no median taken there
                pass
        return A.reshape(S, len(rows), -1)
    return draws


def record_supports(est, X, partial, sample_weight=None):
    """Set (or, ``partial``, extend) ``est.value_support_`` from the training rows ``X`` (see the module docstring).

    Nothing is recorded, and an earlier record is forgotten, for a private fit (``est.privacy``
    set) and for sparse rows; the columns of a block drawn jointly (a family with ``joint_columns``,
    e.g. Multinomial counts, whose row total a moved value would change) and of a block whose values are
    decoded codes (``raw_values``, e.g. Categorical: its fills are its categories) have no record; a
    ``partial_fit`` batch extends the record with :func:`merge_supports`.
    """
    if getattr(est, "privacy", None) is not None or sp.issparse(X):
        forget_supports(est)
        return
    # no record for a block drawn as one row, nor for one whose values are decoded codes (its fills
    # are among its categories already)
    skip = {int(c) for cols, fam in est._specs if fam.joint_columns or fam.raw_values for c in cols}
    A = table_array(X)
    scan = scan_columns(A, MAX_CODES, skip) if A is not None else None  # one read of the table for both records
    # a column 0 wherever another is 0 (a DataFrame read through its one array: no pandas indexing per read)
    record_zero_links(est, X if A is None else A, partial, None if scan is None else scan.zeros)
    if partial and not hasattr(est, "value_support_"):  # fitted without a record (privately, sparse, an old file)
        return
    new = column_supports(X, sample_weight, skip, scan)
    if partial:
        new = merge_supports(est.value_support_, new)
    est.value_support_ = new


def _imputed_mask(cells, X):
    """Bool (n, d): the cells ``cells`` fill, the missing cells of ``X`` as its encoding found them (each
    block's ``missing`` mask, carried by :func:`~bayesnb.generative.functions.impute_cells`); None for
    sparse ``X``."""
    if sp.issparse(X):
        return None
    miss = np.zeros(np.shape(X), dtype=bool)
    for rows, cols, _ in cells:
        miss[rows, cols] = True
    return miss


def _link_sources(median_cells, miss, links):
    """``median_cells`` with, for every zero link ``(target, source)``, the missing source cell (``miss``)
    of each row whose target cell is in it (repeated along chains of links): the link zeroes a wanted
    target by its source's fill, which must then be the source's median, as without a mask."""
    if median_cells is None or not links:
        return median_cells
    out = np.array(median_cells, dtype=bool)
    if miss is None or miss.shape != out.shape:
        return out
    grew = True
    while grew:
        grew = False
        for t, s in links:
            add = out[:, t] & miss[:, s] & ~out[:, s]
            if add.any():
                out[:, s] |= add
                grew = True
    return out


def complete(model, X, cells, strategy, draws=None, median_cells=None):
    """A completed copy of ``X``: ``cells`` kept on their columns' values (:func:`keep_cells`, with
    ``median_cells`` and the zero links' sources of its cells), written in
    (:func:`~bayesnb.generative.tables.write_cells`), then the model's zero links kept
    (:func:`~bayesnb.generative.zero_links.keep_zero_links`). ``model`` a fitted estimator (its
    ``value_support_`` and ``zero_links_``, where it has them)."""
    links = getattr(model, "zero_links_", None)
    miss = _imputed_mask(cells, X) if links else None
    table = write_cells(X, keep_cells(cells, getattr(model, "value_support_", None), strategy, draws,
                                      _link_sources(median_cells, miss, links)))
    return keep_zero_links(table, X, links, miss)


def forget_supports(est):
    """Drop ``est``'s records of its columns' values and zero links (a fit they cannot follow)."""
    est.__dict__.pop("value_support_", None)
    est.__dict__.pop("zero_links_", None)
