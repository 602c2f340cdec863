"""A private structured fit: the structure selected privately, then every node's tables released with noise.

Under ``privacy=DP(epsilon, delta)`` with ``structure="tan"`` or ``"kdb"`` (docs/privacy.md,
"Private structure"), the budget is split by basic composition:

1. ``STRUCTURE_SHARE * epsilon`` (pure epsilon-DP, no delta) selects the parents
   (:mod:`bayesnb.structure.private_parents`: the exponential mechanism on mutual informations of the node
   states; a numeric node's states are :data:`~bayesnb.structure.bins.N_BINS` equal-width bins
   between its *declared* bounds, never data quantiles).
2. The rest (and all of delta) releases the class counts and every node's statistics over its
   contexts (class, parents' states), split as the naive release splits its budget over columns: one
   share for the class counts and ``dp_statistics`` shares per node (:meth:`bayesnb.privacy.Budget.split`:
   basic composition under Laplace, Gaussian DP under the Gaussian mechanism). Each node's release is its
   family's own ``dp_stats`` with the contexts in the role of the classes: a row lies in exactly one
   context of a node (none when the node or a parent is missing), so replacing a row moves at most one
   unit out of one context and into another, the sensitivities of the naive release. The contexts
   are released in batches of consecutive contexts, every context in exactly one batch (empty ones
   too), each cell with independent noise of the same scale: the same release as one call.

Post-processing only (no further budget): the families' own (negative counts to 0, means within the
bounds...), the naive posterior's statistics as each node's released statistics summed over its
parents' states (the family's ``merge``), and the models' priors (hierarchical smoothing of the
categorical tables, each context shrunk to its parent context, the sums of its child tables, with
each context's noisy counts weighted by their equivalent sample size given the public noise variance).
"""

from __future__ import annotations

from functools import reduce

import numpy as np

from ..inference.private_stats import block_bounds, release_class_counts, share_weights
from ..privacy import Budget
from . import engine as _mx
from .bins import N_BINS
from .private_parents import n_picks, private_parents

__all__ = ["AUTO_MIN_SNR", "NOISE_AWARE_SMOOTHING", "STRUCTURE_SHARE", "auto_kind", "declared_edges", "naive_block_stats",
           "node_noise_variances", "private_structure_release"]

#: The share of epsilon that selects the structure (the rest releases the tables); docs/privacy.md.
STRUCTURE_SHARE = 0.1

#: Numeric nodes take no parents (they may be parents, by their declared bins): docs/privacy.md.
NUMERIC_PARENTLESS = True

#: Whether the hierarchical smoothing of the nodes' tables reads the public noise variance (docs/privacy.md,
#: "Private structure"); False: the smoothing of noise-free counts (kept for comparison).
NOISE_AWARE_SMOOTHING = True

#: The most weights one batch of a node's release holds (rows x contexts).
MAX_CELLS = 2**19


def declared_edges(lo: float, hi: float) -> np.ndarray:
    """The ``N_BINS - 1`` interior edges of ``N_BINS`` equal-width bins between the declared bounds.

    Parameters
    ----------
    lo, hi : float
        A numeric column's declared ``DP(bounds=...)``.

    Returns
    -------
    ndarray of shape (N_BINS - 1,)
    """
    return np.linspace(float(lo), float(hi), N_BINS + 1)[1:-1]


def _nodes(specs, states, bounds, names, who):
    """One :class:`~bayesnb.structure.engine.Node` per column (no class prior yet), numeric bins from bounds."""
    nodes = []
    for b, ((_, fam), st) in enumerate(zip(specs, states)):
        values = fam.value_columns(st)
        if fam.joint_columns:
            raise ValueError(f"{who}: a private structure makes every column a node of its own; the "
                             f"{type(fam).__name__} block's columns share one count vector per row (its privacy "
                             "release bounds the row's length): fit it with structure='naive'.")
        for c in range(len(names[b])):
            if values is not None:
                nodes.append(_mx.Node(b, c, fam, _mx.one_column_state(st, c), False, len(values[c][0]),
                                      np.empty(0), None))
                continue
            if bounds[b][c] is None:
                raise ValueError(f"{who}: a private structure bins numeric column {names[b][c]!r} between its "
                                 "declared bounds; give DP(bounds={column: (lo, hi)}) (bounds read from the data "
                                 "would leak it).")
            e = declared_edges(*bounds[b][c])
            st1 = _mx.one_column_state(st, c) if isinstance(st, tuple) else 1
            nodes.append(_mx.Node(b, c, fam, st1, True, len(e) + 1, e, None))
    return tuple(nodes)


#: ``structure="auto"`` under DP fits TAN when :func:`auto_kind`'s signal-to-noise ratio reaches this.
AUTO_MIN_SNR = 2.0


