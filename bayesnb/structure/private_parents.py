"""Private structure selection: TAN and k-DB parents chosen by the exponential mechanism.

The scores are mutual informations of the empirical distribution of all ``n`` (public) rows, a
missing or undeclared cell one more state of its feature, so every score reads the same rows.
Their sensitivity is PrivBayes's bound ``S(n)`` (Zhang et al. 2017, Lemma 4.1; ``2 S(n)`` for a
conditional mutual information by the chain rule), and each pick is the exponential mechanism
(McSherry & Talwar 2007) drawn as a Gumbel argmax, the picks composing sequentially with equal
shares: TAN (:func:`private_tan`) is Prim's algorithm from a root fixed without the data, one
pick per edge; k-DB (:func:`private_kdb`) picks the order, then each feature's parents one at a
time. A forbidden edge is never a candidate; where none is left nothing is drawn (and no budget
read). See docs/privacy.md, "Private structure".
"""

from __future__ import annotations

import math

import numpy as np

from .learn import class_mutual_information, conditional_mutual_information

__all__ = ["cmi_sensitivity", "exponential_pick", "mi_sensitivity", "n_picks", "private_kdb", "private_parents",
           "private_scores", "private_tan"]


def mi_sensitivity(n: int) -> float:
    """``S(n)``: the largest change of an empirical mutual information when one of ``n`` rows is replaced.

    PrivBayes (Zhang et al. 2017), Lemma 4.1, for domains of any size (the binary case is smaller).

    Parameters
    ----------
    n : int
        Number of rows (public), ``>= 2``.

    Returns
    -------
    float
        In nats.
    """
    if n < 2:
        raise ValueError(f"private structure selection needs at least 2 rows; received n={n}.")
    return 2.0 / n * math.log((n + 1) / 2.0) + (n - 1) / n * math.log((n + 1) / (n - 1))


def cmi_sensitivity(n: int) -> float:
    """``2 S(n)``: the sensitivity of ``I(X_i; X_j | Y) = I(X_i; (X_j, Y)) - I(X_i; Y)`` (module docstring)."""
    return 2.0 * mi_sensitivity(n)


def exponential_pick(scores, epsilon: float, sensitivity: float, rng) -> int:
    """One draw of the exponential mechanism: index ``c`` with probability ``∝ exp(epsilon q_c / (2 Delta))``.

    Drawn as ``argmax(epsilon q / (2 Delta) + Gumbel)`` (the same distribution). ``-inf`` scores
    (forbidden candidates) are never drawn.

    Parameters
    ----------
    scores : ndarray of shape (m,)
    epsilon : float
        The pick's budget, ``> 0``.
    sensitivity : float
        ``Delta``, the score's sensitivity, ``> 0``.
    rng : numpy.random.Generator

    Returns
    -------
    int
    """
    q = np.asarray(scores, dtype=float)
    u = np.where(np.isfinite(q), epsilon * q / (2.0 * sensitivity), -np.inf) + rng.gumbel(size=q.shape)
    return int(np.argmax(u))


def private_scores(states, y, n_states, K) -> tuple:
    """``(I(X_i; X_j | Y), I(X_j; Y))`` of all ``n`` rows, a missing state counted as state ``V_j``.

    Parameters
    ----------
    states : ndarray of int of shape (n, d)
        Node states (``-1`` or any code outside ``0..V_j-1`` is missing).
    y : ndarray of int of shape (n,)
    n_states : sequence of int
        ``V_j`` per feature (declared).
    K : int

    Returns
    -------
    cmi : ndarray of shape (d, d)
    mi : ndarray of shape (d,)
    """
    states = np.asarray(states, dtype=np.int64)
    V = np.asarray(n_states, dtype=np.int64)
    full = np.where((states >= 0) & (states < V[None, :]), states, V[None, :])
    V1 = V + 1
    return (conditional_mutual_information(full, y, V1, K), class_mutual_information(full, y, V1, K))


