"""Impute under self-masking missingness (MNAR), with a delta-adjustment sensitivity analysis.

:func:`impute_mnar` fits naive Bayes on the table (``estimator``, default ``NaiveBayes()``) and
then, by EM, a selection model on it: each numeric column with missing cells gets a missingness
node whose parents are the class and the bin of the column's own value
(:mod:`bayesnb.generative.mnar`), and with ``categorical=True`` (the default) each categorical
column one whose parent is its own value (:mod:`bayesnb.generative.mnar_values`; before that
option the categorical columns kept their MAR fills, which ``categorical=False`` still gives).
The imputations are drawn from (or are the mean of) each missing cell's predictive *given that
it is missing*: the family's predictive reweighted bin by bin by ``p(missing | bin, class)``.
:func:`mnar_sensitivity` shifts those imputations by ``delta`` (the delta adjustment of R mice's
``mice.impute.mnar.norm``, ``delta`` added to each imputed value) and reports how the completed
columns' means move.

Identification: the value of a missing cell is never seen, so how its probability of being
missing depends on it is identified only through the model's *shape*: the family's parametric
form per class (a Gaussian's tails), the class, and, in a latent-class model, the other
columns through the components. A column whose family is flexible enough to fit any observed
histogram (``Histogram``) and that carries no information about the class or the other columns
is not identified: any selection pattern fits its observed values equally well. Then the
honest answer is the sensitivity analysis, not the point estimate.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._utils import as_generator, is_numeric_column, one_class_on_purpose
from ..estimators import NaiveBayes
from ..families.numeric import draw_categories
from ..generative.functions import block_cells
from ..generative.mnar import fill_selection, fit_selection, resp_for_fill, selection_columns
from ..generative.tables import write_cells
from ..inference.em import allowed_states
from .mvn import _check_table, fill_mvn
from .mvn_mnar import fill_mvn_mnar, fit_mvn_mnar

__all__ = ["MNARImputation", "impute_mnar", "mnar_sensitivity"]


class MNARImputation(NamedTuple):
    """The result of :func:`impute_mnar`.

    Attributes
    ----------
    table : DataFrame or list of DataFrame
        The completed table (``n_imputations`` of them with ``strategy="draw"``); observed cells unchanged.
    selection : dict
        ``{column: DataFrame}``: ``p(missing | bin, class)``, one row per class, one column per bin
        (labelled by its interval; a categorical column: one column per value).
    column_means : DataFrame
        Per selected numeric column (rows): the mean of its observed cells, of the column completed under
        MAR (the starting naive model) and under MNAR (this fit, ``delta`` included).
    mar_table : DataFrame
        The table completed by the same model without the missingness nodes (MAR), for comparison.
    em_objective : list of float
        Log posterior (up to a constant) after each EM iteration.
    converged : bool
    fit : SelectionFit
        The fitted model (:class:`bayesnb.generative.mnar.SelectionFit`).
    """

    table: object
    selection: dict
    column_means: pd.DataFrame
    mar_table: pd.DataFrame
    em_objective: list
    converged: bool
    fit: object


def _check_em(tol, max_iter, flags, who):
    """``tol`` / ``max_iter`` of the EM and the True/False ``flags`` ``{name: value}``."""
    if not isinstance(max_iter, int | np.integer) or isinstance(max_iter, bool) or max_iter < 1:
        raise ValueError(f"{who}: max_iter must be an int >= 1; received {max_iter!r}.")
    if isinstance(tol, bool) or not isinstance(tol, float | int | np.number) or not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"{who}: tol must be a finite number >= 0; received {tol!r}.")
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{who}: {name} must be True or False; received {value!r}.")


def _check_options(n_bins, strategy, n_imputations, delta, delta_unit, alpha, label_given, who):
    if not isinstance(n_bins, int | np.integer) or isinstance(n_bins, bool) or n_bins < 2:
        raise ValueError(f"{who}: n_bins must be an int >= 2; received {n_bins!r}.")
    if strategy not in ("mean", "draw"):
        raise ValueError(f"{who}: strategy must be 'mean' or 'draw'; received {strategy!r}.")
    if not isinstance(n_imputations, int | np.integer) or n_imputations < 1:
        raise ValueError(f"{who}: n_imputations must be an int >= 1; received {n_imputations!r}.")
    if n_imputations > 1 and strategy != "draw":
        raise ValueError(f"{who}: n_imputations > 1 needs strategy='draw'; received strategy={strategy!r}.")
    if delta_unit not in ("value", "sd"):
        raise ValueError(f"{who}: delta_unit must be 'value' or 'sd'; received {delta_unit!r}.")
    if not (isinstance(alpha, float | int) and not isinstance(alpha, bool) and alpha > 0):
        raise ValueError(f"{who}: alpha must be a number > 0; received {alpha!r}.")
    if not isinstance(label_given, bool):
        raise TypeError(f"{who}: label_given must be True or False; received {label_given!r}.")
    if not isinstance(delta, dict) and (isinstance(delta, bool) or not (
            isinstance(delta, float | int | np.number) and np.isfinite(delta))):
        raise TypeError(f"{who}: delta must be a finite number or a dict {{column: number}}; received {delta!r}.")


def _delta_of(delta, X, column, unit, who):
    """The shift of one column's imputed values, in its units."""
    name = X.columns[column]
    d = delta.get(name, 0.0) if isinstance(delta, dict) else delta
    if not (isinstance(d, float | int | np.number) and np.isfinite(d)):
        raise TypeError(f"{who}: delta[{name!r}] must be a finite number; received {d!r}.")
    if unit == "sd":
        d = float(d) * float(np.nanstd(X.iloc[:, column].to_numpy(dtype=float)))
    return float(d)


