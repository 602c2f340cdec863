"""Review of the imputation-speed change (issue 27): the medians asked for a zero link's target keep the
link's source on its median, the structure draws' row hash spreads rows of whole numbers, and the
inverse-cdf draw from log-weights stays in range with a ``+inf`` weight."""

from __future__ import annotations

import numpy as np
import pandas as pd

import bayesnb.structure._logdraw as logdraw
from bayesnb import NaiveBayes


def _linked(n=400, seed=0):
    """``src``: 0 in about 80% of rows, else an amount (a point mass at 0, not coded); ``tgt``: a coded
    count (1 to 4), 0 wherever ``src`` is 0 (a zero link ``tgt`` <- ``src``); ``other``: noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    src = np.where(rng.random(n) < 0.8, 0.0, rng.gamma(2.0, 500.0, n).round() + 1)
    tgt = np.where(src == 0, 0.0, rng.integers(1, 5, n).astype(float))
    X = pd.DataFrame({"src": src, "tgt": tgt, "other": rng.normal(size=n) + y})
    return X, y, X.mask(rng.random(X.shape) < 0.3)


def test_a_wanted_link_target_is_zeroed_by_its_sources_median():
    X, y, Xm = _linked()
    model = NaiveBayes().fit(X, y)
    assert (1, 0) in model.zero_links_ and model.value_support_[0].masses.size and model.value_support_[1].values is not None
    miss = Xm.isna().to_numpy()
    opts = {"strategy": "auto", "n_imputations": 1, "random_state": 0, "parameter_uncertainty": True, "y": None,
            "n_components": 1, "latent": None}
    full = model._impute(Xm, **opts)
    only_tgt = miss & (np.arange(3) == 1)[None, :]  # the target's cells only (the source filled elsewhere)
    part = model._impute(Xm, **opts, median_cells=only_tgt)
    both = miss[:, 0] & miss[:, 1]
    assert both.sum() > 5 and np.all(full["src"].to_numpy()[both] == 0)  # the source's median: its mass
    # as without the mask: the target 0 where the source's median is 0 (before: the source's projected
    # mean, a few hundred, and the target its own projected mean)
    np.testing.assert_array_equal(part["tgt"].to_numpy(), full["tgt"].to_numpy())


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


def test_draw_windows_hold_at_most_a_chunk_of_distinct_rows(monkeypatch):
    from bayesnb.structure.row_groups import draw_windows

    n = 6000
    a, b = np.arange(n) % 60, (np.arange(n) // 60) % 50  # 3,000 distinct rows of whole numbers, each twice
    data = ([a.astype(float), b.astype(float)], np.zeros((n, 2), dtype=bool), np.zeros((n, 2), dtype=np.int64))
    pieces = draw_windows(data, np.zeros((n, 2)), 100, 100)
    assert sorted(np.concatenate(pieces).tolist()) == list(range(n))
    sizes = [len(set(zip(a[p].tolist(), b[p].tolist()))) for p in pieces]
    assert max(sizes) <= 100  # before: the multiply-sum hash joined rows' groups (114)


def test_impute_warnings_point_at_the_users_call():
    import warnings

    import bayesnb

    rng = np.random.default_rng(0)
    X = (rng.random((60, 3)) < 0.5).astype(float)
    X[:, 2] = 0
    y = rng.integers(0, 2, 60)
    Xm = X.copy()
    Xm[:5, 0], Xm[:5, 2] = np.nan, 1  # impossible under every class (alpha=0): ZeroProbabilityWarning
    model = bayesnb.BernoulliNB(alpha=0).fit(X, y)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        model.impute(Xm)
    assert rec and all(w.filename == __file__ for w in rec), [(w.filename, w.lineno) for w in rec]
    T = pd.DataFrame({"a": rng.normal(size=60), "b": pd.Series([None] * 60, dtype=object)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        naive = NaiveBayes().fit(T, y)  # "b" has no category: impute warns and leaves it missing
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        naive.impute(T.mask(rng.random(T.shape) < 0.2))
    assert rec and all(w.filename == __file__ for w in rec), [(w.filename, w.lineno) for w in rec]
