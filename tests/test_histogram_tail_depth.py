"""Issue 31 review: a Histogram cell's tail cost is computed once, where the likelihood is assembled, from the
parameters' ``n`` (``BinDirichlets.pooled``); the encoding holds each bin's log width only. So the closed form,
the generative cell likelihoods and the NumPyro rows charge the same tail, and a model file written before the
field existed falls back to the cells the bins were made from."""

from __future__ import annotations

import numpy as np

from bayesnb import Histogram
from bayesnb.families import _histogram_bins as bins

X = np.array([0, 1, 1, 2, 2, 2, 3, 3, 3, 3], float)[:, None]  # integer column 0..3, the last bin 4 cells
W = np.array([1, 1, 1, 1, 1, 1, 5, 5, 5, 5], float)  # weighted: the last bin holds 20 cells, not 4


def _weighted():
    fam = Histogram(alpha=0.5)
    blk, st = fam.encode(X)
    stats = fam.stats(blk, W[:, None], st)
    prior = fam.make_prior(stats, st)
    return fam, st, prior, fam.update(prior, stats)


def test_the_encoding_holds_the_bin_width_only():
    fam, st, _, _ = _weighted()
    block, _ = fam.encode(np.array([[3.0], [9.0], [-4.0], [np.nan]]), st)
    np.testing.assert_allclose(block.log_width[:3, 0], np.log(np.diff(st.edges[0]))[block.codes[:3, 0]])
    assert block.log_width[3, 0] == 0.0


def test_closed_form_cells_and_numpyro_rows_charge_the_parameters_tail():
    """``n`` = 20 (the weighted end bin), s = 0.5, w = 1, t = 1.5 at x = 5: log(21 * 0.5) + 3 over x = 3."""
    fam, st, prior, post = _weighted()
    T, _ = fam.encode(np.array([[5.0], [3.0]]), st)
    expected = np.log(21 * 0.5) + 1.5 / 0.5
    rel, row = fam.log_likelihood_parts(prior, post, T)
    ll = rel + row[:, None]
    cells = fam.gen_cell_log_lik(prior, post, T, np.ones((2, 1)))[:, 0]
    args = fam.numpyro_row_args(T, fam.numpyro_static(prior))
    np.testing.assert_allclose([ll[1, 0] - ll[0, 0], cells[1] - cells[0]], [expected, expected], rtol=1e-12)
    np.testing.assert_allclose(-args["log_width"], row, rtol=1e-6)  # float32 in the NumPyro model


def test_without_the_field_the_tail_counts_the_cells_the_bins_were_made_from():
    """A model file written before ``pooled`` existed: ``n`` = 4, the unweighted cells of the end bin."""
    fam, st, prior, post = _weighted()
    old_prior, old_post = prior._replace(pooled=None), post._replace(pooled=None)
    assert bins.end_counts(old_prior, old_post) is None
    T, _ = fam.encode(np.array([[5.0], [3.0]]), st)
    ll = fam.log_likelihood(old_prior, old_post, T, "mean")
    np.testing.assert_allclose(ll[1, 0] - ll[0, 0], np.log(5 * 0.5) + 3.0, rtol=1e-12)
    np.testing.assert_allclose(fam.numpyro_row_args(T, fam.numpyro_static(old_prior))["log_width"],
                               -fam.log_likelihood_parts(old_prior, old_post, T)[1], rtol=1e-6)
