"""Constrained draws on the structure engine: rows from ``p(y, x | condition)``, never by rejection.

A condition is a disjoint union of *pieces* (:mod:`bayesnb.generative.conditions`), each a
conjunction of per-node constraints: a set of categories for a categorical node, an inclusive
range ``[lo, hi]`` for a numeric one (the cells given as values are observed in the rows' data).
A piece changes only the constrained nodes' factors of :mod:`bayesnb.structure.exact_impute`:

- a categorical node: ``phi_j(k, u, s) = p(s | k, u)`` for ``s`` in the set, 0 elsewhere;
- a numeric node: ``phi_j(k, u, s) = P(x_j in bin s and lo <= x_j <= hi | k, u)``, the family's
  ``gen_log_mass_between`` over the part of the bin inside the range.

The same sum-product (a forest: naive, TAN) or bounded enumeration (k-DB) that conditions on
observed cells then gives each row's ``log p(piece)`` (its normaliser) and one exact joint draw
of the class and every node's state; a range cell's value is drawn from its family's law
truncated to its drawn bin and the range (``gen_sample_between``). Several pieces: each row's
piece is drawn first, in proportion to the pieces' probabilities.

- :func:`log_probability` -- ``log p(condition)`` of each row (the pieces' masses added)
- :func:`draw_constrained` -- the class, the pieces and every cell of each row
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .._utils import ZeroProbabilityCondition
from ..families.numeric import draw_categories
from ..generative.functions import range_in_bounds
from . import exact_impute as _mi
from .engine import n_parent_states, node_rows, parent_index

__all__ = ["draw_constrained", "log_probability"]


def _bin_ranges(nd, lo, hi, bins=None):
    """``(a, b)``: the inclusive part of each of node ``nd``'s bins (``[e_(s-1), e_s)``) inside ``[lo, hi]``
    (empty where ``a > b``), (B,); with ``bins`` (n,), that of each row's bin inside its range ``lo``, ``hi`` (n,)."""
    e = np.asarray(nd.edges, dtype=float)
    left, right = np.concatenate([[-np.inf], e]), np.concatenate([np.nextafter(e, -np.inf), [np.inf]])
    if bins is not None:
        left, right = left[bins], right[bins]
    return np.maximum(lo, left), np.minimum(hi, right)


def _range_table(model, j, lo, hi, who):
    """``log P(x_j in bin s, lo <= x_j <= hi | context)`` of numeric node ``j``, shape (C, B)."""
    nd = model.nodes[j]
    a, b = _bin_ranges(nd, lo, hi)
    try:
        return nd.family.gen_log_mass_between(model.priors[j], model.posteriors[j], nd.state, 0, a, b,
                                              model.predictive)
    except NotImplementedError as e:
        raise ValueError(f"{who}: {e}") from None


def _piece_factors(model, phi0, piece, who):
    """The node factors under one piece: ``phi0`` (the rows' :func:`~bayesnb.structure.exact_impute.node_factors`)
    with each constrained node's replaced (see the module docstring)."""
    phi = list(phi0)
    K = model.n_classes
    for j, cons in piece.items():
        nd = model.nodes[j]
        P = n_parent_states(model.nodes, model.parents[j])
        if cons[0] == "set":
            keep = np.full(nd.n_states, -np.inf)
            keep[np.asarray(cons[1], dtype=np.int64)] = 0.0
            phi[j] = phi0[j] + keep
        else:
            table = _range_table(model, j, cons[1], cons[2], who).reshape(K, P, nd.n_states)
            phi[j] = np.broadcast_to(table, phi0[j].shape)
    return phi


def _piece_states(model, data, logw, phi, piece, rng, who, check=False, rows=None):
    """``(z, states, lognorm)`` of :func:`~bayesnb.structure.exact_impute._draw_states` under a piece's factors."""
    evidence = np.zeros(len(model.nodes), dtype=bool)
    evidence[list(piece)] = True
    return _mi._draw_states(model, data, logw, rng, who, phi=phi, evidence=evidence, check=check, rows=rows)


def log_probability(model, data, logw, pieces, who="NaiveBayes"):
    """``log p(condition)`` of each row under ``model``: its pieces' normalisers added, shape (n,).

    Parameters
    ----------
    model : MixedModel
        The model whose law is meant (``predictive="marginal"`` on the posterior: the exact
        posterior predictive; ``"mean"`` on a point: that point's law).
    data : tuple
        :func:`~bayesnb.structure.engine.node_data` of the rows (the cells given as values observed).
    logw : ndarray of shape (n, K)
        ``log p(y=k)`` per row (``-inf`` for a class ruled out).
    pieces : list of dict
        Disjoint pieces ``{node: ("set", codes) | ("range", lo, hi)}``.
    who : str

    Returns
    -------
    ndarray of shape (n,)
        ``-inf`` where the condition has probability 0; a given numeric value enters through its
        density, so the result is then a density in those cells.
    """
    phi0 = _mi.node_factors(model, data)
    rng = np.random.default_rng(0)  # the draws are discarded: only the normalisers are used
    parts = [_piece_states(model, data, logw, _piece_factors(model, phi0, q, who), q, rng, who)[2] for q in pieces]
    return logsumexp(np.stack(parts, axis=1), axis=1)


