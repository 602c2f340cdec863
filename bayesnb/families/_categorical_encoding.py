"""Category lists and integer codes of a categorical block (helpers of :class:`Categorical`).

:func:`encode_columns` learns the categories of each column (the values seen in training,
sorted; the declared ``categories``; or a pandas categorical's categories) and codes a block
against them. :class:`~bayesnb.families.categorical.Categorical` wraps the result in its
``CategoricalEncoding``.
"""

from __future__ import annotations

import numpy as np

from .._utils import DataError, hard_labels, missing_mask
from ..structure.hierarchical import hierarchical_prior
from ._category_codes import _code_into, _columns, _indexer, _integer_categories, _small_ints, code_dtype
from ._category_codes import convert_unmatched, no_match_error, numeric_block_codes
from ._weighted_counts import code_counts_columns
from .numeric import row_probs

__all__ = []


def _sorted_unique(values, who, name, small=...):
    """The sorted distinct ``values`` (``small``: :func:`._category_codes._small_ints` of them, when known)."""
    import pandas as pd

    small = _small_ints(values) if small is ... else small
    if small is not None:  # integers in a short range: one bincount instead of a sort
        ints, lo, hi = small
        counts = np.bincount(ints - lo if lo else ints, minlength=hi - lo + 1)
        return (np.flatnonzero(counts) + lo).astype(values.dtype)
    try:
        uniq = pd.unique(values) if values.dtype == object else np.unique(values)
    except TypeError:  # unhashable cells (lists, arrays)
        kinds = sorted({type(v).__name__ for v in values if type(v).__hash__ is None})
        raise DataError(f"{who}: feature {name!r} holds cells of type {kinds}; a categorical feature expects one value "
                        "(a string, a number) per cell.") from None
    try:
        return np.asarray(np.sort(uniq), dtype=values.dtype if values.dtype != object else object)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniq})
        raise DataError(f"{who}: feature {name!r} mixes value types {kinds}; a categorical feature "
                        "expects values of one type (e.g. all strings or all integers).") from None


def encode_columns(X, state=None, *, categories="auto", min_categories=None, extend=False, who="Categorical"):
    """:meth:`Categorical.encode <bayesnb.families.Categorical.encode>` with the family's
    ``categories`` and ``min_categories``: ``(codes, categories, declared)``, the codes (dtype
    :func:`code_dtype`) and per column its categories (position = code) and whether declared."""
    same = _codes_as_given(X, state, categories, min_categories, extend, who)
    if same is None and state is not None and not extend:
        same = _coded_numbers(X, state, who)
    if same is not None:
        return same
    cols = list(_columns(X))
    n = len(cols[0][1]) if cols else 0
    numbers = _numeric_array(X) if state is None else None  # a fit: coded a block of rows at a time where it can
    # the categories of every column first: they set the codes' dtype
    plans = []
    for j, (name, values, pd_declared, distinct, dcodes) in enumerate(cols):
        miss = missing_mask(values) if dcodes is None else dcodes < 0
        miss = miss if miss.any() else None
        small = ...  # the integers of a complete numeric column, found once for its categories and its codes
        if state is not None and extend and pd_declared is None:  # partial_fit: "1" joins 1, never a new category
            if distinct is None:
                values, miss = _as_fitted_type(values, miss, state.categories[j], name, who)
            else:  # the distinct strings stand for the cells
                distinct, _ = _as_fitted_type(distinct, None, state.categories[j], name, who)
            cols[j] = (name, values, pd_declared, distinct, dcodes)
        if state is None or extend:
            declared = _declared(categories, min_categories, j, len(cols), pd_declared, who)
            if declared is not None:
                cats, is_decl = declared, True
            else:
                observed = distinct
                if observed is None:
                    observed = values if miss is None else values[~miss]  # (never written to)
                if miss is None and distinct is None and values.dtype.kind in "iuf":
                    small = _small_ints(values)
                seen = _sorted_unique(observed, who, name, small) if observed.size else np.array([], dtype=object)
                if state is None:
                    cats, is_decl = seen, False
                elif state.declared[j]:
                    cats, is_decl = state.categories[j], True
                else:  # partial_fit: the categories so far and the values seen, sorted together
                    both = [np.asarray(c, dtype=object) for c in (state.categories[j], seen)]
                    cats, is_decl = _sorted_unique(np.concatenate(both), who, name), False
            if min_categories is not None and not is_decl:
                cats = _with_min_categories(cats, min_categories, j, who)
            check = is_decl
        else:
            cats, is_decl, check = state.categories[j], state.declared[j], False
        if numbers is not None and small is not ... and _integer_categories(cats) is not None:
            small = ...  # (its integers, n int64, are not kept for the codes: the block path needs none)
        plans.append((cats, is_decl, miss, check, small))
    # the smallest integer dtype for -1 .. V_j (not int64 whatever the input): columns contiguous
    dtype = code_dtype(max((len(p[0]) for p in plans), default=0))
    block = None if numbers is None else numeric_block_codes(numbers[0], [p[0] for p in plans], dtype)
    codes = np.empty((n, len(cols)), dtype=dtype, order="F") if block is None else block
    for j, ((name, values, _, distinct, dcodes), (cats, _, miss, check, small)) in enumerate(zip(cols, plans)):
        if block is None:
            _code_into(codes[:, j], cats, values, miss, distinct, dcodes, small)
        unseen = codes[:, j] == len(cats)
        if state is not None and not extend and unseen.any():  # of another type: converted or refused
            _recode_converted(codes[:, j], cats, np.asarray(values)[unseen], unseen, name, who)
            unseen = codes[:, j] == len(cats)
        if check and unseen.any():
            bad = np.asarray(values, dtype=object)[unseen][:5]
            raise ValueError(
                f"{who}: feature {name!r} has value(s) {list(bad)} that are not among its "
                f"declared categories {list(cats)}."
            )
    return codes, tuple(p[0] for p in plans), tuple(p[1] for p in plans)


