"""Variable elimination on one missing pattern: exact inference where enumeration would be too large.

Imputing or drawing a row's missing cells under k-DB (k >= 2) needs the joint posterior of the
class and the missing nodes given the observed cells. :mod:`bayesnb.structure.exact_impute`
enumerates their joint states, which costs the product of the missing nodes' state counts: 10
missing cells of 5 states each are already 9.8 million joint states. This module computes the
same posteriors by summing the missing nodes out one at a time, so that the cost is the largest
intermediate factor's, which a k-DB's few parents per node keep small.

The factors are the model's own (:func:`~bayesnb.structure.exact_impute.node_factors`): node ``j``'s
``log phi_j(k, pa_j, s_j)``, with every observed variable fixed at the row's state, so a factor
ranges over the class and the missing nodes of its family only; the class prior is one more
factor. A node is summed out in the greedy order that keeps the next intermediate factor smallest
(ties: the lower node). Everything is in log space (``lse``), per row, vectorised over the rows of
one missing pattern. The results equal the enumeration's to rounding (tests).
"""

from __future__ import annotations

import numpy as np

from . import engine as _mx
from ._logdraw import draw_log, lse

__all__ = ["CLASS", "ENUMERATE_UP_TO", "MAX_FACTOR", "TooLarge", "attempt", "draw_pattern", "eliminate",
           "family_posteriors", "family_scopes", "fixed", "pattern_factors", "plan"]

#: The class variable's id among the nodes' (0 .. d-1).
CLASS = -1
#: Missing patterns of more joint states than this are summed out by elimination, fewer enumerated
#: (both exact; enumeration is the faster for a few states, elimination beyond).
ENUMERATE_UP_TO = 2**12
#: The most entries of one intermediate factor per row; beyond it inference is refused.
MAX_FACTOR = 2**22
#: Entries of intermediate factors held at once (rows are taken in batches within it).
_BATCH_ENTRIES = 2**22


def fixed(a, family, free, states, r):
    """A factor with its observed variables fixed at each row's own state.

    Parameters
    ----------
    a : ndarray of shape (m, K, *sizes of ``family``)
        Log values over the class and ``family``'s variables, for rows ``r``.
    family : sequence of int
        The nodes of ``a``'s axes after the class.
    free : ndarray of bool, shape (d,)
        The variables left free (missing); the others are fixed at ``states[r, v]``.
    states : ndarray of shape (n, d)
    r : ndarray of int, shape (m,)

    Returns
    -------
    scope : tuple
        :data:`CLASS` and the free variables of ``family``.
    array : ndarray of shape (m, K, *their sizes)
    """
    m = a.shape[0]
    scope, axis = [CLASS], 2
    for v in family:
        if free[v]:
            scope.append(v)
            axis += 1
        else:
            idx = states[r, v].astype(np.int64).reshape((m,) + (1,) * (a.ndim - 1))
            a = np.take_along_axis(a, idx, axis=axis).squeeze(axis)
    return tuple(scope), a


def pattern_factors(model, phi, logw, r, mask, states, nodes_used=None):
    """The factors of rows ``r`` sharing the missing pattern ``mask``.

    Node ``j``'s factor is ``phi[j]`` of those rows with its observed parents and, if observed,
    itself fixed at each row's state (:func:`fixed`); the first factor is the class prior.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
    phi : list of ndarray
        Per node, ``log phi_j`` of every data row, (n, K, P_j, B_j)
        (:func:`~bayesnb.structure.exact_impute.node_factors`).
    logw : ndarray of shape (n, K)
        The rows' class log prior.
    r : ndarray of int
    mask : ndarray of bool, shape (d,)
        The missing nodes.
    states : ndarray of shape (n, d)
    nodes_used : sequence of int, optional
        The nodes whose factors enter (default all).

    Returns
    -------
    list of (tuple, ndarray)
        ``(scope, log array)``: the scope is :data:`CLASS` and missing nodes, the array (r.size, *sizes).
    """
    return [_prior_factor(logw, r)] + [_node_factor(model, phi, r, mask, states, j)
                                       for j in _entering(model, mask, nodes_used)]


def _prior_factor(logw, r):
    """The class prior of rows ``r`` as a factor."""
    return (CLASS,), np.asarray(logw[r], dtype=float)


def _entering(model, mask, nodes_used=None):
    """The nodes whose factors enter: ``nodes_used`` (default all) but a missing feature with no value at all
    (never observed in training), whose factor sums to 1."""
    nodes = range(len(model.nodes)) if nodes_used is None else nodes_used
    return [j for j in nodes if not (mask[j] and model.nodes[j].n_states == 0)]


