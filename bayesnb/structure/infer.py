"""Exact inference on the one structure engine: ``log p(x_obs | y=k)`` with missing cells summed out.

The model is :mod:`bayesnb.structure.engine`'s, ``p(y) prod_j p(x_j | y, pa_j)``, a numeric
node entering its children through its quantile bin. :func:`log_likelihood` scores rows:

- complete rows by one lookup per node and row (a categorical node's table entry, a numeric
  node's log density in its context);
- rows with missing cells on a forest (every node with at most one feature parent: naive,
  TAN) by sum-product message passing vectorised over rows: each node sends its parent
  ``m_j(k, u) = log sum_s phi_j(k, u, s) exp(up_j(k, s))``, where ``phi_j`` is the observed
  value's likelihood at its own state, or for a missing node the category's probability or the
  numeric node's bin mass under its conditional predictive (the family's ``predictive_bins``);
- otherwise (k-DB with k >= 2) over the missing nodes that are ancestors of an observed node (the
  other missing cells sum out to 1), once per missing pattern: by enumerating their joint states,
  or beyond :data:`~bayesnb.structure.elimination.ENUMERATE_UP_TO` of them by variable elimination
  (:mod:`bayesnb.structure.elimination`).

A category never seen in training (state :data:`~bayesnb.structure.engine.UNSEEN`) is scored
as the naive model scores it, a new value with its prior mass, in its own context: ``log
p(new | y=k, pa_j) = log(a_new / (n_ctx + A_ctx + a_new))`` (the Categorical family's share
for unseen values, ``a_new`` the mean of the node's alpha, ``n_ctx + A_ctx`` the context's
posterior concentration). Its state, which no table knows, is summed out for its children,
weighted by the node's own predictive ``p(s | y=k, pa_j)`` (as a missing parent's), so that
``p(x_j = new, x_children | k, pa_j) = p(new | k, pa_j) sum_s p(s | k, pa_j) p(x_children | k, s)``.
"""

from __future__ import annotations

import numpy as np

from . import elimination as _ve
from . import engine as _mx
from ._logdraw import lse
from .learn import topological_order

__all__ = ["enumeration_size", "joint_states", "log_likelihood", "node_log_terms", "state_tables"]


def _ancestors(parents):
    anc = [set() for _ in parents]
    for j in topological_order(parents):
        for p in parents[j]:
            anc[j] |= {p} | anc[p]
    return anc


def _lookup(model, tables, cells, j, r, S, P):
    """``log p(x_j | y=k, pa_j)`` of rows ``r`` given the states ``S`` (m, ..., d) of ``j`` and its parents,
    shape (m, ..., K): a lookup per row in the table ``tables[j]`` (as (P_j * B_j, K): a categorical
    node, or a missing numeric one's bin masses), or for an observed numeric node (``cells[j]``
    not None) in its value's log densities over the contexts. ``r`` None: every row. ``P``: the
    number of joint states of ``j``'s parents.
    """
    nodes, pa, K = model.nodes, model.parents[j], model.n_classes
    u = _mx.parent_index(nodes, pa, S)
    if cells[j] is not None:
        dens = (cells[j] if r is None else cells[j][r]).reshape(-1, K, P)
        rows = np.arange(dens.shape[0]).reshape((-1,) + (1,) * (u.ndim - 1))
        return dens[rows, :, u]
    return tables[j][u * nodes[j].n_states + S[..., j]]


