"""A private Synthesizer: ``Synthesizer(privacy=DP(...))`` (docs/privacy.md, "Private synthetic data").

Without privacy the Synthesizer reads many things from the table besides its fit (structure,
latent count, families, bins, missing columns, categories, classes). Under ``privacy=DP(...)``
each comes from what the user declares or from the table's schema (public), and the only
release of the data is the private estimator's (noise on its sufficient statistics), so
everything after it is post-processing. The table in docs/privacy.md, "Private synthetic data",
lists each choice and its private replacement: declared categories and classes, equal-width bins
over declared bounds (:mod:`bayesnb.synth.private_bins`), :data:`MISSING_CATEGORY` and indicator
nodes for every column whose dtype can hold a missing cell, :data:`DP_STRUCTURE`, no latent
classes, integer rounding (:func:`whole_conditions`), the released counts' projection
(:data:`COUNT_PROJECTION`).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import zlib

import numpy as np
import pandas as pd

from .private_bins import GAUSSIAN, binned_columns, decode, default_bins, edges_of, encode, labels_of, range_codes
from .given_rows import as_dtype
from .missing_nodes import add_indicators, forbidden_pairs, indicator_names
from ..estimators import NaiveBayes
from ..families import Categorical, Gaussian
from ..inference.conjugate import posterior_from_stats
from ..privacy import DP, project_simplex

__all__ = ["COUNT_PROJECTION", "DP_STRUCTURE", "MISSING_CATEGORY", "fill_missing", "fit_private",
           "missing_categories", "private_draws", "private_indicators", "private_inputs", "whole_conditions"]

#: what ``structure="auto"`` fits under privacy: the estimator's private ``"auto"`` (a rule on public quantities)
DP_STRUCTURE = "auto"
#: the last category of a private model's categorical column whose missing cells are modelled
MISSING_CATEGORY = "__missing__"
#: how :func:`fit_private` post-processes released counts that sum to a class count: ``"capped"`` (onto
#: ``{c >= 0, sum(c) <= class count}``), ``"simplex"`` (onto ``sum(c) = class count``, up as well) or None
#: (as released); ``"capped"`` measured best (benchmarks/bench_privacy_counts.py)
COUNT_PROJECTION = "capped"

_WHO = "Synthesizer"


def _is_bool(dtype):
    """Whether ``dtype`` is ``bool`` or ``boolean``; a pandas categorical is not, whatever its categories
    (``astype("category")`` builds them from the data)."""
    return pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype)


def _may_miss(dtype):
    """Whether a column of ``dtype`` can hold a missing cell (public schema, not the data)."""
    return not (_is_bool(dtype) and not isinstance(dtype, pd.BooleanDtype)
                or (pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype)))


def _categorical(X, categories):
    """The columns a private model makes Categorical: declared ones and ``bool`` ones."""
    return [c for c in X.columns if c in categories or _is_bool(X[c].dtype)]


def _public_dtypes(data, categories, target, classes):
    """``data.dtypes`` with each pandas categorical dtype's categories (built from the data) replaced by
    the declared ones: ``categories[column]``, or ``classes`` for the target (its ``ordered`` flag kept)."""
    dtypes = data.dtypes.copy()
    for c, dtype in dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype):
            declared = classes if c == target else categories.get(c, [False, True])  # else a bool column
            dtypes[c] = pd.CategoricalDtype(list(declared), ordered=dtype.ordered)
    return dtypes


def _numeric_spec(v):
    """Whether a ``categories`` value sets a bounded numeric column's model: ``"gaussian"`` or a number of bins."""
    return (isinstance(v, str) and v == GAUSSIAN) or (isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                                       and v >= 1)


