"""Conditions of constrained sampling: ``given`` values, sets and ranges, and ``forbid`` combinations.

:meth:`~bayesnb.generative.GenerativeMixin.sample` takes, per column of ``given``:

- a value (a scalar, or array-like values one per row), as before: the cell is that value;
- a Python ``set`` or ``frozenset`` of values, for a column with a finite set of values (a
  categorical column): the cell is one of them;
- a ``tuple`` ``(low, high)``, for a numeric column: ``low <= x <= high`` (inclusive; ``None``
  for an open end). A tuple is always a range (give per-row values as a list, array or Series).

and ``forbid``, a list of dicts ``{column: value | set | (low, high)}``: no drawn row may meet
every entry of any one dict. The allowed region is the given conditions intersected with the
complement of each forbidden conjunction; the complement of ``a_1 and ... and a_m`` is the
disjoint union ``{not a_1} or {a_1, not a_2} or ... or {a_1, ..., a_(m-1), not a_m}``
(``not`` of a range is up to two ranges), so the region is a disjoint union of *pieces*, each
a conjunction of one set or one range per column (:func:`expand_pieces`; empty pieces are
dropped, at most :data:`MAX_PIECES` are allowed). The engines weigh every piece by its exact
probability (message passing) and draw within it, never by rejection.

- :func:`split_given` -- the values (as before) apart from the sets and ranges
- :func:`expand_pieces` -- the disjoint pieces of the allowed region
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._utils import DataError, is_frame
from .given import _given_position

__all__ = ["MAX_PIECES", "class_set", "column_domains", "expand_pieces", "has_constraints", "same_value",
           "split_given"]

#: The most disjoint pieces ``forbid`` may expand into (each is one more exact message pass).
MAX_PIECES = 256


def class_set(classes, y, who):
    """``(y, allowed)``: for ``y`` a set (or frozenset) of labels, ``(None, bool (K,))`` marking its classes (each
    row's class is then drawn among them); any other ``y`` is returned as it is, with None."""
    if not isinstance(y, (set, frozenset)):
        return y, None
    if not y:
        raise ValueError(f"{who}: y is an empty set of classes; give the classes the rows may take.")
    hit = np.array([any(same_value(c, v) for v in y) for c in classes])
    unknown = [v for v in y if not any(same_value(c, v) for c in classes)]
    if unknown:
        raise DataError(f"{who}: y holds label(s) {unknown[:5]} that are not in classes={list(classes)}.")
    return None, hit


def has_constraints(given) -> bool:
    """Whether ``given`` holds a set or a range (a dict with a set, frozenset or tuple value)."""
    return isinstance(given, dict) and any(isinstance(v, (set, frozenset, tuple)) for v in given.values())


def column_domains(post):
    """Per column position, ``(block index, column in block, values)``: ``values`` the known values in code
    order for a column with a finite set of values (a set condition's domain), None for a numeric column."""
    out = {}
    for i, b in enumerate(post.blocks):
        values = b.family.value_columns(b.state)
        for c, col in enumerate(b.columns):
            out[int(col)] = (i, c, None if values is None else np.asarray(values[c][0], dtype=object))
    return out


def _codes(values, items, label, who):
    """Code (position in ``values``) of each of ``items``, a clear error for one the model does not know."""
    out = []
    for v in items:
        hit = [i for i, u in enumerate(values) if u is v or same_value(u, v)]
        if not hit:
            raise ValueError(f"{who}: value {v!r} of column {label!r} is not a value of the model (never seen in "
                             f"training and not declared); its values are {list(values)[:20]}.")
        out.append(hit[0])
    return tuple(sorted(set(out)))


def same_value(u, v) -> bool:
    """``u == v`` as one bool (False where the comparison is not one: missing values, arrays)."""
    try:
        return bool(u == v)
    except (TypeError, ValueError):
        return False


def _bound(v, label, end, who):
    if v is None:
        return -np.inf if end == "low" else np.inf
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or np.isnan(v):
        raise ValueError(f"{who}: the {end} end of the range of column {label!r} must be a number or None (open); "
                         f"received {v!r}.")
    return float(v)


def _condition(v, domain, label, who, where="given"):
    """``("set", codes)`` or ``("range", lo, hi)`` of a set or tuple condition on one column."""
    values = domain[2]
    if isinstance(v, (set, frozenset)):
        if values is None:
            raise ValueError(f"{who}: {where} holds a set for column {label!r}, which is numeric; a set needs a "
                             "column with a finite set of values (categorical). Give a (low, high) range instead.")
        if not v:
            raise ValueError(f"{who}: {where} holds an empty set for column {label!r}: no value can meet it.")
        return ("set", _codes(values, v, label, who))
    if values is not None:
        raise ValueError(f"{who}: {where} holds a range {v!r} for column {label!r}, which is categorical; a "
                         "(low, high) range needs a numeric column. Give a set {...} of its values instead.")
    if len(v) != 2:
        raise ValueError(f"{who}: {where} holds a tuple of length {len(v)} for column {label!r}; a range is a "
                         "2-tuple (low, high) (per-row values go in a list, array or Series).")
    lo, hi = _bound(v[0], label, "low", who), _bound(v[1], label, "high", who)
    if lo > hi:
        raise ValueError(f"{who}: the range ({v[0]!r}, {v[1]!r}) of column {label!r} is empty (low > high).")
    return ("range", lo, hi)


def split_given(given, domains, feature_names, n_features, who):
    """``given`` as ``(values, constraints, labels)``: its value columns (the dict or DataFrame
    :meth:`sample` encodes, or None), ``{position: ("set", codes) | ("range", lo, hi)}`` of its set
    and tuple entries, and ``{position: column as named}`` of both.

    Parameters
    ----------
    given : dict, DataFrame or None
    domains : dict
        :func:`column_domains` of the posterior.
    feature_names : array-like of str or None
    n_features : int
    who : str
    """
    if given is None or is_frame(given) or not isinstance(given, dict):
        return given, {}, {}
    names = None if feature_names is None else [str(c) for c in feature_names]
    values, constraints, labels = {}, {}, {}
    for key, v in given.items():
        if isinstance(v, (set, frozenset, tuple)):
            j = _given_position(key, names, n_features, who)
            constraints[j], labels[j] = _condition(v, domains[j], key, who), key
        else:
            values[key] = v
            if not isinstance(v, (list, np.ndarray, pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
                labels[_given_position(key, names, n_features, who)] = key
    return (values or None), constraints, labels


def _forbid_entry(entry, domains, names, n_features, who):
    if not isinstance(entry, dict) or not entry:
        raise TypeError(f"{who}: forbid must be a list of non-empty dicts {{column: value, set or (low, high)}}; "
                        f"received an entry {entry!r}.")
    out = {}
    for key, v in entry.items():
        j = _given_position(key, names, n_features, who)
        if isinstance(v, (set, frozenset, tuple)):
            out[j] = _condition(v, domains[j], key, who, "forbid")
        elif domains[j][2] is not None:
            out[j] = ("set", _codes(domains[j][2], [v], key, who))
        else:
            out[j] = ("range", _bound(v, key, "low", who), _bound(v, key, "high", who))
    return out


def _inside(cons, v, domain):
    """Whether a scalar given value meets a constraint."""
    if cons[0] == "range":
        return cons[1] <= float(v) <= cons[2]
    return any(domain[2][c] == v for c in cons[1])


def _meet(a, b):
    """The intersection of two constraints on one column, or None when empty."""
    if a[0] == "set":
        codes = tuple(sorted(set(a[1]) & set(b[1])))
        return ("set", codes) if codes else None
    lo, hi = max(a[1], b[1]), min(a[2], b[2])
    return ("range", lo, hi) if lo <= hi else None


def _outside(a, domain):
    """The complement of constraint ``a`` within the column's whole domain: a list of constraints."""
    if a[0] == "set":
        rest = tuple(c for c in range(len(domain[2])) if c not in set(a[1]))
        return [("set", rest)] if rest else []
    out = []
    if a[1] > -np.inf:
        out.append(("range", -np.inf, float(np.nextafter(a[1], -np.inf))))
    if a[2] < np.inf:
        out.append(("range", float(np.nextafter(a[2], np.inf)), np.inf))
    return out


def _whole(cons, domain):
    """Whether a constraint is the column's whole domain (then no constraint at all)."""
    if cons[0] == "set":
        return len(cons[1]) == len(domain[2])
    return cons[1] == -np.inf and cons[2] == np.inf


def expand_pieces(constraints, forbid, scalar_values, row_columns, domains, feature_names, n_features, who):
    """The allowed region as a list of disjoint pieces ``{position: constraint}`` (see the module docstring).

    Parameters
    ----------
    constraints : dict
        :func:`split_given`'s sets and ranges.
    forbid : list of dict or None
    scalar_values : dict
        ``{position: value}`` of the columns given one value for every row (a forbidden entry on such a
        column is true or false outright).
    row_columns : set of int
        Columns given per-row values (a forbidden entry on one of them is an error).
    domains, feature_names, n_features, who
        As in :func:`split_given`.

    Returns
    -------
    list of dict
        At least one piece; an empty list when the condition allows nothing.
    """
    pieces = [dict(constraints)]
    if forbid is None:
        return pieces
    if isinstance(forbid, dict) or not isinstance(forbid, (list, tuple)):
        raise TypeError(f"{who}: forbid must be a list of dicts {{column: value, set or (low, high)}}; received "
                        f"{type(forbid).__name__}.")
    names = None if feature_names is None else [str(c) for c in feature_names]
    for entry in forbid:
        f = _forbid_entry(entry, domains, names, n_features, who)
        if any(j in scalar_values and not _inside(c, scalar_values[j], domains[j]) for j, c in f.items()):
            continue  # a given value falls outside this entry: it forbids nothing
        f = {j: c for j, c in f.items() if j not in scalar_values}
        if not f:
            return []  # every row given meets this forbidden combination
        if any(j in row_columns for j in f):
            raise ValueError(f"{who}: forbid names a column that given holds per-row values for "
                             f"({[names[j] if names else j for j in f if j in row_columns]}); forbid needs one "
                             "value, set or range per column, the same for every row.")
        out = []
        for p in pieces:
            inter = {j: _meet(p[j], c) if j in p else c for j, c in f.items()}
            if any(v is None for v in inter.values()):
                out.append(p)  # the piece meets no row of the forbidden set
                continue
            done = {}
            for j, c in f.items():
                inside = p.get(j)
                for rest in _outside(c, domains[j]):
                    part = rest if inside is None else _meet(inside, rest)
                    if part is not None:
                        out.append({**p, **done, j: part})
                done[j] = inter[j]
            if len(out) > MAX_PIECES:
                raise ValueError(f"{who}: forbid expands into more than {MAX_PIECES} disjoint pieces (each "
                                 "forbidden combination splits every piece it meets); forbid fewer combinations.")
        pieces = out
    return [{j: c for j, c in p.items() if not _whole(c, domains[j])} for p in pieces]
