"""Deterministic relations among the numeric columns of a table: what a naive model cannot keep.

A table often holds columns that other columns fix: zero charges whenever the tenure is zero, a
total that is the sum of its parts, an amount that is a price times a quantity. A model with
independent features (naive Bayes given the class, a tree over bins) draws and imputes such
columns independently, so its rows break the relation. :func:`deterministic_relations` finds
three kinds, cheaply, among the numeric columns:

- ``"zero"``: ``target`` is 0 on at least ``share`` of the rows where ``source`` is 0 (at least
  ``min_rows`` such rows), while it is 0 on at most half of the rows where ``source`` is not: the
  zero of one column fixes the zero of the other (a zero tenure means zero charges);
- ``"sum"``: ``target = a + b`` within ``rtol`` (relative to ``max(|target|, |a| + |b|)``) on at
  least ``share`` of the rows where the three are observed (a difference ``a = target - b`` is
  the sum ``target = a + b`` read the other way, so it is reported once);
- ``"product"``: ``target = a * b`` within ``rtol`` (relative to ``max(|target|, |a * b|)``) on at
  least ``share`` of those rows.

A relation that holds trivially is left out: a source constant on the rows checked, or a target
equal to one of its sources on at least ``share`` of them (a sum with a column of zeros, a product
with a column of ones). Triples are screened on a fixed subsample of at most :data:`SCREEN_ROWS`
rows, then checked on every row; tables with more than :data:`MAX_COLUMNS` numeric columns are
checked for zero relations only (the triples grow as the cube of the columns).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils import is_frame, is_numeric_column

__all__ = ["MAX_COLUMNS", "RELATION_COLUMNS", "SCREEN_ROWS", "SCREEN_SLACK", "deterministic_relations"]

#: rows a sum or product relation is screened on before it is checked on every row
SCREEN_ROWS = 32
#: below ``share``, the share of the screening rows a relation may miss and still be checked on every row
#: (a relation that fails on 1% of the rows fails on more than 10% of 32 random ones with probability 4e-4)
SCREEN_SLACK = 0.1
#: sum and product relations are looked for among at most this many numeric columns
MAX_COLUMNS = 60
#: the columns of :func:`deterministic_relations`' table
RELATION_COLUMNS = ("kind", "target", "sources", "share", "n")


def _numeric(X):
    """``(names, (n, d) float array)`` of the numeric, non-boolean columns of ``X`` (NaN where missing)."""
    if is_frame(X):
        keep = [c for c in X.columns if is_numeric_column(X[c])]
        A = np.column_stack([X[c].to_numpy(dtype=float, na_value=np.nan) for c in keep]) if keep else None
        return keep, A
    A = np.asarray(X)
    if A.ndim != 2 or A.dtype.kind not in "iuf":
        return [], None
    return list(range(A.shape[1])), A.astype(float)


def _check(share, rtol, min_rows):
    if not (isinstance(share, float | int) and 0.5 < share <= 1):
        raise ValueError(f"deterministic_relations: share must be in (0.5, 1]; received {share!r}.")
    if not (isinstance(rtol, float | int) and 0 <= rtol < 1):
        raise ValueError(f"deterministic_relations: rtol must be in [0, 1); received {rtol!r}.")
    if not (isinstance(min_rows, int) and not isinstance(min_rows, bool) and min_rows >= 1):
        raise ValueError(f"deterministic_relations: min_rows must be an int >= 1; received {min_rows!r}.")


def _zeros(A, names, share, min_rows):
    out = []
    obs = ~np.isnan(A)
    zero = (A == 0) & obs
    for s in range(A.shape[1]):
        for t in range(A.shape[1]):
            if s == t:
                continue
            both = obs[:, s] & obs[:, t]
            at = both & zero[:, s]
            m = int(at.sum())
            if m < min_rows:
                continue
            held = float(np.mean(zero[at, t]))
            rest = both & ~zero[:, s]
            if held >= share and (not rest.any() or np.mean(zero[rest, t]) <= 0.5):
                out.append(("zero", names[t], (names[s],), held, m))
    return out


def _holds(kind, t, a, b, rtol):
    """Bool per row: whether ``t`` is ``a + b`` (``kind="sum"``) or ``a * b`` within ``rtol``."""
    with np.errstate(over="ignore", invalid="ignore"):
        if kind == "sum":
            scale = np.maximum(np.abs(t), np.abs(a) + np.abs(b))
            return np.abs(t - (a + b)) <= rtol * scale
        p = a * b
        return np.abs(t - p) <= rtol * np.maximum(np.abs(t), np.abs(p))


def _candidates(S, t, kind, share, rtol, min_rows):
    """Pairs ``(a, b)``, ``a < b``, both not ``t``, for which ``S[:, t]`` is ``a + b`` (or ``a * b``) on nearly
    ``share`` of the screening rows ``S`` where the three are observed (all pairs at once)."""
    T, P, Q = S[:, t][:, None, None], S[:, :, None], S[:, None, :]
    valid = ~(np.isnan(T) | np.isnan(P) | np.isnan(Q))
    held = (_holds(kind, T, P, Q, rtol) & valid).sum(axis=0)
    count = valid.sum(axis=0)
    # a relation that holds on ``share`` of all rows holds on nearly as many of a random subsample
    ok = (count >= min(min_rows, S.shape[0])) & (held >= (share - SCREEN_SLACK) * np.maximum(count, 1)) & (count > 0)
    ok = np.triu(ok, k=1)
    ok[t, :] = ok[:, t] = False
    return list(zip(*np.nonzero(ok)))


def _triples(A, names, share, rtol, min_rows):
    out = []
    n, d = A.shape
    S = A[np.sort(np.random.default_rng(0).choice(n, size=min(n, SCREEN_ROWS), replace=False))]
    for t in range(d):
        for kind in ("sum", "product"):
            for a, b in _candidates(S, t, kind, share, rtol, min_rows):
                full = ~np.isnan(A[:, [t, a, b]]).any(axis=1)
                m = int(full.sum())
                if m < min_rows:
                    continue
                x, u, v = A[full, t], A[full, a], A[full, b]
                held = float(np.mean(_holds(kind, x, u, v, rtol)))
                trivial = (np.ptp(u) == 0 or np.ptp(v) == 0 or np.mean(x == u) >= share
                           or np.mean(x == v) >= share)
                if held >= share and not trivial:
                    out.append((kind, names[t], (names[a], names[b]), held, m))
    return out


def deterministic_relations(X, *, share=0.99, rtol=1e-6, min_rows=10):
    """Deterministic relations among the numeric columns of ``X`` (see the module docstring).

    Parameters
    ----------
    X : DataFrame or ndarray of shape (n_samples, n_features)
        The table; missing cells NaN/None/``pd.NA`` (a relation is checked on the rows where its
        columns are observed). Non-numeric and boolean columns are ignored.
    share : float, default=0.99
        Fraction of the checked rows on which a relation must hold, in (0.5, 1].
    rtol : float, default=1e-6
        Relative tolerance of a sum or a product.
    min_rows : int, default=10
        Fewest rows a relation is checked on (rows where the source is 0, for a zero relation).

    Returns
    -------
    DataFrame
        One row per relation found: ``kind`` (``"zero"``, ``"sum"`` or ``"product"``), ``target``
        (the column the others fix), ``sources`` (a tuple of one or two column names, positions for
        an array), ``share`` (fraction of the checked rows where it holds) and ``n`` (rows checked).
        Empty (with these columns) when none is found.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"tenure": [0, 0, 3, 5, 0, 2] * 5, "monthly": [20.0, 30.0, 50.0, 70.0, 25.0, 40.0] * 5})
    >>> t["total"] = t["tenure"] * t["monthly"]
    >>> for r in deterministic_relations(t).itertuples():
    ...     print(r.kind, r.target, r.sources, r.share, r.n)
    zero total ('tenure',) 1.0 15
    zero tenure ('total',) 1.0 15
    product total ('tenure', 'monthly') 1.0 30
    """
    _check(share, rtol, min_rows)
    names, A = _numeric(X)
    rows = []
    if A is not None and A.shape[0] and A.shape[1] >= 2:
        rows = _zeros(A, names, share, min_rows)
        if 3 <= A.shape[1] <= MAX_COLUMNS:
            rows += _triples(A, names, share, rtol, min_rows)
    return pd.DataFrame(rows, columns=list(RELATION_COLUMNS))
