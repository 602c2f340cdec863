"""Imputation on mixed structures: exact inference of the missing cells given the observed ones.

The model is :mod:`bayesnb.structure.engine`'s: ``p(y) prod_j p(x_j | y, pa_j)``, a numeric node
entering its children through its bin. For one row, every node ``j`` has a *factor*
``phi_j(k, u, s)`` over its class ``k``, its parents' joint state ``u`` and its own state ``s``:

- observed: ``p(x_j | k, u)`` (a density for a numeric node) at ``s = state(x_j)``, 0 elsewhere;
- missing: ``p(s | k, u)`` (the category's probability, or the bin's mass under the numeric node's
  conditional predictive).

``p(k, s_all | x_obs) ∝ p(k) prod_j phi_j``. Given the class and every state, a missing numeric
value has its conditional predictive *truncated to its bin* (summed over its bins this is the
untruncated predictive, so a missing numeric cell with no observed descendant gets exactly its
predictive). From the exact posterior of each missing node's family ``p(k, u, s | x_obs)``:

- a categorical cell's marginal ``p(s | x_obs)``: its mode (strategies "auto", "mode", "mean",
  as the naive impute: unordered categories have no mean);
- a numeric cell's posterior-predictive mean ``sum_{k,u,s} p(k, u, s | x_obs) E[x | k, u, bin s]``
  (the truncated means of its family's ``predictive_bins``), written as the family writes a value
  (``round_fill``: whole numbers for counts); ``"mode"``: the same mean within its most probable
  bin ``argmax_s p(s | x_obs)`` (a value of that bin, not a density mode);
- ``"draw"``: one joint draw of the class and every missing state from ``p(k, s_miss | x_obs)``,
  then each missing numeric value from its family's predictive in its drawn context, kept when it
  falls in its drawn bin (rejection: each round draws a fresh posterior point for
  ``predictive="marginal"``, the plug-in point for ``"mean"``); a cell still unfilled after
  :data:`_MAX_ROUNDS` rounds (a bin of tiny predictive mass) gets its truncated mean.

Inference is exact. On a forest given the class (naive, TAN: at most one feature parent) by
sum-product message passing vectorised over rows; otherwise (k-DB, k >= 2) by enumerating the joint
states of a row's missing cells, one enumeration per missing pattern, or beyond
:data:`~bayesnb.structure.elimination.ENUMERATE_UP_TO` joint states by variable elimination
(:mod:`bayesnb.structure.elimination`; a joint draw takes only the missing ancestors of observed
cells that way, then draws the other missing cells forward).
"""

from __future__ import annotations

import numpy as np

from . import elimination as _ve
from . import infer as _si
from . import engine as _mx
from ._logdraw import draw_log, lse
from .engine import (
    _rows,
    _state_table,
    encode_values,
    n_parent_states,
    parent_index,
)
from .._utils import ZeroProbabilityCondition
from ..families.numeric import draw_categories
from .learn import topological_order
from .row_groups import distinct_data_rows as _distinct_rows
from .row_groups import draw_windows

__all__ = ["draw_rows", "drawn_model", "drawn_models", "impute_nodes", "node_factors", "posterior_families", "truncated_means"]

#: Rows imputed at a time (the factors are (rows, K, P_j, B_j) per node), at most.
_CHUNK = 8192
#: Factor entries of all nodes held at once: fewer rows a chunk when a model's factors are wide (k-DB on
#: many-valued columns: 12**4 entries per row for a node of 12 values with three such parents).
_FACTOR_BUDGET = 2**24
#: Rejection rounds of a numeric draw within its bin (``strategy="draw"``).
_MAX_ROUNDS = 200


