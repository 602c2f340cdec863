"""Sparse in, sparse out: sample, impute and feature contributions of count models on CSR input.

Equality with the dense path (same seed), output types, and no densification: a wide
matrix whose dense (rows x vocabulary) float64 block would take 320 MB is handled in a
few MiB of traced memory.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from bayesnb import ComplementNB, MultinomialNB


def _counts(n, d, density, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng, dtype=float)
    X.data = 1.0 + rng.poisson(1.0, X.nnz)
    return X, rng.integers(0, 3, n)


def _with_nan(X, every=7):
    Xm = X.copy()
    Xm.data[::every] = np.nan
    return Xm


@pytest.mark.parametrize("Est", [MultinomialNB, ComplementNB])
def test_sample_sparse_equals_dense_path(Est):
    X, y = _counts(60, 300, 0.05)
    Xs, ys = Est().fit(X, y).sample(40, random_state=1)
    Xd, yd = Est().fit(X.toarray(), y).sample(40, random_state=1)
    assert sp.issparse(Xs) and Xs.format == "csr" and isinstance(Xd, np.ndarray)
    np.testing.assert_array_equal(Xs.toarray(), Xd)
    np.testing.assert_array_equal(ys, yd)
    assert Xd.sum() > 0  # real draws, not an empty matrix
    # given lengths and classes: every row has exactly its length
    Xl, _ = Est().fit(X, y).sample(y=[0, 1, 2], length=[3, 0, 5], random_state=0)
    np.testing.assert_array_equal(np.asarray(Xl.sum(axis=1)).ravel(), [3, 0, 5])


@pytest.mark.parametrize("strategy", ["auto", "mean", "draw"])
def test_impute_sparse_equals_dense_path(strategy):
    X, y = _counts(60, 300, 0.05)
    Xm = _with_nan(X)
    ms, md = MultinomialNB().fit(X, y), MultinomialNB().fit(X.toarray(), y)
    a = ms.impute(Xm, strategy=strategy, random_state=0)
    b = md.impute(Xm.toarray(), strategy=strategy, random_state=0)
    assert sp.issparse(a) and a.format == "csr" and not np.isnan(a.data).any()
    np.testing.assert_allclose(a.toarray(), b, rtol=1e-12, atol=0)
    # observed cells untouched, input not modified
    obs = ~np.isnan(Xm.toarray())
    np.testing.assert_array_equal(a.toarray()[obs], Xm.toarray()[obs])
    assert np.isnan(Xm.data).sum() == np.isnan(Xm.data[::7]).sum() > 0
    # CSC in, CSC out
    assert ms.impute(Xm.tocsc(), random_state=0).format == "csc"


def test_missing_mask_is_sparse():
    X, y = _counts(30, 200, 0.05)
    m = MultinomialNB().fit(X, y)
    (block,), _ = m._encode_blocks(_with_nan(X), m.posterior_)
    miss = m.posterior_.blocks[0].family.gen_missing(block)
    assert sp.issparse(miss) and miss.nnz == np.isnan(_with_nan(X).data).sum()


def test_contributions_sparse_equal_dense_path():
    X, y = _counts(60, 300, 0.05)
    Xm = _with_nan(X)
    ms, md = MultinomialNB().fit(X, y), MultinomialNB().fit(X.toarray(), y)
    for predictive in ("mean", "marginal"):
        ms.set_params(predictive=predictive)
        md.set_params(predictive=predictive)
        a, ta = ms.feature_log_contributions(Xm, return_class_term=True)
        b, tb = md.feature_log_contributions(Xm.toarray(), return_class_term=True)
        assert sp.issparse(a) and a.format == "csr"
        assert a.nnz <= X.nnz  # zero counts contribute exactly 0: nothing stored for them
        np.testing.assert_allclose(a.toarray(), b, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(np.asarray(a.sum(axis=1)).ravel() + ta, ms.score_samples(Xm), rtol=1e-10)
        np.testing.assert_allclose(ta, tb, rtol=1e-10)


def test_wide_sparse_paths_do_not_densify():
    # 200 x 200,000 at 0.01%: one dense float64 copy of the rows would be 320 MB
    X, y = _counts(200, 200_000, 1e-4, seed=1)
    m = MultinomialNB().fit(X, y)
    Xm = _with_nan(X, every=20)
    runs = {"sample": lambda: m.sample(20, random_state=0)[0],  # O(d) per drawn row: few rows
            "impute": lambda: m.impute(Xm, random_state=0),
            "contributions": lambda: m.feature_log_contributions(X)}
    for name, fn in runs.items():
        tracemalloc.start()
        try:
            out = fn()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert sp.issparse(out) and out.shape[1] == X.shape[1], name
        assert peak < 40 * 2**20, f"{name}: peak {peak / 2**20:.0f} MiB"