def private_tan(cmi, n, epsilon, rng, forbidden=(), parentless=()) -> tuple:
    """TAN parents by Prim's algorithm with one exponential-mechanism pick per edge (module docstring).

    Parameters
    ----------
    cmi : ndarray of shape (d, d)
        ``I(X_i; X_j | Y)`` (:func:`private_scores`).
    n : int
        Number of rows (public).
    epsilon : float
        The structure's budget (split evenly over the ``d - 1`` picks).
    rng : numpy.random.Generator
    forbidden : iterable of (int, int)
        Pairs never joined (a feature cut off by them starts a new tree).
    parentless : iterable of int
        Features that take no parent (roots from the start; they may be parents): the tree then
        spans the others, ``n_picks`` fewer picks.

    Returns
    -------
    tuple of tuple of int
        Feature 0 is the root (with ``parentless``: those features are).
    """
    d = cmi.shape[0]
    w = np.array(cmi, dtype=float)
    for i, j in forbidden:
        w[i, j] = w[j, i] = -np.inf
    parents = [()] * d
    in_tree = np.zeros(d, bool)
    in_tree[list(parentless)] = True
    if not in_tree.any() and d:
        in_tree[0] = True
    m = int((~in_tree).sum())
    if m == 0 or d < 2:
        return tuple(parents)
    eps, sens = epsilon / m, cmi_sensitivity(n)
    for _ in range(m):
        src, dst = np.nonzero(in_tree[:, None] & ~in_tree[None, :])
        q = w[src, dst]
        if not np.isfinite(q).any():  # every edge leaving the tree is forbidden: a new tree
            in_tree[int(np.flatnonzero(~in_tree)[0])] = True
            continue
        c = exponential_pick(q, eps, sens, rng)
        parents[int(dst[c])] = (int(src[c]),)
        in_tree[dst[c]] = True
    return tuple(parents)


def n_picks(d: int, k: int, kind: str, parentless=()) -> int:
    """The number of exponential-mechanism picks of :func:`private_tan` or :func:`private_kdb` on ``d``
    features (``parentless``: features that take no parent; with k-DB the order is still picked for all,
    and the picks of parents are counted for the others at their worst position)."""
    if d < 2:
        return 0
    q = len(set(parentless))
    if kind == "tan":
        return d - max(q, 1)
    return (d - 1) + sum(min(k, p) for p in range(q, d))


def private_kdb(cmi, mi, n, k, epsilon, rng, forbidden=(), parentless=()) -> tuple:
    """k-DB parents: the order and every parent picked by the exponential mechanism (module docstring).

    Parameters
    ----------
    cmi : ndarray of shape (d, d)
    mi : ndarray of shape (d,)
        ``I(X_j; Y)`` (:func:`private_scores`).
    n : int
    k : int
    epsilon : float
        Split evenly over :func:`n_picks` picks.
    rng : numpy.random.Generator
    forbidden : iterable of (int, int)
    parentless : iterable of int
        Features that take no parent (their picks are skipped; the budget is split as if they came first,
        so that it does not depend on the order drawn).

    Returns
    -------
    tuple of tuple of int
    """
    d = len(mi)
    parents = [()] * d
    if d < 2:
        return tuple(parents)
    parentless = set(parentless)
    eps = epsilon / n_picks(d, k, "kdb", parentless)
    s_mi, s_cmi = mi_sensitivity(n), cmi_sensitivity(n)
    w = np.array(cmi, dtype=float)
    for i, j in forbidden:
        w[i, j] = w[j, i] = -np.inf
    left, order = list(range(d)), []
    while len(left) > 1:
        order.append(left.pop(exponential_pick(np.asarray(mi)[left], eps, s_mi, rng)))
    order += left
    for p, j in enumerate(order):
        pool, chosen = list(order[:p]), []
        for _ in range(0 if j in parentless else min(k, p)):
            q = w[j, pool]
            if not np.isfinite(q).any():
                break
            chosen.append(pool.pop(exponential_pick(q, eps, s_cmi, rng)))
        parents[j] = tuple(chosen)
    return tuple(parents)


def private_parents(states, y, n_states, K, kind, k, epsilon, rng, forbidden=(), parentless=()) -> tuple:
    """The parents of ``kind`` (``"tan"`` or ``"kdb"``) selected privately with budget ``epsilon``.

    Parameters
    ----------
    states, y, n_states, K
        As in :func:`private_scores`.
    kind : {"tan", "kdb"}
    k : int
        k-DB's parents per feature.
    epsilon : float
    rng : numpy.random.Generator
    forbidden : iterable of (int, int)
    parentless : iterable of int
        Features that take no parent.

    Returns
    -------
    tuple of tuple of int
    """
    n = int(np.shape(states)[0])
    if np.shape(states)[1] < 2:
        return tuple(() for _ in range(np.shape(states)[1]))
    cmi, mi = private_scores(states, y, n_states, K)
    if kind == "tan":
        return private_tan(cmi, n, epsilon, rng, forbidden, parentless)
    return private_kdb(cmi, mi, n, k, epsilon, rng, forbidden, parentless)
