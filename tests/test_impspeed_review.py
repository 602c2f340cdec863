"""Review of the imputation-speed change (issue 27): the structure draws' row hash spreads rows of whole
numbers, and the inverse-cdf draw from log-weights stays in range with a ``+inf`` weight."""

from __future__ import annotations

import numpy as np

import bayesnb.structure._logdraw as logdraw


def test_row_hash_spreads_rows_of_whole_numbers():
    rng = np.random.default_rng(0)
    key = np.column_stack([rng.integers(0, 2, (20000, 10)), rng.integers(0, 5, (20000, 8)),
                           np.full((20000, 2), -np.finfo(float).max)]).astype(float)
    n = len(np.unique(key, axis=0))
    bits = np.ascontiguousarray(key).view(np.uint64)
    assert len(np.unique(logdraw._row_hash(bits))) == n  # no collision: no fallback to np.unique(axis=0)


def test_draw_log_with_infinite_weights_stays_in_range():
    inf = np.inf
    lp = np.array([[0.0, inf, 0.0], [inf, 0.0, inf], [inf, 0.0, inf], [-inf, -inf, -inf], [0.0, np.nan, 0.0]])
    got = logdraw.draw_log(lp, np.array([0.5, 0.2, 0.9, 0.5, 0.5]))
    assert list(got[:3]) == [1, 0, 2]  # among the +inf categories
    assert np.all((got >= 0) & (got < 3))
