"""Impute a table with the configuration that imputes it best, chosen by self-validation.

:func:`impute_table` fits several bayesnb configurations on the table being imputed and keeps,
for each column, the one whose imputations of *observed* cells, hidden on purpose, are the most
accurate:

1. hide a random ``holdout`` fraction of the observed cells (the real missing cells stay missing);
2. fit each configuration on that table and impute it; score each column's imputations of the
   hidden cells with the loss its fill minimises: squared error over the variance of the hidden
   true values (NRMSE squared) for numeric columns, where the fill is a posterior-predictive
   mean (kept on the values the column takes); absolute error over the mean absolute deviation
   from the median for numeric columns with a point mass, where the fill is a conditional median
   (:mod:`bayesnb.generative.values`); and the error rate for the other columns, where it is a mode;
3. per column, the configuration with the lowest loss wins (ties: the earlier in
   ``configurations``, so the cheaper);
4. fit the winning configurations on the real table and impute its missing cells with them
   (``"latent"`` with the component count its search chose in step 2: not searched twice);
   an imputed numeric value is then moved to the nearest value its column takes in the table
   (:func:`bayesnb.generative.values.project`): into its observed range, onto its codes in a coded
   column, to a whole number in a whole-number column. A posterior-predictive mean can leave the range
   (a log-normal's mean ``exp(mu + s**2 / 2)`` on a spread-out column); moving it onto the range never
   increases its error when the true value lies in the range. (Step 2 scores the configurations'
   fills as they are; each configuration keeps its own fills on the values its columns take.)
   A column that is 0 wherever another is 0 in the table (:mod:`bayesnb.generative.zero_links`)
   gets 0 where the other's cell, observed or imputed by another configuration, is 0.

The configurations (all :class:`~bayesnb.NaiveBayes`, cloned from ``estimator``):

- ``"naive"``: the estimator as it is (one component per class);
- ``"latent"``: its latent-class model (each class a mixture of naive-Bayes components, the
  count chosen by held-out log-likelihood, :meth:`~bayesnb.NaiveBayes.fit_latent_class` with
  ``n_components="auto"``). On a table of more than ``search_rows`` rows the count is chosen
  on a random subsample of ``search_rows`` rows (the same held-out search), and the model with
  that count is then fitted by EM on every row; on smaller tables the search runs on every row;
- ``"tan"``: ``structure="tan"`` (a tree, or forest, over the features given the class);
- ``"mvn"``: a class-conditional multivariate normal over the numeric columns (conjugate
  Normal-Inverse-Wishart prior, EM on the observed cells, posterior-predictive conditional
  means; :mod:`bayesnb.mvn_impute`); its categorical columns are the naive model's.

The criterion is the imputation loss and not a held-out log score because the fills are point
estimates judged by squared error and accuracy: the configuration with the best predictive density
need not have the best posterior-predictive mean or mode. Choosing among three configurations on
thousands of hidden cells adds little selection bias; the hidden cells make the selection tables
sparser than the real one, which affects every configuration alike.

Why a subsample for the component count: the search fits EM for every count it tries and widens
(12, 16, 24, ...) while the largest scores best, up to ``n_rows / (10 * n_classes)`` components
per class, so on tens of thousands of rows it fits dozens of ever larger mixtures. On a
subsample it stops at counts a subsample supports, which can be fewer components than the full
table would support; the selection among configurations (step 3) still judges the resulting
model against naive and TAN on the hidden cells, so a too-small count costs accuracy, never
correctness. The final fit on all rows is EM at that count (``n_init=3`` starts, at most 200
iterations), whose cost grows linearly with the rows.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone

from ._progress import progress
from ._utils import as_generator, is_numeric_column, one_class_on_purpose
from .estimators import NaiveBayes
from .generative.values import column_supports, project
from .generative.zero_links import keep_zero_links, zero_links
from .mvn_impute import _check_table, impute_mvn

__all__ = ["CONFIGURATIONS", "SEARCH_ROWS", "TableImputation", "impute_table", "latent_class_auto"]

#: The configurations :func:`impute_table` chooses among, cheapest first.
CONFIGURATIONS = ("naive", "latent", "tan", "mvn")

#: Default number of rows the latent-class component search of :func:`impute_table` runs on.
SEARCH_ROWS = 5000


class TableImputation(NamedTuple):
    """The result of :func:`impute_table`.

    Attributes
    ----------
    table : DataFrame
        The completed table (observed cells unchanged, columns and dtypes of the input).
    chosen : dict
        Column -> the configuration that imputed it (only columns with missing cells).
    scores : DataFrame or None
        One row per (column, configuration) scored: ``column``, ``configuration``, ``loss``
        (NRMSE squared, normalised absolute error or error rate on the hidden cells), ``n_hidden``, ``chosen``. None
        when a single configuration was asked for (nothing was selected).
    n_components : int or None
        Components per class of the ``"latent"`` configuration (chosen by its held-out search
        on the table with hidden cells, and used again on the real table); None when it was
        not fitted.
    """

    table: pd.DataFrame
    chosen: dict
    scores: pd.DataFrame | None
    n_components: int | None = None


def _check_search_rows(search_rows, who):
    if search_rows is not None and not (isinstance(search_rows, int | np.integer) and not isinstance(search_rows, bool)
                                        and search_rows >= 2):
        raise ValueError(f"{who}: search_rows must be None or a whole number >= 2; received {search_rows!r}.")


def _configuration_names(configurations):
    """``configurations`` (``"auto"``, a name or names) as a tuple of distinct names among
    :data:`CONFIGURATIONS`; a ValueError otherwise."""
    configs = CONFIGURATIONS if isinstance(configurations, str) and configurations == "auto" else (
        (configurations,) if isinstance(configurations, str) else tuple(configurations))
    bad = [c for c in configs if c not in CONFIGURATIONS]
    if not configs or bad or len(set(configs)) != len(configs):
        raise ValueError(f"impute_table: configurations must be 'auto' or distinct names among {CONFIGURATIONS}; "
                         f"received {configurations!r}.")
    return configs


def _check(X, y, configurations, holdout, estimator, search_rows):
    y = _check_table(X, y, estimator, "impute_table")
    configs = _configuration_names(configurations)
    if not (isinstance(holdout, float | int) and 0 < holdout < 1):
        raise ValueError(f"impute_table: holdout must be a fraction in (0, 1); received {holdout!r}.")
    _check_search_rows(search_rows, "impute_table")
    return configs, y


def latent_class_auto(model, X, y=None, *, search_rows=SEARCH_ROWS, random_state=None):
    """A fitted model's latent-class model with the component count chosen on at most ``search_rows`` rows.

    ``model.fit_latent_class(X, y, n_components="auto")`` when ``X`` has at most
    ``search_rows`` rows (or ``search_rows`` is None); otherwise the same search on a random
    subsample of ``search_rows`` rows, then ``fit_latent_class`` with the chosen count on every
    row. The returned fit's ``selection`` holds the subsample's scores.

    Parameters
    ----------
    model : NaiveBayes
        Fitted.
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Labels passed to ``fit_latent_class`` (None: inferred).
    search_rows : int or None, default=SEARCH_ROWS
        Rows the component search runs on (>= 2); None: every row.
    random_state : None, int or Generator

    Returns
    -------
    LatentClassFit
    """
    _check_search_rows(search_rows, "latent_class_auto")
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"latent_class_auto: X must be a pandas DataFrame; received {type(X).__name__}.")
    rng = as_generator(random_state)
    n = X.shape[0]
    if search_rows is None or n <= search_rows:
        return model.fit_latent_class(X, y, n_components="auto", random_state=rng)
    rows = np.sort(rng.choice(n, size=search_rows, replace=False))
    sub = model.fit_latent_class(X.iloc[rows], None if y is None else np.asarray(y)[rows], n_components="auto",
                                 random_state=rng)
    fit = model.fit_latent_class(X, y, n_components=sub.n_components, random_state=rng)
    return fit._replace(selection=sub.selection)


def _run(config, estimator, X, y, label_given, rng, search_rows, n_components=None):
    """Fit ``config`` on ``X`` (labels ``y``) and impute ``X``: ``(table, latent components or None)``.

    ``"latent"`` searches its component count (:func:`latent_class_auto`) unless ``n_components`` is given.
    """
    if config == "mvn":
        return impute_mvn(X, y, label_given=label_given, estimator=estimator), None
    model = clone(estimator)
    if config == "tan":
        model.set_params(structure="tan")
    with one_class_on_purpose():  # y=None: every row one class (imputation, not classification)
        model.fit(X, y)
    given = y if label_given else None
    if config != "latent":
        return model.impute(X, y=given), None
    if n_components is None:
        fit = latent_class_auto(model, X, given, search_rows=search_rows, random_state=rng)
    else:
        fit = model.fit_latent_class(X, given, n_components=n_components, random_state=rng)
    return model.impute(X, y=given, latent=fit, random_state=rng), fit.n_components


def _clip_to_observed(table, X):
    """``table`` with the imputed cells of each numeric column moved to the nearest value that column takes in
    ``X`` (:func:`~bayesnb.generative.values.project`: its observed range, its codes, its point masses)."""
    supports = column_supports(X)
    for j, c in enumerate(X.columns):
        miss = X[c].isna().to_numpy()
        if j in supports and miss.any():
            table.loc[miss, c] = project(table.loc[miss, c].to_numpy(dtype=float, na_value=np.nan), supports[j])
    return table


def _loss(truth, filled, kind):
    """The loss of ``filled`` against ``truth``: ``"squared"`` (NRMSE squared), ``"absolute"`` (mean absolute
    error over the mean absolute deviation from the median) or ``"error"`` (error rate)."""
    if kind == "error":
        return float(np.mean(np.asarray(filled, dtype=object) != np.asarray(truth, dtype=object)))
    t, v = np.asarray(truth, dtype=float), np.asarray(filled, dtype=float)
    if kind == "absolute":
        scale = np.mean(np.abs(t - np.median(t)))
        return float(np.mean(np.abs(v - t)) / (scale if scale > 0 else 1.0))
    var = np.var(t)
    return float(np.mean((v - t) ** 2) / (var if var > 0 else 1.0))


def _loss_kinds(X):
    """Per column of ``X``, the loss its fill minimises (see :func:`_loss`): the median's for a numeric column
    with a point mass (:mod:`bayesnb.generative.values`), the mean's for the other numeric columns."""
    supports = column_supports(X)
    return ["error" if not is_numeric_column(X[c]) else "absolute" if j in supports and supports[j].masses.size
            else "squared" for j, c in enumerate(X.columns)]