def _forest(model, tables, cells, new, r, miss, S):
    """Sum-product on a forest (at most one feature parent each) for rows ``r``, all classes at once, (m, K).

    Upward pass in reverse topological order: node ``j`` sends its parent ``m_j(k, u) = log sum_s
    phi_j(k, u, s) exp(up_j(k, s))``, ``up_j`` the sum of its children's messages, ``phi_j`` the
    table (a missing node: the category's probability, or the numeric node's bin mass; one
    einsum, rescaled by the max) or the observed value's likelihood at its own state. A node
    with an unseen category is a missing one whose message also carries ``new[j]``, its
    value's log score per context (K, P).
    """
    nodes, parents, K = model.nodes, model.parents, model.n_classes
    m = r.size
    up = [np.zeros((m, K, nd.n_states)) for nd in nodes]
    out = np.zeros((m, K))
    rows = np.arange(m)
    for j in reversed(topological_order(parents)):
        P, B = _mx.n_parent_states(nodes, parents[j]), nodes[j].n_states
        msg = np.empty((m, K, P))
        gone = miss[:, j]
        if gone.any() and B == 0:  # a feature with no value at all (every cell missing in training): log 1
            msg[gone] = 0.0
        elif gone.any():
            u = up[j][gone]
            top = u.max(axis=-1)
            top = np.where(np.isfinite(top), top, 0.0)
            table = np.exp(tables[j]).reshape(P, B, K)
            with np.errstate(divide="ignore"):
                msg[gone] = np.log(np.einsum("usk,mks->mku", table, np.exp(u - top[..., None]))) + top[..., None]
            if new[j] is not None:
                msg[S[:, j] == _mx.UNSEEN] += new[j]
        seen = ~gone
        if seen.any():
            i, s = rows[seen], S[seen, j]
            if cells[j] is not None:
                val = cells[j][r[i]].reshape(i.size, K, P)
            else:
                val = np.moveaxis(tables[j].reshape(P, B, K)[:, s], 1, 0).transpose(0, 2, 1)
            msg[seen] = val + up[j][i, :, s][..., None]
        if parents[j]:
            up[parents[j][0]] += msg
        else:
            out += msg[:, :, 0]
    return out


def enumeration_size(nodes, cells):
    """The number of joint states of the nodes ``cells``.

    Parameters
    ----------
    nodes : list of ~bayesnb.structure.engine.Node
    cells : sequence of int
        Node indices.

    Returns
    -------
    int
        The product of their state counts (1 for none).
    """
    return int(np.prod([nodes[m].n_states for m in cells], dtype=np.int64))


