"""Column types of :class:`~bayesnb.Synthesizer`'s tables: datetimes as seconds and back, sampled columns cast.

A datetime column is modelled as a number (seconds since 1970-01-01 UTC) and sampled back in
its training dtype; every sampled column is cast back to its training dtype where the cast
keeps every value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["as_dtype", "from_seconds", "to_seconds"]


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
