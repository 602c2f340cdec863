"""Issue 31: a value beyond a numeric column's training range costs its improbability, under every
numeric family and every structure: the further beyond, the lower ``log p(x)`` of the row (the model's own
score: the detector's range tails are off here, ``tests/test_range_tails.py`` tests them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import Gaussian, Histogram, Hurdle, LogNormal, NaiveBayes, NBOutlierDetector, Poisson


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    return pd.DataFrame({
        "normal": 50 + 10 * base + rng.normal(scale=4, size=n),
        "skewed": np.exp(0.4 * base + rng.normal(scale=0.3, size=n)) * 20,
        "count": rng.poisson(np.exp(1.5 + 0.3 * base)).astype(float),
        "zeros": np.where(rng.random(n) < 0.3, 0.0, np.exp(rng.normal(1, 0.5, n))),
        "cat": np.where(base > 0, "a", "b"),
    })


def _beyond(det, X, column):
    """Scores of rows with ``column`` at its training maximum and 10%, 50% and 500% of the range above it
    (rounded up in a whole-number column, so that a count stays a count)."""
    lo, hi = X[column].min(), X[column].max()
    whole = bool(np.all(X[column] == np.round(X[column])))
    rows = X.iloc[:25]
    out = []
    for step in (0.0, 0.1, 0.5, 5.0):
        moved = rows.copy()
        value = hi + step * (hi - lo)
        moved[column] = np.ceil(value) if whole else value
        out.append(det.score_samples(moved))
    return out


FAMILIES = [("normal", Gaussian()), ("normal", Histogram()), ("skewed", LogNormal()), ("skewed", Histogram(bins=8)),
            ("count", Poisson()), ("count", Histogram()), ("zeros", Hurdle(LogNormal())), ("zeros", Histogram())]


@pytest.mark.parametrize("column, family", FAMILIES, ids=[f"{c}-{type(f).__name__}" for c, f in FAMILIES])
def test_every_numeric_family_scores_further_beyond_the_range_lower(column, family):
    X = _table()[[column]]
    det = NBOutlierDetector(NaiveBayes(features={(column,): family}), range_tails=False).fit(X)
    edge, near, mid, far = _beyond(det, X, column)
    assert np.all(near < edge) and np.all(mid < near) and np.all(far < mid - 5.0)


@pytest.mark.parametrize("structure", ["naive", "tan", "kdb"])
def test_every_structure_scores_further_beyond_the_range_lower(structure):
    """Under TAN / k-DB a numeric node's parent state is its quantile bin, where a value beyond the range
    falls into the end bin; the node's own family still charges the distance (its tail)."""
    X = _table(seed=1)
    det = NBOutlierDetector(NaiveBayes(structure=structure), range_tails=False).fit(X)
    for column in ("normal", "skewed", "count", "zeros"):
        edge, near, mid, far = _beyond(det, X, column)
        assert np.median(near - edge) < 0 and np.all(mid < near) and np.all(far < mid - 5.0), column


def test_histogram_tail_is_the_same_for_weights_and_repeated_rows():
    """The tail's scale and its share of the end bin come from the end bin's distinct values (as the
    edges do), so a row of weight w and the row repeated w times give the same scores beyond the range."""
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(40, 1)) * 3)
    sw = rng.integers(0, 4, 40)
    y = np.zeros(40, dtype=int)
    weighted = NaiveBayes(features={(0,): Histogram()}).fit(X, y, sample_weight=sw)
    repeated = NaiveBayes(features={(0,): Histogram()}).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    T = np.array([[X.max() + 2.0], [X.min() - 3.0], [X.max() + 40.0], [0.0]])
    np.testing.assert_allclose(weighted.score_samples(T), repeated.score_samples(T))
    assert weighted.score_samples(T)[2] < weighted.score_samples(T)[0] - 5.0


def test_histogram_tail_share_counts_tied_cells():
    """A whole-number column whose values are 2007, 2008 and 2009, a hundred rows each: by exchangeability
    a new cell exceeds the last bin's hundred cells with probability at most 1/101, so 2010 costs about
    log(101 * s / w) + t / s nats over 2009 (s = 0.5, w = 1, t = 0.5: about 4.9), not the 1 nat of a share
    taken from the bin's one distinct value. Under naive and under a structure alike."""
    rng = np.random.default_rng(0)
    year = np.repeat([2007.0, 2008.0, 2009.0], 100)
    X = pd.DataFrame({"year": year, "x": rng.normal(size=300)})
    for det in (NBOutlierDetector(NaiveBayes(), range_tails=False, statistic="density"),
                NBOutlierDetector(NaiveBayes(structure="tan"), range_tails=False, statistic="density")):
        det.fit(X)
        rows = X.iloc[200:210]  # year 2009
        gap = det.score_samples(rows) - det.score_samples(rows.assign(year=2010.0))
        np.testing.assert_allclose(gap, np.log(101 * 0.5) + 1.0, atol=0.05)
        far = det.score_samples(rows) - det.score_samples(rows.assign(year=2012.0))
        np.testing.assert_allclose(far - gap, 4.0, atol=0.05)  # two whole numbers further: t / s grows by 4
