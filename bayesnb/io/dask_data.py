"""Dask collections in and out: detection, row-aligned partitions, lazy per-partition maps.

Nothing here imports dask at module level: :func:`is_dask` recognises a collection by
duck typing (``__dask_graph__``), and the functions that build graphs import dask when
they are called, i.e. only once a Dask collection has arrived (``pip install
"bayesnb[dask]"``). The estimators' fitting on Dask (a tree reduction of sufficient
statistics) lives in :mod:`bayesnb.estimators._dask_fit`; this module only moves rows.
"""

from __future__ import annotations

import functools

import numpy as np

from .._utils import as_generator

__all__ = ["is_dask"]


def is_dask(X) -> bool:
    """Whether ``X`` is a Dask collection (array, DataFrame, Series), without importing dask.

    Parameters
    ----------
    X : object

    Returns
    -------
    bool
    """
    return hasattr(X, "__dask_graph__") and callable(getattr(X, "__dask_graph__", None))


def _is_dask_frame(X) -> bool:
    return is_dask(X) and hasattr(X, "map_partitions")


def _as_2d_array(X, who):
    """A 2-D dask array with one chunk across the columns (every block holds whole rows)."""
    if X.ndim != 2:
        raise ValueError(f"{who}: expected a 2-D dask array (rows x features); received {X.ndim} dimension(s).")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(f"{who}: expected a dask array with known chunk sizes; call X.compute_chunk_sizes() first.")
    return X.rechunk({1: -1}) if len(X.chunks[1]) > 1 else X


def row_partitions(X, *vectors, who="NaiveBayes"):
    """``X`` and row-aligned vectors (labels, weights) as lists of Delayed partitions.

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame
    *vectors : dask collection, array-like or None
        One value per row of ``X``; a dask array/Series is rechunked (array) or must have
        ``X``'s partitions (DataFrame); an in-memory one is split at ``X``'s partitions.
        None stays None in every partition.

    Returns
    -------
    list of tuple
        One ``(X_part, v1_part, ...)`` per partition, each item a Delayed (or None).
    """
    import dask
    import dask.array as da

    if _is_dask_frame(X):
        xs = X.to_delayed()
        lengths = None
        out_vectors = []
        for v in vectors:
            if v is None:
                out_vectors.append([None] * len(xs))
            elif is_dask(v):
                if getattr(v, "npartitions", None) != X.npartitions:
                    raise ValueError(f"{who}: expected y/sample_weight as a dask Series with X's {X.npartitions} "
                                     f"partitions (e.g. a column of X's DataFrame); received {type(v).__name__} "
                                     f"with {getattr(v, 'npartitions', getattr(v, 'numblocks', '?'))} partition(s).")
                out_vectors.append(v.to_delayed())
            else:
                if lengths is None:
                    lengths = X.map_partitions(len).compute().tolist()
                out_vectors.append(_split(np.asarray(v), lengths, who))
        return list(zip(xs, *out_vectors))
    X = _as_2d_array(X, who)
    rows = X.chunks[0]
    xs = list(X.to_delayed().ravel())
    out_vectors = []
    for v in vectors:
        if v is None:
            out_vectors.append([None] * len(xs))
            continue
        if is_dask(v) and hasattr(v, "to_dask_array"):  # a dask Series
            v = v.to_dask_array(lengths=True)
        if not is_dask(v):
            out_vectors.append([dask.delayed(p) for p in _split(np.asarray(v), rows, who)])
            continue
        if v.shape[0] != X.shape[0]:
            raise ValueError(f"{who}: expected {X.shape[0]} values, one per row of X; received {v.shape[0]}.")
        out_vectors.append(list(da.asarray(v).rechunk({0: rows}).to_delayed().ravel()))
    return list(zip(xs, *out_vectors))


def _split(v, lengths, who):
    if v.shape[0] != sum(lengths):
        raise ValueError(f"{who}: expected {sum(lengths)} values, one per row of X; received {v.shape[0]}.")
    return np.split(v, np.cumsum(lengths)[:-1])


