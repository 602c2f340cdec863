"""Type-stable category matching (a helper of :mod:`._categorical_encoding`).

A categorical column fitted on the strings ``"1"``/``"2"`` and given the integers ``1``/``2``
at predict time would otherwise match none of its categories, and every cell would be scored
as an unseen value: the column silently drops out of the prediction. The values of a column
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

__all__ = []

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
    elif kind == "str":
        if have == "int":
            return str(v)
        if have == "bool":
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
    done = np.empty(len(uniq), dtype=object)
    for i, v in enumerate(uniq):
        done[i] = _one(v, wanted, order, categories, name, who)
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
