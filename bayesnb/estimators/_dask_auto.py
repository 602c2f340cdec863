"""``NaiveBayes(features="auto")`` on Dask collections: every numeric column's family chosen from
partition statistics, exactly as the in-memory choice makes it.

The in-memory choice (:mod:`bayesnb.estimators.auto_features`) reads of a numeric column only things
that combine over disjoint partitions, so three passes over the partitions, each reduced in a
tree, give it:

1. **Tables**: per partition its labels, each column's kind (:func:`~.auto_features.kind_votes`: a
   column is numeric when every partition that observes it says so) and each numeric column's
   distinct values with their cell counts (:func:`~.auto_features.value_table`). The summed table gives
   the column's support, resolution and candidate families (:func:`~.auto_features.column_candidates`).
2. **States**: per partition every candidate's encoding of the column, merged with
   ``Family.merge_states`` (a Histogram's bins are made again from the summed table of values and
   counts, so they are the bins of the whole column).
3. **Statistics**: per partition every candidate's statistics of the column and its density
   cells, added (``Family.merge``). Each candidate's score comes from the sums
   (:func:`~.auto_features.score`), the winner from the in-memory rule (:func:`~.auto_features.pick`).

The family scores therefore equal the in-memory ones up to the order of floating-point
additions, and the chosen families and Histogram bins are the same. The tables hold every
distinct value of each numeric column, as a fitted Histogram's state does: the driver holds
that many values per numeric column (a continuous column of ``n`` distinct values: ``16 n``
bytes), never the rows.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..io import dask_data as _dask
from .._utils import is_frame
from .auto_features import (MODES, assemble_blocks, column_candidates, kind_votes, merge_tables, numeric_column, pick,
                            score, value_table)
from ._dask_fit import _resp, _rows

__all__ = ["auto_blocks"]

def _who(mode):
    """The estimator and mode that the family search's messages name."""
    return f"NaiveBayes(features={mode!r})"


def auto_blocks(light, parts, head, classes_of, categorical=None, mode="auto"):
    """The blocks and score table of ``features="auto"`` over the partitions (module docstring).

    Parameters
    ----------
    light : BaseNB
        The unfitted estimator that validates a partition (``_dask_fit._light``).
    parts : list of tuple
        ``(X, y, sample_weight)`` Delayed partitions (:func:`bayesnb.io.dask_data.row_partitions`).
    head : ndarray or DataFrame
        The first partition, validated (the column names).
    classes_of : callable
        The fit's classes from the labels found in the partitions (ndarray).
    categorical : Categorical, optional
        The family of the categorical block.
    mode : {"auto", "histogram"}, default="auto"
        The candidate families (:data:`bayesnb.estimators.auto_features.MODES`).

    Returns
    -------
    specs, scores
        As :func:`bayesnb.estimators.auto_features.auto_blocks`.
    """
    import dask

    light_d = dask.delayed(light)
    labels, votes, tables = _dask.tree_reduce(
        [dask.delayed(_tables, pure=True)(light_d, *p) for p in parts], _merge_tables).compute()
    classes = classes_of(labels)
    kinds = ["numeric" if v == "numeric" else "categorical" for v in votes]
    names = list(head.columns) if is_frame(head) else list(range(head.shape[1]))
    empty = (np.empty(0), np.empty(0))
    cands = {j: column_candidates(*tables.get(j, empty), MODES[mode])
             for j, k in enumerate(kinds) if k == "numeric"}
    del tables  # (each numeric column's distinct values: the candidates' states hold them from here)
    jobs = [(j, fam) for j, (_, cs) in cands.items() for _, fam in cs]
    if jobs:
        jobs_d = dask.delayed(jobs)
        who = _who(mode)
        states = _dask.tree_reduce([dask.delayed(_states, pure=True)(light_d, jobs_d, *p, who=who) for p in parts],
                                   _merge_states(jobs)).compute()
        states_d, classes_d = dask.delayed(states), dask.delayed(classes)
        stats, cells = _dask.tree_reduce(
            [dask.delayed(_stats, pure=True)(light_d, jobs_d, states_d, classes_d, *p, who=who) for p in parts],
            _merge_stats(jobs)).compute()
    choices, i = {}, 0
    for j, (h, cs) in cands.items():
        got = [score(fam, stats[i + c], states[i + c], cells[i + c], h) for c, (_, fam) in enumerate(cs)]
        choices[j] = pick(cs, got, h) if cs else (None, [], None)
        i += len(cs)
    return assemble_blocks(kinds, names, choices, categorical)