def _check_components(n_components, who):
    if n_components != "auto" if isinstance(n_components, str) else (
            not isinstance(n_components, int | np.integer) or isinstance(n_components, bool) or n_components < 1):
        raise ValueError(f"{who}: n_components must be an int >= 1 or 'auto'; received {n_components!r}.")


class NoSelectionColumn(ValueError):
    """No column of the table can take a missingness node (the ValueError :func:`impute_mnar` raises)."""


def _fit(X, y, who, *, estimator, n_bins, alpha, tol, max_iter, by_class, n_components, rng, categorical=True,
         max_values=None):
    """The MAR model (naive, or its latent-class model), the encoded rows, the selection fit, the class
    index per row and the latent-class fit (None when naive); ``max_values``: as
    :func:`~bayesnb.generative.mnar.selection_columns`'."""
    with one_class_on_purpose():  # y=None: every row one class (imputation, not classification)
        model = clone(estimator if estimator is not None else NaiveBayes()).fit(X, y)
    encoded, _ = model._encode_blocks(model._check_X(X, reset=False), model.posterior_)
    latent = None
    post, group = model.posterior_, np.arange(len(model.posterior_.classes))
    class_params = (model.class_alpha, model.fit_prior, model.class_prior)
    if n_components == "auto" or int(n_components) > 1:
        latent = model.fit_latent_class(X, y, n_components=n_components, random_state=rng)
        post, group = latent.posterior, latent.group
        class_params = (np.ones(len(group)), True, None)  # the state weights' Dirichlet(1) of fit_latent_class
    columns = selection_columns(post, encoded, n_bins, values=categorical, max_values=max_values)
    if not columns:
        most = "" if max_values is None else f" with at most {max_values} value(s) (one per class, for identification)"
        raise NoSelectionColumn(f"{who}: no column can take a missingness node: it needs a numeric column (a family "
                         "with predictive_bins: Gaussian, LogNormal, Poisson, Hurdle, Histogram) or, with "
                         f"categorical=True, a categorical one{most}, with missing cells and at least two observed "
                         "ones; received none.")
    codes = pd.Index(model.classes_).get_indexer(y)
    allowed = allowed_states(group, codes)
    fit = fit_selection(post, encoded, columns, group, allowed, np.ones(X.shape[0]), class_params, alpha=alpha,
                        tol=tol, max_iter=max_iter, by_state=by_class)
    return model, encoded, fit, codes, latent