def auto_kind(n, dp, K, specs, states) -> tuple:
    """``structure="auto"`` under DP, from public quantities only: ``("tan" or "naive", ratio)``.

    ``ratio = n / (K V^2) / b``: the rows a table cell of a TAN node holds on average (``V`` the most
    states of a column: declared categories, or :data:`~bayesnb.structure.bins.N_BINS` bins) over the
    noise scale ``b`` of one released count (L1 sensitivity 2, L2 ``sqrt(2)``) with the tables'
    ``1 - STRUCTURE_SHARE`` of the budget split over ``S`` statistics (1 for the class counts plus
    every column's ``dp_statistics``): Laplace ``b = 2 S / ((1 - STRUCTURE_SHARE) epsilon)``, Gaussian its
    sd (:meth:`bayesnb.privacy.Budget.split`). TAN when ``ratio >= AUTO_MIN_SNR`` (docs/privacy.md),
    else naive. ``n``, the budget, the classes and the categories are public; nothing is read from
    the data.

    Parameters
    ----------
    n : int
    dp : bayesnb.DP
        The privacy setting (epsilon, delta, mechanism).
    K : int
        Number of (declared) classes.
    specs : list of (columns, Family)
    states : list
        Each block's encoding state (declared categories).

    Returns
    -------
    kind : {"tan", "naive"}
    ratio : float
    """
    V, S = 1, 1
    for (cols, fam), st in zip(specs, states):
        values = fam.value_columns(st)
        V = max([V] + ([len(v[0]) for v in values] if values is not None else [N_BINS]))
        S += fam.dp_statistics * len(cols)
    tables = Budget((1.0 - STRUCTURE_SHARE) * float(dp.epsilon), float(dp.delta), dp.mechanism, None)
    ratio = n / (K * V * V) / tables.count_scale(S)
    return ("tan" if ratio >= AUTO_MIN_SNR else "naive"), float(ratio)