def private_indicators(X, missing, categories=None):
    """``({column: indicator}, [column, ...])`` under privacy: how each column's missing cells are modelled.

    Parameters
    ----------
    X : DataFrame
        The feature columns; only their names and dtypes are read.
    missing : {"model", "drop"} or None
        The Synthesizer's ``missing``.
    categories : dict, optional
        The declared categories: those columns (and ``bool`` ones) take :data:`MISSING_CATEGORY`.

    Returns
    -------
    indicators : dict
        The other columns whose dtype can hold a missing cell, each with its indicator's name.
    with_category : list
        The categorical columns whose dtype can hold a missing cell. Both empty unless
        ``missing == "model"``.
    """
    if missing != "model":
        return {}, []
    cat = set(_categorical(X, categories or {}))
    names = indicator_names(pd.DataFrame({c: [np.nan] for c in X.columns}))  # the names, for every column
    may = [c for c in X.columns if _may_miss(X[c].dtype)]
    return {c: names[c] for c in may if c not in cat}, [c for c in may if c in cat]


def fill_missing(X, columns):
    """``X`` with the missing cells of ``columns`` holding :data:`MISSING_CATEGORY` (a new table)."""
    if not columns:
        return X
    X = X.copy()
    for c in columns:
        X[c] = X[c].astype(object).where(X[c].notna(), MISSING_CATEGORY)
    return X


def missing_categories(model):
    """The columns of a fitted private NaiveBayes whose last category is :data:`MISSING_CATEGORY` (list)."""
    if getattr(model, "privacy", None) is None:
        return []
    out = []
    for names, fam in getattr(model, "blocks_", []):
        cats = getattr(fam, "categories", None)
        if isinstance(cats, (list, tuple)):
            out += [n for n, c in zip(names, cats) if np.ndim(c) == 1 and len(c) and
                    isinstance(c[-1], str) and c[-1] == MISSING_CATEGORY]
    return out


def _check(synth, X):
    """Refuse what a private Synthesizer cannot do, naming privacy (module docstring)."""
    dp = synth.privacy
    if not isinstance(dp, DP):
        raise TypeError(f"{_WHO}: privacy must be a bayesnb.DP(epsilon, ...) or None; received {dp!r}.")
    if synth.latent is not None and not isinstance(synth.latent, str):
        raise ValueError(f"{_WHO}: latent={synth.latent!r} is not available with privacy=: the latent-class model "
                         "is fitted by EM on the raw rows, without noise. Use latent='auto' or None (no latent "
                         "classes under privacy).")
    if synth.target is None and dp.classes is not None:
        raise ValueError(f"{_WHO}: DP(classes=...) declares the target's labels, but target=None (one class); "
                         "leave classes=None or name the target.")
    if synth.target is not None and dp.classes is None:
        raise ValueError(f"{_WHO}: with privacy= the target's labels must be declared: DP(classes=[...]). Read "
                         "from the data they would be released without noise.")
    dates = [c for c in X.columns if pd.api.types.is_datetime64_any_dtype(X[c].dtype)]
    if dates:
        raise ValueError(f"{_WHO}: datetime column(s) {dates} are not available with privacy=: convert them to "
                         "numbers (e.g. seconds or years) and declare their bounds in DP(bounds=...).")
    cats, bounds = dict(synth.categories or {}), dict(dp.bounds or {})
    unknown = [c for c in list(cats) + list(bounds) if c not in X.columns]
    if unknown:
        raise ValueError(f"{_WHO}: categories= / DP(bounds=...) name column(s) {unknown} that are not feature "
                         f"columns of data; columns: {list(X.columns)}.")
    both = [c for c in cats if c in bounds and not _numeric_spec(cats[c])]
    if both:
        raise ValueError(f"{_WHO}: column(s) {both} have both declared categories and bounds; give one.")
    flat = [c for c, (lo, hi) in bounds.items() if pd.api.types.is_integer_dtype(X[c].dtype)
            and math.ceil(lo) > math.floor(hi)]
    if flat:
        raise ValueError(f"{_WHO}: integer column(s) {flat} have bounds with no whole number between them.")
    loose = [c for c in cats if _numeric_spec(cats[c]) and c not in bounds]
    if loose:
        raise ValueError(f"{_WHO}: categories[{loose[0]!r}] = {cats[loose[0]]!r} sets how a numeric column with "
                         "DP(bounds=...) is modelled ('gaussian' or a number of bins >= 1); the column has no bounds.")
    for c, v in cats.items():
        if _numeric_spec(v):
            continue
        if any(isinstance(x, str) and x == MISSING_CATEGORY for x in np.ravel(np.asarray(v, dtype=object))):
            raise ValueError(f"{_WHO}: categories[{c!r}] holds {MISSING_CATEGORY!r}, the category a private model's "
                             "missing cells take; rename that value.")
        if isinstance(v, (str, bytes)) or np.ndim(v) != 1 or len(v) == 0 or len(set(v)) != len(v):
            raise ValueError(f"{_WHO}: categories[{c!r}] must be a non-empty list of distinct values; received {v!r}.")