def tree_reduce(parts, merge, split_every=8):
    """Combine Delayed ``parts`` with ``merge`` in a tree of fan-in ``split_every``; returns one Delayed."""
    import dask

    combine = dask.delayed(lambda *xs: functools.reduce(merge, xs), pure=True)
    while len(parts) > 1:
        parts = [combine(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def map_rows(fn, X, kind, *, n_out=None, dtype=float, who="NaiveBayes"):
    """Apply ``fn`` to every partition of ``X`` lazily; returns a Dask collection.

    Parameters
    ----------
    fn : callable
        In-memory function of one partition (an estimator's bound method).
    X : dask.array.Array or dask.dataframe.DataFrame
    kind : {"vector", "matrix", "same"}
        ``"vector"``: one value per row (a dask array, or a dask Series with ``X``'s index);
        ``"matrix"``: ``n_out`` values per row (a dask array; with unknown row chunk sizes
        for a DataFrame, as ``X.to_dask_array()``); ``"same"``: the partition's own type
        and shape (imputation).
    n_out : int, optional
        Columns of a ``"matrix"`` result.
    dtype : numpy dtype
        The result's dtype (``"vector"`` and ``"matrix"``).

    Returns
    -------
    dask.array.Array, dask.dataframe.Series or dask.dataframe.DataFrame
    """
    import dask
    import pandas as pd

    dtype = np.dtype(dtype)
    if _is_dask_frame(X):
        if kind == "vector":
            return X.map_partitions(_as_series, fn, meta=pd.Series(np.empty(0, dtype=dtype)))
        if kind == "same":
            return X.map_partitions(fn, meta=X._meta)
        import dask.array as da

        blocks = [da.from_delayed(dask.delayed(fn)(p), shape=(np.nan, n_out), dtype=dtype,
                                  meta=np.empty((0, n_out), dtype=dtype)) for p in X.to_delayed()]
        return da.concatenate(blocks, axis=0)
    X = _as_2d_array(X, who)
    if kind == "vector":
        return X.map_blocks(fn, drop_axis=1, dtype=dtype, meta=np.empty(0, dtype=dtype))
    if kind == "matrix":
        return X.map_blocks(fn, chunks=(X.chunks[0], (n_out,)), dtype=dtype, meta=np.empty((0, n_out), dtype=dtype))
    return X.map_blocks(fn, dtype=X.dtype, meta=X._meta)


def _as_series(part, fn):
    import pandas as pd

    return pd.Series(fn(part), index=part.index)


def sample_given(model, given, *, n_samples, y, random_state, who, **options):
    """``model.sample(given=<dask DataFrame>)``: one in-memory conditional sample per partition.

    Parameters
    ----------
    model : fitted estimator
    given : dask.dataframe.DataFrame
        One row of given values per sampled row (named columns; missing cells allowed).
    n_samples : int
        Must be 1 (the default), meaning one draw per row of ``given``.
    y : label or None
        One label for every row, or None to draw the classes.
    random_state : None, int or Generator
        Seeds one independent stream per partition (reproducible for a fixed partitioning).
    who : str
        Name used in error messages.
    **options
        ``parameter_uncertainty``, ``length``, ``latent``, passed to each partition's call.

    Returns
    -------
    X : dask.dataframe.DataFrame
        The sampled rows, with ``given``'s index; the given cells hold the given values.
    y : dask.array.Array
        The rows' classes (unknown chunk sizes).
    """
    import dask
    import dask.array as da
    import dask.dataframe as dd

    if not _is_dask_frame(given):
        raise TypeError(f"{who}: given= as a Dask collection must be a dask DataFrame (named columns, one row per "
                        f"sampled row); received {type(given).__name__}.")
    if n_samples != 1:
        raise ValueError(f"{who}: with a Dask given=, sample draws one row per given row (its length is not known "
                         f"before computing); leave n_samples at 1, received {n_samples!r}.")
    if y is not None and np.ndim(y) != 0:
        raise ValueError(f"{who}: with a Dask given=, y must be one label for every row or None; received an "
                         f"array of labels (put them in a partition-aligned column and sample per class).")

    def one(part, seed):
        X, labels = model.sample(len(part), given=part, y=y, random_state=np.random.default_rng(seed), **options)
        X.index = part.index
        return X, labels

    blank = given._meta.reindex([0])  # one row, every given cell missing: the output's columns and dtypes
    meta_X, meta_y = one(blank, 0)
    meta_X, meta_y = meta_X.iloc[:0], meta_y[:0]
    seeds = np.random.SeedSequence(int(as_generator(random_state).integers(2**63))).spawn(given.npartitions)
    outs = [dask.delayed(one, nout=2, pure=True)(p, s) for p, s in zip(given.to_delayed(), seeds)]
    X = dd.from_delayed([o[0] for o in outs], meta=meta_X, divisions=given.divisions)
    labels = da.concatenate([da.from_delayed(o[1], shape=(np.nan,), dtype=meta_y.dtype, meta=meta_y)
                             for o in outs])
    return X, labels