def impute_table(X, y=None, *, configurations="auto", holdout=0.15, label_given=False, estimator=None,
                 search_rows=SEARCH_ROWS, random_state=None, verbose=None):
    """Fill the missing cells of ``X`` with, per column, the configuration that imputes it best.

    See the module docstring for the procedure. Cost: every configuration is fitted and imputes
    once on the table with hidden cells, and each configuration chosen for some column once more
    on the real table; the latent-class search dominates (seconds to minutes: it fits EM for
    several component counts on at most ``search_rows`` rows, once; then the chosen count on
    every row, in each of the two passes). Pass a single
    configuration (e.g. ``configurations="naive"``) to skip the selection.

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        The table; missing cells NaN/None/``pd.NA``. Numeric columns are scored by squared
        error, the others by accuracy.
    y : array-like of shape (n_samples,), optional
        Labels of the rows, used to fit every configuration (the class of the naive model).
        None: one class for every row (a plain mixture / tree model of the columns).
    configurations : "auto", str or sequence of str, default="auto"
        ``"auto"``: all of :data:`CONFIGURATIONS` (``"naive"``, ``"latent"``, ``"tan"``, ``"mvn"``);
        a name or a list of them to choose among; a single name: no selection.
    holdout : float, default=0.15
        Probability that an observed cell is hidden for the selection.
    label_given : bool, default=False
        Also condition each row's imputation on its label (``impute(..., y=y)``); otherwise
        the labels only fit the models and the class is inferred from the observed cells.
    estimator : NaiveBayes, optional
        Unfitted template whose parameters (``features``, ``alpha``, priors) every
        configuration uses (default ``NaiveBayes()``); ``"tan"`` needs ``features="auto"``.
    search_rows : int or None, default=5000
        The ``"latent"`` configuration chooses its number of components on a random subsample of
        this many rows when the table has more (then fits that count on every row); None: on
        every row (slow on large tables).
    random_state : None, int or Generator
    verbose : bool or None, default=None
        A progress bar over the configurations fitted (None: :func:`bayesnb.set_progress`, by
        default shown after 2 s on a terminal or in Jupyter).

    Returns
    -------
    TableImputation
        ``(table, chosen, scores, n_components)``; the imputed numeric cells of ``table`` are
        values their column takes (within its observed range; among its codes when coded).

    Examples
    --------
    >>> from bayesnb import impute_table
    >>> from bayesnb.datasets import load_penguins
    >>> pg = load_penguins()
    >>> res = impute_table(pg.drop(columns="species"), pg["species"], configurations=("naive", "tan"),
    ...                    random_state=0)
    >>> int(res.table.isna().sum().sum())
    0
    """
    configs, y = _check(X, y, configurations, holdout, estimator, search_rows)
    estimator = NaiveBayes() if estimator is None else estimator
    rng = as_generator(random_state)
    missing = [c for c in X.columns if X[c].isna().any()]
    if len(configs) == 1:
        table, count = _run(configs[0], estimator, X, y, label_given, rng, search_rows)
        return TableImputation(_clip_to_observed(table, X), dict.fromkeys(missing, configs[0]), None, count)
    observed = X.notna().to_numpy()
    # a child stream: a table blanked with the same seed (rng.random(X.shape) < p) would otherwise
    # have its missing cells exactly where the first draws fall, and no observed cell would be hidden
    hidden = observed & (rng.spawn(1)[0].random(X.shape) < holdout)
    Xh = X.copy()
    for j, c in enumerate(X.columns):
        if hidden[:, j].any():
            Xh.loc[hidden[:, j], c] = None if not is_numeric_column(X[c]) else np.nan
    bar = progress(total=2 * len(configs), desc="impute_table: configurations", verbose=verbose)
    runs = {}
    for cfg in configs:
        bar.set_postfix_str(f"{cfg} (hidden cells)")
        runs[cfg] = _run(cfg, estimator, Xh, y, label_given, rng, search_rows)
        bar.update()
    fills, count = {cfg: run[0] for cfg, run in runs.items()}, runs.get("latent", (None, None))[1]
    rows, chosen, kinds = [], {}, _loss_kinds(X)
    for j, c in enumerate(X.columns):
        h = hidden[:, j]
        if not h.any():
            continue
        losses = {cfg: _loss(X[c].to_numpy()[h], fills[cfg][c].to_numpy()[h], kinds[j]) for cfg in configs}
        best = min(configs, key=lambda cfg: losses[cfg])  # first of the tied: the cheaper
        if c in missing:
            chosen[c] = best
        rows += [{"column": c, "configuration": cfg, "loss": loss, "n_hidden": int(h.sum()), "chosen": cfg == best}
                 for cfg, loss in losses.items()]
    unjudged = [c for c in missing if c not in chosen]
    if unjudged:
        warnings.warn(f"impute_table: no observed cell of {unjudged} was hidden (too few observed cells for "
                      f"holdout={holdout}); they are imputed with the first configuration, {configs[0]!r}.",
                      UserWarning, stacklevel=2)
    for c in unjudged:
        chosen[c] = configs[0]
    # the real table: the latent count chosen above is fitted again, not searched again
    finals = {}
    for cfg in (cfg for cfg in configs if cfg in chosen.values()):
        bar.set_postfix_str(f"{cfg} (the table)")
        finals[cfg] = _run(cfg, estimator, X, y, label_given, rng, search_rows, count)[0]
        bar.update()
    bar.close()
    table = X.copy()
    for c in missing:
        table[c] = finals[chosen[c]][c]
    table = keep_zero_links(table, X, zero_links(X))  # columns from different configurations
    return TableImputation(_clip_to_observed(table, X), chosen, pd.DataFrame(rows, columns=["column", "configuration", "loss", "n_hidden",
                                                                      "chosen"]), count)