def _node_release(nd, col, ctx, C, budget, bound, name, who):
    """Node ``nd``'s statistics over its ``C`` contexts released by its family's ``dp_stats``, in batches
    of consecutive contexts (every context in one batch; ``ctx``: each counted row's context, -1 none)."""
    rows = np.flatnonzero(ctx >= 0)
    span = int(max(1, min(C, MAX_CELLS // max(rows.size, 1))))
    out = None
    for lo in range(0, C, span):
        hi = min(C, lo + span)
        part = rows[(ctx[rows] >= lo) & (ctx[rows] < hi)]
        resp = np.zeros((part.size, hi - lo))
        resp[np.arange(part.size), ctx[part] - lo] = 1.0
        block = _mx.encode_values(nd, col[part]) if nd.numeric else _mx._rows(col, part)
        st = nd.family.dp_stats(block, resp, nd.state, budget, [bound], [name], who)
        out = _mx.put_contexts(nd.family.empty_stats(nd.state, C) if out is None else out, st, lo)
    return out


def node_noise_variances(spent) -> list:
    """Per node, the variance of the noise on each of its released counts, from the account alone.

    A node's counts of one column have L1 sensitivity 2 and L2 sensitivity ``sqrt(2)``
    (:func:`bayesnb.families.dp_release.noisy_counts`), released with the node's share of the split:
    the variance is :meth:`bayesnb.privacy.Budget.noise_variance` of that share (``2 b**2`` for Laplace,
    ``sigma**2`` for Gaussian). Public, so the noise-aware smoothing that reads it is post-processing;
    a model file recomputes it from its ``privacy_spent_``.

    Parameters
    ----------
    spent : dict
        ``privacy_spent_`` of a private structured fit (its ``"split"`` keys ``"node ..."`` in node order).

    Returns
    -------
    list of float
        Zeros when ``spent["noise_aware_smoothing"]`` is False (the smoothing of noise-free counts).
    """
    nodes = [v for k, v in spent["split"].items() if k.startswith("node ")]
    if spent.get("noise_aware_smoothing", True) is False:
        return [0.0] * len(nodes)
    return [float(Budget(float(e), float(d), spent["mechanism"], None).noise_variance(2.0, np.sqrt(2.0)))
            for e, d in nodes]


def naive_block_stats(nodes, parents, stats, K, n_blocks) -> list:
    """Each block's naive (class-level) statistics: every node's summed over its parents' states, stacked.

    A family's statistics hold the contexts on the leading axis and the columns on the next (arrays
    ``(C, d, ...)``) or as per-column tuples, as :func:`bayesnb.structure.columns.take_contexts` reads them.

    Parameters
    ----------
    nodes : tuple of Node
    parents : tuple of tuple of int
    stats : list
        Per node, its family's statistics over its ``K * prod_p B_p`` contexts.
    K : int
    n_blocks : int

    Returns
    -------
    list
        Per block, its family's statistics over the ``K`` classes.
    """
    per_block = [[] for _ in range(n_blocks)]
    for nd, pa, st in zip(nodes, parents, stats):
        npar = _mx.n_parent_states(nodes, pa)
        parts = [_mx.take_contexts(st, np.arange(K) * npar + u) for u in range(npar)]
        per_block[nd.block].append((nd.col, reduce(nd.family.merge, parts)))
    out = []
    for cols in per_block:
        cols = [s for _, s in sorted(cols, key=lambda t: t[0])]
        out.append(type(cols[0])(*(None if f[0] is None else tuple(x for g in f for x in g)
                                   if isinstance(f[0], tuple) else np.concatenate([np.asarray(g) for g in f], axis=1)
                                   for f in zip(*cols))))
    return out


def private_structure_release(dp, kind, k, resp, specs, encoded, states, names, all_names, forbidden, who):
    """The private release of a structured fit (module docstring).

    Parameters
    ----------
    dp : bayesnb.DP
    kind : {"tan", "kdb"}
    k : int
    resp : ndarray of shape (n, K)
        One-hot labels (unit weights).
    specs, encoded, states, names, all_names
        As in :func:`bayesnb.inference.private_stats.private_statistics`.
    forbidden : list of (int, int)
        Column positions never joined.
    who : str

    Returns
    -------
    class_count : ndarray of shape (K,)
    block_stats : list
        The naive statistics of every block (post-processing of the nodes').
    release : dict
        ``parents`` (node positions), ``stats`` (per node), ``edges`` (per node), ``nodes``, ``noise_var``
        (per node, the variance of the noise on each of its released counts: public, for the noise-aware
        smoothing of :func:`bayesnb.structure.hierarchical.hierarchical_prior`).
    spent : dict
        ``{"epsilon", "delta", "mechanism", "split"}`` with the structure's and every table's share.
    """
    budget = dp.budget()
    n, K = resp.shape
    y = np.argmax(resp, axis=1)
    bounds = block_bounds(dp, specs, all_names, who)
    nodes = _nodes(specs, states, bounds, names, who)
    d = len(nodes)
    cols, miss, st = _mx.node_data(nodes, encoded)
    parentless = [j for j, nd in enumerate(nodes) if nd.numeric] if NUMERIC_PARENTLESS else []
    picks = n_picks(d, k, kind, parentless)
    eps_s = float(dp.epsilon) * STRUCTURE_SHARE if picks else 0.0
    node_of = {int(specs[nd.block][0][nd.col]): j for j, nd in enumerate(nodes)}
    pairs = [(node_of[i], node_of[j]) for i, j in forbidden]
    parents = private_parents(st, y, [nd.n_states for nd in nodes], K, kind, k, eps_s, budget.rng, pairs,
                              parentless) if picks else tuple(() for _ in nodes)
    tables = Budget(float(dp.epsilon) - eps_s, float(dp.delta), dp.mechanism, budget.rng)
    shares = tables.split(share_weights(dp, [1] + [nd.family.dp_statistics for nd in nodes]))  # DP(class_share=) as naive
    class_count = release_class_counts(shares[0], resp)
    stats, rows = [], np.arange(n)
    for j, (nd, pa) in enumerate(zip(nodes, parents)):
        npar = _mx.n_parent_states(nodes, pa)
        ok = ~miss[:, j] & ~miss[:, list(pa)].any(axis=1)
        ctx = np.where(ok, _mx._contexts(nodes, pa, st, rows, y, npar), -1)  # -1: not counted (a cell missing)
        stats.append(_node_release(nd, cols[j], ctx, K * npar, shares[j + 1], bounds[nd.block][nd.col],
                                   str(names[nd.block][nd.col]), who))
    split = {f"structure ({kind}, {picks} exponential-mechanism picks)": (eps_s, 0.0),
             "class_count": (float(shares[0].epsilon), float(shares[0].delta))}
    for j, nd in enumerate(nodes):
        split[f"node {names[nd.block][nd.col]} ({type(nd.family).__name__}, "
              f"{K * _mx.n_parent_states(nodes, parents[j])} contexts)"] = (
            float(shares[j + 1].epsilon), float(shares[j + 1].delta))
    spent = {"epsilon": float(dp.epsilon), "delta": float(dp.delta), "mechanism": dp.mechanism, "split": split}
    if not NOISE_AWARE_SMOOTHING:  # (benchmarks only) the model file then keeps the smoothing that ignores the noise
        spent["noise_aware_smoothing"] = False
    block_stats = naive_block_stats(nodes, parents, stats, K, len(specs))
    noise_var = node_noise_variances(spent)
    return class_count, block_stats, {"parents": parents, "stats": stats, "edges": [nd.edges for nd in nodes],
                                      "nodes": nodes, "noise_var": noise_var}, spent
