"""Structures on mixed tables: categorical and numeric features in one tree or k-DB.

The model is ``p(y) prod_j p(x_j | y, pa_j)`` over every column of a table, each numeric column
keeping the family ``features="auto"`` chose for it. Each feature is a *node* with a discrete
*state*: its category code, or for a numeric node its quantile bin (at most :data:`N_BINS`
states; a Histogram's own bins as states made the trees worse on penguins: more states, thinner
contexts). The states serve the structure learning and a numeric node's role as a parent; its
own values are never discretised. Every node's context is (class, parents' states), and its
family runs on that context axis as it is (the family contract's context axis), with the naive
model's prior of that column and class in every context. Rows, evidence, the exact summing out
of missing cells (by elimination beyond a few thousand joint states) and unseen categories
follow docs/structure.md, "Mixed tables: `NaiveBayes(structure=...)`".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from ..families.numeric import draw_categories
from .bins import N_BINS, bin_edges, bin_edges_from_table
from .columns import _column, _rows, column_params, column_state, one_column_state, take_contexts
from .learn import topological_order

__all__ = ["MAX_ENUMERATION", "N_BINS", "UNSEEN", "MixedModel", "Node", "bin_edges", "bin_edges_from_table",
           "check_node_stats", "encode_values", "fit_nodes", "log_table", "make_nodes", "model_from_stats",
           "n_parent_states", "node_data", "node_rows", "node_stats", "parent_index", "put_contexts", "sample_nodes",
           "state_dtype"]

#: The most joint states of a row's missing cells enumerated at once (a batch of rows holds at most this many;
#: patterns beyond :data:`~bayesnb.structure.elimination.ENUMERATE_UP_TO` states are eliminated instead).
MAX_ENUMERATION = 2**18

#: The state of a category never seen in training (a categorical node's code ``>= n_states``; ``-1`` is missing).
UNSEEN = -2

#: The most weights :func:`node_stats` holds at once for one node (rows x contexts, float64: 4 MiB).
MAX_RESP_CELLS = 2**19


class Node(NamedTuple):
    """One feature of a mixed structure.

    Attributes
    ----------
    block, col : int
        The block of the naive posterior and the column within it.
    family : Family
        The block's family.
    state : object
        The one-column encoding state.
    numeric : bool
        True for a numeric node, False for a categorical one.
    n_states : int
        Number of categories, or of bins.
    edges : ndarray
        Bin edges (numeric nodes; empty for categorical ones).
    class_prior : NamedTuple or None
        Numeric nodes: the naive model's prior of the column (its family's parameters, one column).
    bounds : tuple or None
        A private model's declared ``(lo, hi)`` of a numeric node: its draws and fills stay inside.
    """

    block: int
    col: int
    family: object
    state: object
    numeric: bool
    n_states: int
    edges: np.ndarray
    class_prior: object
    bounds: object = None


class MixedModel(NamedTuple):
    """A fitted mixed structure: per node, its statistics, prior and posterior over its contexts.

    ``parents[j]`` are node positions; ``log_evidence`` is the nodes' part of ``log p(X | y)``;
    ``predictive`` how rows are scored; ``n_classes`` is ``K``.
    """

    parents: tuple
    nodes: tuple
    stats: tuple
    priors: tuple
    posteriors: tuple
    log_evidence: float
    predictive: str
    n_classes: int


def encode_values(node, x):
    """A numeric node's one-column encoded block of the values ``x`` (n,) (NaN missing)."""
    return node.family.encode(np.asarray(x, dtype=float)[:, None], node.state)[0]


def make_nodes(blocks, encoded, w, edges=None) -> tuple:
    """One :class:`Node` per column of the naive posterior's blocks (bin edges from the training rows).

    Parameters
    ----------
    blocks : sequence of BlockPosterior
        The naive posterior's blocks (families with a finite set of values are categorical
        nodes, the others numeric).
    encoded : list or None
        The training data encoded per block (None with ``edges``).
    w : ndarray of shape (n,)
        Row weights.
    edges : sequence of ndarray, optional
        Per node, its bin edges (a model file's); by default learned from ``encoded``.

    Returns
    -------
    tuple of Node
    """
    nodes = []
    for b, blk in enumerate(blocks):
        data = None if encoded is None else encoded[b]
        fam = blk.family
        values = fam.value_columns(blk.state)
        for c in range(len(blk.names)):
            if values is not None:
                nodes.append(Node(b, c, fam, one_column_state(blk.state, c), False, len(values[c][0]),
                                  np.empty(0), None))
                continue
            prior = column_params(blk.prior, c)
            e = (bin_edges(fam.gen_values(data)[:, c], w) if edges is None
                 else np.asarray(edges[len(nodes)], dtype=float))
            nodes.append(Node(b, c, fam, column_state(blk.state, c), True, len(e) + 1, e, prior))
    return tuple(nodes)