def _as_fitted_type(values, miss, categories, name, who):
    """``(values, miss)`` with values of another type than ``categories`` converted losslessly
    (:func:`._category_codes.convert_unmatched`; a TypeError where that is impossible)."""
    observed = values if miss is None else values[~miss]
    conv = convert_unmatched(observed, categories, name, who) if observed.size else None
    if conv is None:
        return values, miss
    if not (_indexer(categories, conv) >= 0).any():  # converted, yet no value is a category
        raise no_match_error(observed, categories, name, who)
    if miss is None:
        return conv, miss
    out = np.empty(len(values), dtype=object)
    out[miss] = None
    out[~miss] = conv
    return out, miss


def _recode_converted(col, cats, values, unseen, name, who):
    """Code again, in ``col``, the cells ``unseen`` (values ``values``) after converting them to the
    categories' type when they are of another type (a TypeError where no lossless conversion exists)."""
    conv = convert_unmatched(values, cats, name, who)
    if conv is not None:
        idx = _indexer(cats, conv)
        if (idx < 0).all() and not ((col >= 0) & (col < len(cats))).any():  # no cell is a category
            raise no_match_error(values, cats, name, who)
        idx[idx < 0] = len(cats)
        col[unseen] = idx


def _codes_as_given(X, state, categories, min_categories, extend, who):
    """:func:`encode_columns`'s result without a copy when ``X`` already holds the codes, else None.

    That is an int64 array (or a DataFrame of int64 columns held in one block, whose values
    are then read without a copy) whose every column's categories are ``0 .. V_j - 1``
    (learned: every one of them occurs, or given by ``state``) and whose values lie among
    them. The codes are then a read-only view of ``X``: a write would raise instead of
    changing it.
    """
    if hasattr(X, "iloc") and X.size and all(t == np.int64 for t in X.dtypes):
        values = X.to_numpy()
        # only a view of the frame's one block (several blocks would be copied into int64)
        X = values if np.may_share_memory(values, X.iloc[:, 0].to_numpy()) else None
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype == np.int64 and X.size) or extend:
        return None
    if state is None and not (isinstance(categories, str) and categories == "auto"):
        return None
    lo, hi = X.min(axis=0), X.max(axis=0)
    if lo.min() < 0:
        return None
    if state is None and not _every_code_occurs(X, hi):  # a value in 0..max never occurs
        return None
    cats = []
    for j in range(X.shape[1]):
        if state is None:
            c = np.arange(int(hi[j]) + 1, dtype=np.int64)
            if min_categories is not None:
                c = _with_min_categories(c, min_categories, j, who)
        else:
            c = np.asarray(state.categories[j])
        if c.dtype.kind not in "iu" or hi[j] >= len(c) or not np.array_equal(c, np.arange(len(c))):
            return None
        cats.append(c)
    codes = X.view()
    codes.flags.writeable = False
    return codes, tuple(cats), tuple(False for _ in cats) if state is None else tuple(state.declared)


