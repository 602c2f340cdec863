"""``features="auto"``: each numeric column's family chosen by its closed-form evidence.

A column's candidates follow from its support:

============================  ==========================================
observed values               candidates
============================  ==========================================
whole numbers >= 0            Poisson, Histogram
whole numbers, some < 0       Histogram
reals > 0                     LogNormal, Histogram
reals >= 0 with exact zeros   Hurdle(LogNormal) (a mass at 0), Histogram
reals, some < 0               Gaussian, Histogram
============================  ==========================================

so that a sampled value never leaves the column's support and whole-number columns are
drawn as whole numbers. Each candidate is fitted to the column alone, given the labels
(its conjugate posterior with the family's default prior), and scored by its log evidence
``log p(x_j | y)``. Densities and masses are compared on one footing by reading the data at
their resolution ``h``: 1 for whole numbers, else the decimal grid the values are
recorded on (``0.1`` for values with one decimal; at most 12 decimals). A density's cell
then has probability ``f(x) h``, a mass keeps its mass (``Family.density_cells``): the
score is ``log_evidence + density_cells * log h``. The highest score wins. LogNormal's
evidence includes the Jacobian of ``log x``, so it is a density of ``x`` like the others.

Columns with no observed value keep the historical default (Gaussian, whose prior
predictive is then what is sampled). Non-numeric and bool columns form one Categorical
block. The scores of every candidate are returned as a table
(``NaiveBayes.family_scores_``).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._loadcheck import SCORE_COLUMNS
from .._utils import is_frame, missing_mask
from ..families import Categorical, Gaussian, Histogram, Hurdle, LogNormal, Poisson
from ..inference.conjugate import fit_block

__all__ = ["CANDIDATES", "auto_blocks", "column_kinds", "resolution"]

#: name -> (factory, applies(summary)): the candidate families of a numeric column
CANDIDATES = {
    "Poisson": (Poisson, lambda s: s["integer"] and s["min"] >= 0),
    "LogNormal": (LogNormal, lambda s: not s["integer"] and s["min"] > 0),
    "Hurdle": (lambda: Hurdle(LogNormal(), at=0.0), lambda s: not s["integer"] and s["min"] == 0),
    "Gaussian": (Gaussian, lambda s: not s["integer"] and s["min"] < 0),
    "Histogram": (Histogram, lambda s: True),
}

_MAX_DECIMALS = 12


def resolution(values) -> float:
    """The grid a column's observed values are recorded on: 1 for whole numbers, else ``10**-d``.

    ``d`` is the fewest decimals (at most 12) that write every value exactly, up to float
    rounding (``1e-6`` of the last digit, or a few ulps); values that need more are read at
    ``1e-12``.

    Parameters
    ----------
    values : ndarray of float
        Finite observed values.

    Returns
    -------
    float
    """
    v = np.asarray(values, dtype=float)
    for d in range(_MAX_DECIMALS + 1):
        s = v * 10.0 ** d
        if np.all(np.abs(s - np.round(s)) <= np.maximum(1e-6, 8 * np.finfo(float).eps * np.abs(s))):
            return 10.0 ** -d
    return 10.0 ** -_MAX_DECIMALS


def column_kinds(X) -> list:
    """Per column ``"numeric"`` (ints, floats) or ``"categorical"`` (strings, objects, bools, categories)."""
    if is_frame(X):
        dtypes = [X.iloc[:, j].dtype for j in range(X.shape[1])]
        kinds = ["O" if isinstance(t, pd.CategoricalDtype) else getattr(t, "kind", "O") for t in dtypes]
    elif X.dtype.kind == "O":
        kinds = []
        for j in range(X.shape[1]):
            col = X[:, j][~missing_mask(X[:, j])]
            kinds.append("f" if col.size and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                                                 for v in col) else "O")
    else:
        kinds = [X.dtype.kind] * X.shape[1]
    return ["numeric" if k in "iuf" else "categorical" for k in kinds]


def _numeric_column(X, j) -> np.ndarray:
    col = X.iloc[:, j] if is_frame(X) else X[:, j]
    return pd.to_numeric(pd.Series(col, copy=False), errors="raise").to_numpy(dtype=float, na_value=np.nan)


def _score(fam, x, resp, h) -> float:
    """``log p(x | y) + density_cells * log h`` of one column under a fresh ``fam``."""
    X = x.reshape(-1, 1)
    _, _, _, prior, post = fit_block(fam, X, resp, who="NaiveBayes(features='auto')")
    return float(np.sum(fam.log_evidence(prior, post))) + fam.density_cells(X) * float(np.log(h))


def choose_family(x, resp):
    """Score the candidates of one numeric column and return ``(winner name, rows of scores)``.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The column (NaN = missing).
    resp : ndarray of shape (n, K)
        Row weights per class (one-hot labels times sample weights).

    Returns
    -------
    name : str or None
        The winning candidate's key in :data:`CANDIDATES`; None for a column with no
        observed value.
    rows : list of dict
        ``family``, ``log_evidence`` (discretised), ``resolution``, one per candidate.
    """
    seen = x[np.isfinite(x)]
    if not seen.size:
        return None, []
    summary = {"integer": bool(np.all(seen == np.round(seen))), "min": float(seen.min())}
    h = resolution(seen)
    rows = []
    for name, (factory, applies) in CANDIDATES.items():
        if applies(summary):
            rows.append({"family": name, "log_evidence": _score(factory(), x, resp, h), "resolution": h})
    best = max(rows, key=lambda r: r["log_evidence"])["family"]
    return best, rows


def auto_blocks(X, categorical=None, resp=None):
    """The blocks of ``features="auto"`` and the table of candidate scores.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
    categorical : Categorical, optional
        The family of the categorical block (default ``Categorical()``).
    resp : ndarray of shape (n_samples, K), optional
        Row weights per class. Without it every numeric column is Gaussian (the choice
        needs the labels) and no scores are returned.

    Returns
    -------
    specs : list of (list of int, Family)
        Column positions and family of each block: the categorical block first, then one
        block per chosen numeric family in order of first column.
    scores : DataFrame or None
        One row per (numeric column, candidate): ``column``, ``family``,
        ``log_evidence``, ``resolution``, ``chosen``.
    """
    kinds = column_kinds(X)
    names = list(X.columns) if is_frame(X) else list(range(X.shape[1]))
    cat = [j for j, k in enumerate(kinds) if k == "categorical"]
    specs = [(cat, Categorical() if categorical is None else categorical)] if cat else []
    groups, rows = {}, []
    for j in (j for j, k in enumerate(kinds) if k == "numeric"):
        if resp is None:
            best, scored = "Gaussian", []
        else:
            best, scored = choose_family(_numeric_column(X, j), resp)
        best = "Gaussian" if best is None else best
        groups.setdefault(best, []).append(j)
        rows += [{"column": names[j], **r, "chosen": r["family"] == best} for r in scored]
    for name, cols in groups.items():
        specs.append((cols, CANDIDATES[name][0]()))
    scores = None if resp is None else pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    return specs, scores