def joint_states(nodes, cells, what, who, remedy):
    """``(states, total, step)``: the (total, len(cells)) joint states of the nodes ``cells`` and the rows per
    batch; refused (``what``, ``remedy``: the message) beyond :data:`~bayesnb.structure.engine.MAX_ENUMERATION`."""
    sizes = [nodes[m].n_states for m in cells]
    total = enumeration_size(nodes, cells)
    if total > _mx.MAX_ENUMERATION:
        raise ValueError(f"{who}: {what} means enumerating {total} joint states (more than "
                         f"{_mx.MAX_ENUMERATION}); {remedy}.")
    states = (np.stack(np.unravel_index(np.arange(total), sizes), axis=1) if len(cells)
              else np.zeros((1, 0), np.int64))  # no cell: one empty joint state
    return states, total, max(1, _mx.MAX_ENUMERATION // total)


def _patterns(miss):
    """``(masks, group)``: the distinct rows of the bool matrix ``miss`` and each row's index among them."""
    if miss.shape[1] <= 62:  # one integer key per row
        keys = miss.astype(np.int64) @ (np.int64(1) << np.arange(miss.shape[1], dtype=np.int64))
        _, first, group = np.unique(keys, return_index=True, return_inverse=True)
        return miss[first], group.ravel()
    masks, group = np.unique(miss, axis=0, return_inverse=True)
    return masks, group.ravel()


def _enumerate(model, tables, cells, new, idx, mask, unseen, states, anc, npar, who):
    """``log p(x_obs | y=k)`` of rows ``idx`` sharing the missing pattern ``mask`` (unseen categories
    ``unseen``, within ``mask``), by enumerating the joint states of the missing ancestors of the
    observed nodes and of the unseen ones (the other missing cells sum out to 1), (m, K)."""
    nodes, K = model.nodes, model.n_classes
    obs = np.flatnonzero(~mask)
    relevant = sorted({a for j in np.flatnonzero(~mask | unseen) for a in anc[j] if mask[a]})
    keep = sorted(set(obs.tolist()) | set(relevant))
    done, out = _ve.attempt(lambda: _eliminate(model, tables, cells, new, idx, mask, unseen, states, relevant, keep,
                                               npar, who), enumeration_size(nodes, relevant))
    if done:  # many joint states: eliminated instead
        return out
    fill, total, step = joint_states(nodes, relevant, f"marginalising a row's {len(relevant)} missing cells", who,
                                     "impute the cells first or use a structure with fewer parents "
                                     "(structure='tan' sums them out by message passing)")
    out = np.empty((idx.size, K))
    for start in range(0, idx.size, step):
        r = idx[start:start + step]
        S = np.repeat(states[r][:, None, :], total, axis=1)  # (m, total, d)
        if relevant:
            S[:, :, relevant] = fill[None]
        acc = np.zeros((r.size, total, K))
        for j in keep:
            acc += _lookup(model, tables, cells if not mask[j] else [None] * len(nodes), j, r, S, npar[j])
        for j in np.flatnonzero(unseen):  # the new value's score in its context
            acc += np.ascontiguousarray(new[j].T)[_mx.parent_index(nodes, model.parents[j], S)]
        out[start:start + step] = lse(acc, axis=1)
    return out


def _eliminate(model, tables, cells, new, idx, mask, unseen, states, relevant, keep, npar, who):
    """:func:`_enumerate`'s ``log p(x_obs | y=k)`` by variable elimination (:mod:`bayesnb.structure.elimination`):
    the factors of the nodes ``keep`` (an observed node's likelihood, a missing ancestor's table) and of
    the unseen categories' scores, over the class and the missing ancestors ``relevant``."""
    nodes, parents, K = model.nodes, model.parents, model.n_classes
    free = np.zeros(len(nodes), dtype=bool)
    free[relevant] = True
    scopes = _ve.family_scopes(model, free, keep)[1:] + [tuple([_ve.CLASS] + [v for v in parents[j] if free[v]])
                                                         for j in np.flatnonzero(unseen)]
    sizes, step, (order,) = _ve.plan(model, [(scopes, (_ve.CLASS,))], who,
                                     f"marginalising a row's {len(relevant)} missing cells")
    out = np.empty((idx.size, K))
    for start in range(0, idx.size, step):
        r = idx[start:start + step]
        m, factors = r.size, []
        for j in keep:
            P, B = npar[j], nodes[j].n_states
            pa = tuple(nodes[p].n_states for p in parents[j])
            table = None if tables[j] is None else tables[j].reshape(P, B, K)
            if mask[j]:  # a missing ancestor: p(s | k, u) over its family
                a = np.broadcast_to(table.transpose(2, 0, 1), (m, K, P, B)).reshape((m, K) + pa + (B,))
                factors.append(_ve.fixed(a, list(parents[j]) + [j], free, states, r))
                continue
            a = cells[j][r].reshape(m, K, P) if cells[j] is not None else table[:, states[r, j], :].transpose(1, 2, 0)
            factors.append(_ve.fixed(a.reshape((m, K) + pa), parents[j], free, states, r))
        for j in np.flatnonzero(unseen):  # the new value's score in its context
            a = np.broadcast_to(new[j], (m, K, npar[j])).reshape((m, K) + tuple(nodes[p].n_states for p in parents[j]))
            factors.append(_ve.fixed(a, parents[j], free, states, r))
        out[start:start + step] = _ve.eliminate(factors, sizes, (_ve.CLASS,), order)
    return out


def state_tables(model: _mx.MixedModel) -> list:
    """Every node's ``log p(state | context)`` as (P * B, K) rows, what :func:`log_likelihood` looks up
    (pass them as its ``tables`` to score many batches of rows under one model)."""
    K = model.n_classes
    return [np.ascontiguousarray(_mx._state_table(model, j).reshape(K, -1).T) for j in range(len(model.nodes))]


def _factors(model, cols, miss, given=None):
    """``(tables, cells, npar)`` of :func:`_lookup`: per node ``log p(state | context)`` as (P * B, K)
    rows (a numeric node's bin masses only where it is missing; ``given``: :func:`state_tables`), the
    (n, C) log densities of a numeric node's values, and the number of joint states of its parents."""
    nodes, K = model.nodes, model.n_classes
    tables = [None] * len(nodes) if given is None else given
    for j, nd in enumerate(nodes if given is None else ()):
        if not nd.numeric or miss[:, j].any():
            t = _mx._state_table(model, j)  # (K * P, B)
            tables[j] = np.ascontiguousarray(t.reshape(K, -1).T)
    cells = [nd.family.log_likelihood(model.priors[j], model.posteriors[j], _mx.encode_values(nd, cols[j]),
                                      model.predictive)
             if nd.numeric else None for j, nd in enumerate(nodes)]
    return tables, cells, [_mx.n_parent_states(nodes, pa) for pa in model.parents]


def log_likelihood(model: _mx.MixedModel, data, who="NaiveBayes", method="auto", tables=None) -> np.ndarray:
    """``log p(x_obs | y=k)`` of every row and class, missing cells summed out exactly, shape (n, K).

    Complete rows by direct lookup of every node's term; rows with missing cells on a forest
    (at most one feature parent per node: naive, TAN) by sum-product message passing vectorised
    over rows; otherwise (k-DB, k >= 2) one missing pattern at a time, by enumeration or, beyond
    :data:`~bayesnb.structure.elimination.ENUMERATE_UP_TO` joint states, variable elimination (see
    the module docstring).

    Parameters
    ----------
    model : ~bayesnb.structure.engine.MixedModel
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows.
    who : str
    method : {"auto", "enumerate"}, default="auto"
        ``"enumerate"``: rows with missing cells one pattern at a time whatever the structure
        (enumeration, or elimination beyond ``ENUMERATE_UP_TO`` states: the reference the message
        passing is tested against).
    tables : list, optional
        :func:`state_tables` of ``model``, computed once for several batches of rows.

    Returns
    -------
    ndarray of shape (n, K)
    """
    cols, miss, states = data
    nodes, parents = model.nodes, model.parents
    n, d = miss.shape
    K = model.n_classes
    out = np.zeros((n, K))
    if d == 0:
        return out
    tables, cells, npar = _factors(model, cols, miss, tables)
    complete = ~miss.any(axis=1)
    if complete.all():
        for j in range(d):
            out += _lookup(model, tables, cells, j, None, states, npar[j])
        return out
    if complete.any():
        r = np.flatnonzero(complete)
        S, acc = states[r], np.zeros((r.size, K))
        for j in range(d):
            acc += _lookup(model, tables, cells, j, r, S, npar[j])
        out[r] = acc
    idx = np.flatnonzero(~complete)
    unseen = states == _mx.UNSEEN
    new = [None] * d  # per node with an unseen category, log p(new | y=k, pa_j) as (K, P_j)
    for j in np.flatnonzero(unseen[idx].any(axis=0)):
        code = np.array([[nodes[j].n_states]], dtype=np.int64)  # the family's code of a value it has not seen
        new[j] = nodes[j].family.log_likelihood(model.priors[j], model.posteriors[j], code)[0].reshape(K, npar[j])
    if method == "auto" and all(len(pa) <= 1 for pa in parents):
        out[idx] = _forest(model, tables, cells, new, idx, miss[idx], states[idx])
        return out
    anc = _ancestors(parents)
    masks, group = _patterns(np.hstack([miss[idx], unseen[idx]]))
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(masks.shape[0] + 1))
    for g, mask in enumerate(masks):  # rows with one missing pattern share one enumeration
        r = idx[order[bounds[g]:bounds[g + 1]]]
        out[r] = _enumerate(model, tables, cells, new, r, mask[:d], mask[d:], states, anc, npar, who)
    return out