def _coded_numbers(X, state, who):
    """:func:`encode_columns`'s result for numbers coded against fitted integer categories, else None.

    A numeric array, or a DataFrame of one NumPy number type held in one block (read
    without a copy), is coded a block of rows at a time (:func:`numeric_block_codes`); the
    cells left unseen are then treated as by the column-by-column path.
    """
    numbers = _numeric_array(X)
    if numbers is None:
        return None
    X, names = numbers
    cats = state.categories
    codes = numeric_block_codes(X, cats, code_dtype(max((len(c) for c in cats), default=0)))
    if codes is None:
        return None
    for j, c in enumerate(cats):
        unseen = codes[:, j] == len(c)
        if unseen.any():  # of another type: converted or refused (as encode_columns)
            _recode_converted(codes[:, j], c, X[:, j][unseen], unseen, j if names is None else names[j], who)
    return codes, tuple(cats), tuple(state.declared)


def _numeric_array(X):
    """``(array, names)`` of a numeric ndarray (names None) or of a DataFrame of one NumPy number type
    held in one block (its values read without a copy), else None."""
    if isinstance(X, np.ndarray):
        return (X, None) if X.ndim == 2 and X.dtype.kind in "iuf" else None
    if not (hasattr(X, "iloc") and X.size and len(set(X.dtypes)) == 1 and isinstance(X.dtypes.iloc[0], np.dtype)
            and X.dtypes.iloc[0].kind in "iuf"):
        return None
    values = X.to_numpy()
    if not np.may_share_memory(values, X.iloc[:, 0].to_numpy()):  # several blocks: not without a copy
        return None
    return values, list(X.columns)


