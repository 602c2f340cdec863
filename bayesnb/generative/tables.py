"""Raw tables in and out of the generative methods: labels, missing cells, dtypes.

The estimator-facing side of :mod:`bayesnb.generative`: which labels mark unlabelled
rows (:func:`missing_labels`), class codes of labels, the missing cells of a raw table,
writing generated cells back into a copy of the caller's table in its own type and
dtypes, and assembling generated columns into the training table's form.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._utils import dense, is_frame, missing_mask

__all__ = ["SparseBlock", "assemble_table", "check_impute_options", "dense_columns", "label_codes", "mask_cells",
           "missing_cells", "missing_labels", "partial_labels", "restore_dtype", "write_cells"]


def _integer_labels(y, miss) -> bool:
    """Whether the present labels of ``y`` are integers (not bools, floats or strings)."""
    if y.dtype.kind in "iu":
        return True
    if y.dtype != object or miss.all():
        return False
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in y[~miss])


def missing_labels(y, unlabeled="auto", *, who="missing_labels") -> np.ndarray:
    """Bool mask of the unlabelled rows of ``y`` (see :meth:`~bayesnb.generative.GenerativeMixin.fit_semi_supervised`).

    A missing value (``None``, ``NaN``, ``pd.NA``) is never a class, so it always marks an
    unlabelled row; ``unlabeled`` names one more marker.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels.
    unlabeled : object, default="auto"
        ``"auto"``: ``-1`` also marks unlabelled rows when the labels are integers
        (scikit-learn's ``semi_supervised`` convention); for float, string or other
        labels only missing values do. ``None`` (or ``NaN``, ``pd.NA``): only missing
        values. Any other value (e.g. ``-1`` or ``"?"``): labels equal to it, too.
    who : str, default="missing_labels"
        Name used in error messages.

    Returns
    -------
    mask : ndarray of bool of shape (n_samples,)
        True for the unlabelled rows.

    Raises
    ------
    ValueError
        With ``unlabeled="auto"`` and integer labels, when ``y`` holds both ``-1`` and
        missing values: ``-1`` may then be a class or a marker, so say which.

    Examples
    --------
    >>> from bayesnb.generative import missing_labels
    >>> missing_labels([1, -1, 0]).tolist()
    [False, True, False]
    >>> missing_labels([1, -1, 0], unlabeled=None).tolist()
    [False, False, False]
    >>> missing_labels(["a", "?", None], unlabeled="?").tolist()
    [False, True, True]
    """
    y = np.asarray(y, dtype=object) if not hasattr(y, "dtype") else np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    miss = missing_mask(y)
    auto = isinstance(unlabeled, str) and unlabeled == "auto"
    if auto:
        if not _integer_labels(y, miss):
            return miss
        marker = -1
    elif np.ndim(unlabeled) == 0 and missing_mask(np.asarray([unlabeled], dtype=object))[0]:  # None, NaN, NA, NaT
        return miss
    else:
        marker = unlabeled
    if y.dtype.kind in "iufb" and not isinstance(marker, (str, bytes)):
        hit = y == marker
    else:
        hit = np.fromiter((not m and type(v) is not bool and v == marker for v, m in zip(y.tolist(), miss)),
                          dtype=bool, count=y.shape[0])
    hit = np.asarray(hit, dtype=bool) & ~miss
    if auto and hit.any() and miss.any():
        raise ValueError(
            f"{who}: y holds both the label -1 ({int(hit.sum())} row(s)) and {int(miss.sum())} missing "
            "value(s) (None/NaN/pd.NA). With integer labels, -1 marks an unlabelled row by default "
            "(unlabeled='auto'), so it is unclear whether -1 is a class: pass unlabeled=None if -1 is "
            "a class (only missing values mark unlabelled rows), or unlabeled=-1 if it marks unlabelled rows."
        )
    return miss | hit

def label_codes(classes, y, n, who) -> np.ndarray:
    """Class index per row (-1 for a missing label); validates the labels.

    Parameters
    ----------
    classes : ndarray of shape (K,)
        The estimator's ``classes_``.
    y : label or array-like of shape (n,)
        Labels; a missing value (None/NaN/``pd.NA``) marks an unknown one (``-1`` is a
        label like any other here).
    n : int
        Number of rows.
    who : str
        Estimator name for messages.

    Returns
    -------
    ndarray of int, shape (n,)
    """
    y = np.asarray(y)
    if y.ndim == 0:
        y = np.full(n, y.item(), dtype=object)
    if y.shape != (n,):
        raise ValueError(f"{who}: y has shape {y.shape}; expected ({n},).")
    miss = missing_labels(y, unlabeled=None)  # -1 is a label here (classes_ may hold it)
    codes = np.full(n, -1, dtype=np.int64)
    if (~miss).any():
        idx = pd.Index(classes).get_indexer(y[~miss])
        if np.any(idx < 0):
            bad = list(pd.unique(y[~miss][idx < 0]))[:5]
            raise ValueError(f"{who}: y has label(s) {bad} that are not among classes_ {list(classes)}.")
        codes[~miss] = idx
    return codes


def restore_dtype(values, dtype):
    """A generated column in the training column's ``dtype`` when nothing is lost, else as given.

    Counts and 0/1 values go back to integer / bool / nullable dtypes, category values to
    the same ``CategoricalDtype``, strings to ``string``; floats to the float dtype.
    Values the dtype cannot hold exactly (e.g. Gaussian draws of an integer column, or a
    missing value in a non-nullable integer column) keep their generated dtype.
    """
    s = pd.Series(values, copy=False)
    if s.dtype == dtype:
        return values
    if isinstance(dtype, pd.CategoricalDtype) and not s.dropna().isin(dtype.categories).all():
        return values  # (a cast would blank them, with a deprecation warning)
    try:
        out = s.astype(dtype)
    except (TypeError, ValueError, OverflowError):
        return values
    if getattr(dtype, "kind", None) == "f":  # float -> float32 / Float64: rounding is expected
        return out.array
    miss = s.isna().to_numpy()
    if not np.array_equal(out.isna().to_numpy(), miss):
        return values
    a = s.to_numpy(dtype=object)[~miss]
    b = out.to_numpy(dtype=object)[~miss]
    same = np.fromiter((u == v and (type(u) is type(v) or not isinstance(u, str) and not isinstance(v, str))
                        for u, v in zip(a, b)), dtype=bool, count=a.size)
    return out.array if same.all() else values


class SparseBlock(NamedTuple):
    """A generated block kept sparse (numeric values): every position of its columns holds it.

    Attributes
    ----------
    values : CSR matrix of shape (n, d_block)
    columns : ndarray of int, shape (d_block,)
        The block's positions in the table.
    """

    values: object
    columns: np.ndarray


def dense_columns(columns):
    """The columns with every :class:`SparseBlock` expanded to dense float columns (a new list)."""
    out = list(columns)
    done = set()
    for col in columns:
        if isinstance(col, SparseBlock) and id(col) not in done:
            done.add(id(col))
            V = col.values.toarray()
            for k, c in enumerate(col.columns):
                out[int(c)] = V[:, k]
    return out


def _sparse_table(columns, n):
    """Generated columns -> CSR (n, d): sparse blocks as they are, other columns from their non-zeros."""
    first = columns[0] if columns else None
    if (isinstance(first, SparseBlock) and len(first.columns) == len(columns)
            and np.array_equal(first.columns, np.arange(len(columns)))):
        out = first.values.tocsr().astype(float)  # one block of every column, in order (no loop over a vocabulary)
        out.sum_duplicates()
        return out
    rows, cols, vals, seen = [], [], [], set()
    for j, col in enumerate(columns):
        if isinstance(col, SparseBlock):
            if id(col) in seen:
                continue
            seen.add(id(col))
            m = col.values.tocoo()
            rows.append(m.row)
            cols.append(col.columns[m.col])
            vals.append(m.data.astype(float))
        else:
            v = np.asarray(col, dtype=float)
            r = np.flatnonzero(v != 0)  # NaN is stored (a missing value stays missing)
            rows.append(r)
            cols.append(np.full(r.size, j))
            vals.append(v[r])
    if not rows:
        return sp.csr_matrix((n, len(columns)))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, len(columns)))


def assemble_table(post, columns, n, feature_names=None, dtypes=None, sparse=False):
    """Generated raw columns (global order) -> DataFrame (fitted on one), ndarray or CSR matrix.

    Parameters
    ----------
    post : NBPosterior
        The blocks' families declare their columns' values (``value_columns``).
    columns : list of array-like
        One generated column per feature, in the input's order.
    n : int
        Number of rows.
    feature_names : array-like of str, optional
        The training frame's columns (``feature_names_in_``): return a DataFrame.
    dtypes : sequence of dtypes, optional
        The training frame's dtypes (``feature_dtypes_``), restored where the values fit.
    sparse : bool, default=False
        Return a CSR matrix (the model was fitted on one): blocks generated sparse
        (:class:`SparseBlock`) are never densified. Ignored with ``feature_names``.
    """
    if sparse and feature_names is None:
        return _sparse_table(columns, n)
    columns = dense_columns(columns)
    declared = {int(c): values for b in post.blocks
                for c, values in zip(b.columns, b.family.value_columns(b.state) or ())}
    if feature_names is not None:
        data = {}
        for j, name in enumerate(feature_names):
            col = columns[j]
            if j in declared:
                cats, decl = declared[j]
                col = (pd.Categorical(col, categories=cats) if decl
                       else pd.array(col, dtype=np.asarray(cats).dtype if np.asarray(cats).dtype != object else object))
            if dtypes is not None and len(dtypes) == len(columns):
                col = restore_dtype(col, dtypes[j])
            data[name] = col
        return pd.DataFrame(data, index=pd.RangeIndex(n))
    if declared:
        kinds = {np.asarray(declared[j][0]).dtype for j in declared}
        if len(declared) == len(columns) and len(kinds) == 1 and next(iter(kinds)) != object:
            return np.column_stack([np.asarray(c, dtype=next(iter(kinds))) for c in columns])
        out = np.empty((n, len(columns)), dtype=object)
        for j, c in enumerate(columns):
            out[:, j] = c
        return out
    return np.column_stack(columns) if columns else np.empty((n, 0))


def check_impute_options(strategy, n_imputations, who) -> int:
    """Validate ``impute``'s ``strategy`` and ``n_imputations``; returns the number of completed tables.

    Parameters
    ----------
    strategy : object
        Must be one of "auto", "mode", "mean", "draw".
    n_imputations : int
        ``>= 1``, and ``> 1`` only with ``strategy="draw"``.
    who : str
        Estimator name for messages.

    Returns
    -------
    int
    """
    if strategy not in ("auto", "mode", "mean", "draw"):
        raise ValueError(f"{who}: strategy must be 'auto', 'mode', 'mean' or 'draw'; received {strategy!r}.")
    m = int(n_imputations)
    if m < 1 or (m > 1 and strategy != "draw"):
        raise ValueError(f"{who}: n_imputations must be >= 1, and > 1 only with strategy='draw'; "
                         f"received {n_imputations!r} with strategy={strategy!r}.")
    return m


def missing_cells(post, encoded, shape) -> np.ndarray:
    """Bool ``shape`` (n, n_features): a table's missing cells as its encoding found them, each block's
    mask (``Family.gen_missing``) at the block's columns."""
    out = np.zeros(shape, dtype=bool)
    for b, e in zip(post.blocks, encoded):
        out[:, b.columns] = dense(b.family.gen_missing(e))
    return out


def mask_cells(X, rows, cols):
    """A copy of X with the given cells set missing (None / NaN)."""
    if is_frame(X):
        out = X.copy()
        for j in np.unique(cols):
            r = rows[cols == j]
            s = out.iloc[:, j]
            if s.dtype.kind in "iub":
                s = s.astype(float)
            elif s.dtype.kind not in "f" and not hasattr(s.dtype, "categories"):
                s = s.astype(object)
            s = s.copy()
            s.iloc[r] = None if s.dtype == object else np.nan
            out[out.columns[j]] = s
        return out
    X = np.array(X, dtype=object if np.asarray(X).dtype.kind not in "f" else float, copy=True)
    X[rows, cols] = None if X.dtype == object else np.nan
    return X


def write_cells(X, cells):
    """A copy of X with ``(rows, global cols, values)`` written in; nothing else changes."""
    if not cells:
        return X.copy()
    if is_frame(X):
        out = X.copy()
        for rows, cols, vals in cells:
            for j in np.unique(cols):
                sel = cols == j
                name = out.columns[j]
                s = out[name].copy()
                try:  # in the column's dtype when the values fit it exactly (e.g. 0/1 -> boolean)
                    s.iloc[rows[sel]] = restore_dtype(vals[sel], s.dtype)
                except (TypeError, ValueError):
                    s = s.astype(float if np.asarray(vals).dtype.kind == "f" else object)
                    s.iloc[rows[sel]] = vals[sel]
                out[name] = s
        return out
    if sp.issparse(X):
        return _write_sparse(X, cells)
    out = np.array(X, copy=True)
    for rows, cols, vals in cells:
        if out.dtype.kind in "f" and np.asarray(vals).dtype == object:
            out = out.astype(object)
        out[rows, cols] = vals
    return out


def _write_sparse(X, cells):
    """A copy of sparse X (its format) with the cells written in, by their linear index (no dense step)."""
    out = X.tocsr(copy=True).astype(float)
    out.sum_duplicates()  # sorted, unique stored cells
    n, d = out.shape
    rows = np.concatenate([np.asarray(r, dtype=np.int64) for r, _, _ in cells])
    cols = np.concatenate([np.asarray(c, dtype=np.int64) for _, c, _ in cells])
    vals = np.concatenate([np.asarray(v, dtype=float) for _, _, v in cells])
    key = rows * d + cols
    stored = np.repeat(np.arange(n, dtype=np.int64), np.diff(out.indptr)) * d + out.indices
    pos = np.searchsorted(stored, key)
    hit = pos < stored.size
    hit[hit] = stored[pos[hit]] == key[hit]
    out.data[pos[hit]] = vals[hit]
    if not hit.all():  # cells not stored yet
        out = out + sp.csr_matrix((vals[~hit], (rows[~hit], cols[~hit])), shape=out.shape)
    out.eliminate_zeros()
    return out.asformat(X.format)  # the caller's format (CSC stays CSC)


def partial_labels(y, unlabeled, who):
    """Split labels with some rows unlabelled: ``(miss, labels)``, or None when ``y`` is not 1-d.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels; a list or a pandas nullable integer array is read as Python objects.
    unlabeled : object
        The marker of an unlabelled row, as in :func:`missing_labels`.
    who : str
        Estimator name for messages.

    Returns
    -------
    miss : ndarray of bool, shape (n,)
        The unlabelled rows.
    labels : ndarray of shape (n_labelled,) or None
        The present labels in the dtype NumPy gives them alone (ints stay ints); None
        when every row or no row is labelled.
    """
    dt = getattr(y, "dtype", None)
    # a list, or pandas' nullable Int64 (NumPy would make its labels floats): Python objects
    from_list = dt is None or (not isinstance(dt, np.dtype) and getattr(dt, "kind", "") in "iu")
    yy = np.asarray(y, dtype=object) if from_list else np.asarray(y)
    if yy.ndim == 2 and yy.shape[1] == 1:
        yy = yy.ravel()
    if yy.ndim != 1:
        return None
    miss = missing_labels(yy, unlabeled, who=who)
    if miss.all() or not miss.any():
        return miss, None
    labels = yy[~miss]
    if labels.dtype == object and (from_list or _integer_labels(labels, np.zeros(labels.shape, bool))):
        labels = np.asarray(labels.tolist())  # the dtype NumPy gives the labels alone (ints stay ints)
    return miss, labels


# ------------------------------------------------------------------ sample(given=...)