def _node_factor(model, phi, r, mask, states, j):
    """Node ``j``'s factor of :func:`pattern_factors`."""
    family = list(model.parents[j]) + [j]
    a = phi[j][r].reshape((r.size, model.n_classes) + tuple(model.nodes[v].n_states for v in family))
    return fixed(a, family, mask, states, r)


def family_scopes(model, mask, nodes_used=None):
    """The scopes :func:`pattern_factors` gives the nodes ``nodes_used``, the class prior's first.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
    mask : ndarray of bool, shape (d,)
    nodes_used : sequence of int, optional

    Returns
    -------
    list of tuple
    """
    parents = model.parents
    return [(CLASS,)] + [tuple([CLASS] + [v for v in list(parents[j]) + [j] if mask[v]])
                         for j in _entering(model, mask, nodes_used)]


def _sizes(model):
    sizes = {CLASS: model.n_classes}
    sizes.update((j, nd.n_states) for j, nd in enumerate(model.nodes))
    return sizes


def _plan(scopes, sizes, keep):
    """The greedy elimination order of every variable not in ``keep`` and the largest factor it builds
    (scopes as bit masks: variable ``v`` is bit ``v + 1``)."""
    bits = [sum(1 << (v + 1) for v in s) for s in scopes]
    logs = {v: np.log(max(sizes[v], 1)) for v in set().union(*scopes)}
    todo = set().union(*scopes) - set(keep)
    order, worst = [], int(np.prod([sizes[v] for v in keep], dtype=np.int64))

    def joined(v):
        out, b = 0, 1 << (v + 1)
        for s in bits:
            if s & b:
                out |= s
        return out

    def log_cost(mask):
        return sum(lg for u, lg in logs.items() if mask >> (u + 1) & 1)

    while todo:
        v = min(todo, key=lambda u: (log_cost(joined(u)), u))
        union = joined(v)
        worst = max(worst, int(np.prod([sizes[u] for u in logs if union >> (u + 1) & 1], dtype=np.int64)))
        b = 1 << (v + 1)
        bits = [s for s in bits if not s & b] + [union & ~b]
        todo.discard(v)
        order.append(v)
    return order, worst


def _expand(scope, a, target, sizes):
    """``a`` (m, *scope sizes) with its axes in ``target``'s order and size 1 where ``scope`` lacks a variable."""
    perm = sorted(range(len(scope)), key=lambda i: target.index(scope[i]))
    a = a.transpose(0, *(1 + i for i in perm))
    return a.reshape((a.shape[0],) + tuple(sizes[v] if v in scope else 1 for v in target))


def _product(factors, sizes, target=None, m=None):
    """The product (sum of logs) of ``factors`` over the union of their scopes (or ``target``)."""
    if target is None:
        target = tuple(sorted(set().union(*(s for s, _ in factors))))
    out = np.zeros((m if not factors else factors[0][1].shape[0],) + tuple(sizes[v] for v in target))
    for scope, a in factors:
        out = out + _expand(scope, a, target, sizes)
    return target, out


def eliminate(factors, sizes, keep, order=None):
    """Sum every variable not in ``keep`` out of the product of ``factors`` (in log space).

    Parameters
    ----------
    factors : list of (tuple, ndarray)
        ``(scope, log array of shape (m, *sizes of scope))``.
    sizes : dict
        Each variable's number of states.
    keep : tuple
        The variables to keep, in the output's axis order.
    order : list, optional
        The elimination order (default: :func:`plan`'s greedy one).

    Returns
    -------
    ndarray of shape (m, *sizes of keep)
    """
    if order is None:
        order, _ = _plan([s for s, _ in factors], sizes, keep)
    factors = list(factors)
    m = factors[0][1].shape[0]
    for v in order:
        used = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        scope, a = _product(used, sizes)
        axis = 1 + scope.index(v)
        factors.append((scope[:axis - 1] + scope[axis:], lse(a, axis=axis)))
    return _product(factors, sizes, target=tuple(keep), m=m)[1]


def _reduce(factors, v, values):
    """The factors with variable ``v`` fixed at ``values`` (one per row)."""
    out = []
    for scope, a in factors:
        if v in scope:
            axis = 1 + scope.index(v)
            idx = values.astype(np.int64).reshape((a.shape[0],) + (1,) * (a.ndim - 1))
            a = np.take_along_axis(a, idx, axis=axis).squeeze(axis)
            scope = scope[:axis - 1] + scope[axis:]
        out.append((scope, a))
    return out


