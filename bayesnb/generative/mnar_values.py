"""Missingness nodes on columns with a finite set of values (categorical): the selection model of
:mod:`bayesnb.generative.mnar` with the column's own *value* as the bin.

For such a column ``j`` (a family whose :meth:`~bayesnb.families._contract.Family.value_columns` lists its
values) the missingness node's parents are the state and the value: ``p(m_j = 1 | x_j = v) = rho_j[v]``.
A missing cell sums its value out exactly, ``sum_v p(v | s) rho_j[v]``; the M-step adds each missing
cell's expected count of every value, ``weight[s] * q[s, v]`` with ``q[s, v] ∝ p(v | s) rho_j[v]``, to the
family's statistics, and the fill is the most probable value of ``p(x_j | x_obs, m_j = 1)`` (or a draw
from it). Everything goes through the family contract (``value_columns``, ``encode``, ``gen_decode``,
``gen_cell_log_lik``, ``stats``), so no family is special-cased.

Identification: the observed cells show ``p(v | s) (1 - rho[v])`` per state and the missing rate per
state; with the selection shared by the states, ``S`` states give ``S (V - 1) + S`` numbers for
``S (V - 1) + V`` unknowns, so it needs at least ``V`` states that differ (a yes/no column: two
classes, or the components of a latent-class model).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..families.numeric import draw_categories
from ..structure.columns import column_params, column_state

__all__ = ["own_values", "value_fill", "value_log_mass", "value_pseudo_stats", "value_selection_column"]


def value_selection_column(block, encoded, c, make):
    """The :class:`~bayesnb.generative.mnar.SelectionColumn` of column ``c`` of a value block, or None
    (no missing cell, fewer than two observed ones or fewer than two values).

    Parameters
    ----------
    block : Block
        A block of the posterior whose family lists its values (``value_columns``).
    encoded : object
        The block's encoded rows.
    c : int
        The column's position in the block.
    make : callable
        ``make(edges, fine, coarse, observed_bin, values)`` builds it (the caller's constructor).

    Returns
    -------
    SelectionColumn or None
    """
    values = np.asarray(block.family.value_columns(block.state)[c][0], dtype=object)
    if values.size < 2:
        return None
    ob = own_values(block, encoded, c, values)
    obs = ob >= 0
    if obs.all() or obs.sum() < 2:
        return None
    cuts = np.arange(1, values.size) - 0.5  # B = V bins, one per value (the code order)
    return make(cuts, cuts, np.arange(values.size), ob, values)


def own_values(block, encoded, c, values):
    """The position of each row's value of column ``c`` of ``block`` among ``values`` (a missingness node's
    own-value parent), -1 where the cell is missing."""
    return pd.Index(values).get_indexer(list(block.family.gen_decode(encoded, block.state)[c]))


def _column_rows(block, sc, S):
    """Column ``sc.col`` of ``block`` as a one-column block: ``(encoded, state)``, row ``(s, v)`` of the
    ``S * V`` rows holding value ``v``."""
    state = column_state(block.state, sc.col)
    raw = np.tile(np.asarray(sc.values, dtype=object), S)[:, None]
    return block.family.encode(raw, state, who="impute_mnar")[0], state


_MASS = {}


def value_log_mass(block, params, sc, S):
    """``log p(v | s)`` (S, V) of the column's values under ``params`` (the family's plug-in predictive).

    Parameters
    ----------
    block : Block
    params : object
        The block's parameters (its posterior, or a posterior draw).
    sc : SelectionColumn
        The column (``sc.values`` set).
    S : int
        Number of states.

    Returns
    -------
    ndarray of shape (S, V)
    """
    key = (id(params), sc.column, S)
    hit = _MASS.get(key)
    if hit is not None and hit[0] is params:
        return hit[1]
    V = len(sc.values)
    enc, _ = _column_rows(block, sc, S)
    weights = np.repeat(np.eye(S), V, axis=0)
    out = np.asarray(block.family.gen_cell_log_lik(column_params(block.prior, sc.col), column_params(params, sc.col),
                                                   enc, weights), dtype=float)[:, 0].reshape(S, V)
    if len(_MASS) > 512:
        _MASS.clear()
    _MASS[key] = (params, out)
    return out


def value_pseudo_stats(block, sc, q, weight):
    """The family statistics of the column's missing cells: value ``v`` counted ``weight[s] * q[s, v]`` times
    in state ``s``.

    Parameters
    ----------
    block : Block
    sc : SelectionColumn
    q : ndarray of shape (S, V)
        The posterior over the values of a missing cell, per state.
    weight : ndarray of shape (S,)
        The missing cells' summed state responsibilities.

    Returns
    -------
    object
        The family's statistics of the one column (as from its ``stats`` on a one-column block).
    """
    S = q.shape[0]
    enc, state = _column_rows(block, sc, S)
    resp = np.repeat(np.eye(S), len(sc.values), axis=0) * (weight[:, None] * q).reshape(-1)[:, None]
    return block.family.stats(enc, resp, state)


def value_fill(sc, q, r, strategy, rng, z=None):
    """Values of the missing cells: the most probable of ``r @ q`` (``"mean"``: the mode) or a draw
    (a state from ``r``, then a value from ``q``).

    Parameters
    ----------
    sc : SelectionColumn
    q : ndarray of shape (S, V)
        The posterior over the values of a missing cell given its state and that it is missing.
    r : ndarray of shape (n, S)
        The state responsibilities of the missing cells' rows.
    strategy : {"mean", "draw"}
    rng : Generator
        Used with ``"draw"``.
    z : ndarray of int, shape (n,), optional
        With ``"draw"``: each row's state (shared with the row's other cells); None: drawn from ``r``.

    Returns
    -------
    ndarray of shape (n,)
        The values (elements of ``sc.values``).
    """
    if strategy == "mean":
        return sc.values[np.argmax(r @ q, axis=1)]
    if z is None:
        z = draw_categories(r, rng.random(r.shape[0]))
    v = draw_categories(q[z], rng.random(r.shape[0]))
    return sc.values[v]