def node_data(nodes, encoded) -> tuple:
    """Per node its one-column block, and the (n, d) missing mask and states.

    A numeric node's block holds its values (NaN missing); a missing state is ``-1``.

    A category code ``>= n_states`` (never seen in training) has no state: it is in the missing
    mask (fitting leaves it out, its state is summed out) with the state :data:`UNSEEN`, so that
    :func:`bayesnb.structure.infer.log_likelihood` scores its value as a new category.

    The states are kept in the narrowest signed integer type that holds every node's states
    (:func:`state_dtype`: int8 up to 127 states); a categorical node's block is a view of its
    encoded block, and the numeric nodes of one block are views of one array of that block's
    values (``gen_values`` is called once per block).
    """
    d = len(nodes)
    first = encoded[nodes[0].block] if d else encoded[0] if encoded else np.empty(0)
    n = len(first[0] if isinstance(first, tuple) else first)
    cols, miss, states = [None] * d, np.zeros((n, d), bool), np.empty((n, d), state_dtype(nodes))
    for b in sorted({nd.block for nd in nodes}):
        js = [j for j, nd in enumerate(nodes) if nd.block == b]
        fam, blk = nodes[js[0]].family, encoded[b]
        gone = fam.gen_missing(blk)  # the mask the block's encoding built (read column by column)
        if nodes[js[0]].numeric:  # one array of the block's values, each node's column a view of it
            values = np.asarray(fam.gen_values(blk), dtype=float)
            for j in js:
                cols[j] = values[:, nodes[j].col]
                miss[:, j] = np.asarray(gone[:, nodes[j].col])
                states[:, j] = np.searchsorted(nodes[j].edges, np.where(miss[:, j], 0.0, cols[j]), side="right")
                states[miss[:, j], j] = -1
            continue
        for j in js:
            c = nodes[j].col
            codes = np.asarray(blk[0] if isinstance(blk, tuple) else blk)[:, c]  # (a tuple block: its first field)
            absent = np.asarray(gone[:, c]) | (codes < 0)
            new = ~absent & (codes >= nodes[j].n_states)
            miss[:, j] = absent | new
            states[:, j] = np.where(absent, -1, np.where(new, UNSEEN, codes))
            cols[j] = _column(blk, c)
    return tuple(cols), miss, states


def state_dtype(nodes):
    """The narrowest signed integer type holding every node's states, ``-1`` and :data:`UNSEEN`."""
    top = max([nd.n_states for nd in nodes], default=0)
    return next(t for t in (np.int8, np.int16, np.int32, np.int64) if top <= np.iinfo(t).max)


def node_rows(data, rows) -> tuple:
    """The :func:`node_data` of the rows ``rows`` (a bool mask or indices) of ``data``."""
    cols, miss, states = data
    return tuple(_rows(c, rows) for c in cols), miss[rows], states[rows]


def n_parent_states(nodes, pa) -> int:
    """Number of joint states of the parents ``pa`` (1 without parents)."""
    return int(np.prod([nodes[p].n_states for p in pa], dtype=np.int64))


def parent_index(nodes, pa, states):
    """Row-major index of the parents' joint state (0 without parents); ``states`` (..., d)."""
    if not pa:
        return np.zeros(states.shape[:-1], dtype=np.int64)
    u = states[..., pa[0]].astype(np.int64)  # (narrow states: the products need 64 bits)
    for p in pa[1:]:
        u = u * nodes[p].n_states + states[..., p]
    return u