class TooLarge(ValueError):
    """Raised by :func:`plan` when an intermediate factor would exceed :data:`MAX_FACTOR` entries per row (the
    callers then enumerate instead when the pattern has at most
    :data:`~bayesnb.structure.engine.MAX_ENUMERATION` joint states)."""


def attempt(run, total):
    """Whether to eliminate a pattern of ``total`` joint states, and the result of ``run()`` if so.

    Parameters
    ----------
    run : callable
        The elimination (it raises :class:`TooLarge` before doing anything when it cannot).
    total : int
        The pattern's joint states (what enumeration would go through).

    Returns
    -------
    (bool, object)
        ``(True, run())``; ``(False, None)`` when the pattern is to be enumerated: at most
        :data:`ENUMERATE_UP_TO` joint states, or an elimination too large within
        :data:`~bayesnb.structure.engine.MAX_ENUMERATION` states (a factor counts the classes too).

    Raises
    ------
    TooLarge
        When neither can take the pattern.
    """
    if total <= ENUMERATE_UP_TO:
        return False, None
    try:
        return True, run()
    except TooLarge:
        if total > _mx.MAX_ENUMERATION:
            raise
        return False, None


def plan(model, queries, who, what):
    """The elimination orders of ``queries`` and the rows per batch.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
    queries : list of (list of tuple, tuple)
        Per query, the scopes of its factors and the variables it keeps.
    who, what : str
        For the error message.

    Returns
    -------
    sizes : dict
        Every variable's number of states (:data:`CLASS` included).
    step : int
        Rows per batch, so that no batch holds more than :data:`_BATCH_ENTRIES` entries of one factor.
    orders : list of list
        Each query's elimination order.

    Raises
    ------
    TooLarge
        When a query's largest intermediate factor exceeds :data:`MAX_FACTOR` entries per row.
    """
    sizes = _sizes(model)
    plans = [_plan(scopes, sizes, keep) for scopes, keep in queries]
    worst = max(w for _, w in plans)
    if worst > MAX_FACTOR:
        raise TooLarge(f"{who}: {what} needs a factor of {worst} entries per row (its {model.n_classes} classes "
                       f"included) even by variable elimination (more than {MAX_FACTOR}), and more joint states "
                       "than enumeration takes; use a structure with fewer parents (structure='tan').")
    return sizes, max(1, _BATCH_ENTRIES // worst), [o for o, _ in plans]


def _needed(parents, mask, targets=()):
    """The nodes whose factors a query over ``targets`` needs: the observed nodes, the targets and their
    ancestors (a missing node with no observed or target descendant sums out to 1)."""
    need = set(np.flatnonzero(~mask).tolist()) | set(targets)
    stack = list(need)
    while stack:
        for p in parents[stack.pop()]:
            if p not in need:
                need.add(p)
                stack.append(p)
    return sorted(need)


def family_posteriors(model, phi, logw, idx, mask, states, who, check, out):
    """Per missing node ``j`` of the pattern ``mask``, ``log p(k, u, s | x_obs)`` of rows ``idx``.

    The same posteriors as enumerating the joint states (``exact_impute``), by one elimination
    per missing node keeping its family's missing variables and the class, over the factors of the
    observed nodes, the node and their ancestors.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
    phi : list of ndarray
        Per node, ``log phi_j`` of every data row, (n, K, P_j, B_j).
    logw : ndarray of shape (n, K)
    idx : ndarray of int
        The data rows of the pattern.
    mask : ndarray of bool, shape (d,)
    states : ndarray of shape (n, d)
    who : str
    check : callable
        Called with the rows' ``log p(x_obs)`` (m, 1, 1); refuses rows of probability 0.
    out : list of ndarray
        Per node, (n, K, P_j, B_j): each missing node's posterior is written into ``out[j][idx]``.

    Raises
    ------
    TooLarge
        When an intermediate factor would exceed :data:`MAX_FACTOR` (nothing is written).
    """
    nodes, parents, K = model.nodes, model.parents, model.n_classes
    missing = [j for j in np.flatnonzero(mask) if nodes[j].n_states]
    used = [_needed(parents, mask)] + [_needed(parents, mask, (j,)) for j in missing]
    keeps = [(CLASS,)] + [tuple([CLASS] + [v for v in list(parents[j]) + [j] if mask[v]]) for j in missing]
    sizes, step, orders = plan(model, [(family_scopes(model, mask, u), keep) for u, keep in zip(used, keeps)], who,
                               f"imputing a row's {int(mask.sum())} missing cells")
    for start in range(0, idx.size, step):
        r = idx[start:start + step]
        by_node = {j: _node_factor(model, phi, r, mask, states, j) for j in _entering(model, mask)}
        pick = [[_prior_factor(logw, r)] + [by_node[v] for v in u if v in by_node] for u in used]
        norm = lse(eliminate(pick[0], sizes, (CLASS,), orders[0]), axis=1)  # log p(x_obs)
        check(norm[:, None, None])
        for j, keep, order, f in zip(missing, keeps[1:], orders[1:], pick[1:]):
            post = eliminate(f, sizes, keep, order) - norm.reshape((-1,) + (1,) * len(keep))
            family = list(parents[j]) + [j]
            full = np.zeros((r.size, K) + tuple(nodes[v].n_states for v in family))
            full = full + post.reshape((r.size, K) + tuple(nodes[v].n_states if mask[v] else 1 for v in family))
            for axis, v in enumerate(family, start=2):
                if not mask[v]:  # the observed parent's own state, 0 probability elsewhere
                    hot = np.arange(nodes[v].n_states)[None, :] == states[r, v][:, None]
                    shape = [r.size] + [1] * (full.ndim - 1)
                    shape[axis] = nodes[v].n_states
                    with np.errstate(divide="ignore"):
                        full = full + np.log(hot).reshape(shape)
            out[j][r] = full.reshape(r.size, K, -1, nodes[j].n_states)


def draw_pattern(model, phi, logw, r, mask, states, nodes_used, drawn_nodes, u_rows, rng, who):
    """One joint draw of the class and the nodes ``drawn_nodes`` per draw, by sequential elimination.

    Factors of ``nodes_used`` only (the observed nodes and ``drawn_nodes``, the missing ancestors
    of observed nodes: the other missing nodes sum out to 1), fixed at each data row's observed
    states once. The class is drawn from ``p(k | x_obs)``, then each node of ``drawn_nodes`` in
    turn from its posterior given the draws before it.

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
    phi : list of ndarray
        Per node, ``log phi_j`` of every data row, (n, K, P_j, B_j).
    logw : ndarray of shape (n, K)
        The rows' class log prior.
    r : ndarray of int
        The data rows of one missing pattern.
    mask : ndarray of bool, shape (d,)
        The pattern: the missing nodes.
    states : ndarray of shape (n, d)
        The rows' states (observed nodes).
    nodes_used, drawn_nodes : list of int
        The nodes whose factors enter, and the missing ones among them to draw.
    u_rows : ndarray of int, shape (draws,)
        For each draw, the index in ``r`` of its data row.
    rng : numpy.random.Generator
    who : str

    Returns
    -------
    lognorm : ndarray of shape (r.size,)
        ``log p(x_obs)`` of the data rows under these factors.
    z : ndarray of shape (draws,)
    drawn : ndarray of shape (draws, len(drawn_nodes))
    """
    scopes = family_scopes(model, mask, nodes_used)
    queries, done = [(scopes, (CLASS,))], {CLASS}
    for v in drawn_nodes:  # each node's query over the scopes left once the class and the nodes before it are drawn
        queries.append(([tuple(u for u in sc if u not in done) for sc in scopes], (v,)))
        done.add(v)
    sizes, step, orders = plan(model, queries, who,
                               f"drawing a row's {len(drawn_nodes)} missing cells that observed cells depend on")
    n = u_rows.size
    lognorm = np.empty(r.size)
    z, drawn = np.zeros(n, dtype=np.int64), np.zeros((n, len(drawn_nodes)), dtype=np.int64)
    order = np.argsort(u_rows, kind="stable")
    bounds = np.searchsorted(u_rows[order], np.arange(0, r.size + step, step))
    for b, i in enumerate(range(0, r.size, step)):  # data rows i .. i + step, and the draws from them
        base = pattern_factors(model, phi, logw, r[i:i + step], mask, states, nodes_used)
        lpk = eliminate(base, sizes, (CLASS,), orders[0])
        lognorm[i:i + step] = lse(lpk, axis=1)
        mine = order[bounds[b]:bounds[b + 1]]
        for start in range(0, mine.size, step):
            d = mine[start:start + step]
            pick = u_rows[d] - i
            z[d] = draw_log(lpk[pick], rng.random(d.size))
            f = _reduce([(sc, a[pick]) for sc, a in base], CLASS, z[d])
            for k, (v, o) in enumerate(zip(drawn_nodes, orders[1:])):
                drawn[d, k] = draw_log(eliminate(f, sizes, (v,), o), rng.random(d.size))
                f = _reduce(f, v, drawn[d, k])
    return lognorm, z, drawn