def private_features(X, categories, bounds, indicators, with_category=(), bins=None):
    """The features dict of the private estimator: every family from declared or schema information.

    Parameters
    ----------
    X : DataFrame
        The feature columns (indicators not yet added); only names and dtypes are read.
    categories : dict
        ``{column: categories}`` declared.
    bounds : dict
        ``DP(bounds=...)``.
    indicators : dict
        ``{column: indicator}`` (:func:`private_indicators`).
    with_category : sequence
        Categorical columns that take :data:`MISSING_CATEGORY` as their last category.
    bins : dict, optional
        ``{numeric column: bin edges}``: those are Categorical over their bins' labels
        (:func:`bayesnb.synth.private_bins.labels_of`); the other bounded numeric columns Gaussian.

    Returns
    -------
    dict
        ``{(categorical and binned columns): Categorical(categories=[...]), (numeric columns): Gaussian()}``.

    Raises
    ------
    ValueError
        A column is neither declared nor ``bool``, or has bounds but a non-numeric dtype.
    """
    cat_cols, cat_lists, numeric, undeclared = [], [], [], []
    bins = bins or {}
    for c in X.columns:
        dtype = X[c].dtype
        if c in bins:
            cat_cols.append(c)
            cat_lists.append(labels_of(bins[c], pd.api.types.is_integer_dtype(dtype)))
        elif c in categories:
            cat_cols.append(c)
            cat_lists.append(list(categories[c]))
        elif _is_bool(dtype):
            cat_cols.append(c)
            cat_lists.append([False, True])
        elif c in bounds and pd.api.types.is_numeric_dtype(dtype):
            numeric.append(c)
        else:
            undeclared.append(c)
    not_numeric = [c for c in undeclared if c in bounds]
    if not_numeric:
        raise ValueError(f"{_WHO}: with privacy= DP(bounds=...) for column(s) {not_numeric} apply to numeric "
                         f"columns, and their dtypes are not numeric ({[str(X[c].dtype) for c in not_numeric]}). "
                         "Give a categorical column categories={column: [values]} instead, or convert it to numbers.")
    if undeclared:
        raise ValueError(f"{_WHO}: with privacy= every column needs declared information, not read from the data: "
                         f"column(s) {undeclared} have none. Give categorical columns categories={{column: [values]}} "
                         "(a pandas categorical dtype does not count: astype('category') reads them from the data) "
                         "and numeric columns DP(bounds={column: (lo, hi)}).")
    cat_lists = [cats + [MISSING_CATEGORY] if c in with_category else cats for c, cats in zip(cat_cols, cat_lists)]
    cat_cols += list(indicators.values())
    cat_lists += [[False, True]] * len(indicators)
    features = {}
    if numeric:
        features[tuple(numeric)] = Gaussian()
    if cat_cols:
        features[tuple(cat_cols)] = Categorical(categories=cat_lists)
    return features


