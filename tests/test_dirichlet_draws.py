"""Exact Dirichlet draws computed in place: the same values as the whole-array formula, a peak near the result's size."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from bayesnb.families.numeric import dirichlet_draws


def _whole_array(conc, n_draws, rng):
    """The textbook computation on whole arrays: log G(a + 1) + log(U) / a, normalised in log space."""
    conc = np.asarray(conc, dtype=float)
    size = (n_draws,) + conc.shape
    g = rng.standard_gamma(conc + 1.0, size=size)
    u = rng.random(size)
    with np.errstate(divide="ignore", invalid="ignore"):
        lg = np.log(g) + np.log(u) / conc
        top = lg.max(axis=-1, keepdims=True)
        w = np.exp(lg - np.where(np.isfinite(top), top, 0.0))
        tot = w.sum(axis=-1, keepdims=True)
        return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), 0.0)


@pytest.mark.parametrize(("shape", "n_draws"), [((5,), 7), ((3, 4), 1), ((2, 3, 4), 50), ((2, 70_000), 3),
                                                ((1, 2), 200_000)])
def test_same_draws_as_the_whole_array_formula(shape, n_draws):
    """Blocks of rows (several per draw, several draws per block) read the generator as one call."""
    conc = np.random.default_rng(1).gamma(0.5, size=shape) + np.where(np.arange(shape[-1]) % 3 == 0, 0.0, 1e-3)
    conc.reshape(-1, shape[-1])[0] = 0.0  # a row without data under alpha=0: zeros, not NaN
    got = dirichlet_draws(conc, n_draws, np.random.default_rng(7))
    want = _whole_array(conc, n_draws, np.random.default_rng(7))
    np.testing.assert_array_equal(got, want)
    assert not np.isnan(got).any()


def test_peak_is_about_the_result():
    """One draw of a (20, 100,000) table: the result is 16 MB; the whole-array formula's
    temporaries peaked at about 5 times that."""
    conc = np.full((20, 100_000), 0.1)
    tracemalloc.start()
    try:
        out = dirichlet_draws(conc, 1, np.random.default_rng(0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < out.nbytes + (8 << 20), f"peak {peak / 2**20:.1f} MiB for a {out.nbytes / 2**20:.1f} MiB result"
    np.testing.assert_allclose(out.sum(axis=-1), 1.0)
