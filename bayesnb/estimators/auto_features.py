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
drawn as whole numbers. Histogram is a grid of candidates (:data:`HISTOGRAM_BINS` times
:data:`HISTOGRAM_ALPHAS`, labelled ``"Histogram(bins=B, alpha=a)"``), so the evidence also
chooses the bins and the smoothing. In a whole-number column the histogram's heavy values
(the zeros of a zero-inflated count) get unit bins of their own: it is then the
zero-inflated candidate of counts, whose draws stay whole (``Hurdle(LogNormal)`` draws
reals, so it is a candidate of real columns only). Each candidate is fitted to the column alone, given the labels
(its conjugate posterior with the family's default prior), and scored by its log evidence
``log p(x_j | y)``. Densities and masses are compared on one footing by reading the data at
their resolution ``h``: 1 for whole numbers, else the decimal grid the values are
recorded on (``0.1`` for values with one decimal; at most 12 decimals). A density's cell
then has probability ``f(x) h``, a mass keeps its mass (``Family.density_cells``): the
score is ``log_evidence + density_cells * log h``. The highest score wins, except that a
parametric family within :data:`TIE_NATS` (3 nats) of a winning Histogram wins instead (a
near tie is noise: the column's support decides, so the choice does not flip between
resamples of one table; ``margin`` in the scores). LogNormal's
evidence includes the Jacobian of ``log x``, so it is a density of ``x`` like the others.

``features="histogram"`` (:data:`MODES`) takes the Histogram grid alone: every numeric column a
Histogram, its bins and smoothing still chosen by the evidence (a nonparametric model of each
column, whose draws are the observed values within each bin; :class:`bayesnb.Synthesizer`'s default).

Columns with no observed value keep the historical default (Gaussian, whose prior
predictive is then what is sampled). Non-numeric and bool columns form one Categorical
block. The scores of every candidate are returned as a table
(``NaiveBayes.family_scores_``).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._progress import progress
from .._utils import is_frame, missing_mask
from ..families import Categorical, Gaussian, Histogram, Hurdle, LogNormal, Poisson

__all__ = ["CANDIDATES", "MODES", "SCORE_COLUMNS", "assemble_blocks", "auto_blocks", "candidate_family",
           "column_candidates", "column_kinds", "kind_votes", "merge_kinds", "merge_tables", "numeric_column", "pick",
           "resolution", "score", "value_table"]

#: the columns of ``family_scores_`` (``NaiveBayes(features="auto")``; checked on load by :mod:`bayesnb.io.loadcheck`)
SCORE_COLUMNS = ("column", "family", "log_evidence", "resolution", "margin", "chosen")

#: name -> (factory, applies(summary)): the candidate families of a numeric column
CANDIDATES = {
    "Poisson": (Poisson, lambda s: s["integer"] and s["min"] >= 0),
    "LogNormal": (LogNormal, lambda s: not s["integer"] and s["min"] > 0),
    "Hurdle": (lambda: Hurdle(LogNormal(), at=0.0), lambda s: not s["integer"] and s["min"] == 0),
    "Gaussian": (Gaussian, lambda s: not s["integer"] and s["min"] < 0),
    "Histogram": (Histogram, lambda s: True),
}

#: the string values of ``NaiveBayes(features=...)`` that choose families here -> the candidate
#: families they take (None: every one of :data:`CANDIDATES`)
MODES = {"auto": None, "histogram": ("Histogram",)}

#: the Histogram candidates: every (bins, alpha) pair, as many bins as the column can fill
#: ("auto": Histogram's own rule, about the square root of the number of distinct values)
HISTOGRAM_BINS = ("auto", 8, 16, 32, 64, 128, 256)
HISTOGRAM_ALPHAS = (0.1, 0.3, 1.0)
#: a Histogram candidate past 8 bins has at least this many observed cells per bin on average
MIN_CELLS_PER_BIN = 20

_MAX_DECIMALS = 12

#: a parametric candidate this close (in nats of log evidence) to a winning Histogram wins instead
TIE_NATS = 3.0


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
    """Per column ``"numeric"`` (ints, floats) or ``"categorical"`` (strings, objects, bools, categories).

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)

    Returns
    -------
    list of str
    """
    return merge_kinds([kind_votes(X)])


def kind_votes(X) -> list:
    """What each column of ``X`` says of its kind, a batch's vote (:func:`merge_kinds`).

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)

    Returns
    -------
    list
        Per column ``"numeric"`` (a number dtype, or an object column whose observed values are
        all numbers), ``"categorical"``, or None (an object column with no observed value says
        nothing).
    """
    if is_frame(X):
        dtypes = [X.iloc[:, j].dtype for j in range(X.shape[1])]
        kinds = ["O" if isinstance(t, pd.CategoricalDtype) else getattr(t, "kind", "O") for t in dtypes]
    elif X.dtype.kind == "O":
        kinds = []
        for j in range(X.shape[1]):
            col = X[:, j][~missing_mask(X[:, j])]
            kinds.append(None if not col.size else "f" if all(isinstance(v, numbers.Real) and
                                                              not isinstance(v, (bool, np.bool_)) for v in col)
                         else "O")
    else:
        kinds = [X.dtype.kind] * X.shape[1]
    return [None if k is None else "numeric" if k in "iuf" else "categorical" for k in kinds]


def merge_kinds(votes) -> list:
    """The kinds of a table's columns from its batches' :func:`kind_votes`.

    Parameters
    ----------
    votes : sequence of list
        One :func:`kind_votes` per batch.

    Returns
    -------
    list of str
        Per column ``"numeric"`` when some batch says numeric and none says categorical, else
        ``"categorical"`` (a column observed nowhere is categorical, as in one batch).
    """
    return ["numeric" if "numeric" in col and "categorical" not in col else "categorical" for col in zip(*votes)]


def numeric_column(X, j) -> np.ndarray:
    """Column ``j`` of ``X`` as float64 (NaN missing).

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
    j : int
        Column position.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    col = X.iloc[:, j] if is_frame(X) else X[:, j]
    return pd.to_numeric(pd.Series(col, copy=False), errors="raise").to_numpy(dtype=float, na_value=np.nan)


def value_table(x):
    """The distinct finite values of a column and how many cells hold each.

    Everything :func:`column_candidates` reads of a column; tables of disjoint batches add
    (:func:`merge_tables`), so a column's candidates are the same whether it is read at once or by parts.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The column (NaN = missing).

    Returns
    -------
    values : ndarray of shape (m,)
        Sorted.
    counts : ndarray of shape (m,)
        float64.
    """
    values, counts = np.unique(x[np.isfinite(x)], return_counts=True)
    return values, counts.astype(np.float64)


def merge_tables(a, b):
    """The :func:`value_table` of two disjoint batches together, from their tables.

    Parameters
    ----------
    a, b : tuple of ndarray
        ``(values, counts)`` of each batch.

    Returns
    -------
    values, counts : ndarray
    """
    values, inverse = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    return values, np.bincount(inverse, weights=np.concatenate([a[1], b[1]]), minlength=values.size)


def _score(fam, x, resp, h) -> float:
    """``log p(x | y) + density_cells * log h`` of one column under a fresh ``fam``."""
    X = x.reshape(-1, 1)
    block, state = fam.encode(X, who="NaiveBayes(features='auto')")
    return score(fam, fam.stats(block, resp, state), state, fam.density_cells(X), h)


def score(fam, stats, state, density_cells, h) -> float:
    """A candidate's score from its statistics of the column: ``log p(x | y) + density_cells * log h``.

    Parameters
    ----------
    fam : Family
        The candidate.
    stats, state
        Its statistics of the column (one column) and its encoding state.
    density_cells : int
        ``fam.density_cells`` of the column.
    h : float
        The column's :func:`resolution`.

    Returns
    -------
    float
    """
    prior = fam.make_prior(stats, state)
    return float(np.sum(fam.log_evidence(prior, fam.update(prior, stats)))) + density_cells * float(np.log(h))


def _histogram_label(bins, alpha) -> str:
    return f"Histogram(bins={bins}, alpha={alpha:g})"


def _variants(name, factory, n_distinct, n_seen):
    """``(label, family)`` of each candidate of ``name``: Histogram's grid of bins and alpha.

    Bin counts are ``"auto"`` and those of :data:`HISTOGRAM_BINS` up to the first that reaches
    ``2 * n_distinct`` (more only split the gaps between values) and, past the smallest, at most
    ``n_seen / MIN_CELLS_PER_BIN``: the edges are quantiles of the data being scored, and
    bins of a handful of cells would fit them to it more than the evidence can charge for.
    """
    if name != "Histogram":
        return [(name, factory())]
    fixed = [b for b in HISTOGRAM_BINS if b != "auto"]
    bins = [b for b in fixed if b < 2 * n_distinct] + [b for b in fixed if b >= 2 * n_distinct][:1]
    bins = ["auto", *bins[:1], *(b for b in bins[1:] if b * MIN_CELLS_PER_BIN <= n_seen)]
    return [(_histogram_label(b, a), Histogram(bins=b, alpha=a)) for b in bins for a in HISTOGRAM_ALPHAS]


def candidate_family(label):
    """The (unfitted) family of a ``family`` label of ``family_scores_``.

    Parameters
    ----------
    label : str
        A key of :data:`CANDIDATES` other than ``"Histogram"``, or
        ``"Histogram(bins=B, alpha=a)"`` with ``B`` in :data:`HISTOGRAM_BINS` and ``a`` in
        :data:`HISTOGRAM_ALPHAS`.

    Returns
    -------
    Family
    """
    grid = {_histogram_label(b, a): (b, a) for b in HISTOGRAM_BINS for a in HISTOGRAM_ALPHAS}
    if label in grid:
        return Histogram(bins=grid[label][0], alpha=grid[label][1])
    if label in CANDIDATES and label != "Histogram":
        return CANDIDATES[label][0]()
    raise ValueError(f"candidate_family: no candidate is labelled {label!r}; expected one of "
                     f"{sorted(k for k in CANDIDATES if k != 'Histogram')} or one of {sorted(grid)}.")


def column_candidates(values, counts, families=None):
    """A column's resolution and candidate families, from its :func:`value_table`.

    Parameters
    ----------
    values, counts : ndarray
        The column's distinct finite values (sorted) and how many cells hold each.
    families : tuple of str, optional
        Keys of :data:`CANDIDATES` to consider (a value of :data:`MODES`); None: every one.

    Returns
    -------
    h : float or None
        :func:`resolution` of the values (None without an observed value).
    candidates : list of (str, Family)
        Label and unfitted family of every candidate that respects the column's support
        (Histogram's grid included, see :func:`_variants`); empty without an observed value.
    """
    if not values.size:
        return None, []
    summary = {"integer": bool(np.all(values == np.round(values))), "min": float(values[0])}
    out = []
    for name, (factory, applies) in CANDIDATES.items():
        if applies(summary) and (families is None or name in families):
            out += _variants(name, factory, values.size, counts.sum())
    return resolution(values), out


def pick(candidates, scores, h):
    """The winner among a column's scored candidates (:func:`_with_tie_rule`) and the rows of its scores.

    Parameters
    ----------
    candidates : list of (str, Family)
        From :func:`column_candidates`.
    scores : sequence of float
        Each candidate's :func:`score`.
    h : float
        The column's resolution.

    Returns
    -------
    name, rows, family
        As :func:`choose_family`.
    """
    rows = [{"family": label, "log_evidence": s, "resolution": h} for (label, _), s in zip(candidates, scores)]
    best = _with_tie_rule(rows)
    return best, rows, dict(candidates)[best]


def choose_family(x, resp, families=None):
    """Score the candidates of one numeric column and return the winner and the table of scores.

    Histogram is tried at every bin count of :data:`HISTOGRAM_BINS` (those the column's
    distinct values can fill) and every Dirichlet ``alpha`` of :data:`HISTOGRAM_ALPHAS`:
    each is a model of the same discretised data, so the evidence picks the resolution and
    the smoothing as it picks the family.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The column (NaN = missing).
    resp : ndarray of shape (n, K)
        Row weights per class (one-hot labels times sample weights).
    families : tuple of str, optional
        As :func:`column_candidates`.

    Returns
    -------
    name : str or None
        The winning candidate's label (a key of :data:`CANDIDATES`, or
        ``"Histogram(bins=B, alpha=a)"``); None for a column with no observed value.
    rows : list of dict
        ``family`` (the label), ``log_evidence`` (discretised), ``resolution``, ``margin`` (the score
        minus the best score of the other families), one per candidate.
    family : Family or None
        The winning family, unfitted.
    """
    h, candidates = column_candidates(*value_table(x), families)
    if not candidates:
        return None, [], None
    return pick(candidates, [_score(fam, x, resp, h) for _, fam in candidates], h)


def _kind(label) -> str:
    """A candidate's family name: ``"Histogram(bins=8, alpha=1)"`` -> ``"Histogram"``."""
    return label.split("(")[0]


def _with_tie_rule(rows) -> str:
    """The winner of one column's scored candidates (each row of ``rows`` gets its ``margin``).

    The highest score wins, except that a parametric candidate within :data:`TIE_NATS` of a
    winning Histogram wins instead: the Histogram's support is the training range (beyond it
    only a decaying tail), the parametric family's the column's whole support, and near a tie
    the data cannot tell them apart, so resamples of one table would flip between them. Each
    row's ``margin`` is its score minus the best score of the other families (positive: ahead
    of every other family; a chosen row with a negative margin won by the tie rule).
    """
    best = max(rows, key=lambda r: r["log_evidence"])
    parametric = [r for r in rows if _kind(r["family"]) != "Histogram"]
    if _kind(best["family"]) == "Histogram" and parametric:
        alt = max(parametric, key=lambda r: r["log_evidence"])
        if best["log_evidence"] - alt["log_evidence"] < TIE_NATS:
            best = alt
    for r in rows:
        others = [o["log_evidence"] for o in rows if _kind(o["family"]) != _kind(r["family"])]
        r["margin"] = r["log_evidence"] - max(others) if others else float("inf")
    return best["family"]


def auto_blocks(X, categorical=None, resp=None, mode="auto"):
    """The blocks of ``features="auto"`` and the table of candidate scores.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
    categorical : Categorical, optional
        The family of the categorical block (default ``Categorical()``).
    resp : ndarray of shape (n_samples, K), optional
        Row weights per class. Without it every numeric column is Gaussian (the choice
        needs the labels) and no scores are returned.
    mode : {"auto", "histogram"}, default="auto"
        A key of :data:`MODES`: every candidate family, or the Histogram grid alone.

    Returns
    -------
    specs : list of (list of int, Family)
        Column positions and family of each block: the categorical block first, then one
        block per chosen numeric family in order of first column.
    scores : DataFrame or None
        One row per (numeric column, candidate): ``column``, ``family``,
        ``log_evidence``, ``resolution``, ``margin``, ``chosen``.
    """
    kinds = column_kinds(X)
    names = list(X.columns) if is_frame(X) else list(range(X.shape[1]))
    numeric = [j for j, k in enumerate(kinds) if k == "numeric"]
    choices = None
    if resp is not None:
        choices = {j: choose_family(numeric_column(X, j), resp, MODES[mode])
                   for j in progress(numeric, desc=f"features={mode!r}: family search")}
    return assemble_blocks(kinds, names, choices, categorical)


def assemble_blocks(kinds, names, choices, categorical=None):
    """The blocks and score table of ``features="auto"`` from each numeric column's choice.

    Parameters
    ----------
    kinds : list of str
        :func:`column_kinds` of the table.
    names : list
        The column names (positions for an array).
    choices : dict or None
        Numeric column position -> ``(name, rows, family)`` of :func:`choose_family` (or
        :func:`pick`); None: every numeric column Gaussian, no scores.
    categorical : Categorical, optional
        The family of the categorical block (default ``Categorical()``).

    Returns
    -------
    specs, scores
        As :func:`auto_blocks`.
    """
    cat = [j for j, k in enumerate(kinds) if k == "categorical"]
    specs = [(cat, Categorical() if categorical is None else categorical)] if cat else []
    groups, rows = {}, []
    for j in [j for j, k in enumerate(kinds) if k == "numeric"]:
        best, scored, fam = choices[j] if choices is not None else ("Gaussian", [], None)
        if fam is None:
            best, fam = "Gaussian", Gaussian()
        groups.setdefault(best, ([], fam))[0].append(j)
        rows += [{"column": names[j], **r, "chosen": r["family"] == best} for r in scored]
    scores = None if choices is None else pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    return specs + list(groups.values()), scores