def _every_code_occurs(X, hi):
    """Whether every column ``j`` of the non-negative int64 ``X`` holds each value ``0 .. hi[j]``.

    One bincount per chunk of rows over ``offset[j] + X[i, j]`` (no strided column copies).
    """
    V = hi.astype(np.intp) + 1
    offset = np.concatenate([[0], np.cumsum(V)[:-1]])
    seen = np.zeros(int(V.sum()), dtype=bool)
    step = max(1, (1 << 16) // max(X.shape[1], 1))
    for a in range(0, X.shape[0], step):
        seen |= np.bincount(np.add(X[a:a + step], offset, dtype=np.intp).ravel(), minlength=seen.size) > 0
    return bool(seen.all())


def _declared(categories, min_categories, j, d, pd_declared, who):
    if isinstance(categories, str):
        if categories != "auto":
            raise ValueError(f"{who}: categories must be 'auto' or a list; received {categories!r}.")
        return pd_declared
    cats = list(categories)
    if cats and all(isinstance(c, (list, tuple, np.ndarray)) for c in cats):
        if len(cats) != d:
            raise ValueError(
                f"{who}: categories has {len(cats)} lists but the block has {d} feature(s)."
            )
        return np.asarray(cats[j], dtype=object)
    return np.asarray(cats, dtype=object)


def _with_min_categories(cats, min_categories, j, who):
    m = np.asarray(min_categories)
    m = int(m if m.ndim == 0 else m[j])
    if m < 0:
        raise ValueError(f"{who}: min_categories must be >= 0; received {m}.")
    values = list(cats)
    if cats.size and any(isinstance(c, (bool, np.bool_)) for c in values):
        if not all(isinstance(c, (bool, np.bool_, int, np.integer)) for c in values):
            return cats
        # booleans keep their type: False and True stand for 0 and 1 (as in scikit-learn,
        # which casts them), and categories 2 .. m-1 are added as integers; casting the
        # categories to 0/1 would leave every True/False value unmatched (no training data)
        bools = [b for b in (False, True) if b in values or int(b) < m]
        ints = sorted({int(c) for c in values if not isinstance(c, (bool, np.bool_))} | set(range(2, m)))
        return np.array(bools + ints, dtype=object)
    if cats.size and cats.dtype.kind not in "iu" and not (
        cats.dtype == object and all(isinstance(c, (int, np.integer)) for c in cats)
    ):
        return cats
    return np.union1d(np.asarray(cats, dtype=np.int64), np.arange(m, dtype=np.int64))


def check_state(state, d):
    """Raise ValueError unless ``state`` is a (categories, declared) pair ``encode_columns`` could make.

    ``state`` is untrusted (read from a model file); ``d`` is the block's number of columns.
    """
    import numbers

    import pandas as pd

    if not isinstance(state, tuple) or len(state) != 2:
        raise ValueError(f"its state must be a CategoricalEncoding; the file holds {type(state).__name__}")
    cats, declared = state
    if not isinstance(cats, tuple) or not isinstance(declared, tuple) or len(cats) != d or len(declared) != d:
        raise ValueError(f"expected categories and declared flags for its {d} column(s)")
    for j, c in enumerate(cats):
        if not isinstance(c, np.ndarray) or c.ndim != 1 or c.dtype.kind not in "biufUSO":
            raise ValueError(f"the categories of column {j} must be a 1-D array")
        if not isinstance(declared[j], bool):
            raise ValueError(f"declared flag {j} must be a bool; the file holds {declared[j]!r}")  # noqa: TRY004
        if c.dtype == object and not all(isinstance(v, (str, numbers.Number)) for v in c):
            raise ValueError(f"the categories of column {j} must be numbers or strings")
        idx = pd.Index(c)
        if idx.hasnans or not idx.is_unique:
            raise ValueError(f"the categories of column {j} must be unique and not missing")


# ------------------------------------------------------------ arrays indexed by code
def count_codes(codes, resp, categories):
    """Per column, the (K, V_j) weighted count of each code; ``-1`` and ``V_j`` left out."""
    K = resp.shape[1]
    hard = hard_labels(resp) if K and len(categories) else None
    if hard is not None:
        return _count_labelled(codes, *hard, K, categories)
    return code_counts_columns(codes, resp, [len(cats) for cats in categories])


def _count_labelled(codes, label, weight, K, categories):
    """:func:`count_codes` when each row belongs to one class: one bincount per chunk of rows.

    Cell ``(i, j)`` falls in bin ``label[i] * S + offset[j] + code`` (``S`` = all
    categories); missing and unseen codes get weight 0. Chunks of rows are read whole
    (no strided column copies) and their bins added up: the same sums (in another order
    across chunks, which only matters in the last bit for non-integer weights).
    """
    V = np.array([len(c) for c in categories], dtype=np.intp)
    offset = np.concatenate([[0], np.cumsum(V)[:-1]])
    S = int(V.sum())
    total = np.zeros(K * S)
    n, d = codes.shape
    step = max(1, (1 << 16) // max(d, 1))
    unit = bool(np.all(weight == 1))  # rows of weight 1: counted without weights (the same integers)
    for a in range(0, n, step):
        c = codes[a:a + step]
        valid = (c >= 0) & (c < V)
        idx = np.add(c, offset, dtype=np.intp)
        idx += (label[a:a + step] * S)[:, None]
        if unit:
            total += np.bincount(idx[valid], minlength=K * S)
            continue
        idx[~valid] = 0
        wts = np.where(valid, weight[a:a + step, None], 0.0)
        total += np.bincount(idx.ravel(), weights=wts.ravel(), minlength=K * S)
    total = total.reshape(K, S)
    return tuple(total[:, o:o + v].copy() for o, v in zip(offset, V))


def log_probs(post):
    """Posterior-mean log probabilities of a ``Dirichlets``, one (K, V_j) array per feature.

    A (class, feature) with no data and an improper prior (alpha=0) has no defined
    probabilities; its row is set to 0 (the factor is dropped) rather than NaN.
    (``CategoricalNB.feature_log_prob_``.)
    """
    out = []
    for a in post.concentration:
        tot = a.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.log(a) - np.log(tot)
        np.copyto(lp, 0.0, where=tot == 0)  # (the rows of zero total; where= broadcasts the (K, 1) mask)
        out.append(lp)
    return out


def code_log_tables(prior, post):
    """Per feature, a (K, V_j + 2) table of ``log p(code | y=k)`` indexed by code.

    Columns ``0..V_j-1`` are the categories, column ``V_j`` a value unseen in training
    (pseudo-count ``mean(alpha_j)``), and the last column (code ``-1``: missing) is 0.
    """
    tables = []
    for lp, a, a0 in zip(log_probs(post), post.concentration, prior.concentration):
        K, V = a.shape
        tot = a.sum(axis=1)
        a_new = a0.mean(axis=1) if V else np.ones(K)
        with np.errstate(divide="ignore", invalid="ignore"):
            unseen = np.log(a_new) - np.log(tot + a_new)
        unseen[tot + a_new == 0] = 0.0  # no data, alpha=0: the factor is dropped, as in log_probs
        tables.append(np.concatenate([lp, unseen[:, None], np.zeros((K, 1))], axis=1))
    return tables


def probs(point):
    """Normalised probabilities of a ``Dirichlets``, one (K, V_j) array per feature (uniform for empty rows)."""
    return [row_probs(a) for a in point.concentration]


# Exact draws and the NumPyro model share one parameterisation: ``theta`` of shape
# (K, d, V_max), the probabilities of each value, NaN where feature j has fewer than V_max values.
def pad(arrays, fill):
    """Stack (..., V_j) arrays along a new feature axis, padded to V_max with ``fill``."""
    vmax = max((a.shape[-1] for a in arrays), default=0)
    lead = arrays[0].shape[:-1] if arrays else ()
    out = np.full(lead + (len(arrays), vmax), fill, dtype=float)
    for j, a in enumerate(arrays):
        out[..., j, : a.shape[-1]] = a
    return out


#: The top level's Dirichlet pseudo-count under ``alpha="hierarchical"`` (Laplace): the context of
#: all classes has ``Dirichlet(1)``, each class is centred on its estimate.
HIERARCHICAL_ROOT = 1.0


def hierarchical_alphas(counts, contexts, roots=None, class_level=None, noise_var=0.0):
    """Per feature, the (C, V_j) Dirichlet parameters of :func:`bayesnb.structure.hierarchical.hierarchical_prior`
    for its counts (C, V_j) over the contexts ``contexts = (K, B_1, ..., B_m)`` (row-major, C = prod).

    The naive model's prior is the case ``contexts = (K,)`` (no parents: the class level under
    the all-classes context), so it and a structure's nodes share this one function. ``roots``:
    per feature, the all-classes context's ``Dirichlet`` parameter (a number or (V_j,)); None:
    :data:`HIERARCHICAL_ROOT`. ``class_level``: per feature, a fixed class level instead, (C, V_j)
    with each context holding its class's row (a latent model's per-class prior, whose
    components are the contexts): the hierarchy then stops at the class level. ``noise_var``: each count's noise variance."""
    shape = tuple(int(c) for c in contexts)
    if class_level is not None:
        per = int(np.prod(shape[1:], dtype=np.int64))
        return tuple(hierarchical_prior(n.reshape(shape + (n.shape[1],)), np.asarray(r)[::per], root="class")
                     .alpha.reshape(n.shape) if n.shape[1] else np.ones(n.shape) for n, r in zip(counts, class_level))
    roots = [HIERARCHICAL_ROOT] * len(counts) if roots is None else roots
    return tuple(hierarchical_prior(n.reshape(shape + (n.shape[1],)), r, root="all", noise_var=noise_var).alpha.reshape(n.shape)
                 if n.shape[1] else np.ones(n.shape) for n, r in zip(counts, roots))


def sum_code_logs(tables, codes, K):
    """``sum_j tables[j][k, codes[:, j]]``, (n, K): the rows' log likelihoods from per-feature tables
    (:func:`code_log_tables`, non-empty), gathered in buffers of about 512 KiB."""
    n = codes.shape[0]
    # every feature's (K, V_j + 2) table side by side: feature j's code c is column
    # offset[j] + c; code -1 (missing) picks the column before, the previous table's last
    # column (0), and for j = 0 the last column of all (also 0)
    big = np.concatenate(tables, axis=1)  # (K, sum_j (V_j + 2)), one row per class
    offset = np.cumsum([0] + [t.shape[1] for t in tables[:-1]])
    out = np.empty((n, K))
    d = len(tables)
    step = max(1, (1 << 16) // d)  # buffers of ~512 KiB
    idx = np.empty((min(step, n), d), dtype=np.intp)
    vals = np.empty((min(step, n), d))
    ones = np.ones(d)
    sums = np.empty((K, min(step, n)))
    for a in range(0, n, step):
        b = min(a + step, n)
        np.add(codes[a:b], offset, out=idx[: b - a])
        for k in range(K):  # gather class k's log probabilities, sum each row (BLAS)
            np.take(big[k], idx[: b - a], out=vals[: b - a])
            np.dot(vals[: b - a], ones, out=sums[k, : b - a])
        out[a:b] = sums[:, : b - a].T
    return out