def _tables(est, X, y, w):
    """Pass 1 of a partition: ``(labels, kind votes, {numeric column: value table})``."""
    X, y, w = _rows(est, X, y, w) if X.shape[0] else (X, np.asarray(y)[:0], None)
    votes = kind_votes(X) if X.shape[0] else [None] * X.shape[1]
    tables = {j: value_table(numeric_column(X, j)) for j, v in enumerate(votes) if v == "numeric"}
    return np.unique(y) if y.dtype != object else np.asarray(list(dict.fromkeys(y)), dtype=object), votes, tables


def _merge_tables(a, b):
    votes = [x if z is None or x == "categorical" else z if x is None or z == "categorical" else x
             for x, z in zip(a[1], b[1])]
    tables = dict(a[2])
    for j, t in b[2].items():
        tables[j] = merge_tables(tables[j], t) if j in tables else t
    return np.concatenate([a[0], b[0]]), votes, tables


def _states(est, jobs, X, y, w, *, who):
    """Pass 2 of a partition: every candidate's encoding state of its column (None without rows)."""
    X = _rows(est, X, y, w)[0] if X.shape[0] else X
    if X.shape[0] == 0:
        return [None] * len(jobs)
    cols = {j: numeric_column(X, j)[:, None] for j in {j for j, _ in jobs}}
    return _shared(jobs, [fam.encode(cols[j], who=who)[1] for j, fam in jobs])


def _merge_states(jobs):
    def merge(a, b):
        return _shared(jobs, [x if z is None else z if x is None else fam.merge_states(x, z)
                              for (_, fam), x, z in zip(jobs, a, b)])

    return merge


def _shared(jobs, states):
    """``states`` with the equal arrays of one column's candidates made one object (their tables of values,
    e.g. every Histogram candidate's, then travel and stay in memory once per column, not once per candidate)."""
    seen = {}

    def share(x, j):
        if isinstance(x, tuple):
            fields = [share(f, j) for f in x]
            return type(x)(*fields) if hasattr(x, "_fields") else tuple(fields)
        if isinstance(x, np.ndarray) and x.size >= 64 and x.dtype.kind in "biuf":
            key = (j, x.dtype.str, x.shape, hashlib.sha1(np.ascontiguousarray(x).view(np.uint8)).hexdigest())
            kept = seen.setdefault(key, x)
            return kept if kept is x or np.array_equal(kept, x) else x
        return x

    return [share(st, j) for (j, _), st in zip(jobs, states)]


def _stats(est, jobs, states, classes, X, y, w, *, who):
    """Pass 3 of a partition: every candidate's statistics of its column, and its density cells."""
    X, y, w = _rows(est, X, y, w) if X.shape[0] else (X, y, None)
    if X.shape[0] == 0:
        return [fam.empty_stats(st, len(classes)) for (_, fam), st in zip(jobs, states)], [0] * len(jobs)
    resp = _resp(classes, y, w)
    cols = {j: numeric_column(X, j)[:, None] for j in {j for j, _ in jobs}}
    stats = [fam.stats(fam.encode(cols[j], st, who=who)[0], resp, st) for (j, fam), st in zip(jobs, states)]
    return stats, [fam.density_cells(cols[j]) for j, fam in jobs]


def _merge_stats(jobs):
    def merge(a, b):
        return ([fam.merge(x, z) for (_, fam), x, z in zip(jobs, a[0], b[0])],
                [x + z for x, z in zip(a[1], b[1])])

    return merge