def fit_nodes(nodes, data, y, w, K, parents, predictive="mean", rows=None, who="NaiveBayes") -> MixedModel:
    """Fit every node's family over its contexts.

    Parameters
    ----------
    nodes : tuple of Node
    data : tuple
        :func:`node_data` of the training rows.
    y : ndarray of int of shape (n,), or ndarray of shape (n, K)
        Class codes; or class weights per row (EM's responsibilities): the row then adds to
        its context under every class ``k`` with weight ``y[i, k] * w[i]``.
    w : ndarray of shape (n,)
        Row weights.
    K : int
        Number of classes.
    parents : tuple of tuple of int
    predictive : {"mean", "marginal"}
        How the fitted model scores rows (see :func:`bayesnb.structure.infer.log_likelihood`).
    rows : ndarray of bool of shape (n,) or (n, d), optional
        Fit only these rows; of shape (n, d), node ``j`` only the rows ``rows[:, j]``
        (``structure="auto"`` scores every candidate on the same cells:
        :func:`bayesnb.structure.scoring_rows`).
    who : str

    Returns
    -------
    MixedModel
    """
    return model_from_stats(nodes, node_stats(nodes, data, y, w, K, parents, rows), K, parents, predictive, who)


def node_stats(nodes, data, y, w, K, parents, rows=None, only=None) -> list:
    """Every node's family statistics over its ``K * prod_p B_p`` contexts (class, parents' states).

    A row adds to node ``j`` when ``x_j`` and all of ``j``'s parents are observed. Statistics of
    two batches of rows add with each family's ``merge`` (``partial_fit``). Parameters as in
    :func:`fit_nodes`; ``only``: the nodes to count (the others' entries are None).

    The family reads a (rows x contexts) weight matrix: it is built a batch of rows at a time, at
    most :data:`MAX_RESP_CELLS` weights, and the batches' statistics are added with ``merge``. With
    class codes (``y`` of shape (n,)) each row has one context: the rows are sorted by context
    (stably) and a batch holds whole consecutive contexts, its weight matrix only their columns
    (:func:`_context_batches`), so a node's cost grows with its rows, not rows x contexts.

    Returns
    -------
    list
        Per node, its family's statistics over its ``K * prod_p B_p`` contexts.
    """
    cols, miss, states = data
    stats = []
    for j, (nd, pa) in enumerate(zip(nodes, parents)):
        if only is not None and j not in only:
            stats.append(None)
            continue
        npar = n_parent_states(nodes, pa)
        ok = ~miss[:, j] & ~miss[:, list(pa)].any(axis=1)
        if rows is not None:
            ok = ok & (rows[:, j] if np.ndim(rows) == 2 else rows)
        idx = np.flatnonzero(ok)
        if np.ndim(y) == 1:
            stats.append(_sorted_stats(nodes[j], cols[j], _contexts(nodes, pa, states, idx, y, npar), idx, w,
                                       K * npar))
            continue
        # soft classes (EM): every row in K contexts; the (rows x contexts) weights a row chunk at a time
        step = max(1, MAX_RESP_CELLS // (K * npar))
        total = None
        for start in range(0, max(idx.size, 1), step):
            part = idx[start:start + step]
            st = nd.family.stats(_node_block(nd, cols[j], part), _context_weights(nodes, pa, states[part], y[part],
                                                                                 w[part], K, npar), nd.state)
            total = st if total is None else nd.family.merge(total, st)
        stats.append(total)
    return stats


def _contexts(nodes, pa, states, idx, y, npar):
    """The context ``y * npar + u`` (``u`` the parents' joint state, :func:`parent_index`) of the rows ``idx``."""
    u = np.zeros(idx.size, dtype=np.int64)
    for p in pa:  # one parent's column at a time: no (rows, d) copy of the states
        u = u * nodes[p].n_states + states[idx, p]
    return np.asarray(y)[idx] * npar + u


def _sorted_stats(nd, col, ctx, idx, w, C):
    """Node ``nd``'s statistics over its ``C`` contexts from the rows ``idx`` of contexts ``ctx``, sorted by context."""
    order = np.argsort(ctx.astype(np.int32) if C < 2**31 else ctx, kind="stable")  # (a radix sort for small ints)
    idx, ctx = idx[order], ctx[order]
    del order
    total = None
    for a, b in _context_batches(ctx, C):
        lo, hi = int(ctx[a]) if b > a else 0, int(ctx[b - 1]) + 1 if b > a else 1
        part = idx[a:b]
        resp = np.zeros((b - a, hi - lo))
        resp[np.arange(b - a), ctx[a:b] - lo] = w[part]
        st = nd.family.stats(_node_block(nd, col, part), resp, nd.state)
        st = put_contexts(nd.family.empty_stats(nd.state, C), st, lo)
        total = st if total is None else nd.family.merge(total, st)
    return total


def _context_batches(ctx, C):
    """``(a, b)`` bounds of batches of the context-sorted rows ``ctx``: whole consecutive contexts each,
    at most :data:`MAX_RESP_CELLS` (rows x the batch's context span) weights, but at least one context
    (a context with more rows than that is cut into row chunks of :data:`MAX_RESP_CELLS` rows)."""
    m = ctx.size
    if m == 0:
        return [(0, 0)]
    starts = np.searchsorted(ctx, np.arange(C + 1))  # the first row of every context
    out, a = [], 0
    while a < m:
        lo = int(ctx[a])
        span = np.arange(1, C - lo + 1)
        cells = (starts[lo + 1:] - a) * span
        width = max(1, int(np.count_nonzero(cells <= MAX_RESP_CELLS)))
        b = int(starts[lo + width])
        if width == 1 and b - a > MAX_RESP_CELLS:
            b = a + MAX_RESP_CELLS
        out.append((a, b))
        a = b
    return out


def put_contexts(empty, part, lo):
    """Statistics ``empty`` over all contexts with those of contexts ``lo, lo + 1, ...`` replaced by ``part``.

    Every array of a family's statistics has the contexts on its leading axis (also inside per-column
    tuples), as :func:`~bayesnb.structure.columns.take_contexts` reads parameters.
    """
    def put(e, p):
        e = np.array(e, dtype=np.result_type(e, p))
        e[lo:lo + np.shape(p)[0]] = p
        return e
    return type(empty)(*(None if f is None else tuple(put(e, p) for e, p in zip(f, g)) if isinstance(f, tuple)
                         else put(f, g) for f, g in zip(empty, part)))


def _node_block(nd, col, part):
    """Rows ``part`` of node ``nd``'s one-column block."""
    return encode_values(nd, col[part]) if nd.numeric else _rows(col, part)


def _context_weights(nodes, pa, states, y, w, K, npar):
    """(m, K * npar) weight of each row in each context (class, parents' states): its weight in its
    context; with ``y`` of shape (m, K) (EM's class responsibilities), in context ``k * npar + u`` under every
    class ``k``."""
    u = parent_index(nodes, pa, states)
    m = u.shape[0]
    resp = np.zeros((m, K * npar))
    if np.ndim(y) == 1:
        resp[np.arange(m), y * npar + u] = w
    else:
        resp.reshape(m, K, npar)[np.arange(m)[:, None], np.arange(K)[None, :], u[:, None]] = y * w[:, None]
    return resp


def model_from_stats(nodes, stats, K, parents, predictive="mean", who="NaiveBayes", priors=None, noise_var=None) -> MixedModel:
    """Priors, posteriors and evidence of every node from its statistics over its contexts.

    ``stats[j]`` is node ``j``'s family statistics over its ``K * prod_p B_p`` contexts (what
    :func:`fit_nodes` counts; a model file stores them). ``priors``: per node, a prior over
    its contexts to hold fixed (an EM M-step) instead of resolving it. Other parameters as
    in :func:`fit_nodes`. ``noise_var``: per node, the noise variance of its released counts (a private fit).
    """
    fixed, priors, posts, ev = priors, [], [], 0.0
    for j, (nd, pa) in enumerate(zip(nodes, parents)):
        npar = n_parent_states(nodes, pa)
        if fixed is not None:
            prior = fixed[j]
        else:  # a numeric node's class level: the naive prior of the context's class, as in every structure
            naive = take_contexts(nd.class_prior, np.arange(K * npar) // npar) if nd.numeric else None
            prior = nd.family.context_prior(stats[j], nd.state, (K, *(nodes[p].n_states for p in pa)), who=who,
                                            naive_prior=naive, noise_var=0.0 if noise_var is None else noise_var[j])
        if not nd.family.is_proper(prior):
            raise ValueError(f"{who}: a structure other than 'naive' needs a proper prior for every feature "
                             f"(its evidence and the tables of unseen contexts are otherwise undefined); "
                             f"received an improper prior for feature {j}.")
        post = nd.family.update(prior, stats[j])
        priors.append(prior)
        posts.append(post)
        ev += float(np.sum(nd.family.log_evidence(prior, post)))
    return MixedModel(tuple(parents), tuple(nodes), tuple(stats), tuple(priors), tuple(posts), ev, predictive,
                      int(K))


def check_node_stats(nodes, parents, stats, n_classes, name="stats"):
    """Check that each node's statistics have its family's layout over its contexts.

    Node ``j``'s contexts are ``n_classes * prod_p B_p`` (class or latent state, then its
    parents' states); its statistics must be the family's NamedTuple with the fields and shapes
    of ``empty_stats`` over them. The values (finite, counts non-negative) are not checked here:
    a model file's field rules check them (:func:`bayesnb.io.loadcheck.check_node_tuples`).

    Parameters
    ----------
    nodes : sequence of Node
    parents : sequence of tuple of int
        Per node, its parents' indices.
    stats : sequence
        Per node, its family's statistics.
    n_classes : int
        Classes (or latent states) of the contexts.
    name : str, default="stats"
        What the message calls ``stats``.

    Raises
    ------
    ValueError
        ``stats[j]`` is not its family's statistics over its contexts.
    """
    for j, (nd, pa, st) in enumerate(zip(nodes, parents, stats)):
        C = int(n_classes) * n_parent_states(nodes, pa)
        want = nd.family.empty_stats(nd.state, C)
        if type(st) is not type(want) or any((a is None) != (b is None) or np.shape(a) != np.shape(b)
                                             for a, b in zip(st, want)):
            raise ValueError(f"{name}[{j}] must be the family's statistics over its {C} contexts ({n_classes} "
                             "classes or states x its parents' states).")


def _state_table(model, j, post=None):
    """``log p(state_j = s | context)``, shape (C, n_states): the categories' table, or the bins' masses."""
    nd, prior = model.nodes[j], model.priors[j]
    post = model.posteriors[j] if post is None else post
    if not nd.numeric:
        return nd.family.log_likelihood(prior, post, np.arange(nd.n_states, dtype=np.int64)[:, None]).T
    return nd.family.predictive_bins(prior, post, nd.state, nd.edges, model.predictive)[0]


def log_table(model, j, post=None) -> np.ndarray:
    """``log p(state_j = s | y=k, parents' states u)`` of node ``j``, shape ``(K, B_p1, ..., B_j)``.

    A categorical node's table of categories (its posterior mean: the exact predictive of one
    cell), a numeric node's bin masses; ``post`` another point of its parameters (a posterior draw).
    """
    shape = (model.n_classes, *(model.nodes[p].n_states for p in model.parents[j]), model.nodes[j].n_states)
    return _state_table(model, j, post).reshape(shape)


def sample_nodes(model: MixedModel, z, rng, parameter_uncertainty=True):
    """Draw every node in ancestral order given the classes ``z`` (n,).

    With ``parameter_uncertainty``: one exact posterior draw of every node's parameters (the
    family's ``gen_point``) shared by the rows, values from it (the family's ``gen_sample`` in
    each row's context, so values keep the family's support). Without: values from the
    family's plug-in point (``gen_point`` without a generator), as the naive model samples.

    A numeric node with ``bounds`` (a private model's declared support) draws a value outside them
    again inside them (its family's ``gen_outside_bounds``, ``gen_sample_in_bounds``; else clipped).

    Returns
    -------
    list of ndarray of shape (n,)
        Per node: category codes (int) or raw values (float; ``gen_decode`` applied).
    """
    n, d = len(z), len(model.nodes)
    states = np.zeros((n, d), dtype=np.int64)
    values = [None] * d
    for j in topological_order(model.parents):
        nd, pa = model.nodes[j], model.parents[j]
        ctx = np.asarray(z) * n_parent_states(model.nodes, pa) + parent_index(model.nodes, pa, states)
        prior, post = model.priors[j], model.posteriors[j]
        if nd.numeric:
            point = nd.family.gen_point(prior, post, rng if parameter_uncertainty else None)
            x = np.asarray(nd.family.gen_sample(point, np.asarray(ctx, dtype=np.int64), rng), dtype=float)
            values[j] = np.asarray(nd.family.gen_decode(x[:, :1], nd.state)[0], dtype=float)
            if nd.bounds is not None and np.any(out := nd.family.gen_outside_bounds(values[j], *nd.bounds)):
                ex = nd.family.gen_sample_in_bounds(point, np.asarray(ctx)[out], rng, 0, *nd.bounds, state=nd.state)
                values[j][out] = np.clip(values[j][out] if ex is None else ex, *nd.bounds)
            states[:, j] = np.searchsorted(nd.edges, values[j], side="right")
        else:
            point = nd.family.gen_point(prior, post, rng) if parameter_uncertainty else post
            table = _state_table(model, j, point)[ctx]  # (n, V)
            p = np.exp(table - logsumexp(table, axis=1, keepdims=True))
            states[:, j] = draw_categories(p, rng.random(n))
            values[j] = states[:, j]
    return values
