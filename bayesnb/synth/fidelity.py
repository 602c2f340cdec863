"""SDMetrics-definition fidelity scores and support checks of :func:`bayesnb.synthetic_report`.

Pure functions on prepared columns (see :mod:`bayesnb.synth.metrics`: object arrays
with :data:`~bayesnb.synth.metrics.MISSING` for categoricals, float arrays with NaN
for numerics):

- column shapes: :func:`ks_complement` (numeric) and :func:`tv_complement` (categorical);
- column-pair trends: :func:`correlation_similarity` (numeric x numeric) and
  :func:`contingency_similarity` (any other pair, numerics cut by :func:`equal_width_codes`);
- :func:`missing_rate`, :func:`unseen_values` and :func:`unseen_pair_rows`.

The definitions are those of SDMetrics' ``QualityReport`` (DataCebo, SDMetrics
documentation, "Column Shapes" and "Column Pair Trends"; the metrics ``KSComplement``,
``TVComplement``, ``CorrelationSimilarity`` and ``ContingencySimilarity``).
"""

from __future__ import annotations

import numpy as np

from .metrics import MISSING, category_codes, edge_codes, ks_statistic, tvd

__all__ = [
    "TREND_BINS",
    "contingency_similarity",
    "correlation_similarity",
    "equal_width_codes",
    "ks_complement",
    "missing_rate",
    "pearson",
    "tv_complement",
    "unseen_pair_rows",
    "unseen_values",
]

#: equal-width bins of a numeric column in a mixed pair's contingency table (SDMetrics' QualityReport)
TREND_BINS = 10


def ks_complement(real, synthetic):
    """SDMetrics' KSComplement of a numeric column: ``1 - KS statistic`` of the observed values.

    Parameters
    ----------
    real, synthetic : ndarray of float
        The column in each table (NaN for missing cells, which are left out).

    Returns
    -------
    float
        1 when the empirical CDFs coincide, 0 when they do not overlap.
    """
    return 1.0 - ks_statistic(real, synthetic)


def tv_complement(real, synthetic):
    """SDMetrics' TVComplement of a categorical column: ``1 - TVD`` of the frequencies.

    Parameters
    ----------
    real, synthetic : ndarray of object
        The column in each table (missing cells are the category ``MISSING``).

    Returns
    -------
    float
        ``1 - 0.5 * sum_v |p_real(v) - p_synth(v)|``.
    """
    return 1.0 - tvd(real, synthetic)


def pearson(x, y):
    """Pearson's r of two float arrays over the rows where both are observed.

    Returns NaN when fewer than two such rows remain or either is constant on them
    (r is undefined; no warning is raised).
    """
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size < 2:
        return np.nan
    x, y = x - x.mean(), y - y.mean()
    sx, sy = np.sqrt((x * x).sum()), np.sqrt((y * y).sum())
    if sx == 0 or sy == 0:
        return np.nan
    return float(np.clip((x * y).sum() / (sx * sy), -1.0, 1.0))


def correlation_similarity(real_x, real_y, synthetic_x, synthetic_y):
    """SDMetrics' CorrelationSimilarity of two numeric columns: ``1 - |r_real - r_synth| / 2``.

    Parameters
    ----------
    real_x, real_y, synthetic_x, synthetic_y : ndarray of float
        The two columns in each table; a row missing either value is dropped (pairwise).

    Returns
    -------
    float
        In [0, 1], 1 when the Pearson correlations agree; NaN when either is undefined
        (see :func:`pearson`).
    """
    r, s = pearson(real_x, real_y), pearson(synthetic_x, synthetic_y)
    return float(1.0 - abs(r - s) / 2.0) if np.isfinite(r) and np.isfinite(s) else np.nan


def equal_width_codes(real, synthetic, bins=TREND_BINS):
    """Cut a numeric column into ``bins`` equal-width bins of its real observed range.

    As SDMetrics' ``ContingencySimilarity`` with ``continuous_column_names``: the edges are
    ``numpy.histogram_bin_edges`` of the real observed values, for both tables, the outer two
    open (a synthetic value beyond the real range falls into an end bin), and a missing cell
    is a bin of its own. (SDMetrics' ``QualityReport`` cuts each table at its own range.)

    Returns
    -------
    real_codes, synthetic_codes : ndarray of int
    """
    observed = real[~np.isnan(real)]
    edges = np.histogram_bin_edges(observed if observed.size else np.zeros(1), bins=bins)[1:-1]
    return edge_codes(edges, real, synthetic)


def contingency_similarity(real_a, real_b, synthetic_a, synthetic_b):
    """SDMetrics' ContingencySimilarity of two coded columns: ``1 - TVD`` of the two-way tables.

    Parameters
    ----------
    real_a, real_b, synthetic_a, synthetic_b : ndarray of int
        The two columns' codes in each table, shared between the tables (categories
        from :func:`~bayesnb.synth.metrics.category_codes`, numerics from
        :func:`equal_width_codes`).

    Returns
    -------
    float
        ``1 - 0.5 * sum_(u, v) |p_real(u, v) - p_synth(u, v)|`` over the cells of either table.
    """
    width = int(max(real_b.max(), synthetic_b.max())) + 1
    return 1.0 - tvd(real_a * width + real_b, synthetic_a * width + synthetic_b)  # pairs as one code


def missing_rate(x):
    """Share of missing cells of a prepared column (NaN, or the category ``MISSING``)."""
    return float(np.mean(x == MISSING)) if x.dtype == object else float(np.mean(np.isnan(x)))


def unseen_values(real, synthetic):
    """Number of synthetic cells of a categorical column holding a value the real column never has.

    Missing cells are not counted (their rate is compared by :func:`missing_rate`).
    """
    (r, s), _ = category_codes(real, synthetic)
    return int(np.sum(~np.isin(s, r) & (synthetic != MISSING)))


def unseen_pair_rows(columns):
    """Which synthetic rows hold a pair of categories that no real row holds.

    Parameters
    ----------
    columns : dict
        ``{name: (real, synthetic)}`` of categorical columns (object arrays; a missing
        cell is the category ``MISSING``, so a pair with a missing cell counts too).

    Returns
    -------
    dict
        ``{(a, b): bool array over the synthetic rows}`` for every pair of columns ``a``
        before ``b``; a row is True when its ``(a, b)`` values never occur together in
        the real table.
    """
    names = list(columns)
    coded = {}
    for name in names:
        (r, s), k = category_codes(*columns[name])
        coded[name] = (r.astype(np.int64), s.astype(np.int64), k)
    out = {}
    for i, a in enumerate(names):
        ra, sa, _ = coded[a]
        for b in names[i + 1:]:
            rb, sb, kb = coded[b]
            out[(a, b)] = ~np.isin(sa * kb + sb, ra * kb + rb)
    return out
