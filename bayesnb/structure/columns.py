"""One column of a block: its encoding state, parameters, rows and statistics, cut out of or put back into the block.

A structure treats each feature as a node of its own, while the families keep their columns in blocks. A
family's parameters and statistics hold either arrays ``(K, d, ...)`` or per-column tuples; these helpers
slice a column out (:func:`column_params`, :func:`column_state`) and assemble a block from its columns
(:func:`join_columns`), without knowing which family they hold.
"""

from __future__ import annotations

import numpy as np

__all__ = ["column_params", "column_state", "join_columns", "one_column_state", "take_contexts"]


def one_column_state(state, j):
    """Feature ``j``'s encoding state (a NamedTuple of per-feature tuples) as a one-feature state."""
    return type(state)(*(field[j:j + 1] for field in state))


def _rows(blk, ok):
    """Rows ``ok`` of an encoded block (an array, or a NamedTuple of row-aligned arrays)."""
    if isinstance(blk, tuple):
        return type(blk)(*(np.asarray(f)[ok] for f in blk))
    return blk[ok]


def _column(blk, c):
    """Column ``c`` of an encoded block, as a one-column encoded block (a view of an array block)."""
    if isinstance(blk, tuple):
        return type(blk)(*(np.asarray(f)[:, [c]] for f in blk))
    return blk[:, c:c + 1]


def column_state(state, c):
    """Column ``c``'s encoding state: a NamedTuple of per-column fields sliced, else (a column count) 1."""
    return one_column_state(state, c) if isinstance(state, tuple) else 1


def column_params(params, c):
    """Column ``c`` of a family's parameters: arrays (K, d, ...) -> (K, 1, ...), per-column tuples -> one entry."""
    return type(params)(*(None if f is None else f[c:c + 1] if isinstance(f, tuple) else np.asarray(f)[:, [c]]
                          for f in params))


def join_columns(family, state, d, K, parts):
    """A ``d``-column block's statistics over ``K`` classes, assembled from its columns' statistics.

    The inverse of :func:`column_params` for statistics: ``parts`` maps a column to its one-column statistics
    (a family's ``stats`` on a one-column block, :func:`column_state`); the others get ``empty_stats``.
    """
    cols = [parts[c] if c in parts else family.empty_stats(column_state(state, c), K) for c in range(d)]
    return type(cols[0])(*(None if f[0] is None else tuple(a for t in f for a in t) if isinstance(f[0], tuple)
                           else np.concatenate(f, axis=1) for f in zip(*cols)))


def take_contexts(params, idx):
    """The parameters of contexts ``idx`` (leading axis of every array, also inside per-column tuples)."""
    return type(params)(*(None if f is None else tuple(np.asarray(a)[idx] for a in f) if isinstance(f, tuple)
                          else np.asarray(f)[idx] for f in params))
