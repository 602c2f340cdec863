"""The edge score ``edge_score="hierarchical"``: the Bayes factor of an edge under hierarchical smoothing.

The BDeu score (:func:`bayesnb.structure.edge_log_bayes_factors`) gives every cell of the
child's table given (class, parent) the flat pseudo-count ``ess / (K V_i V_j)``: a parent with
many values splits the child's rows into many thin contexts, each fitted from almost nothing,
and the edge is heavily penalised even where the data support it. The nodes themselves are
fitted with hierarchical smoothing (:mod:`bayesnb.structure.hierarchical`): each context
``(y, x_i = a)`` keeps a Dirichlet *centred on its class's estimate*, so a thin context costs
little. This score is the log Bayes factor of the edge ``i -> j`` under that prior::

    H0 (no edge):  x_j | y          ~ Categorical(theta_y)
    H1 (edge):     x_j | y, x_i = a ~ Categorical(theta_ya),  theta_ya ~ Dirichlet(c * theta_y)

Both share ``theta_y``; with ``p0(theta | data)`` its posterior under H0 the Bayes factor is
exactly ``p1 / p0 = E_{p0(theta | data)}[L1(theta) / L0(theta)]``, ``L0 = prod theta_yv^n_yv``
and ``L1 = prod_a DM(n_ya | c theta_y)`` (the Dirichlet-multinomial evidence of each context,
:func:`bayesnb.structure.hierarchical._level_log_evidence`). It is evaluated at the posterior
mean ``theta_y = theta_hat_y``, the node's class-level estimate under ``alpha="hierarchical"``
(:func:`bayesnb.structure.hierarchical.hierarchical_prior`, ``root="all"``; computed once per
feature on its observed cells), and the concentration ``c`` is *integrated* over a log-uniform
prior on :data:`~bayesnb.structure.hierarchical.CONCENTRATION_BOUNDS` (:data:`GRID_PER_DECADE`
points a decade), not maximised: H0 is H1's limit ``c -> inf``, so the maximised ratio is
never below that limit (about 0) and could not pay for the parent's cardinality; the averaged
one is negative when only large ``c`` (the contexts pooled) fits::

    w(i -> j) = log mean_c exp( sum_{y,a} log DM(n_ya | c theta_hat_y) - sum_{y,v} n_yv log theta_hat_yv )

on the rows where both cells are observed. The score is not symmetric (``w(i -> j)`` and
``w(j -> i)`` differ); TAN's spanning tree and k-DB read it as the symmetric weight
``(w(i -> j) + w(j -> i)) / 2``, the mean of the two directions.
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