#: how far beyond its observed range (in multiples of that range) an imputed value means the fit diverged
DIVERGED_RANGES = 10.0


def _check_diverged(X, col, values, who):
    """Raise when column ``col``'s MNAR fills lie more than :data:`DIVERGED_RANGES` observed ranges beyond
    its observed values: EM has let the selection model explain the missing cells by an ever wider
    family (a component of few rows), an answer no data support."""
    obs = pd.to_numeric(X.iloc[:, col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    obs = obs[np.isfinite(obs)]
    v = np.asarray(values, dtype=float)
    if not obs.size or not v.size:
        return
    lo, hi = float(obs.min()), float(obs.max())
    reach = DIVERGED_RANGES * max(hi - lo, np.finfo(float).tiny)
    bad = ~np.isfinite(v) | (v < lo - reach) | (v > hi + reach)
    if bad.any():
        worst = v[bad][np.argmax(np.abs(np.nan_to_num(v[bad], nan=np.inf)))]
        raise ValueError(
            f"{who}: the MNAR fit of column {X.columns[col]!r} diverged: {int(bad.sum())} imputed value(s) reach "
            f"{worst:.4g}, more than {DIVERGED_RANGES:g} times the observed range ({lo:.4g} to {hi:.4g}) beyond it. "
            "The selection model is not identified here: use fewer components (n_components=1) or report the "
            "delta sensitivity analysis (mnar_sensitivity; docs/mnar.md).")


def _complete(X, fit, encoded, allowed, strategy, rng, delta, delta_unit, who, parameter_uncertainty=True):
    """One completed table: selected columns from the selection model, the others from the fitted naive model."""
    post = fit.posterior
    points = selection = logw = None
    if strategy == "draw" and parameter_uncertainty:
        points = [b.family.gen_point(b.prior, b.posterior, rng) for b in post.blocks]
        selection = tuple(rng.beta(n1 + fit.alpha, n0 + fit.alpha) if fit.by_state else
                          np.broadcast_to(rng.beta(n1[0] + fit.alpha, n0[0] + fit.alpha), n1.shape)
                          for n1, n0 in zip(fit.missing_count, fit.observed_count))
        logw = np.log(rng.dirichlet(np.maximum(post.class_concentration, 1e-300)))
    resp = resp_for_fill(fit, encoded, allowed, points=points, selection=selection, logw=logw, who=who)
    z = None
    if strategy == "draw":  # one state per row, shared by all its missing cells
        z = draw_categories(resp, rng.random(resp.shape[0]))
    filled = fill_selection(fit, encoded, resp, strategy=strategy, rng=rng, points=points, selection=selection,
                            z=z)
    valued = {sc.column for sc in fit.columns if sc.values is not None}  # categorical: no delta, no range
    cells = []
    for i, (b, e) in enumerate(zip(post.blocks, encoded)):
        miss = np.asarray(b.family.gen_missing(e))
        if not miss.any():
            continue
        p = b.posterior if points is None else points[i]
        how = b.family.default_fill if strategy == "mean" else "draw"
        rows, cols, vals = block_cells(b, b.family.gen_fill(p, e, resp, how, z, rng), miss)
        vals = np.array(vals, dtype=object if vals.dtype == object else float)
        for col, (r_sel, v_sel) in filled.items():
            numeric = col not in valued
            if numeric:
                _check_diverged(X, col, v_sel, who)
            at = cols == col
            if at.any():
                pos = {int(r): k for k, r in enumerate(r_sel)}
                shift = _delta_of(delta, X, col, delta_unit, who) if numeric else None
                got = np.asarray([v_sel[pos[int(r)]] for r in rows[at]], dtype=vals.dtype)
                vals[at] = got if shift is None else got + shift
        cells.append((rows, cols, vals))
    return write_cells(X, cells)


def impute_mnar(X, y=None, *, n_bins=5, strategy="mean", n_imputations=1, delta=0.0, delta_unit="value",
                label_given=False, selection_by_class=False, n_components=1, alpha=1.0, estimator=None, tol=1e-6,
                max_iter=200, random_state=None, model="naive", categorical=True):
    """Impute a table whose columns may be missing because of their own values (self-masking MNAR).

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        The table; missing cells NaN/None/``pd.NA``. Not modified.
    y : array-like of shape (n_samples,), optional
        Labels of every row (the class node); None: one class.
    n_bins : int, default=5
        Quantile bins of each column's observed values; ``p(missing | bin, class)`` is fitted per bin.
    strategy : {"mean", "draw"}, default="mean"
        ``"mean"``: each missing cell's predictive mean given that it is missing (categorical and other
        columns without a missingness node: their family's ``default_fill``). ``"draw"``: draws
        (multiple imputation, one posterior draw of every parameter per completed table).
    n_imputations : int, default=1
        Completed tables (``strategy="draw"``).
    delta : float or dict, default=0.0
        Delta adjustment (R mice's ``mnar`` methods): added to every imputed value of the selected
        columns (a dict ``{column: delta}`` per column, 0 for the others). 0: the MNAR imputation.
    delta_unit : {"value", "sd"}, default="value"
        ``delta`` in the column's units, or in standard deviations of its observed values.
    label_given : bool, default=False
        Impute each row given its label; otherwise given ``p(class | observed cells, missingness)``.
    selection_by_class : bool, default=False
        False: ``p(missing | bin)`` is the same in every class (missingness depends on the value
        only; each class reveals the part of the selection curve where its values lie, which is
        what identifies it). True: one per (class, bin), weaker identification.
    n_components : int or "auto", default=1
        Components per class of the model under the selection nodes: 1 is naive Bayes; more is its
        latent-class model (:meth:`~bayesnb.NaiveBayes.fit_latent_class`, fitted under MAR, then refitted
        with the missingness nodes), whose components carry the dependence between columns;
        ``"auto"`` chooses the count under MAR by held-out log-likelihood.
    alpha : float, default=1.0
        Beta(alpha, alpha) prior of each selection probability.
    estimator : NaiveBayes, optional
        Unfitted template of the naive model (default ``NaiveBayes()``: ``features="auto"``).
    tol, max_iter : float, int
        EM stops when the relative change of its objective is at most ``tol``, or after ``max_iter``.
    random_state : None, int or Generator
    model : {"naive", "mvn"}, default="naive"
        The model under the missingness nodes. ``"naive"``: naive Bayes (or its latent-class model,
        ``n_components``). ``"mvn"``: the class-conditional multivariate normal of the ``"mvn"``
        configuration over the numeric columns (:mod:`bayesnb.impute.mvn_mnar`, Monte-Carlo EM; the selection
        shared by the classes; ``selection_by_class`` and ``n_components`` must keep their defaults;
        ``tol`` and ``max_iter`` are its EM's: ``tol`` below 1e-5 counts as 1e-5, ``max_iter`` above 100
        as 100), whose covariance lets the other columns place a hidden value; the categorical columns keep
        the naive model's fills. With ``strategy="draw"`` only the numeric MNAR columns of a row share
        one drawn class; the other columns draw theirs separately (docs/mnar.md).
    categorical : bool, default=True
        Give the categorical columns (families with a finite set of values) with missing cells a
        missingness node too, whose parent is the cell's own value (:mod:`bayesnb.generative.mnar_values`):
        ``p(missing | value)``, shared by the classes unless ``selection_by_class``. Their fill is the most
        probable value given that the cell is missing (with ``model="mvn"``: from the naive model with these
        nodes, fitted beside it; False: the naive model's MAR fills). Identified only with at least as many
        classes (or latent states) as the column has values; docs/mnar.md. The default changes the fills of
        tables with missing categorical cells from earlier versions (which had no such nodes): pass
        ``categorical=False`` for those.

    Returns
    -------
    MNARImputation

    Raises
    ------
    ValueError
        Bad options, or no column that can take a missingness node (a numeric one, or with
        ``categorical=True`` a categorical one, with missing cells and two observed ones).
    TypeError
        ``X`` is not a DataFrame, ``estimator`` not a NaiveBayes, ``delta`` not a number or a dict.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayesnb import impute_mnar
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> x = rng.normal(3.0 * y, 1.0)
    >>> X = pd.DataFrame({"x": np.where(x > np.quantile(x, 0.7), np.nan, x), "z": rng.normal(y, 1.0)})
    >>> res = impute_mnar(X, y)
    >>> bool(res.column_means.loc["x", "MNAR"] > res.column_means.loc["x", "MAR"])
    True
    """
    who = "impute_mnar"
    y = _check_table(X, y, estimator, who)
    _check_options(n_bins, strategy, n_imputations, delta, delta_unit, alpha, label_given, who)
    if isinstance(delta, dict):
        unknown = [k for k in delta if k not in X.columns]
        if unknown:
            raise ValueError(f"{who}: delta names column(s) {unknown[:5]} not in X; X has {list(X.columns)[:10]}.")
        text = [k for k in delta if not is_numeric_column(X[k])]
        if text:
            raise ValueError(f"{who}: delta applies to numeric columns; received {text[:5]} (categorical).")
    rng = as_generator(random_state)
    _check_em(tol, max_iter, {"selection_by_class": selection_by_class, "categorical": categorical}, who)
    _check_components(n_components, who)
    if _check_model(model, selection_by_class, n_components, who) == "mvn":
        return _impute_mvn_mnar(X, y, who, n_bins=int(n_bins), strategy=strategy, n_imputations=int(n_imputations),
                                delta=delta, delta_unit=delta_unit, label_given=label_given, alpha=float(alpha),
                                estimator=estimator, tol=tol, max_iter=max_iter, rng=rng, categorical=categorical)
    model, encoded, fit, codes, latent = _fit(
        X, y, who, estimator=estimator, n_bins=int(n_bins), alpha=float(alpha), tol=tol, max_iter=max_iter,
        by_class=selection_by_class, n_components=n_components, rng=rng, categorical=categorical)
    allowed = allowed_states(fit.group, codes) if label_given else None
    tables = [_complete(X, fit, encoded, allowed, strategy, rng, delta, delta_unit, who)
              for _ in range(int(n_imputations))]
    mar = model.impute(X, y=y if label_given else None, latent=latent)
    return MNARImputation(tables[0] if n_imputations == 1 else tables, _selection_tables(fit, X, model.classes_),
                          _means(X, _numeric_names(X, fit), mar, tables[0]), mar, fit.em_objective, fit.converged, fit)


def _check_model(model, by_class, n_components, who):
    if not isinstance(model, str) or model not in ("naive", "mvn"):
        raise ValueError(f"{who}: model must be 'naive' or 'mvn'; received {model!r}.")
    if model == "mvn" and (by_class or n_components != 1):
        raise ValueError(f"{who}: model='mvn' shares one selection curve by the classes and has no latent components; "
                         f"received selection_by_class={by_class!r}, n_components={n_components!r}.")
    return model


def _impute_mvn_mnar(X, y, who, *, n_bins, strategy, n_imputations, delta, delta_unit, label_given, alpha, estimator,
                     tol, max_iter, rng, categorical=False):
    """:func:`impute_mnar` with ``model="mvn"`` (:mod:`bayesnb.impute.mvn_mnar`)."""
    if not any(is_numeric_column(X[c]) and X[c].isna().any() and X[c].notna().sum() >= 2 for c in X.columns):
        raise ValueError(f"{who}: no column can take a missingness node: model='mvn' needs a numeric column with "
                         "missing cells and at least two observed ones; received none.")
    fit = fit_mvn_mnar(X, y, n_bins=n_bins, alpha=alpha, estimator=estimator, max_iter=min(max_iter, 100),
                       tol=max(tol, 1e-5), random_state=rng)
    sel = [(j, i) for i, j in enumerate(fit.base.columns) if X.iloc[:, j].isna().any()]
    tables = []
    for _ in range(n_imputations):
        t = fill_mvn_mnar(fit, X, y, label_given=label_given, strategy=strategy, random_state=rng)
        for j, _ in sel:
            shift = _delta_of(delta, X, j, delta_unit, who)
            if shift:
                v = t.iloc[:, j].to_numpy(dtype=float, copy=True)
                v[X.iloc[:, j].isna().to_numpy()] += shift
                t.isetitem(j, v)
        tables.append(t)
    cats = [c for c in X.columns if not is_numeric_column(X[c]) and X[c].isna().any()]
    if categorical and cats:  # the categorical columns from the naive model's missingness nodes on them
        naive = impute_mnar(X, y, n_bins=n_bins, strategy=strategy, n_imputations=n_imputations,
                            label_given=label_given, alpha=alpha, estimator=estimator, tol=tol, max_iter=max_iter,
                            random_state=rng).table
        for t, u in zip(tables, naive if isinstance(naive, list) else [naive]):
            for c in cats:
                t[c] = u[c]
    mar = fill_mvn(fit.base, X, y, label_given=label_given)
    base, classes = fit.base, fit.base.model.classes_
    selection = {}
    for j, i in sel:
        e = fit.edges[i] * base.scale[i] + base.loc[i]
        labels = _bin_labels(np.exp(e) - base.shift[i] if base.logged[i] else e)
        selection[X.columns[j]] = pd.DataFrame(np.broadcast_to(fit.selection[i], (len(classes), len(labels))),
                                               index=pd.Index(classes, name="class"), columns=labels)
    return MNARImputation(tables[0] if n_imputations == 1 else tables, selection,
                          _means(X, list(selection), mar, tables[0]), mar, fit.em_objective, fit.converged, fit)


def _selection_tables(fit, X, classes):
    """Per selected column, ``p(missing | bin, state)`` as a DataFrame (rows: classes, or (class, component))."""
    g = np.asarray(fit.group)
    if len(g) == len(classes):
        index = pd.Index(classes, name="class")
    else:
        comp = np.array([np.sum(g[:s] == g[s]) for s in range(len(g))])
        index = pd.MultiIndex.from_arrays([np.asarray(classes)[g], comp], names=["class", "component"])
    out = {}
    for sc, rho in zip(fit.columns, fit.selection):
        labels = _bin_labels(sc.edges) if sc.values is None else list(sc.values)
        out[X.columns[sc.column]] = pd.DataFrame(rho, index=index, columns=labels)
    return out


def _bin_labels(edges):
    """The intervals ``(a, b]`` of the bins cut at ``edges`` (the end bins unbounded)."""
    e = np.concatenate([[-np.inf], edges, [np.inf]])
    return [f"({e[b]:.4g}, {e[b + 1]:.4g}]" for b in range(len(e) - 1)]


def _numeric_names(X, fit):
    return [X.columns[sc.column] for sc in fit.columns if sc.values is None]


def _means(X, names, mar, mnar):
    """The mean of each column of ``names``: observed cells, completed under MAR and under MNAR."""
    return pd.DataFrame({"observed": [X[c].astype(float).mean() for c in names],
                         "MAR": [mar[c].astype(float).mean() for c in names],
                         "MNAR": [mnar[c].astype(float).mean() for c in names]}, index=pd.Index(names, name="column"))


def mnar_sensitivity(X, y=None, *, deltas=(-1.0, -0.5, 0.0, 0.5, 1.0), delta_unit="sd", n_bins=5,
                     label_given=False, selection_by_class=False, n_components=1, alpha=1.0, estimator=None, tol=1e-6,
                     max_iter=200, random_state=None, model="naive", categorical=True):
    """How the completed columns' means move with the delta adjustment of the MNAR imputation.

    The selection model is fitted once (:func:`impute_mnar`); each ``delta`` is added to every
    imputed value of the selected columns (``strategy="mean"``). A delta of 0 is the MNAR
    imputation; the rows ``"observed"`` and ``"MAR"`` give the mean of the observed cells and of
    the column completed by the naive model under MAR, for comparison.

    Parameters
    ----------
    X, y, n_bins, label_given, selection_by_class, n_components, alpha, estimator, tol, max_iter, random_state, model
    categorical
        As in :func:`impute_mnar` (the report has the numeric columns only).
    deltas : sequence of float, default=(-1, -0.5, 0, 0.5, 1)
    delta_unit : {"value", "sd"}, default="sd"
        The deltas in the columns' units, or in standard deviations of their observed values.

    Returns
    -------
    DataFrame
        One row per ``"observed"``, ``"MAR"`` and delta (index ``delta=...``), one column per
        selected column: the mean of the completed column.
    """
    who = "mnar_sensitivity"
    y = _check_table(X, y, estimator, who)
    given = deltas
    try:
        deltas = None if isinstance(deltas, str) else list(np.atleast_1d(np.asarray(deltas, dtype=float)))
    except (TypeError, ValueError):
        deltas = None
    if not deltas or not np.all(np.isfinite(deltas)):
        raise ValueError(f"{who}: deltas must be a non-empty sequence of finite numbers; received {given!r}.")
    _check_options(n_bins, "mean", 1, 0.0, delta_unit, alpha, label_given, who)
    _check_em(tol, max_iter, {"selection_by_class": selection_by_class, "categorical": categorical}, who)
    _check_components(n_components, who)
    if _check_model(model, selection_by_class, n_components, who) == "mvn":
        res = _impute_mvn_mnar(X, y, who, n_bins=int(n_bins), strategy="mean", n_imputations=1, delta=0.0,
                               delta_unit=delta_unit, label_given=label_given, alpha=float(alpha), estimator=estimator,
                               tol=tol, max_iter=max_iter, rng=as_generator(random_state))
        m = res.column_means
        rows = {"observed": m["observed"].to_numpy(), "MAR": m["MAR"].to_numpy()}
        for d in deltas:  # the delta moves each imputed cell, so the column mean by delta * its missing share
            rows[f"delta={d:g}"] = [m.loc[c, "MNAR"] + _delta_of(float(d), X, X.columns.get_loc(c), delta_unit, who)
                                    * X[c].isna().mean() for c in m.index]
        return pd.DataFrame.from_dict(rows, orient="index", columns=list(m.index))
    model, encoded, fit, codes, latent = _fit(
        X, y, who, estimator=estimator, n_bins=int(n_bins), alpha=float(alpha), tol=tol, max_iter=max_iter,
        by_class=bool(selection_by_class), n_components=n_components, rng=as_generator(random_state),
        categorical=categorical)
    allowed = allowed_states(fit.group, codes) if label_given else None
    names = _numeric_names(X, fit)
    mar = model.impute(X, y=y if label_given else None, latent=latent)
    rows = {"observed": [X[c].astype(float).mean() for c in names], "MAR": [mar[c].astype(float).mean() for c in names]}
    for d in deltas:
        t = _complete(X, fit, encoded, allowed, "mean", None, float(d), delta_unit, who)
        rows[f"delta={d:g}"] = [t[c].astype(float).mean() for c in names]
    return pd.DataFrame.from_dict(rows, orient="index", columns=names)
