"""A numeric node's state ``s`` holds the values in ``[e_(s-1), e_s)`` (``searchsorted(edges, x,
side="right")``, :mod:`bayesnb.structure.engine`): the interval masses and means the families hand the
structure engine (:mod:`bayesnb.families._interval`) must be those of the same whole numbers, checked
here by summing the predictive's probabilities over the whole numbers of each state."""

import numpy as np
import pytest
from scipy import stats

from bayesnb.families import _interval

EDGES = np.array([1.0, 3.0, 5.0, 8.0])  # whole-number cut points, as bin_edges gives for a count column
KS = np.arange(0, 400)
STATE = np.searchsorted(EDGES, KS, side="right")


def _by_state(pmf):
    """(C, B) masses and means of the whole numbers of each state, pmf (C, len(KS))."""
    mass = np.stack([pmf[:, STATE == s].sum(1) for s in range(EDGES.size + 1)], 1)
    mom = np.stack([(pmf[:, STATE == s] * KS[STATE == s]).sum(1) for s in range(EDGES.size + 1)], 1)
    return mass, mom / mass


@pytest.mark.parametrize("law", ["poisson", "nbinom"])
def test_count_bins_are_the_states_whole_numbers(law):
    lam = np.array([[0.7], [2.0], [6.5]])
    if law == "poisson":
        dist, shifted, scale = stats.poisson(lam), stats.poisson(lam), lam
    else:
        a, p = lam * 3.0, np.full_like(lam, 0.75)  # NB(a, p) has mean a (1 - p) / p = lam
        dist, shifted, scale = stats.nbinom(a, p), stats.nbinom(a + 1, p), a * (1 - p) / p
    logm, mean = _interval.count_bins(dist, shifted, scale, EDGES)
    want_mass, want_mean = _by_state(dist.pmf(KS))
    np.testing.assert_allclose(np.exp(logm), want_mass, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-9)


def test_integer_histogram_bins_are_the_states_whole_numbers():
    hist_edges = np.array([-0.5, 0.5, 2.5, 6.5, 11.5])  # half-integer bin edges of a whole-number column
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    pmf = np.zeros((2, KS.size))
    for b in range(hist_edges.size - 1):  # each bin's probability spread evenly over its whole numbers
        inside = (KS >= hist_edges[b]) & (KS < hist_edges[b + 1])
        pmf[:, inside] = probs[:, [b]] / inside.sum()
    logm, mean = _interval.histogram_bins(probs, hist_edges, True, EDGES)
    want_mass, want_mean = _by_state(pmf)
    np.testing.assert_allclose(np.exp(logm), want_mass, rtol=1e-12)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-12)


def test_point_mass_lies_in_the_state_that_holds_it():
    base_logm, base_mean = _interval.count_bins(stats.poisson([[3.0]]), stats.poisson([[3.0]]), np.array([[3.0]]), EDGES)
    for at in (1.0, 3.0, 4.0):  # on a cut point: the state above it, as searchsorted(side="right") puts it
        logm, _ = _interval.mixture_at(np.array([[0.4]]), at, base_logm, base_mean, EDGES)
        pmf = 0.6 * stats.poisson(3.0).pmf(KS)[None, :] + 0.4 * (KS == at)[None, :]
        np.testing.assert_allclose(np.exp(logm), _by_state(pmf)[0], rtol=1e-12)
