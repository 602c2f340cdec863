"""Synthetic rows kept within each numeric column's observed range, as a synthesiser's users expect.

A family with an unbounded tail (a log-normal, a hurdle's positive part, a Gaussian) puts some mass
beyond the largest (or below the smallest) value of its training column, so the posterior
predictive draws a few values no real row is near: on UCI's credit-approval table (690 rows) the
default ``Synthesizer`` drew 45 values above their column's maximum in one sample of 483 rows, up to
six times it. SDV keeps them inside by default (``enforce_min_max_values=True``), and
``synthetic_report`` counts them (``out_of_range``).

:func:`sample_in_range` draws the rows again that hold such a value: rows are drawn independently
from the model, so the rows it keeps are exact draws from the model conditioned on every numeric
value lying in its column's range (the truncated joint), not a clipped or per-cell approximation. A
value still outside after :data:`MAX_REDRAWS` rounds (a model that puts almost no mass in the range)
is clipped to it, with a warning. The ranges are the fitted estimator's record of its training values
(``value_support_``, :mod:`bayesnb.generative.values`), so a saved model keeps them; a private model
has none (its draws keep the declared ``DP(bounds=...)`` instead). Columns that ``given`` conditions
are left as the condition draws them. A condition's probability (``return_probability``) stays the
model's, before the ranges (their own probability is near 1: the range holds every training value).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._utils import as_generator
from .observed_support import sample_on_support

__all__ = ["MAX_REDRAWS", "observed_ranges", "sample_in_range", "sample_model_in_range"]

#: rounds of drawing again the rows with a value outside its column's range
MAX_REDRAWS = 50


def observed_ranges(model, skip=()):
    """``{column position: (lo, hi)}``: the observed range of each numeric column of a fitted estimator.

    Parameters
    ----------
    model : NaiveBayes
        Fitted; its ``value_support_`` (none for a private or sparse fit: an empty dict).
    skip : iterable of int
        Positions left out (columns a condition sets).

    Returns
    -------
    dict
    """
    supports = getattr(model, "value_support_", None) or {}
    skip, out = {int(j) for j in skip}, {}
    for j, s in supports.items():
        if int(j) in skip:
            continue
        lo, hi = float(s.lo), float(s.hi)
        if s.masses.size:  # the range of the values that are not point masses, with the masses
            lo, hi = min(lo, float(s.masses.min())), max(hi, float(s.masses.max()))
        if np.isfinite(lo) and np.isfinite(hi):
            out[int(j)] = (lo, hi)
    return out


def _frame(table):
    """``table`` (a DataFrame or 2-D array) as a DataFrame."""
    return table if isinstance(table, pd.DataFrame) else pd.DataFrame(np.asarray(table, dtype=object))


def _outside(X, ranges):
    """Bool (n,): rows of the model-column table ``X`` with a value outside its column's range."""
    bad = np.zeros(len(X), dtype=bool)
    for j, (lo, hi) in ranges.items():
        v = pd.to_numeric(X.iloc[:, j], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        bad |= (v < lo) | (v > hi)  # a missing cell (NaN) is not outside
    return bad


def _rows_of(value, rows, n):
    """``value`` for the rows ``rows`` of ``n``: per-row values (array-like of length ``n``) subset, any other
    value (a scalar, a set, a ``(low, high)`` range, None) as it is."""
    if value is None or isinstance(value, (str, bytes, set, frozenset, tuple)) or np.ndim(value) == 0:
        return value
    if len(value) != n:
        return value
    if isinstance(value, list):
        return [value[i] for i in rows]
    return value.to_numpy()[rows] if isinstance(value, (pd.Series, pd.Index)) else np.asarray(value)[rows]


def sample_in_range(draw, model, n, random_state, *, given=None, y=None, who="Synthesizer", stacklevel=2):
    """``draw``'s rows with those holding a value outside a numeric column's observed range drawn again.

    Parameters
    ----------
    draw : callable
        ``draw(n_rows, rng, given, y)`` -> a tuple whose first item is the model-column table
        (a DataFrame or 2-D array, the estimator's feature order) and second the labels (or None); any
        further items (a condition's probability) are kept from the first call.
    model : NaiveBayes
        The fitted estimator ``draw`` samples (its ``value_support_`` gives the ranges).
    n : int
        Rows.
    random_state : None, int or Generator
    given : dict, optional
        The model's ``given`` (keys: feature names): its columns are not checked, per-row values are
        subset for the rows drawn again.
    y : optional
        The labels to condition on (one, one per row, a set), subset likewise.
    who : str
    stacklevel : int, default=2
        Where the clipping warning points, as for :func:`warnings.warn` called here (2: the caller).

    Returns
    -------
    tuple
        What ``draw`` returns, its table and labels with the rows replaced.
    """
    rng = as_generator(random_state)
    names = list(getattr(model, "feature_names_in_", []))
    skip = [names.index(c) for c in (given or {}) if c in names]
    ranges = observed_ranges(model, skip)
    got = draw(n, rng, given, y)
    if not ranges:
        return got
    X = _frame(got[0]).copy()
    labels = None if got[1] is None else np.asarray(got[1])
    bad = np.flatnonzero(_outside(X, ranges))
    for _ in range(MAX_REDRAWS):
        if bad.size == 0:
            break
        sub_given = None if given is None else {k: _rows_of(v, bad, n) for k, v in given.items()}
        again = draw(bad.size, rng, sub_given, _rows_of(y, bad, n))
        A = _frame(again[0])
        for k in range(X.shape[1]):  # column by column: each keeps its dtype
            col = X.iloc[:, k].copy()
            col.iloc[bad] = A.iloc[:, k].to_numpy()
            X.isetitem(k, col)
        if labels is not None:
            new = np.asarray(again[1])
            labels = labels.astype(np.result_type(labels.dtype, new.dtype))  # (a longer label fits)
            labels[bad] = new
        bad = bad[_outside(X.iloc[bad], ranges)]
    if bad.size:
        for j, (lo, hi) in ranges.items():
            col = X.iloc[:, j].copy()
            col.iloc[bad] = np.clip(pd.to_numeric(col.iloc[bad], errors="coerce").to_numpy(dtype=float), lo, hi)
            X.isetitem(j, col)
        warnings.warn(f"{who}: {bad.size} row(s) still held a value outside its column's observed range after "
                      f"{MAX_REDRAWS} draws (the model puts little mass there); those values are clipped to the range.",
                      UserWarning, stacklevel=stacklevel)
    return (X if isinstance(got[0], pd.DataFrame) else X.to_numpy(), labels, *got[2:])


def sample_model_in_range(model, support, who, n, random_state, parameter_uncertainty, kw):
    """:func:`~bayesnb.synth.observed_support.sample_on_support` of ``model`` (``Synthesizer.sample``'s draw)
    through :func:`sample_in_range`; ``kw``: the other keywords of the model's ``sample`` (``latent``, and
    ``given``, ``forbid``, ``y``, ``return_probability`` when a condition is asked for), the rows drawn again
    keeping their own per-row conditions."""
    def draw(rows, rng, model_given, model_y):
        return sample_on_support(model, support, who, rows, random_state=rng,
                                 parameter_uncertainty=parameter_uncertainty,
                                 **({**kw, "given": model_given, "y": model_y} if "given" in kw else kw))

    return sample_in_range(draw, model, n, random_state, given=kw.get("given"), y=kw.get("y"), who=who,
                           stacklevel=4)  # Synthesizer.sample's caller
