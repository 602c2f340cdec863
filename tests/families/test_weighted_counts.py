"""code_counts: the soft-responsibility counts of the code-based families equal the per-state bincounts."""

import numpy as np
import pytest

from bayesnb.families._weighted_counts import code_counts


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8])
def test_code_counts_equal_per_state_bincounts(dtype):
    rng = np.random.default_rng(0)
    n, K, V = 500, 7, 5
    codes = rng.integers(-1, V + 1, n)  # -1 (missing) and V (unseen) are left out
    if dtype == np.uint8:
        codes = np.where(codes < 0, V, codes)  # unsigned codes mark missing with V
    codes = codes.astype(dtype)
    resp = rng.dirichlet(np.ones(K), n) * rng.random(n)[:, None]
    ok = (codes.astype(int) >= 0) & (codes.astype(int) < V)
    expected = np.array([np.bincount(codes[ok].astype(int), weights=resp[ok, k], minlength=V) for k in range(K)])
    got = code_counts(codes, resp, V)
    assert got.shape == (K, V) and np.array_equal(got, expected)  # the same sums in the same order


def test_code_counts_of_no_rows_or_states():
    assert code_counts(np.zeros(0, dtype=int), np.zeros((0, 3)), 4).shape == (3, 4)
    assert not code_counts(np.zeros(0, dtype=int), np.zeros((0, 3)), 4).any()
    assert code_counts(np.array([0, 1]), np.zeros((2, 0)), 2).shape == (0, 2)