def _range_values(model, j, ctx, bins, lo, hi, rng, who):
    """Node ``j``'s values in contexts ``ctx``: its family's law truncated to bin ``bins`` inside ``[lo, hi]``
    (all (n,)); a value outside a private model's declared bounds (``nd.bounds``) is drawn again inside them."""
    nd = model.nodes[j]
    a, b = _bin_ranges(nd, lo, hi, bins)
    return range_in_bounds(nd.family, model.posteriors[j], ctx, rng, 0, a, b, nd.bounds, nd.state, "", who)


def _free_tables(model, data, who):
    """Per numeric node missing in every row and with a mass between bounds, its bins' masses under the law
    its draws follow (``gen_log_mass_between``, consistent with the within-bin draws of
    :func:`_range_values`); other nodes None (their factors and within-bin draws stay the engine's)."""
    miss = data[1]
    out = [None] * len(model.nodes)
    for j, nd in enumerate(model.nodes):
        if nd.numeric and miss[:, j].all():
            try:
                out[j] = _range_table(model, j, -np.inf, np.inf, who)
            except ValueError:
                pass
    return out


def draw_constrained(model, data, logw, pieces, rng, who="NaiveBayes", n=None):
    """One exact draw per row of the class and every cell from ``p(y, x | condition)``.

    Parameters
    ----------
    model : MixedModel
        At the call's parameters: one posterior draw (:func:`~bayesnb.structure.exact_impute.drawn_model`)
        or the plug-in (``predictive="mean"`` on the posterior).
    data, logw, pieces, who
        As in :func:`log_probability`.
    rng : numpy.random.Generator
    n : int, optional
        With ``data`` and ``logw`` of one row: draw ``n`` rows under that row's condition (its
        messages, or its enumeration, computed once).

    Returns
    -------
    z : ndarray of int of shape (n,)
    values : list of ndarray of shape (n,)
        Per node, codes (categorical) or values (numeric); given cells as given.
    lognorm : ndarray of shape (n,)
        ``log p(condition)`` of each row at ``model``'s parameters (finite: a row of probability 0
        is refused with a ``ValueError``).
    """
    cols, miss, _ = data
    src = np.arange(miss.shape[0]) if n is None else np.zeros(n, dtype=np.int64)  # the data row of each draw
    m = src.size
    free = _free_tables(model, data, who)
    phi0 = _mi.node_factors(model, data, tables=free)
    phis = [_piece_factors(model, phi0, q, who) for q in pieces]
    if len(pieces) == 1:
        piece_of, lognorm = np.zeros(m, dtype=np.int64), None
    else:  # each row's piece, in proportion to the pieces' probabilities
        logp = np.stack([_piece_states(model, data, logw, f, q, rng, who)[2] for f, q in zip(phis, pieces)], axis=1)
        _refuse_zero(logsumexp(logp, axis=1), who)
        lognorm = logsumexp(logp, axis=1)[src]
        piece_of = draw_categories(np.exp(logp - logsumexp(logp, axis=1, keepdims=True))[src], rng.random(m))
    z, S = np.zeros(m, dtype=np.int64), np.zeros((m, len(model.nodes)), dtype=np.int64)
    for q, piece in enumerate(pieces):
        r = np.flatnonzero(piece_of == q)
        if r.size == 0:
            continue
        if n is not None:  # one row's messages, r.size draws
            z[r], S[r], norm = _piece_states(model, data, logw, phis[q], piece, rng, who, rows=np.zeros(r.size, int))
            norm = norm[np.zeros(r.size, dtype=np.int64)]
        else:
            z[r], S[r], norm = _piece_states(model, node_rows(data, r), logw[r], [f[r] for f in phis[q]], piece, rng,
                                             who)
        if lognorm is None:
            _refuse_zero(norm, who)
            lognorm = norm
    out = [None] * len(model.nodes)
    for j, nd in enumerate(model.nodes):
        if not nd.numeric:
            out[j] = S[:, j]
            continue
        x = np.asarray(cols[j], dtype=float)[src]
        P = n_parent_states(model.nodes, model.parents[j])
        ctx = z * P + parent_index(model.nodes, model.parents[j], S)
        left = miss[src, j].copy()
        lo, hi = np.full(m, -np.inf), np.full(m, np.inf)  # each row's range: its piece's, or none
        ranged = np.full(m, free[j] is not None)
        for q, piece in enumerate(pieces):
            if j in piece:
                r = piece_of == q
                lo[r], hi[r], ranged[r] = piece[j][1], piece[j][2], True
        r = np.flatnonzero(ranged & left)
        if r.size:  # one truncated draw per row, within its bin and its range
            x[r] = _range_values(model, j, ctx[r], S[r, j], lo[r], hi[r], rng, who)
            left[r] = False
        r = np.flatnonzero(left)
        if r.size:
            x[r] = _mi._draw_in_bins(model, j, ctx[r], S[r, j], rng)
        out[j] = x
    return z, out, lognorm


def _refuse_zero(lognorm, who):
    bad = ~np.isfinite(lognorm)
    if bad.any():
        raise ZeroProbabilityCondition(f"{who}: the condition (given= and forbid=) has probability 0 under the model at the "
                         f"parameters in use ({int(bad.sum())} row(s)), so no row can be drawn that meets it.")
