"""Real-valued input is read in the layout it comes in: every layout gives the same model, none is copied.

C-ordered, Fortran-ordered, unaligned, DataFrame and float32 inputs of the same values must give
identical posteriors and predictions, and a fit never copies a float input whole (to change its
layout or its dtype).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from bayesnb import Gaussian, GaussianNB, NaiveBayes, Poisson
from bayesnb.families.numeric import float_array


def _unaligned(A):
    """A copy of ``A`` whose data start one byte past an aligned address (as a Dask partition may)."""
    raw = np.empty(A.nbytes + 1, dtype=np.uint8)
    out = raw[1:].view(A.dtype).reshape(A.shape)
    out[...] = A
    assert not out.flags.aligned
    return out


def _data(n=600, d=5, K=3, seed=0, missing=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    # float32 values, so that the float64 array and the float32 array hold the same numbers
    X = (rng.normal(size=(n, d)) * 3 + y[:, None] * 1.5 + 100).astype(np.float32)
    if missing:
        X[rng.random((n, d)) < 0.1] = np.nan
    return X.astype(np.float64), X, y


def _layouts(X64, X32):
    return {
        "fortran": np.asfortranarray(X64),
        "unaligned": _unaligned(X64),
        "frame": pd.DataFrame(X64, columns=[f"x{j}" for j in range(X64.shape[1])]),
        "float32": X32,
        "float32_fortran": np.asfortranarray(X32),
        "frame_float32": pd.DataFrame(X32, columns=[f"x{j}" for j in range(X64.shape[1])]),
        "frame_columns": pd.DataFrame({f"x{j}": X64[:, j] for j in range(X64.shape[1])}),
    }


@pytest.mark.filterwarnings("ignore:X has feature names")
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("layout", ["fortran", "unaligned", "frame", "float32", "float32_fortran",
                                    "frame_float32", "frame_columns"])
def test_gaussian_nb_identical_for_every_layout(layout, missing):
    X64, X32, y = _data(missing=missing)
    ref = GaussianNB().fit(X64, y)
    other = _layouts(X64, X32)[layout]
    est = GaussianNB().fit(other, y)
    np.testing.assert_array_equal(est.theta_, ref.theta_)
    np.testing.assert_array_equal(est.var_, ref.var_)
    np.testing.assert_allclose(est.predict_proba(other), ref.predict_proba(X64), rtol=1e-12, atol=0)
    np.testing.assert_array_equal(est.predict(other), ref.predict(X64))
    # a model fitted on one layout predicts any other identically
    np.testing.assert_allclose(ref.predict_log_proba(other), ref.predict_log_proba(X64), rtol=1e-12, atol=0)


@pytest.mark.parametrize("predictive", ["mean", "marginal"])
def test_mixed_naive_bayes_identical_for_a_frame_and_an_array(predictive):
    X64, _, y = _data(d=6)
    X64[:, 4:] = np.round(np.abs(X64[:, 4:]) % 5)  # two count columns
    frame = pd.DataFrame(X64, columns=[f"x{j}" for j in range(6)])
    features = {(0, 1, 2, 3): Gaussian(), (4, 5): Poisson()}
    ref = NaiveBayes(features=features, predictive=predictive).fit(np.ascontiguousarray(X64), y)
    named = {("x0", "x1", "x2", "x3"): Gaussian(), ("x4", "x5"): Poisson()}
    est = NaiveBayes(features=named, predictive=predictive).fit(frame, y)
    np.testing.assert_allclose(est.predict_proba(frame), ref.predict_proba(X64), rtol=1e-12, atol=0)
    np.testing.assert_array_equal(est.predict(frame), ref.predict(X64))


def test_soft_statistics_identical_for_float32():
    """The weighted (EM) path of the statistics accumulates float32 values in float64 too."""
    X64, X32, y = _data(n=300)
    resp = np.random.default_rng(1).dirichlet(np.ones(3), size=X64.shape[0])
    fam = Gaussian()
    b64, d = fam.encode(X64)
    b32, _ = fam.encode(X32)
    assert b32.X.dtype == np.float32  # kept, not converted
    for a, b in zip(fam.stats(b32, resp, d), fam.stats(b64, resp, d)):
        np.testing.assert_array_equal(a, b)


def test_float_array_copies_only_what_is_not_float():
    C = np.ones((4, 3))
    for same in (C, np.asfortranarray(C), _unaligned(C), C[:, ::2], np.ones((4, 3), dtype=np.float32)):
        assert float_array(same) is same
    for other in (np.ones((4, 3), dtype=np.int64), np.ones((4, 3), dtype=">f8"), [[1, 2], [3, 4]]):
        out = float_array(other)
        assert out.flags.c_contiguous and out.flags.aligned and out.dtype == np.float64
        np.testing.assert_array_equal(out, np.asarray(other))


@pytest.mark.parametrize("layout", ["C", "fortran", "unaligned", "frame", "float32"])
def test_fit_never_copies_float_input(layout):
    """Peak memory of a fit on float input, in any layout, is far below one copy of X.

    What a fit allocates besides the model: per-row vectors (labels, weights, the one-hot
    responsibilities (n, K)) and chunk buffers of about 2 MiB; the posterior is (K, d).
    With n = 100,000 rows and d = 40 features, X is 32 MB (16 MB in float32); the bound
    below (the per-row vectors, 16 float64s per row, plus 8 MiB) is 20.8 MB, so a whole
    copy of X (to make it C-ordered, float64, or a ``np.take`` of every row) would exceed it.
    """
    n, d, K = 100_000, 40, 3
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, K, n)
    GaussianNB().fit(X[:100], y[:100])  # imports and caches out of the measurement
    given = {"C": X, **_layouts(X, X.astype(np.float32))}[layout]
    bound = n * 16 * 8 + (8 << 20)
    assert bound < X.nbytes
    peak = _fit_peak(given, y)
    assert peak < bound, f"fit peaked at {peak / 2**20:.1f} MiB; X is {X.nbytes / 2**20:.1f} MiB"


def test_fit_peak_sees_a_copy():
    """The measure of the test above sees a whole copy (of int input, converted to float64)."""
    n, d = 100_000, 40
    rng = np.random.default_rng(0)
    X = rng.integers(0, 100, size=(n, d))
    assert _fit_peak(X, rng.integers(0, 3, n)) >= X.nbytes


def _fit_peak(X, y):
    """Peak traced memory (bytes) of ``GaussianNB().fit(X, y)``."""
    tracemalloc.start()
    try:
        GaussianNB().fit(X, y)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("layout", ["fortran", "unaligned", "float32_fortran"])
def test_labelled_statistics_gather_other_layouts_in_small_pieces(layout):
    """A Fortran-ordered or unaligned X is gathered a few rows at a time, without a chunk-sized buffer.

    The class statistics of labelled rows are summed over one float64 work buffer of about 2 MiB
    (given to the function). An aligned C-ordered X is gathered through a second buffer of that
    size; any other layout takes its rows by indexing in pieces of about 256 KiB, shifted straight
    into the work buffer, so its peak stays well below one more buffer, with the same sums (bits)
    as from the C-ordered array.
    """
    from bayesnb.families._gaussian_cells import _chunk_rows, _labelled_stats

    n, d, K = 60_000, 20, 3
    X64, X32, y = _data(n=n, d=d, K=K, seed=1)
    given = _layouts(X64, X32)[layout]
    step = _chunk_rows(d)
    counts = np.bincount(y, minlength=K).astype(float)[:, None] * np.ones(d)
    hard = (y, np.ones(n))

    def stats(A):
        mean, m2 = np.zeros((K, d)), np.zeros((K, d))
        buf = np.empty((step, d))
        _labelled_stats(A, hard, counts, mean, m2, step, buf)
        return mean, m2, buf.nbytes

    ref_mean, ref_m2, _ = stats(np.ascontiguousarray(X64))
    stats(given)  # warm
    tracemalloc.start()
    try:
        mean, m2, size = stats(given)
        peak = tracemalloc.get_traced_memory()[1] - size
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(mean, ref_mean)
    np.testing.assert_array_equal(m2, ref_m2)
    # the class's row indices (n / K int64s) and a piece of rows; not a second (step, d) buffer
    assert peak < size // 2, f"peak {peak / 2**20:.2f} MiB besides the {size / 2**20:.2f} MiB work buffer"
