"""The Synthesizer's table in its model's terms: datetime columns as seconds, sampled columns cast, conditions.

The Synthesizer's table holds the target column and datetime columns, which its model sees as
the class and as seconds since 1970-01-01 UTC (:func:`to_seconds`; sampled back in the training
dtype by :func:`from_seconds`, and every sampled column cast back to its training dtype where the
cast keeps every value, :func:`as_dtype`). :func:`model_conditions` turns a condition of
:meth:`bayesnb.Synthesizer.sample` (``given=``, ``forbid=``) on the table into one on the model:
the target's value becomes ``y``, and datetime values and range bounds become seconds; everything
else passes through to :meth:`bayesnb.NaiveBayes.sample` (sets, ranges, per-row values, ``forbid``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["as_dtype", "from_seconds", "model_conditions", "to_seconds"]


def to_seconds(column):
    """A datetime column as float seconds since 1970-01-01 UTC (NaT: NaN)."""
    col = column.dt.tz_convert("UTC").dt.tz_localize(None) if column.dt.tz is not None else column
    ns = col.to_numpy(dtype="datetime64[ns]").astype("int64").astype(float)
    ns[col.isna().to_numpy()] = np.nan
    return pd.Series(ns / 1e9, index=column.index)


def from_seconds(column, dtype):
    """Sampled seconds back to a datetime column of the training ``dtype``."""
    values = pd.to_datetime(pd.to_numeric(column), unit="s")
    tz = getattr(dtype, "tz", None)
    if tz is not None:
        values = values.dt.tz_localize("UTC").dt.tz_convert(tz)
    return values.astype(dtype)


def as_dtype(column, dtype):
    """``column`` in the training ``dtype`` when the cast keeps every value (else as sampled)."""
    if column.dtype == dtype:
        return column
    if dtype == object:
        return column.astype(object).where(column.notna(), np.nan)
    try:
        cast = column.astype(dtype)
    except (TypeError, ValueError):
        return column
    same = cast.isna().eq(column.isna()).all() and (cast[column.notna()].astype(object).to_numpy()
                                                    == column[column.notna()].astype(object).to_numpy()).all()
    return cast if same else column


def _seconds(v, dtype):
    """A datetime value (or None) of a column of ``dtype`` as seconds; a missing value stays missing."""
    if v is None:
        return None
    s = pd.Series(pd.to_datetime(np.atleast_1d(v) if np.ndim(v) else [v]))
    if getattr(dtype, "tz", None) is not None and s.dt.tz is None:
        s = s.dt.tz_localize(dtype.tz)
    out = to_seconds(s).to_numpy()
    return out if np.ndim(v) else float(out[0])


def _convert(v, dtype):
    if isinstance(v, tuple):
        return tuple(_seconds(b, dtype) for b in v)
    if isinstance(v, (set, frozenset)):
        return v  # a set on a numeric column is refused by the model with its own message
    return _seconds(v, dtype)


def _observed(v):
    """The missing indicator's condition for a column conditioned on ``v``: observed (False), one per row for
    per-row values (None where a row's value is missing: that row's column is not conditioned), or None."""
    if isinstance(v, (set, frozenset, tuple)):
        return False
    if np.ndim(v) == 0:
        return None if pd.isna(v) else False
    return pd.Series([None if pd.isna(u) else False for u in v], dtype=object)


def model_conditions(given, forbid, target, columns, datetime_dtypes, who, indicators=None):
    """``(given, forbid, y)`` for the model from the Synthesizer's ``given`` and ``forbid``.

    A column with a missing-indicator node (``indicators``: ``{column: indicator}``) that a condition
    names must be observed to meet it: ``given`` adds its indicator as False (observed), and each
    forbidden combination holds only where its columns are observed (the indicators' False joins it).

    Parameters
    ----------
    given : dict or None
        ``{column: value, set, (low, high) or per-row values}`` of the table.
    forbid : list of dict or None
    target : str or None
        The target column: its value in ``given`` (one label, one per row, or a set of labels) becomes ``y``.
    columns : list
        The table's columns.
    datetime_dtypes : dict
        ``{column: dtype}`` of the datetime columns.
    who : str
    indicators : dict, optional
        The Synthesizer's ``missing_indicators_``.

    Returns
    -------
    given, forbid, y
    """
    indicators = indicators or {}
    if given is not None and not isinstance(given, dict):
        raise TypeError(f"{who}: given must be a dict {{column: value, set or (low, high)}}; received "
                        f"{type(given).__name__}.")
    out, y = {}, None
    for key, v in (given or {}).items():
        if key not in columns:
            raise ValueError(f"{who}: given has column {key!r}, which is not a column of the table ({columns}).")
        if key == target:
            if isinstance(v, tuple):
                raise ValueError(f"{who}: given[{target!r}] (the target) takes a label, one per row or a set of "
                                 "labels; a (low, high) range of classes is not one.")
            y = v
        else:
            out[key] = _convert(v, datetime_dtypes[key]) if key in datetime_dtypes else v
            flag = _observed(v) if key in indicators else None
            if flag is not None:
                out[indicators[key]] = flag
    model_forbid = None
    if forbid is not None:
        if isinstance(forbid, dict) or not isinstance(forbid, (list, tuple)):
            raise TypeError(f"{who}: forbid must be a list of dicts {{column: value, set or (low, high)}}; "
                            f"received {type(forbid).__name__}.")
        model_forbid = []
        for entry in forbid:
            if isinstance(entry, dict) and target is not None and target in entry:
                raise ValueError(f"{who}: forbid names the target {target!r}; forbid combinations of the other "
                                 "columns (or give the target's label in given).")
            if not isinstance(entry, dict):
                model_forbid.append(entry)  # the model says what a forbid entry must be
                continue
            model_forbid.append({**{k: _convert(v, datetime_dtypes[k]) if k in datetime_dtypes else v
                                    for k, v in entry.items()},
                                 **{indicators[k]: False for k in entry if k in indicators}})
    return (out or None), model_forbid, y
