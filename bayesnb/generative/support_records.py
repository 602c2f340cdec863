"""The records of :mod:`bayesnb.generative.values` (``value_support_``) in a model file's form, and back.

:func:`support_to_dict` writes each column's :class:`~bayesnb.generative.values.ColumnSupport` as a
JSON-able dict; :func:`support_from_dict` reads it back and refuses a malformed one (``ValueError``), as
the model-file loaders need.
"""

from __future__ import annotations

import numpy as np

from .values import MAX_CODES, MAX_MASSES, ColumnSupport

__all__ = ["support_from_dict", "support_to_dict"]


def support_to_dict(supports):
    """The records as a JSON-able dict for a model file (keys are column positions as strings)."""
    return {str(j): {"values": None if s.values is None else [float(v) for v in s.values],
                     "counts": [float(c) for c in s.counts], "masses": [float(v) for v in s.masses],
                     "lo": float(s.lo), "hi": float(s.hi), "integer": bool(s.integer), "n": float(s.n)}
            for j, s in supports.items()}


def support_from_dict(d, n_features=None):
    """The records read back from :func:`support_to_dict`'s form; ``ValueError`` on a malformed one.

    ``n_features`` (when given) bounds the column positions.
    """
    if not isinstance(d, dict):
        raise ValueError("value_support_ must be a dict")
    out = {}
    for key, r in d.items():
        j = int(key)
        if j < 0 or (n_features is not None and j >= n_features) or not isinstance(r, dict):
            raise ValueError(f"value_support_ has a bad column {key!r}")
        values = None if r["values"] is None else np.asarray(r["values"], dtype=float).reshape(-1)
        counts = np.asarray(r["counts"], dtype=float).reshape(-1)
        masses = np.asarray(r["masses"], dtype=float).reshape(-1)
        lo, hi, n = float(r["lo"]), float(r["hi"]), float(r["n"])
        pts = masses if values is None else values
        too_many = pts.size > (MAX_MASSES if values is None else MAX_CODES)
        if (not np.all(np.isfinite(pts)) or not np.isfinite([lo, hi]).all() or lo > hi or counts.size != pts.size
                or np.any(np.diff(pts) <= 0) or not np.all(np.isfinite(counts)) or np.any(counts < 0) or not n >= 0
                or too_many):
            raise ValueError(f"value_support_ of column {j} is malformed")
        out[j] = ColumnSupport(values, counts, masses, lo, hi, bool(r["integer"]), n)
    return out
