"""Self-masking missingness (MNAR) as a selection model on the naive posterior, fitted by EM.

For each numeric column ``j`` with missing cells the model adds a missingness node ``m_j``
whose parents are the row's state ``s`` (its class, or (class, component) of a latent-class
model) and the *bin* ``b_j`` of the column's own value::

    p(x, m | s) = prod_j p(x_j | s) * prod_{j selected} p(m_j | b(x_j), s)
    p(m_j = 1 | b, s) = rho_j[s, b]  ~ Beta(a, a)

The bins are the quantile bins of the column's observed values (``n_bins`` of them, the
rule of :func:`bayesnb.structure.engine.bin_edges`). A row with ``x_j`` missing sums its value
out over the bins: ``p(m_j=1, x_j missing | s) = sum_b P(b | s) rho_j[s, b]``, with ``P(b | s)``
the mass of bin ``b`` under the family's plug-in predictive (the family hook
:meth:`~bayesnb.families.capabilities.NumericNode.predictive_bins`).

EM (:func:`fit_selection`): the E-step is the state posterior of each row under the feature
likelihood of its observed cells times its selection factors, and, for a missing cell, the
posterior over its bins ``q[s, b] ∝ P(b | s) rho[s, b]``. The M-step is exact for the
selection probabilities (Beta posterior mean of the expected counts). For the feature
families it adds each missing cell's expected contribution to the family's statistics by
quadrature, through the family contract only (``interval_stats``/``merge``): the column's
cut points are refined into fine sub-bins (finer observed quantiles, sub-bins past the
observed range at multiples of its standard deviation, and a sub-bin of its own for each point
mass of the family) and each sub-bin contributes its truncated predictive mean with its
posterior weight (:mod:`bayesnb.generative.mnar_bins`). The first moment of the missing cells is
then exact; the spread within a sub-bin is left out, so the variance of the column is slightly
understated and the EM objective can move by the quadrature error near convergence.

Columns of families without ``predictive_bins`` (categorical, multinomial blocks) keep the
MAR assumption: their missing cells are marginalised and imputed as usual.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from ..families.numeric import draw_categories
from ..inference.em import climb, log_penalty
from ..inference.nb_posterior import build, joint_log_likelihood_parts, normalise
from ..structure.columns import column_state, join_columns
from .mnar_bins import (censored, coarse_means, column_bins, fine_edges, has_bins, interval_pseudo_stats, node_edges,
                        own_bins)
from .mnar_values import value_fill, value_log_mass, value_pseudo_stats, value_selection_column

__all__ = ["SelectionColumn", "SelectionFit", "fill_selection", "fit_selection", "resp_for_fill", "selection_columns",
           "state_posterior_mnar"]

#: EM iterations from each starting selection pattern before the best is run to convergence.
START_ITER = 10


class SelectionColumn(NamedTuple):
    """One column with a missingness node.

    Attributes
    ----------
    block, col, column : int
        Its block, its position within the block, its position in the table.
    edges : ndarray of shape (B - 1,)
        Cut points of its ``B`` bins (quantiles of the observed values).
    fine : ndarray of shape (F - 1,)
        Cut points of the ``F`` quadrature sub-bins (each inside one bin).
    coarse : ndarray of int, shape (F,)
        The bin of each sub-bin.
    observed_bin : ndarray of int, shape (n,)
        The bin of each row's observed value, -1 where missing.
    values : ndarray of shape (V,) or None
        For a column with a finite set of values (:mod:`bayesnb.generative.mnar_values`): its values,
        one bin each (``edges`` and ``fine`` are then the codes' midpoints); None for a numeric column.
    """

    block: int
    col: int
    column: int
    edges: np.ndarray
    fine: np.ndarray
    coarse: np.ndarray
    observed_bin: np.ndarray
    values: np.ndarray | None = None


class SelectionFit(NamedTuple):
    """A naive (or latent-class) posterior with self-masking missingness nodes, fitted by EM.

    Attributes
    ----------
    posterior : NBPosterior
        Over the ``S`` states (classes, or (class, component) pairs).
    group : ndarray of int, shape (S,)
        The class of each state.
    columns : tuple of SelectionColumn
    missing_count, observed_count : tuple of ndarray of shape (S, B_j)
        Expected numbers of missing and of observed cells per (state, bin), per column.
    selection : tuple of ndarray of shape (S, B_j)
        ``p(m_j = 1 | bin, state)``: the Beta posterior mean.
    alpha : float
        The Beta(alpha, alpha) prior of every selection probability.
    em_objective : list of float
        Log posterior (up to a constant) after each iteration.
    converged : bool
    by_state : bool
        Whether each state has its own selection probabilities (else one row shared by all).
    """

    posterior: object
    group: np.ndarray
    columns: tuple
    missing_count: tuple
    observed_count: tuple
    selection: tuple
    alpha: float
    em_objective: list
    converged: bool
    by_state: bool = False


def selection_columns(post, encoded, n_bins, values=False, max_values=None):
    """The columns that get a missingness node: numeric columns (families with ``predictive_bins``)
    with at least one missing and two observed cells, and with ``values`` the columns of families with
    a finite set of values (categorical; their own value is the bin, :mod:`bayesnb.generative.mnar_values`).

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks, in block order.
    n_bins : int
        Bins of each column's own value (>= 2).
    values : bool, default=False
        Also the columns with a finite set of values.
    max_values : int or None, default=None
        With ``values``, only those with at most this many values (None: every one).

    Returns
    -------
    tuple of SelectionColumn
    """
    out = []
    for bi, (b, e) in enumerate(zip(post.blocks, encoded)):
        fam = b.family
        if fam.joint_columns:
            continue
        if fam.value_columns(b.state) is not None:
            for c in range(len(b.columns) if values else 0):
                sc = value_selection_column(b, e, c, lambda *a, bi=bi, c=c, b=b: SelectionColumn(
                    bi, c, int(b.columns[c]), *a))
                if sc is not None and (max_values is None or len(sc.values) <= max_values):
                    out.append(sc)
            continue
        try:
            raw = np.asarray(fam.gen_values(e), dtype=float)
        except NotImplementedError:
            continue
        for c in range(raw.shape[1]):
            x = raw[:, c]
            obs = np.isfinite(x)
            if obs.all() or obs.sum() < 2:
                continue
            edges = node_edges(x, n_bins)
            if not has_bins(b, c, edges):
                continue
            fine = fine_edges(x, edges, n_bins, fam.point_masses(column_state(b.state, c)))
            coarse = np.searchsorted(edges, np.concatenate([fine, [np.inf]]), side="left")
            out.append(SelectionColumn(bi, c, int(b.columns[c]), edges, fine, coarse, own_bins(x, edges)))
    return tuple(out)


def _log_missing_bins(block, params, sc, rho):
    """``log P(b | s) + log rho[s, b]`` (S, B): the joint of a missing cell's bin and its missingness."""
    if sc.values is not None:
        logm = value_log_mass(block, params, sc, rho.shape[0])
    else:
        logm, _ = column_bins(block, params, sc.col, sc.edges)
    with np.errstate(divide="ignore"):
        return logm + np.log(rho)


def state_posterior_mnar(post, encoded, columns, selection, *, points=None, allowed=None):
    """``(rel, row)``: :func:`~bayesnb.inference.nb_posterior.joint_log_likelihood_parts` plus the selection factors.

    Parameters
    ----------
    post : NBPosterior
    encoded : list
    columns : tuple of SelectionColumn
    selection : sequence of ndarray of shape (S, B_j)
        ``p(m_j = 1 | bin, state)`` per column.
    points : list of params NamedTuple, optional
        Per-block parameters instead of the posteriors (a draw).
    allowed : ndarray of bool, shape (n, S), optional

    Returns
    -------
    rel : ndarray of shape (n, S)
        ``log p(x_obs, m, s)`` less the row term.
    row : ndarray of shape (n,)
    """
    rel, row = joint_log_likelihood_parts(post, encoded, points=points, allowed=allowed)
    rel = np.array(rel, dtype=float, copy=True)
    for sc, rho in zip(columns, selection):
        b = post.blocks[sc.block]
        params = b.posterior if points is None else points[sc.block]
        obs = sc.observed_bin >= 0
        with np.errstate(divide="ignore"):
            rel[obs] += np.log1p(-rho[:, sc.observed_bin[obs]]).T
        rel[~obs] += logsumexp(_log_missing_bins(b, params, sc, rho), axis=1)[None, :]
    return rel, row


def _pseudo_stats(block, sc, rho, weight):
    """The family statistics of a column's missing cells (a one-column block's): by value
    (:func:`~bayesnb.generative.mnar_values.value_pseudo_stats`) or by quadrature on its sub-bins
    (:func:`~bayesnb.generative.mnar_bins.interval_pseudo_stats`)."""
    if sc.values is not None:
        lq = _log_missing_bins(block, block.posterior, sc, rho)
        return value_pseudo_stats(block, sc, np.exp(lq - logsumexp(lq, axis=1, keepdims=True)), weight)
    return interval_pseudo_stats(block, sc, rho, weight)


def _selection_counts(post, sc, rho, resp):
    """Expected (missing, observed) counts per (state, bin) of one column."""
    obs = sc.observed_bin >= 0
    B = rho.shape[1]
    onehot = np.zeros((int(obs.sum()), B))
    onehot[np.arange(onehot.shape[0]), sc.observed_bin[obs]] = 1.0
    n0 = resp[obs].T @ onehot
    q = _log_missing_bins(post.blocks[sc.block], post.blocks[sc.block].posterior, sc, rho)
    q = np.exp(q - logsumexp(q, axis=1, keepdims=True))
    n1 = resp[~obs].sum(0)[:, None] * q
    return n1, n0


def _m_step(post, encoded, columns, rho, resp, class_params, alpha, shared, tied=False):
    """New (posterior, selection, counts) from the weighted responsibilities (n, S); ``shared``: one
    selection probability per bin for every state (counts summed over the states); ``tied``: one for
    every bin (counts summed over the bins)."""
    extra = {}  # block -> {column in the block: its missing cells' statistics}
    counts = []
    for sc, r in zip(columns, rho):
        n1, n0 = _selection_counts(post, sc, r, resp)
        if shared:
            n1, n0 = (np.broadcast_to(a.sum(0), a.shape).copy() for a in (n1, n0))
        if tied:
            n1, n0 = (np.broadcast_to(a.sum(1, keepdims=True), a.shape).copy() for a in (n1, n0))
        counts.append((n1, n0))
        b = post.blocks[sc.block]
        extra.setdefault(sc.block, {})[sc.col] = _pseudo_stats(b, sc, r, resp[sc.observed_bin < 0].sum(0))
    blocks = []
    for i, (b, e) in enumerate(zip(post.blocks, encoded)):
        st = b.family.stats(e, resp, b.state)
        if i in extra:
            st = b.family.merge(st, join_columns(b.family, b.state, len(b.names), resp.shape[1], extra[i]))
        blocks.append((b.family, b.columns, b.names, b.state, st, "impute_mnar"))
    new = build(post.classes, resp.sum(0), *class_params, blocks, priors=[b.prior for b in post.blocks])
    sel = tuple((n1 + alpha) / (n1 + n0 + 2 * alpha) for n1, n0 in counts)
    return new, sel, tuple(c[0] for c in counts), tuple(c[1] for c in counts)


def fit_selection(post, encoded, columns, group, allowed, rw, class_params, *, alpha=1.0, tol=1e-6,
                  max_iter=200, starts=("flat", "rising", "falling"), by_state=False, tied=False):
    """EM for the selection model from a MAR posterior (flat selection probabilities to start).

    Parameters
    ----------
    post : NBPosterior
        The starting posterior over the states (its priors are held fixed).
    encoded : list
        Encoded blocks of every row.
    columns : tuple of SelectionColumn
        From :func:`selection_columns`.
    group : ndarray of int, shape (S,)
        The class of each state.
    allowed : ndarray of bool, shape (n, S)
        States each row may take (its label's).
    rw : ndarray of shape (n,)
        Row weights.
    class_params : (class_alpha, fit_prior, class_prior)
        As in :func:`~bayesnb.inference.nb_posterior.class_posterior`.
    alpha : float, default=1.0
        Beta(alpha, alpha) prior of each selection probability (> 0).
    tol, max_iter
        As in :func:`bayesnb.inference.em.run_em`.
    starts : sequence of {"flat", "rising", "falling"}
        Starting selection patterns over the bins (the column's missing rate, flat or tilted); EM runs
        :data:`START_ITER` iterations from each, then on from the one with the highest objective.
    by_state : bool, default=False
        False: ``p(m_j | bin)`` is shared by every state (the missingness depends on the value, not
        on the class: each class then reveals the part of the selection curve where its values
        lie); True: one per (state, bin).
    tied : bool, default=False
        True: one selection probability for all the bins (values) of a column, so the missingness does
        not depend on the value (the MAR model fitted by the same EM, for :mod:`bayesnb.impute.mnar_evidence`;
        it starts flat only).

    Returns
    -------
    SelectionFit
    """
    cache = {}

    def joint(state):
        cache["state"] = state
        return state_posterior_mnar(state[0], encoded, columns, state[1], allowed=allowed)

    def penalty(state):
        total = log_penalty(state[0])
        for r in state[1]:
            r = r if by_state else r[:1]
            r = r[:, :1] if tied else r
            with np.errstate(divide="ignore"):
                total += float(alpha * (np.log(r) + np.log1p(-r)).sum())
        return total

    def update(resp):
        p, rho = cache["state"][:2]
        return _m_step(p, encoded, columns, rho, resp, class_params, alpha, not by_state, tied)

    starts = ("flat",) if tied else starts
    best = None
    for shape in starts:  # a few iterations from each start, then the best to convergence
        start = _start_selection(columns, len(post.classes), shape)
        empty = tuple(np.zeros_like(r) for r in start)
        first = min(START_ITER, max_iter) if len(starts) > 1 else max_iter
        state, hist, conv, _ = climb((post, start, empty, empty), joint, penalty, update, rw, tol, first)
        if best is None or hist[-1] > best[1][-1]:
            best = (state, hist, conv)
    state, hist, conv = best
    if not conv and max_iter > len(hist) - 1:
        state, more, conv, _ = climb(state, joint, penalty, update, rw, tol, max_iter - (len(hist) - 1))
        hist = hist + more[1:]
    return SelectionFit(state[0], np.asarray(group), columns, state[2], state[3], state[1], float(alpha), hist,
                        conv, bool(by_state))


def _start_selection(columns, S, shape):
    """Starting ``p(m_j = 1 | bin, state)``: the column's missing rate, flat, or rising or falling over
    the bins (logits spread over +-2 around it)."""
    out = []
    for sc in columns:
        B = len(sc.edges) + 1
        rate = float(np.clip(np.mean(sc.observed_bin < 0), 1e-3, 1 - 1e-3))
        tilt = {"flat": 0.0, "rising": 2.0, "falling": -2.0}[shape] * np.linspace(-1.0, 1.0, B)
        logit = np.log(rate) - np.log1p(-rate) + tilt
        out.append(np.broadcast_to(1.0 / (1.0 + np.exp(-logit)), (S, B)).copy())
    return tuple(out)


def _draw_between(fam, point, z, rng, c, lo, hi, fallback):
    """Values of block column ``c`` given states ``z`` inside ``(lo, hi]``: the family's truncated
    sampler, else rejection (200 tries), else ``fallback`` (the truncated means)."""
    exact = fam.gen_sample_between(point, z, rng, c, lo, hi)
    if exact is not None:
        return np.asarray(exact, dtype=float)
    out = np.array(fallback, dtype=float)
    todo = np.ones(z.size, dtype=bool)
    for _ in range(200):
        if not todo.any():
            break
        v = np.asarray(fam.gen_sample(point, z[todo], rng), dtype=float)[:, c]
        ok = (v > lo[todo]) & (v <= hi[todo])
        idx = np.flatnonzero(todo)[ok]
        out[idx] = v[ok]
        todo[idx] = False
    return out


def fill_selection(fit, encoded, resp, *, strategy="mean", rng=None, points=None, selection=None, z=None):
    """Values of each selected column's missing cells under the selection model.

    A missing cell's predictive is its family's predictive reweighted by the selection probability
    of each bin: ``p(x | m=1, s) ∝ p(x | s) rho[s, b(x)]``, a mixture of the family's predictive
    truncated to each bin.

    Parameters
    ----------
    fit : SelectionFit
    encoded : list
    resp : ndarray of shape (n, S)
        ``p(state | x_obs, m)`` of every row.
    strategy : {"mean", "draw"}
        The mean of that predictive, or one draw from it (a state, a bin, then a value).
    rng : numpy.random.Generator, optional
        For ``"draw"``.
    points, selection : optional
        Per-block parameters and selection probabilities to use instead of the fit's (a draw).
    z : ndarray of int, shape (n,), optional
        With ``"draw"``: each row's state, drawn once from ``resp`` and shared by all its missing cells
        (and by the caller's other columns); None: drawn here, once per row.

    Returns
    -------
    dict
        ``{table column: (rows, values)}``.
    """
    selection = fit.selection if selection is None else selection
    out = {}
    if strategy != "mean" and z is None:
        z = draw_categories(resp, rng.random(resp.shape[0]))
    for sc, rho in zip(fit.columns, selection):
        b = fit.posterior.blocks[sc.block]
        params = b.posterior if points is None else points[sc.block]
        rows = np.flatnonzero(sc.observed_bin < 0)
        lq = _log_missing_bins(b, params, sc, rho)
        q = np.exp(lq - logsumexp(lq, axis=1, keepdims=True))  # (S, B): bin given state and m = 1
        if sc.values is not None:
            out[sc.column] = (rows, value_fill(sc, q, resp[rows], strategy, rng, None if z is None else z[rows]))
            continue
        _, mean = column_bins(b, params, sc.col, sc.edges)
        mean = coarse_means(b, params, sc, mean)
        r = resp[rows]
        if strategy == "mean":
            vals = r @ np.nansum(q * np.nan_to_num(mean), axis=1)
        else:
            zr = z[rows]
            bins = draw_categories(q[zr], rng.random(rows.size))
            e = np.concatenate([[-np.inf], sc.edges, [np.inf]])
            vals = censored(_draw_between(b.family, params, zr, rng, sc.col, e[bins], e[bins + 1], mean[zr, bins]),
                             sc)
        out[sc.column] = (rows, np.asarray(b.family.round_fill(np.asarray(vals, dtype=float)[:, None],
                                                               column_state(b.state, sc.col))).ravel())
    return out


def resp_for_fill(fit, encoded, allowed, *, points=None, selection=None, logw=None, who="impute_mnar"):
    """``p(state | x_obs, m)`` (n, S) under the fit (or a draw of its parameters)."""
    post = fit.posterior
    if logw is not None:
        post = post._replace(class_log_prior=logw)
    rel, _ = state_posterior_mnar(post, encoded, fit.columns, fit.selection if selection is None else selection,
                                  points=points, allowed=allowed)
    fallback = post.class_log_prior if allowed is None else np.where(allowed, post.class_log_prior, -np.inf)
    return np.exp(normalise(rel, fallback, who, stacklevel=4))