def fit_private(synth, data, split_table):
    """Fit ``synth`` (a ``Synthesizer`` with ``privacy``) on ``data``: the private estimator, nothing else.

    Parameters
    ----------
    synth : Synthesizer
        Its parameters checked (``check_params``); its fitted attributes are set.
    data : DataFrame
        The real table.
    split_table : callable
        ``data -> (X, labels)``, the Synthesizer's own split (labels zeros without a target).

    Returns
    -------
    Synthesizer
        ``synth``, fitted: ``model_`` (a private NaiveBayes), ``latent_`` None, ``chosen_``, a one-row
        ``selection_``, ``privacy_spent_`` (the estimator's), and the columns, dtypes and indicators.
    """
    X, labels = split_table(data)
    _check(synth, X)
    dp = synth.privacy if synth.target is not None else dataclasses.replace(synth.privacy, classes=[0])
    structure = DP_STRUCTURE if synth.structure == "auto" else synth.structure
    synth.datetime_columns_ = []
    specs = {c: v for c, v in (synth.categories or {}).items() if _numeric_spec(v)}
    cats = {c: v for c, v in (synth.categories or {}).items() if c not in specs}
    synth.missing_indicators_, with_category = private_indicators(X, synth.missing, cats)
    bounds = dict(dp.bounds or {})
    numeric = [c for c in X.columns if c in bounds and specs.get(c) != GAUSSIAN and c not in cats]
    d = X.shape[1] + len(synth.missing_indicators_)
    default = default_bins(len(X), dp.epsilon, len(dp.classes), d, dp.delta, dp.mechanism)  # public (private_bins)
    bins = {c: edges_of(bounds[c], specs.get(c, default), pd.api.types.is_integer_dtype(X[c].dtype))
            for c in numeric if pd.api.types.is_numeric_dtype(X[c].dtype) and not _is_bool(X[c].dtype)}
    features = private_features(X, cats, bounds, synth.missing_indicators_, with_category, bins)
    X = add_indicators(fill_missing(X, with_category), synth.missing_indicators_)
    X = X.assign(**{c: encode(X[c], e, pd.api.types.is_integer_dtype(X[c].dtype)) for c, e in bins.items()})
    synth._model_columns = list(X.columns)
    synth._forbidden = forbidden_pairs(synth._model_columns, synth.missing_indicators_)
    params = {} if structure == "naive" else {"structure": structure, "forbidden_edges": synth._forbidden}
    if structure == "auto":  # the estimator's private rule (public quantities only); its CV check reads raw rows
        params["auto_cv"] = False
    # a binned column's bounds give its bins (public; their labels hold the edges), not the estimator's clipping
    fit_dp = dataclasses.replace(dp, bounds={c: b for c, b in bounds.items() if c not in bins} or None)
    synth.model_ = NaiveBayes(features, privacy=fit_dp, **params).fit(X, labels)
    if synth.model_.structure_kind_ == "naive" and COUNT_PROJECTION:  # (a structure's contexts are not the classes)
        _project_counts(synth.model_, list(synth.missing_indicators_.values()) + [
            c for c in _categorical(X, cats) if c in with_category or not _may_miss(X[c].dtype)] + [
            c for c in bins if not _may_miss(data[c].dtype)])
    synth.dtypes_ = _public_dtypes(data, cats, synth.target, dp.classes)
    # the training dtypes the estimator records (and its file holds): a categorical's are the declared ones
    synth.model_.feature_dtypes_ = np.asarray([synth.dtypes_[c] if c in synth.dtypes_ and (isinstance(
        synth.dtypes_[c], pd.CategoricalDtype) or c in bins) else t for c, t in zip(X.columns,
                                                                                 synth.model_.feature_dtypes_)],
        dtype=object)
    synth.latent_, synth.chosen_ = None, f"{synth.model_.structure_kind_} (private)"  # what "auto" chose
    synth.selection_ = pd.DataFrame([{"candidate": synth.chosen_, "log_evidence": np.nan, "cv_log_loss": np.nan,
                                      "holdout_loglik": np.nan, "chosen": True,
                                      "note": f"privacy: {dp.epsilon:g}-DP fit, nothing selected on the raw rows"}])
    synth.privacy_spent_ = synth.model_.privacy_spent_
    synth.columns_ = list(data.columns)
    return synth


