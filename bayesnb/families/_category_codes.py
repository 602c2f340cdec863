"""Integer codes of one categorical column and type-stable category matching (helpers of :mod:`._categorical_encoding`).

The codes of a block are the smallest signed integer dtype that holds ``-1`` (missing) to
``V_j`` (a value not among the categories): :func:`code_dtype`. A column is coded without
hashing where it can: integers (or floats holding integers) in a short range through a table
indexed by value, a pandas categorical (or a column of strings factorized once: :func:`_columns`)
through a lookup of its own codes. A column of text stored by pyarrow (pandas' ``str``, or a
dictionary-encoded ``pd.ArrowDtype``, as ``bayesnb fit --chunksize`` reads text) is coded
from pyarrow's dictionary: its observed strings are values seen, as for a column of Python
strings, never declared categories.

Type-stable category matching (:func:`convert_unmatched`): a categorical column fitted on the
strings ``"1"``/``"2"`` and given the integers ``1``/``2`` at predict time would otherwise match
none of its categories, and every cell would be scored as an unseen value: the column silently
drops out of the prediction. The values of a column
whose type differs from its fitted categories' type are therefore converted when that is
lossless (``"1"`` <-> ``1``, ``1.0`` -> ``1``, ``True``/``False`` <-> ``1``/``0``), and refused
with an error naming the column and both types when it is not (``"a"`` or ``1.5`` for
integer categories) or when no converted value is among the categories (``1`` for the
categories ``"a"``/``"b"``). A value of the categories' own type that is not among them stays an
unseen value (scored with the prior's pseudo-count), as before.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._utils import arrow_factorize, is_arrow_text

__all__ = ["code_dtype", "convert_unmatched", "no_match_error", "numeric_block_codes"]


def code_dtype(largest: int) -> np.dtype:
    """The smallest signed integer dtype holding ``-1 .. largest`` (the codes of a block)."""
    for t in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


def _small_ints(values):
    """``(ints, min, max)``: the integers of ``values`` (an integer array, or floats that all hold
    integers) when their range is at most their number, or 1024 (else None)."""
    if values.dtype.kind == "f" and values.size:
        with np.errstate(invalid="ignore"):  # NaN, infinity, huge: not integers (the check below)
            ints = values.astype(np.int64)
        if not np.array_equal(ints, values):
            return None
        values = ints  # contiguous: the range is read from it
    if values.dtype.kind not in "iu" or values.size == 0:
        return None
    lo, hi = int(values.min()), int(values.max())
    return (values, lo, hi) if hi - lo <= max(values.size, 1024) else None


def _integer_categories(categories):
    """The categories as int64 when they are all integers (integer or float dtype), else None."""
    cats = np.asarray(categories)
    if not cats.size or cats.dtype.kind not in "iuf":
        return None
    ints = cats.astype(np.int64)
    return ints if cats.dtype.kind in "iu" or np.array_equal(ints, cats) else None


def _table_codes(cat_ints, small, absent, dtype, out=None):
    """Position of each of ``small``'s integers among the integer categories (``absent`` where not
    among them), through a table indexed by value: no hashing, one pass."""
    ints, lo, hi = small
    table = np.full(hi - lo + 1, absent, dtype=dtype)  # value - lo -> position
    inside = (cat_ints >= lo) & (cat_ints <= hi)
    table[cat_ints[inside] - lo] = np.flatnonzero(inside)
    return np.take(table, ints - lo if lo else ints, out=out, mode="clip")  # (ints lie in lo..hi)


def _indexer(categories, values):
    """Position of each value among ``categories`` (-1 where absent)."""
    import pandas as pd

    cat_ints = _integer_categories(categories)
    small = _small_ints(values) if cat_ints is not None else None
    if small is not None:
        return _table_codes(cat_ints, small, -1, np.int64)
    few = _few_strings(categories, values)
    if few is not None:
        return few
    return pd.Index(categories).get_indexer(values)


def _few_strings(categories, values):
    """:func:`_indexer` of a few strings among string categories, by a dict (building a pandas
    Index costs more than the lookup), else None."""
    if len(values) > 256 or len(categories) > 4096 or values.dtype.kind not in "OU":
        return None
    cats, vals = list(categories), list(values)
    if not (all(type(c) is str for c in cats) and all(type(v) is str for v in vals)):
        return None
    pos = {c: i for i, c in enumerate(cats)}
    return np.fromiter((pos.get(v, -1) for v in vals), dtype=np.int64, count=len(vals))


def _code_into(out, cats, values, miss, pd_categories=None, pd_codes=None, small=...):
    """Write one column's codes into ``out``: position among ``cats``, ``-1`` missing, ``V`` not among them.

    Without a full-size temporary where it can: a pandas categorical column (or a factorized
    column of strings: ``pd_categories`` its distinct values) through a lookup of its own codes, a complete column of integers (or of floats holding integers) in a short
    range through a table of its values (``small``: :func:`_small_ints` of ``values`` when already
    computed, ``...`` when not).
    """
    V = len(cats)
    if pd_codes is not None:  # lookup table: pandas code -> code; its last entry serves code -1
        table = _indexer(cats, pd_categories)
        table = np.append(np.where(table < 0, V, table), -1).astype(out.dtype)
        np.take(table, pd_codes, out=out, mode="wrap")
        return
    cat_ints = _integer_categories(cats)
    if miss is not None or cat_ints is None:
        small = None
    elif small is ...:
        small = _small_ints(values)
    if small is not None:  # written straight into out
        _table_codes(cat_ints, small, V, out.dtype, out=out)
        return
    observed = values if miss is None else values[~miss]
    idx = _indexer(cats, observed) if observed.size else np.array([], dtype=np.int64)
    idx[idx < 0] = V
    if miss is None:
        out[...] = idx
    else:
        out[...] = -1
        out[~miss] = idx


def _columns(X):
    """Yield ``(name, values (n,), declared categories or None, distinct values or None, their codes or None)``.

    A pandas categorical column gives its categories (declared) and its codes (``-1``
    missing): it is coded from those, never turned into an array of objects. A column of
    Python strings (object dtype, missing cells None/NaN) is factorized once
    (:func:`_factorized`): its distinct strings and their codes, so that every later step
    (type checks, the sorted categories, the codes) works on the few distinct values and
    one lookup per cell. Other columns give ``None`` for both.
    """
    if hasattr(X, "iloc"):
        import pandas as pd

        for j in range(X.shape[1]):
            s = X.iloc[:, j]
            name = X.columns[j]
            if isinstance(s.dtype, pd.CategoricalDtype):
                cats = np.asarray(s.cat.categories.to_numpy())
                yield name, s.array, cats, cats, s.cat.codes.to_numpy()
            elif is_arrow_text(s.dtype):  # observed strings stored by pyarrow: coded without a Python string per cell
                yield name, s.array, None, *arrow_factorize(s.array)
            else:
                values = s.to_numpy(dtype=object) if s.dtype.kind not in "biufcU" else s.to_numpy()
                yield name, values, None, *_factorized(values)
    else:
        X = np.asarray(X)
        for j in range(X.shape[1]):
            yield j, X[:, j], None, *_factorized(X[:, j])


def _factorized(values):
    """``(distinct strings, codes)`` of an object column of strings (code ``-1``: missing), else ``(None, None)``.

    ``pandas.factorize`` reads each cell once (a string's hash is cached by Python, and a
    column read from a file holds few distinct string objects); the codes are those of the
    distinct values in order of appearance. Only where every distinct value is a ``str``
    (mixed types keep the cell-by-cell path, whose equality rules differ: ``1 == True``),
    and missing cells are exactly those :func:`~bayesnb._utils.missing_mask` finds.
    """
    if values.dtype != object or values.size < 2:
        return None, None
    import pandas as pd

    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists, arrays): the cell-by-cell path says which
        return None, None
    uniques = np.asarray(uniques, dtype=object)
    if not all(type(u) is str for u in uniques):
        return None, None
    return uniques, codes


def numeric_block_codes(X, categories, dtype):
    """The codes of a numeric (n, d) array against integer categories, a block of rows at a time, or None.

    The codes :func:`_code_into` gives each column (position among the column's categories,
    ``-1`` missing, ``V_j`` a value not among them), written into a new Fortran-ordered array
    of ``dtype``. A block of rows whose every cell is an integer within its column's
    categories' range is read once into an int64 buffer and coded through one table of all
    the columns (one gather); any other block is coded column by column by
    :func:`_code_into`. Reading rows in blocks keeps a C-ordered ``X`` (a DataFrame's
    values, a Dask partition) from being read one strided column at a time, several times.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Integer or float values, any layout.
    categories : sequence of d ndarrays
        Each column's categories (position = code); all must hold integers.
    dtype : numpy dtype
        The codes' dtype (:func:`code_dtype`).

    Returns
    -------
    codes : ndarray of shape (n, d), or None
        None when ``X`` or a column's categories do not qualify (not a numeric 2-D array,
        categories not all integers, or spanning more than 65,536 values).
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.size and len(categories) == X.shape[1]
            and (X.dtype.kind == "f" or (X.dtype.kind in "iu" and X.dtype.itemsize < 8) or X.dtype == np.int64)):
        return None
    n, d = X.shape
    lo, span, parts = np.empty(d, np.int64), np.empty(d, np.uint64), []
    for j, cats in enumerate(categories):
        ints = _integer_categories(cats)
        if ints is None or int(ints.max()) - int(ints.min()) > 1 << 16:
            return None
        lo[j], span[j] = ints.min(), ints.max() - ints.min()
        table = np.full(int(span[j]) + 1, len(cats), dtype=dtype)  # value - lo -> position
        table[ints - lo[j]] = np.arange(len(ints))
        parts.append(table)
    big = np.concatenate(parts)  # column j's table starts at base[j]
    base = np.cumsum([0] + [p.size for p in parts[:-1]]).astype(np.int64)
    out = np.empty((n, d), dtype=dtype, order="F")
    step = max(1, (1 << 16) // d)  # blocks of ~512 KiB of int64
    order = "F" if d > 1 and X.strides[0] == X.itemsize else "C"  # buffers in X's layout: no transposing pass
    ints, codes = np.empty((min(step, n), d), np.int64, order=order), np.empty((min(step, n), d), dtype, order=order)
    for a in range(0, n, step):
        b = min(a + step, n)
        rows, got = X[a:b], ints[: b - a]
        with np.errstate(invalid="ignore"):  # NaN, infinities, huge values: not integers (checked below)
            np.copyto(got, rows, casting="unsafe")
        ok = X.dtype.kind != "f" or bool((got == rows).all())
        if ok:
            np.subtract(got, lo, out=got)
            ok = bool((got.view(np.uint64) <= span).all())  # (a value below lo wraps past span)
        if ok:
            np.add(got, base, out=got)
            np.take(big, got, out=codes[: b - a], mode="clip")
            out[a:b] = codes[: b - a]
            continue
        for j in range(d):  # a block with a missing cell, a fraction or a value out of range
            miss = np.isnan(rows[:, j]) if X.dtype.kind == "f" else None
            _code_into(out[a:b, j], categories[j], rows[:, j], miss if miss is not None and miss.any() else None)
    return out


#: The order in which a value's conversion to a column's category types is tried.
_ORDER = ("int", "bool", "float", "str")


def _kind(v) -> str:
    """``"bool"``, ``"int"``, ``"float"``, ``"str"`` or the type's name for one value."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    if isinstance(v, (str, np.str_)):
        return "str"
    return type(v).__name__


def _kinds(values) -> set:
    """The kinds of the values of a 1-D array (from its dtype where it has one)."""
    dt = np.asarray(values).dtype if not hasattr(values, "dtype") else values.dtype
    simple = {"b": "bool", "i": "int", "u": "int", "f": "float", "U": "str", "S": "str"}
    if getattr(dt, "kind", "O") in simple:
        return {simple[dt.kind]}
    import pandas as pd

    values = np.asarray(values, dtype=object)
    one = _INFERRED.get(pd.api.types.infer_dtype(values, skipna=False))  # one pass in C
    return one if one is not None else {_kind(v) for v in pd.unique(values)}


#: pandas' ``infer_dtype`` names that mean one kind of value.
_INFERRED = {"string": {"str"}, "integer": {"int"}, "floating": {"float"}, "boolean": {"bool"},
             "mixed-integer-float": {"int", "float"}}


class _Lossy(Exception):
    """A value that has no lossless counterpart of the wanted type."""


def _convert(v, kind):
    """``v`` as a value of ``kind`` when that loses nothing, else raise :class:`_Lossy`."""
    have = _kind(v)
    if have == kind:
        return v
    if have == "float" and float(v).is_integer():  # 1.0 -> 1, then as an integer
        v, have = int(v), "int"
        if kind == "int":
            return v
    if kind == "int":
        if have == "bool":
            return int(v)
        if have == "str" and v.strip() == v and v.lstrip("-").isdigit() and str(int(v)) == v:
            return int(v)
    elif kind == "bool":
        if have == "int" and v in (0, 1):
            return bool(v)
        if have == "str" and v in ("True", "False"):
            return v == "True"
    elif kind == "float":
        if have in ("int", "bool"):
            return float(v)
        if have == "str":
            try:
                f = float(v)
            except ValueError:
                raise _Lossy from None
            if np.isfinite(f) and v in (repr(f), str(int(f)) if f.is_integer() else repr(f)):
                return f
    elif kind == "str" and have in ("int", "bool"):
        return str(v)
    raise _Lossy


def convert_unmatched(values, categories, name, who):
    """The values (not among ``categories``) converted to the categories' type, or None.

    Parameters
    ----------
    values : ndarray of shape (m,)
        The non-missing values of a column that match none of its categories.
    categories : ndarray of shape (V,)
        The column's fitted (or declared) categories.
    name : str or int
        The column's name, for the error.
    who : str
        The estimator's name, for the error.

    Returns
    -------
    converted : ndarray of object, shape (m,), or None
        None when every value is of a type the categories have already (they are unseen
        values of the right type, or there are no categories to compare with).

    Raises
    ------
    TypeError
        When a value is of another type and has no lossless counterpart among the
        categories' types (e.g. ``"a"`` or ``1.5`` for integer categories), or when no
        converted value is among the categories (the integers ``1``, ``2`` for the
        categories ``"a"``, ``"b"``): a column of another type, not unseen values.
    """
    if not len(values) or not len(categories):
        return None
    wanted = _kinds(categories)
    got = _kinds(values)
    if got <= wanted:
        return None
    import pandas as pd

    order = [k for k in _ORDER if k in wanted] + sorted(wanted - set(_ORDER))
    values = np.asarray(values, dtype=object)
    uniq = pd.unique(values)  # each distinct value converted once
    done = np.fromiter((_one(v, wanted, order, categories, name, who) for v in uniq), dtype=object,
                       count=len(uniq))
    return done[pd.Index(uniq).get_indexer(values)]


def no_match_error(values, categories, name, who):
    """The TypeError for a column whose values, converted to the categories' type, match none of them
    (the integers ``1``, ``2`` for the categories ``"a"``, ``"b"``): a column of another type."""
    import pandas as pd

    wanted = _kinds(categories)
    types = "/".join(sorted(wanted))
    shown = [v for v in pd.unique(np.asarray(values, dtype=object)) if _kind(v) not in wanted][:5]
    return TypeError(
        f"{who}: feature {name!r} was fitted on {types} categories "
        f"{list(np.asarray(categories, dtype=object)[:5])}{' ...' if len(categories) > 5 else ''} but received "
        f"{'/'.join(sorted({_kind(v) for v in shown}))} value(s) {shown}, none of which is among them even as "
        "that type; convert the column to the type it was fitted on (a column of values of another type is "
        "never scored as unseen)."
    )


def _one(v, wanted, order, categories, name, who):
    """``v`` converted to the first of ``order`` it fits losslessly; TypeError naming the column if none."""
    if _kind(v) in wanted:
        return v
    for kind in order:
        try:
            return _convert(v, kind)
        except _Lossy:
            continue
    types = "/".join(sorted(wanted))
    shown = list(np.asarray(categories, dtype=object)[:5])
    raise TypeError(
        f"{who}: feature {name!r} was fitted on {types} categories {shown}"
        f"{' ...' if len(categories) > 5 else ''} but received the {_kind(v)} value {v!r}, which has "
        f"no lossless {types} counterpart; convert the column to the type it was fitted on (a column "
        "of values of another type is never scored as unseen)."
    )