def _rows_per_chunk(model):
    """The rows imputed at a time: :data:`_CHUNK`, fewer when the nodes' factors exceed :data:`_FACTOR_BUDGET`."""
    per_row = sum(model.n_classes * n_parent_states(model.nodes, pa) * max(nd.n_states, 1)
                  for nd, pa in zip(model.nodes, model.parents))
    return int(min(_CHUNK, max(1, _FACTOR_BUDGET // per_row)))


def drawn_model(model, rng):
    """The model at one exact posterior draw of every node's parameters (values scored at that draw)."""
    return drawn_models(model, 1, rng)


def drawn_models(model, n_draws, rng):
    """``n_draws`` exact posterior draws of every node's parameters as one model of ``n_draws * K`` classes.

    "Class" ``s * K + k`` is class ``k`` at draw ``s``: every node's prior and posterior are
    repeated over the draws on its context axis and drawn once (the family's ``gen_point``
    draws each context independently), so one :func:`bayesnb.structure.infer.log_likelihood`
    scores the rows under every draw; reshape its (n, n_draws * K) result to (n, n_draws, K).
    """
    K = model.n_classes
    priors, points = [], []
    for j, nd in enumerate(model.nodes):
        idx = np.tile(np.arange(K * n_parent_states(model.nodes, model.parents[j])), n_draws)
        prior, post = _mx.take_contexts(model.priors[j], idx), _mx.take_contexts(model.posteriors[j], idx)
        priors.append(prior)
        points.append(nd.family.gen_point(prior, post, rng))
    return model._replace(priors=tuple(priors), posteriors=tuple(points), predictive="mean", n_classes=n_draws * K)


def node_factors(model, data, tables=None):
    """Per node, ``log phi_j(k, u, s)`` of every row, shape (n, K, P_j, B_j) (see the module docstring);
    ``tables``: per node, its ``log p(s | context)`` (C, B_j) to use instead of its own (None: its own)."""
    cols, miss, states = data
    n, K = miss.shape[0], model.n_classes
    out = []
    for j, nd in enumerate(model.nodes):
        P, B = n_parent_states(model.nodes, model.parents[j]), nd.n_states
        table = (_state_table(model, j) if tables is None or tables[j] is None else tables[j]).reshape(K, P, B)
        phi = np.broadcast_to(table, (n, K, P, B)).copy()
        obs = np.flatnonzero(~miss[:, j])
        if obs.size:
            s = states[obs, j]
            if nd.numeric:
                val = nd.family.log_likelihood(model.priors[j], model.posteriors[j], encode_values(nd, cols[j][obs]),
                                               model.predictive).reshape(obs.size, K, P)
            else:
                val = np.moveaxis(table[:, :, s], -1, 0)
            f = np.full((obs.size, K, P, B), -np.inf)
            f[np.arange(obs.size), :, :, s] = val
            phi[obs] = f
        out.append(phi)
    return out


def _check_rows(norm, who):
    if not np.all(np.isfinite(norm)):
        raise ZeroProbabilityCondition(f"{who}: {int(np.sum(~np.isfinite(norm)))} row(s) have probability 0 (or not "
                                       "finite) under every allowed class: their known values (observed cells or "
                                       "given=) cannot be conditioned on.")


def _forest(model, phi, logw, who, check=True):
    """Message passing: per node ``log p(k, u, s | x_obs)``, and what the joint draw needs (with the
    rows' log normalisers, ``log p(x_obs)`` under the factors; ``check``: refuse a row of probability 0)."""
    parents, d = model.parents, len(phi)
    children = [[c for c in range(d) if j in parents[c]] for j in range(d)]
    order = topological_order(parents)
    n, K = logw.shape
    up, msg = [None] * d, [None] * d
    for j in reversed(order):
        up[j] = sum((msg[c] for c in children[j]), np.zeros((n, K, phi[j].shape[3])))
        msg[j] = lse(phi[j] + up[j][:, :, None, :], axis=3) if phi[j].shape[3] else np.zeros(phi[j].shape[:3])
    roots = [j for j in order if not parents[j]]
    joint = logw + sum((msg[r][:, :, 0] for r in roots), np.zeros((n, K)))
    norm = lse(joint, axis=1, keepdims=True)
    if check:
        _check_rows(norm, who)
    out, fam = [None] * d, [None] * d
    with np.errstate(invalid="ignore"):  # (check=False) a row of probability 0: NaN, never drawn from
        for j in order:
            if not parents[j]:
                out[j] = (joint - norm - msg[j][:, :, 0])[:, :, None]  # (n, K, 1)
            fam[j] = out[j][..., None] + phi[j] + up[j][:, :, None, :]
            down = lse(out[j][..., None] + phi[j], axis=2)  # (n, K, B_j)
            for c in children[j]:
                out[c] = down + sum((msg[o] for o in children[j] if o != c), np.zeros_like(down))
        return fam, (joint - norm, up, norm[:, 0])


def _draw_forest(model, phi, extra, rng, rows=None):
    """Backward sampling of (class, every state) per row; ``rows``: the factor row each draw uses
    (e.g. all zeros: ``rows.size`` draws of one row's condition)."""
    log_pk, up, _ = extra
    rows = np.arange(log_pk.shape[0]) if rows is None else np.asarray(rows)
    n = rows.size
    z = draw_categories(np.exp(log_pk[rows]), rng.random(n))
    states = np.zeros((n, len(phi)), dtype=np.int64)
    shared = n > 0 and log_pk.shape[0] == 1  # one data row: its (class, parent state) tables, normalised once
    with np.errstate(invalid="ignore"):  # a row of probability 0 (only drawn by a caller that discards it)
        for j in topological_order(model.parents):
            if not model.nodes[j].n_states:  # a feature never observed in training: nothing to draw
                continue
            u = parent_index(model.nodes, model.parents[j], states)
            if shared:
                lp = phi[j][0] + up[j][0][:, None, :]  # (K, P, B)
                top = np.max(lp, axis=2, keepdims=True)
                p = np.exp(lp - np.where(np.isfinite(top), top, 0.0))[z, u]
                states[:, j] = draw_categories(p / p.sum(axis=1, keepdims=True), rng.random(n))
            else:
                states[:, j] = draw_log(phi[j][rows, z, u] + up[j][rows, z], rng.random(n))
    return z, states


def _enumerate(model, phi, logw, data, who):
    """Per missing pattern, the joint states of the missing cells: each missing node's family posterior."""
    _, miss, states = data
    nodes, parents = model.nodes, model.parents
    n, K = logw.shape
    d = len(nodes)
    fam = [np.full(p.shape, -np.inf) for p in phi]
    masks, group = np.unique(miss, axis=0, return_inverse=True)
    for g, mask in enumerate(masks):
        idx = np.flatnonzero(group.ravel() == g)
        M = np.array([j for j in np.flatnonzero(mask) if nodes[j].n_states], dtype=np.int64)
        if M.size == 0:  # nothing to fill (a feature never observed in training has no state)
            continue
        if _ve.attempt(lambda: _ve.family_posteriors(model, phi, logw, idx, mask, states, who,
                                                     lambda nm: _check_rows(nm, who), fam),
                       _si.enumeration_size(nodes, M))[0]:  # many joint states: eliminated instead
            continue
        fill, total, step = _si.joint_states(nodes, M, f"imputing a row's {len(M)} missing cells", who,
                                             "use a structure with fewer parents (tan)")
        for start in range(0, idx.size, step):
            r = idx[start:start + step]
            S = np.repeat(states[r][:, None, :], total, axis=1)
            S[:, :, M] = fill[None]
            acc = np.broadcast_to(logw[r][:, None, :], (r.size, total, K)).copy()
            us = [parent_index(nodes, parents[j], S) for j in range(d)]
            for j in range(d):
                if nodes[j].n_states:  # (a feature never observed in training: its factor sums to 1)
                    acc += phi[j][r[:, None], :, us[j], S[..., j]]
            norm = lse(acc, axis=(1, 2), keepdims=True)
            _check_rows(norm, who)
            p = np.exp(acc - norm)
            for j in M:
                P, B = phi[j].shape[2:]
                q = np.zeros((r.size, K, P * B))
                key = us[j] * B + S[..., j]  # (m, total)
                for k in range(K):
                    np.add.at(q[:, k], (np.repeat(np.arange(r.size), total), key.ravel()), p[:, :, k].ravel())
                with np.errstate(divide="ignore"):
                    fam[j][r] = np.log(q).reshape(r.size, K, P, B)
    return fam


def _batch_positions(sorted_src, r):
    """``(pos, pick)``: the positions in ``sorted_src`` (ascending) whose values are in ``r`` (ascending,
    distinct), in ascending order, and for each the index in ``r`` of its value (``np.isin``'s positions
    by binary search: a batch's cost, not the whole ``sorted_src``'s)."""
    lo, hi = np.searchsorted(sorted_src, r, side="left"), np.searchsorted(sorted_src, r, side="right")
    counts = hi - lo
    pick = np.repeat(np.arange(r.size), counts)
    pos = np.arange(pick.size) + np.repeat(lo - np.cumsum(counts) + counts, counts)
    return pos, pick


def _draw_enumerate(model, phi, logw, data, rng, who, evidence=None, check=True, rows=None):
    """One joint draw of (class, every missing state) per row when the structure is not a forest.

    The class and the missing ancestors of observed nodes are drawn jointly by enumerating
    their states (one enumeration per missing pattern; beyond
    :data:`~bayesnb.structure.elimination.ENUMERATE_UP_TO` states one at a time by variable
    elimination); the other missing nodes then
    forward in topological order from ``p(s | k, u)`` (their factors, given their parents, sum
    to 1 over their own states and their missing descendants'). ``evidence`` (d,) bool: missing
    nodes whose factors do not sum to 1 (a constrained cell's), enumerated with their missing
    ancestors as observed ones are. Also returns the data rows' log normalisers (``check``: refuse 0).
    ``rows``: draw ``rows.size`` rows, each from the data row it names (each data row enumerated once).
    """
    _, miss, states = data
    nodes, parents = model.nodes, model.parents
    n, K = logw.shape
    anc = _si._ancestors(parents)
    src = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    order = np.argsort(src, kind="stable")
    sorted_src = src[order]
    z, drawn, todo = np.zeros(src.size, dtype=np.int64), states[src].astype(np.int64), miss[src]
    lognorm = np.zeros(n)
    ev = np.zeros(len(nodes), dtype=bool) if evidence is None else np.asarray(evidence, dtype=bool)
    masks, group = _si._patterns(miss)
    for g, mask in enumerate(masks):
        idx = np.flatnonzero(group == g)
        obs = np.flatnonzero(~mask | ev)
        M = np.array(sorted({a for j in obs for a in anc[j] | {j} if mask[a] and nodes[a].n_states}), dtype=np.int64)
        keep = sorted(set(obs.tolist()) | set(M.tolist()))
        def eliminated():  # the draws' positions (found only for this path) and the pattern's draws
            outs, pick = (idx, np.arange(idx.size)) if rows is None else _batch_positions(sorted_src, idx)
            outs = outs if rows is None else order[outs]
            return outs, _ve.draw_pattern(model, phi, logw, idx, mask, states, keep, M.tolist(), pick, rng, who)

        done, res = _ve.attempt(eliminated, _si.enumeration_size(nodes, M))
        if done:  # many joint states: eliminated instead
            outs, (norm_rows, z_draws, d) = res
            lognorm[idx], z[outs], drawn[outs[:, None], M[None, :]] = norm_rows, z_draws, d
            if check:
                _check_rows(lognorm[idx], who)
            todo[outs[:, None], M[None, :]] = False
            continue
        fill, total, step = _si.joint_states(
            nodes, M, f"drawing a row's {M.size} missing cells that observed cells depend on", who,
            "condition on fewer cells or use a structure with fewer parents (structure='tan' draws by message "
            "passing)")
        for start in range(0, idx.size, step):
            r = idx[start:start + step]
            S = np.repeat(states[r][:, None, :], total, axis=1)
            S[:, :, M] = fill[None]
            acc = np.broadcast_to(logw[r][:, None, :], (r.size, total, K)).copy()
            for j in keep:
                acc += phi[j][r[:, None], :, parent_index(nodes, parents[j], S), S[..., j]]
            norm = lse(acc, axis=(1, 2), keepdims=True)
            if check:
                _check_rows(norm, who)
            lognorm[r] = norm.ravel()
            P = np.exp((acc - np.where(np.isfinite(norm), norm, 0.0)).reshape(r.size, -1))
            if rows is None:
                outs, pick = r, slice(None)
            else:  # the draws from these data rows: their slices of the sorted src
                pos, pick = _batch_positions(sorted_src, r)
                outs = order[pos]
            flat = draw_categories(P[pick], rng.random(outs.size))
            cfg, z[outs] = np.divmod(flat, K)
            drawn[outs[:, None], M[None, :]] = fill[cfg]
            todo[outs[:, None], M[None, :]] = False
    for j in topological_order(parents):
        r = np.flatnonzero(todo[:, j])
        if r.size and nodes[j].n_states:  # (a feature never observed in training has nothing to draw)
            lp = phi[j][src[r], z[r], parent_index(nodes, parents[j], drawn[r])]  # (m, B_j)
            drawn[r, j] = draw_log(lp, rng.random(r.size))
    return z, drawn, lognorm


def posterior_families(model, data, logw, who="NaiveBayes"):
    """Per node ``log p(k, u, s | x_obs)`` of every row, shape (n, K, P_j, B_j) (meaningful where missing).

    Parameters
    ----------
    model : MixedModel
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows.
    logw : ndarray of shape (n, K)
        ``log p(y=k)`` per row (``-inf`` for a class a known label rules out).
    who : str

    Returns
    -------
    list of ndarray
    """
    phi = node_factors(model, data)
    if all(len(pa) <= 1 for pa in model.parents):
        return _forest(model, phi, logw, who)[0]
    return _enumerate(model, phi, logw, data, who)


def _draw_states(model, data, logw, rng, who, phi=None, evidence=None, check=True, rows=None):
    """One joint draw of (class, every node's state) per row from ``p(k, s | x_obs)``, and the rows'
    log normalisers ``log p(x_obs)``; ``phi``: other node factors (a constrained draw's), ``evidence``
    the missing nodes whose factors are not probabilities (see :func:`_draw_enumerate`); ``rows``:
    draw ``rows.size`` rows, each from the data row it names."""
    phi = node_factors(model, data) if phi is None else phi
    if all(len(pa) <= 1 for pa in model.parents):
        extra = _forest(model, phi, logw, who, check)[1]
        if not check:  # rows of probability 0 draw anything: the caller refuses or drops them
            extra = (np.where(np.isfinite(extra[2])[:, None], extra[0], 0.0), extra[1], extra[2])
        return (*_draw_forest(model, phi, extra, rng, rows), extra[2])
    return _draw_enumerate(model, phi, logw, data, rng, who, evidence, check, rows)


def truncated_means(model, j):
    """``E[x_j | context, bin s]`` per context and bin, shape (C, B) (0 where a bin has no mass: its weight is 0)."""
    nd = model.nodes[j]
    mean = nd.family.predictive_bins(model.priors[j], model.posteriors[j], nd.state, nd.edges, model.predictive)[1]
    mean = np.nan_to_num(mean, nan=0.0)
    if getattr(nd, "bounds", None) is None:
        return mean
    return np.where(nd.family.gen_outside_bounds(mean, *nd.bounds), np.clip(mean, *nd.bounds), mean)  # private


def _draw_in_bins(model, j, ctx, bins, rng):
    """One value per row from node ``j``'s predictive in context ``ctx`` (m,), within bin ``bins`` (m,)."""
    nd = model.nodes[j]
    prior, post = model.priors[j], model.posteriors[j]
    x = np.full(ctx.size, np.nan)
    todo = np.arange(ctx.size)
    for _ in range(_MAX_ROUNDS):
        if todo.size == 0:
            break
        point = nd.family.gen_point(prior, post, rng if model.predictive == "marginal" else None)
        v = np.asarray(nd.family.gen_sample(point, ctx[todo], rng), dtype=float)[:, :1]
        v = np.asarray(nd.family.gen_decode(v, nd.state)[0], dtype=float)
        ok = np.searchsorted(nd.edges, v, side="right") == bins[todo]
        if nd.bounds is not None:  # a private model's declared support
            ok &= ~nd.family.gen_outside_bounds(v, *nd.bounds)
        x[todo[ok]] = v[ok]
        todo = todo[~ok]
    if todo.size:
        x[todo] = nd.family.round_fill(truncated_means(model, j)[ctx[todo], bins[todo]][:, None], nd.state)[:, 0]
    return x


def draw_rows(model, data, logw, rng, who="NaiveBayes"):
    """One joint draw of the class and every missing cell per row from ``p(y, x_miss | x_obs)``.

    The class and the missing states (categories, numeric nodes' bins) by
    backward sampling on a forest or bounded enumeration (see the module docstring), then
    each missing numeric value from its family's predictive in its drawn context, within its
    drawn bin. Used by ``strategy="draw"`` and by conditional sampling (``sample(given=)``).

    Parameters
    ----------
    model, data, logw, rng, who
        As in :func:`impute_nodes`.

    Returns
    -------
    z : ndarray of int of shape (n,)
        The drawn class codes.
    values : list of ndarray of shape (n,)
        Per node, its values with the missing cells drawn (codes for categorical nodes).
    """
    cols, miss, _ = data
    n = miss.shape[0]
    merged = _distinct_rows(data, logw) if n > 1 else None
    if merged is not None and merged[0].size < n:  # repeated rows (the conditional median's draws): each
        first, inverse = merged  # distinct row's factors and messages once, one draw per row (the same law)
        sub = (tuple(_rows(c, first) for c in cols), miss[first], data[2][first])
        z, S, _ = _draw_states(model, sub, logw[first], rng, who, rows=inverse)
    else:
        z, S, _ = _draw_states(model, data, logw, rng, who)
    out = [None] * len(model.nodes)
    for j, nd in enumerate(model.nodes):
        if not nd.numeric:
            out[j] = S[:, j]
            continue
        x = np.asarray(cols[j], dtype=float).copy()
        r = np.flatnonzero(miss[:, j])
        if r.size:
            P = n_parent_states(model.nodes, model.parents[j])
            ctx = z[r] * P + parent_index(model.nodes, model.parents[j], S[r])
            x[r] = _draw_in_bins(model, j, ctx, S[r, j], rng)
        out[j] = x
    return z, out


def impute_nodes(model, data, logw, strategy, rng, who="NaiveBayes"):
    """Per node, its values with the missing cells filled (codes for categorical nodes, floats for numeric).

    Parameters
    ----------
    model : MixedModel
        The model in use (the posterior, or :func:`drawn_model`).
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows.
    logw : ndarray of shape (n, K)
        ``log p(y=k)`` per row, ``-inf`` for classes a known label rules out.
    strategy : {"auto", "mode", "mean", "draw"}
        ``"auto"``: each node family's ``default_fill``.
    rng : numpy.random.Generator
    who : str

    Returns
    -------
    list of ndarray of shape (n,)
        Only the missing cells are meaningful for :func:`block_cells` (observed cells as encoded).
    """
    n = data[1].shape[0]
    chunk = _rows_per_chunk(model)
    windows = draw_windows(data, logw, chunk, _CHUNK) if strategy == "draw" and n > chunk else None
    if windows is not None:  # copies of a row in one piece: drawn from one set of factors (draw_rows)
        out = [None] * len(model.nodes)
        for idx in windows:
            part = draw_rows(model, (tuple(_rows(c, idx) for c in data[0]), data[1][idx], data[2][idx]),
                             logw[idx], rng, who)[1]
            for j, v in enumerate(part):
                out[j] = np.empty(n, dtype=v.dtype) if out[j] is None else out[j]
                out[j][idx] = v
        return out
    if n > chunk:  # rows are independent: bound the (rows, K, P, B) factors' memory
        parts = [impute_nodes(model, (tuple(_rows(c, slice(a, a + chunk)) for c in data[0]), data[1][a:a + chunk],
                                      data[2][a:a + chunk]), logw[a:a + chunk], strategy, rng, who)
                 for a in range(0, n, chunk)]
        return [np.concatenate([p[j] for p in parts]) for j in range(len(model.nodes))]
    cols, miss, states = data
    out = [None] * len(model.nodes)
    if strategy == "draw":
        return draw_rows(model, data, logw, rng, who)[1]
    fam = posterior_families(model, data, logw, who)
    for j, nd in enumerate(model.nodes):
        how = nd.family.default_fill if strategy == "auto" else strategy
        r = np.flatnonzero(miss[:, j])
        if not nd.numeric:
            s = states[:, j].astype(np.int64)  # (codes as int64, whatever the states' type)
            if r.size and nd.n_states:  # (a feature never observed in training: left missing by the caller)
                s[r] = lse(fam[j][r], axis=(1, 2)).argmax(axis=1)
            out[j] = s
            continue
        x = np.asarray(cols[j], dtype=float).copy()
        if r.size:
            w = np.exp(fam[j][r])  # (m, K, P, B)
            if how == "mode":  # keep the most probable bin only
                best = w.sum(axis=(1, 2)).argmax(axis=1)
                w = np.where(np.arange(w.shape[3]) == best[:, None, None, None], w, 0.0)
                w /= w.sum(axis=(1, 2, 3), keepdims=True)
            means = np.einsum("ic,c->i", w.reshape(r.size, -1), truncated_means(model, j).ravel())
            x[r] = nd.family.round_fill(means[:, None], nd.state)[:, 0]
        out[j] = x
    return out