def _project_counts(model, columns):
    """Refit ``model`` (a private naive NaiveBayes) with each class's released counts of ``columns`` projected
    onto ``{c >= 0, sum(c) <= class count}``.

    ``columns`` are the Categorical columns of which every row adds one unit to one cell (a missing cell
    too: its category, its indicator, or a dtype that holds none), so a class's counts sum to its count.
    The release sets negative noisy counts to 0 and keeps positive noise, which inflates rare cells
    (a missing rate of 5.6% was drawn as 13% at epsilon = 1 on house votes). Where the counts sum to
    more than the released class count, the Euclidean projection onto the simplex of that total
    (:func:`bayesnb.privacy.project_simplex`) takes the excess back from every cell alike; a sum below
    it is kept (projecting up would add the same amount to every cell, rare ones included, which raised
    the synthetic missing rate in a measurement: docs/privacy.md). It reads only the released counts
    and class counts: post-processing, no budget.
    """
    post = model.posterior_
    stats = []
    for b in post.blocks:
        at = [j for j, name in enumerate(b.names) if name in columns]
        if at:
            counts = list(b.stats.counts)
            for j in at:
                counts[j] = np.stack([project_simplex(row, total) if row.sum() > total or COUNT_PROJECTION == "simplex"
                                      else row for row, total in zip(counts[j], post.class_count)])
            stats.append(b.stats._replace(counts=tuple(counts)))
        else:
            stats.append(b.stats)
    class_alpha, fit_prior, class_prior = model._check_class_params(len(post.classes))
    fitted = posterior_from_stats(post.classes, post.class_count, model._specs, [b.state for b in post.blocks],
                                  stats, [b.names for b in post.blocks], class_alpha, fit_prior, class_prior,
                                  who=model._who)
    model._store_posterior(fitted, model._never_observed)


def private_inputs(model, X, dtypes):
    """Feature columns ``X`` as a private model reads them: :data:`MISSING_CATEGORY` in the missing cells of
    the columns that model them, binned numeric columns as their bin codes (a new table).

    Parameters
    ----------
    model : NaiveBayes
        Fitted with ``privacy=``.
    X : DataFrame
        Feature columns in the table's terms.
    dtypes : mapping
        ``{column: training dtype}``.

    Returns
    -------
    DataFrame
    """
    X = fill_missing(X, missing_categories(model))
    binned = {c: ei for c, ei in binned_columns(model, dtypes).items() if c in X.columns}
    return X.assign(**{c: encode(X[c], *ei) for c, ei in binned.items()}) if binned else X


def private_draws(model, out, dtypes, given=None):
    """A private model's draws as the table's: :data:`MISSING_CATEGORY` blanked, bin codes decoded to values
    uniform within their bins (within a ``given`` range's overlap), integer-dtype columns rounded to whole
    numbers within their bounds (a new table; ``out`` itself when ``model`` is not private).

    Parameters
    ----------
    model : NaiveBayes
        Fitted; nothing changes unless with ``privacy=`` (then its ``DP(bounds=...)`` gives each
        integer column's ``[ceil(lo), floor(hi)]``).
    out : DataFrame
        Sampled rows (``Synthesizer.sample``'s, or ``bayesnb sample``'s).
    dtypes : mapping
        ``{column: training dtype}`` (public schema): integer columns are rounded, then cast back
        to their dtype where no cell is missing or the dtype holds missing cells.
    given : dict, optional
        The conditions :func:`whole_conditions` returned: a binned column's range is decoded within it.
        The within-bin draws are seeded by the drawn codes, so the same draws decode alike (Python, a
        loaded file and ``bayesnb sample``).

    Returns
    -------
    DataFrame
    """
    if getattr(model, "privacy", None) is None:
        return out
    out = out.copy()
    for c in missing_categories(model):
        if c in out.columns:
            flag = np.asarray(out[c].astype(object) == MISSING_CATEGORY, dtype=bool)
            out[c] = out[c].astype(object).mask(flag)
    for j, (c, (edges, integer)) in enumerate(binned_columns(model, dtypes).items()):
        if c in out.columns:
            codes = out[c].to_numpy(dtype=object)
            seed = zlib.crc32(pd.Series(codes).astype(str).str.cat(sep=",").encode()) + j
            within = getattr((given or {}).get(c), "within", None)
            out[c] = decode(codes, edges, integer, np.random.default_rng(seed), within)
    for c, (lo_i, hi_i) in _whole_bounds(model, dtypes).items():
        if c in out.columns:
            vals = pd.to_numeric(out[c]).astype(float)
            out[c] = as_dtype(pd.Series(np.clip(np.round(vals), lo_i, hi_i), index=out.index), dtypes[c])
    return out


