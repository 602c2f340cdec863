"""Fitting on Dask collections: a first pass discovers labels and categories, a second
reduces per-partition sufficient statistics in a tree, then the one conjugate update.

Every partition is encoded against the same encoding (the union of what all partitions
hold: classes, each categorical column's values), so its statistics are those of its
rows in the in-memory fit; statistics add (``Family.merge``), and the prior is resolved
from the reduced statistics (``make_prior``), so the posterior is the in-memory one up to
the order of floating-point additions. Other encodings learned from the data are each
partition's own, merged by the family (``Family.merge_states``: a Histogram's bins are made
again from the partitions' summed tables of distinct values); one whose states cannot be
combined is refused with an error, as are options that need the whole data at once (the
estimator's ``_dask_unsupported``). Blocks that depend on the data (``NaiveBayes(features="auto")``)
are chosen by the estimator's own passes first (``_dask_specs``, :mod:`._dask_auto`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..io import dask_data as _dask
from .._utils import ColumnNames, is_frame, missing_mask, one_hot, take_rows
from ..families.default_hooks import same_state
from ..inference.conjugate import posterior_from_stats
from . import validation as _val

__all__ = []


def fit(est, X, y, sample_weight, classes, partial):
    """``est._fit`` on a Dask ``X`` (``y``/``sample_weight`` dask or in-memory, row-aligned)."""
    import dask

    who = est._who
    _val.validate_params(est)
    reason = est._dask_unsupported()
    if reason:
        raise NotImplementedError(f"{who}: {reason} cannot be fitted on Dask collections; compute the data "
                                  "(X.compute()) or choose an option that is fitted from summed statistics.")
    parts = _dask.row_partitions(X, y, sample_weight, who=who)
    head = parts[0][0].compute()
    if head.shape[0] == 0:
        raise ValueError(f"{who}: the first partition of X is empty; expected rows in it (repartition X).")
    def classes_of(labels):  # the fit's classes, from the labels found in the partitions
        labels = _val.unique_labels(np.asarray(labels), who)
        if not partial and classes is None:
            return labels
        classes_ = est.classes_ if partial else _val.unique_labels(np.asarray(classes), who)
        _val.check_known_labels(labels, classes_, who)
        return classes_

    if not partial:
        head = est._check_X(head, reset=True)
        est._record_target_name(getattr(y, "_meta", y))  # a dask Series' name is on its (empty) meta
        light = _light(est)
        specs = est._dask_specs(head, light, parts, classes_of)  # (features="auto": its own passes)
        states = [None] * len(specs)
    else:
        est._check_X(head, reset=False)
        light = _light(est)
        specs = [(b.columns, b.family) for b in est.posterior_.blocks]
        states = [b.state for b in est.posterior_.blocks]
    raw = [i for i, (_, fam) in enumerate(specs) if fam.raw_values]
    # pass 1: labels and the values of every raw-value (categorical) column, per partition
    found = dask.compute(*[dask.delayed(_discover)(light, specs, raw, states, *p) for p in parts])
    classes_ = classes_of(np.concatenate([f[0] for f in found]))
    class_alpha, fit_prior, class_prior = est._check_class_params(len(classes_))
    for i, (cols, fam) in enumerate(specs):
        if i in raw:
            table = _value_table(head, cols, [[f[1][raw.index(i)][j] for f in found] for j in range(len(cols))])
            states[i] = fam.encode(est._take(table, cols, fam), states[i], extend=partial, who=who)[1]
        else:  # each partition's own state, merged; after earlier batches, each partition's extension of
            # their state (what an in-memory partial_fit of it makes: bins stay, observed columns grow)
            old = states[i]
            for s in [f[2][i] for f in found if f[2][i] is not None]:
                if old is not None and same_state(s, old):
                    continue  # nothing new (merging the earlier batches' rows twice would count them twice)
                states[i] = s if states[i] is None else fam.merge_states(states[i], s)
    # pass 2: per-partition statistics, reduced in a tree
    chunk = dask.delayed(_chunk_stats, pure=True)
    merged = _dask.tree_reduce([chunk(light, specs, states, classes_, *p) for p in parts], _merge_pair(specs))
    class_count, stats, all_missing = merged.compute()
    already = float(np.sum(est.class_count_)) if partial else 0.0
    est._check_total_weight(class_count, already)
    old = est.posterior_ if partial else None
    names = [ColumnNames(cols, getattr(est, "feature_names_in_", None)) for cols, _ in specs]
    if not partial:
        est._specs = specs
    never_observed = est._track_all_missing(all_missing, names, partial)
    post = posterior_from_stats(classes_, class_count, specs, states, stats, names, class_alpha, fit_prior,
                                class_prior, previous=old, who=who)
    return est._store_posterior(post, never_observed)


def _light(est):
    """An unfitted copy of ``est`` that validates partitions as ``est`` does (sent to the workers)."""
    light = clone(est)
    for attr in ("n_features_in_", "feature_names_in_", "feature_dtypes_"):
        if hasattr(est, attr):
            setattr(light, attr, getattr(est, attr))
    return light


def _rows(est, X, y, w):
    """A partition validated, its zero-weight rows dropped: ``(X, y, w)``."""
    X = est._check_X(X, reset=False)
    n = X.shape[0]
    y = _val.check_y(np.asarray(y), n, est._who)
    if w is not None and np.shape(w) == (n,) and n and not np.any(np.asarray(w, dtype=float) != 0):
        return take_rows(X, np.zeros(n, bool)), y[:0], np.zeros(0)  # a partition of zero weights only
    w = est._check_weights(None if w is None else np.asarray(w), n)
    if not w.all():
        keep = w > 0
        X, y, w = take_rows(X, keep), y[keep], w[keep]
    return X, y, w


def _discover(est, specs, raw, old, X, y, w):
    """A partition's labels; per raw-value block and column, its distinct observed values; per other
    block, the encoding state of its rows, or (``old[i]`` not None: earlier batches) their state
    extended by its rows (None for a raw-value block)."""
    X, y, w = _rows(est, X, y, w) if X.shape[0] else (X, np.asarray(y)[:0], w)
    if X.shape[0] == 0:
        return y, [[np.empty(0)] * len(specs[i][0]) for i in raw], [None] * len(specs)
    states = [None if fam.raw_values else fam.encode(est._take(X, cols, fam), st, extend=st is not None,
                                                     who=est._who)[1]
              for (cols, fam), st in zip(specs, old)]
    values = []
    for i in raw:
        cols, fam = specs[i]
        sub = est._take(X, cols, fam)
        per_col = []
        for j in range(len(cols)):
            col = sub.iloc[:, j].to_numpy(dtype=object) if is_frame(sub) else np.asarray(sub)[:, j]
            col = col[~missing_mask(col)]
            per_col.append(pd.unique(col) if col.dtype == object else np.unique(col))
        values.append(per_col)
    return (np.unique(y) if y.dtype != object else pd.unique(y)), values, states


def _value_table(head, cols, values):
    """``head``'s first row repeated, the block's columns replaced by their union of values (repeated to fit)."""
    uniq = []
    for v in values:
        seen = [a for a in v if len(a)]
        uniq.append(pd.unique(np.concatenate(seen)) if seen else None)
    n = max([1] + [len(u) for u in uniq if u is not None])
    if is_frame(head):
        table = head.iloc[np.zeros(n, dtype=int)].reset_index(drop=True)
        for c, u in zip(cols, uniq):
            dtype = head.dtypes.iloc[c]
            col = pd.Series(np.full(n, None) if u is None else np.resize(u, n))
            table.isetitem(c, col.astype(dtype) if u is not None or isinstance(dtype, pd.CategoricalDtype) else col)
        return table
    table = np.repeat(head[:1], n, axis=0)
    for c, u in zip(cols, uniq):
        table[:, c] = np.nan if u is None else np.resize(u, n)
    return table


def _chunk_stats(est, specs, states, classes, X, y, w):
    """``(class_count (K,), [stats per block], [all-missing (d,) per block])`` of one partition."""
    K = len(classes)
    X, y, w = _rows(est, X, y, w) if X.shape[0] else (X, y, w)
    if X.shape[0] == 0:
        return (np.zeros(K), [fam.empty_stats(st, K) for (_, fam), st in zip(specs, states)],
                [np.ones(len(cols), dtype=bool) for cols, _ in specs])
    resp = _resp(classes, y, w)
    stats, allm = [], []
    for (cols, fam), st in zip(specs, states):
        block = fam.encode(est._take(X, cols, fam), st, extend=False, who=est._who)[0]
        stats.append(fam.stats(block, resp, st))
        allm.append(np.asarray(fam.all_missing(block), dtype=bool))
    return resp.sum(0), stats, allm


def _resp(classes, y, w):
    """Row weights per class (n, K): each row's weight under its class, as the in-memory fit makes them
    (:func:`~bayesnb._utils.one_hot`)."""
    K = len(classes)
    return one_hot(np.searchsorted(classes, y) if K > 1 else np.zeros(len(y), dtype=int), w, K)


def _merge_pair(specs):
    fams = [fam for _, fam in specs]

    def merge(a, b):
        return (a[0] + b[0], [f.merge(x, z) for f, x, z in zip(fams, a[1], b[1])],
                [x & z for x, z in zip(a[2], b[2])])

    return merge