def node_log_terms(model: _mx.MixedModel, data, who="NaiveBayes") -> np.ndarray:
    """Each node's term of ``log p(x_obs | y=k)``, shape (n, d, K), adding up to :func:`log_likelihood`.

    In a topological order of the nodes, node ``j``'s term is ``log p(x_j | x_<j, y=k)``, the
    log-likelihood of its observed cell given the class and the observed cells of the nodes
    before it (computed as ``log p(x_<=j | k) - log p(x_<j | k)`` with :func:`log_likelihood`, the
    later cells masked): ``log p(x_j | pa_j, y=k)`` whenever its parents are observed (so for
    every node of a complete row), the exact conditional with missing parents summed out
    otherwise, and 0 for a missing cell (or a category never seen in training, scored as
    missing). The terms of a row add up to its ``log p(x_obs | y=k)`` exactly.

    Parameters
    ----------
    model, data, who
        As in :func:`log_likelihood`.

    Returns
    -------
    ndarray of shape (n, d, K)
    """
    cols, miss, states = data
    n, d = miss.shape
    out = np.zeros((n, d, model.n_classes))
    complete = ~miss.any(axis=1)
    if complete.any():  # every node's own term, by one lookup
        r = np.flatnonzero(complete)
        tables, cells, npar = _factors(model, cols, miss)
        for j in range(d):
            out[r, j] = _lookup(model, tables, cells, j, r, states[r], npar[j])
        if complete.all():
            return out
        rest = np.flatnonzero(~complete)
        out[rest] = node_log_terms(model, (tuple(_mx._rows(c, rest) for c in cols), miss[rest], states[rest]), who)
        return out
    before = np.zeros((n, model.n_classes))
    hidden = np.ones(d, dtype=bool)
    for j in topological_order(model.parents):
        hidden[j] = False
        if miss[:, j].all():
            continue
        masked = miss | hidden[None, :]
        upto = log_likelihood(model, (cols, masked, np.where(masked, -1, states)), who)
        out[:, j] = np.where(miss[:, j, None], 0.0, upto - before)
        before = upto
    return out