def _whole_bounds(model, dtypes):
    """``{column: (ceil(lo), floor(hi))}`` of a private model's integer-dtype columns with ``DP(bounds=...)``
    (``ceil(lo) <= floor(hi)``: checked at fit)."""
    dp = getattr(model, "privacy", None)
    bounds = {} if dp is None else dict(dp.bounds or {})
    return {c: (math.ceil(lo), math.floor(hi)) for c, (lo, hi) in bounds.items()
            if c in dtypes and pd.api.types.is_integer_dtype(dtypes[c])}


def _within(c, v, bound, whole, who):
    """A ``given`` value on a bounded column: a ``(low, high)`` range within the bounds (on an integer column,
    the draws that round into its whole numbers), a number checked against them."""
    lo_b, hi_b = bound
    if isinstance(v, tuple) and len(v) == 2:
        lo = lo_b if v[0] is None else max(float(v[0]), lo_b)
        hi = hi_b if v[1] is None else min(float(v[1]), hi_b)
        if lo > hi:
            raise ValueError(f"{who}: the range {v!r} on column {c!r} lies outside the declared bounds [{lo_b:g}, "
                             f"{hi_b:g}] of the private model (DP(bounds=...)), where it draws every value.")
        return _whole_range(c, (lo, hi), who) if whole else (lo, hi)
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        if not lo_b <= v <= hi_b:
            raise ValueError(f"{who}: given[{c!r}] = {v!r} is outside the declared bounds [{lo_b:g}, {hi_b:g}] of "
                             "the private model (DP(bounds=...)), where it draws every value.")
        if whole and v != round(v):
            raise ValueError(f"{who}: given[{c!r}] = {v!r} is not a whole number; the column's dtype is integer.")
    return v


def _whole_range(c, v, who):
    """A ``(low, high)`` range on an integer column as the range of the draws that round into it."""
    if not (isinstance(v, tuple) and len(v) == 2):
        return v
    lo = None if v[0] is None else math.ceil(v[0])
    hi = None if v[1] is None else math.floor(v[1])
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"{who}: the range {v!r} on the integer column {c!r} holds no whole number; a private "
                         "model draws it as a number rounded to a whole one (its dtype).")
    return (None if lo is None else lo - 0.5, None if hi is None else hi + 0.5)


def whole_conditions(model, given, forbid, dtypes, who=_WHO):
    """``(given, forbid)`` for a private model: each ``given`` range on a bounded column within its bounds, and
    each range on an integer column widened to ``[ceil(low) - 0.5, floor(high) + 0.5]``, the draws that
    :func:`private_draws` rounds into it.

    Parameters
    ----------
    model : NaiveBayes
        Fitted; nothing changes unless with ``privacy=``.
    given : dict or None
        The model's conditions (``bayesnb.synth.given_rows.model_conditions``).
    forbid : list of dict or None
    dtypes : mapping
        ``{column: training dtype}``.
    who : str

    Returns
    -------
    given, forbid
        New objects where anything changed.

    Raises
    ------
    ValueError
        A given value or range outside the declared bounds, a range on an integer column with no whole
        number, or a given number on an integer column that is not whole.
    """
    dp = getattr(model, "privacy", None)
    bounds = {} if dp is None else {c: (float(lo), float(hi)) for c, (lo, hi) in (dp.bounds or {}).items()}
    ints = _whole_bounds(model, dtypes)
    if given is not None:
        given = {c: _within(c, v, bounds[c], c in ints, who) if c in bounds else v for c, v in given.items()}
    if forbid is not None and ints:
        forbid = [{c: _whole_range(c, v, who) if c in ints else v for c, v in d.items()} for d in forbid]
    binned = binned_columns(model, dtypes)
    if given is not None and binned:
        given = {c: range_codes(c, v, *binned[c], who) if c in binned else v for c, v in given.items()}
    if forbid is not None and binned:
        forbid = [{c: range_codes(c, v, *binned[c], who, forbid=True) if c in binned else v for c, v in d.items()}
                  for d in forbid]
    return given, forbid
