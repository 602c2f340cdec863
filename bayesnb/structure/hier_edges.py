"""The edge score ``edge_score="hierarchical"``: the Bayes factor of an edge under hierarchical smoothing.

BDeu's flat pseudo-count penalises a many-valued parent heavily even where the data support it,
while the nodes themselves are fitted with hierarchical smoothing. This score is the log Bayes
factor of ``i -> j`` under that prior (H1: each context ``(y, x_i = a)`` a
``Dirichlet(c * theta_y)`` around the class's estimate; H0: no edge), evaluated at the node's
class-level estimate (:func:`bayesnb.structure.hierarchical.hierarchical_prior`) on the rows
where both cells are observed. The concentration ``c`` is *averaged* over a log-uniform grid on
:data:`~bayesnb.structure.hierarchical.CONCENTRATION_BOUNDS` (:data:`GRID_PER_DECADE` points a
decade), not maximised: H0 is H1's limit ``c -> inf``, so a maximised ratio could never pay for
the parent's cardinality. The score is not symmetric; TAN and k-DB read the mean of the two
directions. See docs/structure.md, "The hierarchical edge score", for the formulas.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .hierarchical import CONCENTRATION_BOUNDS, _level_log_evidence, hierarchical_prior

__all__ = ["GRID_PER_DECADE", "class_estimates", "directed_log_bayes_factor", "hierarchical_edge_weights"]

#: Points per decade of the log-uniform grid over which the concentration is averaged.
GRID_PER_DECADE = 8


def _grid() -> np.ndarray:
    lo, hi = np.log10(CONCENTRATION_BOUNDS)
    return np.logspace(lo, hi, int(round((hi - lo) * GRID_PER_DECADE)) + 1)


def class_estimates(class_tables) -> list:
    """Each feature's class-level estimate ``theta_hat`` under ``alpha="hierarchical"``.

    Parameters
    ----------
    class_tables : sequence of ndarray
        ``class_tables[j]`` of shape (1, V_j, K): the weighted counts of (x_j, y) on the rows
        where ``x_j`` is observed (:class:`bayesnb.structure.PairCounts` ``classes``).

    Returns
    -------
    list of ndarray
        ``theta[j]`` of shape (K, V_j): the posterior mean of each class's Dirichlet, centred
        on the all-classes estimate with a concentration fitted by evidence
        (:func:`bayesnb.structure.hierarchical.hierarchical_prior`); rows sum to 1, entries > 0.
    """
    out = []
    for t in class_tables:
        n = np.asarray(t, dtype=float)[0].T  # (K, V)
        if n.shape[1] == 0:
            out.append(n)
            continue
        post = hierarchical_prior(n).alpha + n
        out.append(post / post.sum(-1, keepdims=True))
    return out


def directed_log_bayes_factor(counts, theta) -> float:
    """``w(i -> j)``: the log Bayes factor of parent ``i`` for child ``j`` (module docstring).

    Parameters
    ----------
    counts : ndarray of shape (K, V_i, V_j)
        Weighted counts of (y, x_i, x_j) on the rows where both cells are observed.
    theta : ndarray of shape (K, V_j)
        The child's class-level estimate (:func:`class_estimates`).

    Returns
    -------
    float
        In nats; 0 when no row has both cells observed.
    """
    n = np.asarray(counts, dtype=float)
    K, _, V = n.shape
    data = n.reshape(-1, V)
    base = np.repeat(np.asarray(theta, dtype=float), n.shape[1], axis=0)
    keep = data.sum(-1) > 0  # an empty context adds 0 to both models
    data, base = data[keep], base[keep]
    if not data.size:
        return 0.0
    pos = data > 0
    log_l0 = float((data[pos] * np.log(base[pos])).sum())
    grid = _grid()
    log_l1 = _level_log_evidence(grid, data, base)
    return float(logsumexp(log_l1 - log_l0) - np.log(len(grid)))


def hierarchical_edge_weights(i, tabs, V, thetas) -> np.ndarray:
    """Row ``i`` of the symmetric weights (features ``j > i``): the mean of both directions.

    Parameters
    ----------
    i : int
    tabs : ndarray of shape (d - i - 1, K, V_i, max(V))
        The pair tables of :func:`bayesnb.structure.learn._pair_tables`.
    V : ndarray of int of shape (d,)
        The features' numbers of values.
    thetas : list of ndarray
        :func:`class_estimates` of every feature.

    Returns
    -------
    ndarray of shape (d - i - 1,)
        ``(w(i -> j) + w(j -> i)) / 2``.
    """
    out = np.zeros(len(tabs))
    for m, j in enumerate(range(i + 1, len(V))):
        t = tabs[m][:, : V[i], : V[j]]
        if V[i] == 0 or V[j] == 0:
            continue
        out[m] = 0.5 * (directed_log_bayes_factor(t, thetas[j])
                        + directed_log_bayes_factor(t.transpose(0, 2, 1), thetas[i]))
    return out
