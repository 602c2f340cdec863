"""Impute a table with the configuration that imputes it best, chosen by self-validation.

:func:`impute_table` fits several bayesnb configurations on the table being imputed and keeps,
for each column, the one whose imputations of *observed* cells, hidden on purpose, are the most
accurate. Its fitted form is :class:`~bayesnb.Imputer` (:mod:`bayesnb.impute.imputer`): ``Imputer.fit``
runs steps 1-3 and step 4's fits and keeps the fitted configurations, ``Imputer.impute`` step 4's
fills (on the training table or new rows), and ``impute_table(X, y, ...)`` is the two in one call:

1. hide a random ``holdout`` fraction of the observed cells (the real missing cells stay missing);
2. fit each configuration on that table and impute it; score each column's imputations of the
   hidden cells with the loss its fill minimises: squared error over the variance of the hidden
   true values (NRMSE squared) for numeric columns, where the fill is a posterior-predictive
   mean (kept on the values the column takes); absolute error over the mean absolute deviation
   from the median for numeric columns whose point masses (or one of more than two codes) hold at
   least half of the cells, where the fill is a conditional median
   (:mod:`bayesnb.generative.values`); and the error rate for the other columns, where it is a mode;
3. per column, the configuration with the lowest loss wins (ties: the earlier in
   ``configurations``, so the cheaper). A categorical column's error rates on its few hidden cells are
   noisy, so on a table with three or more categorical columns they are first shrunk toward what the
   table's categorical columns say together (an empirical-Bayes random-effects model of each
   configuration's difference from the one with the fewest errors over all of them,
   :func:`~bayesnb.impute.configs.shrunk_losses`): a column leaves the table's choice where its own
   evidence outweighs the spread between columns;
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
5. (``missingness="auto"``, the default) test whether the columns' missingness depends on their own
   values (self-masking) against three MAR models by BIC, and where it does fill the columns the
   self-masking model can fill from it, each cell's predictive given that it is missing
   (:mod:`bayesnb.impute.mnar_config`; ``"mar"`` skips the test).

The configurations (all :class:`~bayesnb.NaiveBayes`, cloned from ``estimator``):

- ``"naive"``: the estimator as it is (one component per class);
- ``"latent"``: its latent-class model (each class a mixture of naive-Bayes components, the
  count chosen by held-out log-likelihood, :meth:`~bayesnb.NaiveBayes.fit_latent_class` with
  ``n_components="auto"``). On a table of more than ``search_rows`` rows the count is chosen
  on a random subsample of ``search_rows`` rows (the same held-out search), and the model with
  that count is then fitted by EM on every row; on smaller tables the search runs on every row.
  The fit at the chosen count pools three EM starts into one mixture, each weighted equally, rather
  than keeping the start with the best objective (:func:`~bayesnb.impute.configs.pooled_latent_fit`);
- ``"tan"``: ``structure="tan"`` (a tree, or forest, over the features given the class, from the
  estimator's edge score: BDeu by default, which links only pairs whose edge raises the evidence);
- ``"tan-mi"``: ``structure="tan", edge_score="mi"``: the Chow-Liu spanning tree of the conditional
  mutual information, every feature linked. The two trees differ in which columns they link and
  in each edge's direction, so each imputes some columns better (docs/benchmarks.md, "The census
  MCAR 30% regression");
- ``"mvn"``: a class-conditional multivariate normal over the numeric columns (conjugate
  Normal-Inverse-Wishart prior, EM on the observed cells, posterior-predictive conditional
  means; :mod:`bayesnb.impute.mvn`); its categorical columns are the naive model's.

The criterion is the imputation loss and not a held-out log score because the fills are point
estimates judged by squared error and accuracy: the configuration with the best predictive density
need not have the best posterior-predictive mean or mode. Choosing among five configurations on
thousands of hidden cells adds little selection bias; the hidden cells make the selection tables
sparser than the real one, which affects every configuration alike.

Why a subsample for the component count: the search fits EM for every count it tries and widens
while the largest scores best, so on tens of thousands of rows it fits dozens of ever larger
mixtures. A too-small count from a subsample costs accuracy, never correctness (step 3 still
judges it on the hidden cells), and the final EM at that count grows linearly with the rows.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from .configs import CONFIGURATIONS, SEARCH_ROWS, latent_class_auto
from .._utils import as_generator
from .imputer import Imputer

__all__ = ["CONFIGURATIONS", "SEARCH_ROWS", "Imputer", "TableImputation", "impute_table", "latent_class_auto"]


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
        (NRMSE squared, normalised absolute error or error rate on the hidden cells), ``shrunk_loss`` (what the
        choice compares, step 3), ``n_hidden``, ``chosen``. None when a single configuration was asked for
        (nothing was selected).
    n_components : int or None
        Components per class of the ``"latent"`` configuration (chosen by its held-out search
        on the table with hidden cells, and used again on the real table); None when it was
        not fitted.
    odds : tuple
        The columns whose fills are their predictive given that the cell is missing, reweighted by their
        self-masking odds (:mod:`bayesnb.impute.mnar_odds`; ``chosen`` names the configuration reweighted).
    """

    table: pd.DataFrame
    chosen: dict
    scores: pd.DataFrame | None
    n_components: int | None = None
    odds: tuple = ()


def impute_table(X, y=None, *, configurations="auto", holdout=0.15, label_given=False, estimator=None,
                 search_rows=SEARCH_ROWS, random_state=None, verbose=None, missingness="auto"):
    """Fill the missing cells of ``X`` with, per column, the configuration that imputes it best.

    See the module docstring for the procedure; ``impute_table(X, y, **kw).table`` is
    ``Imputer(**kw).fit(X, y).impute(X, y)`` (:class:`~bayesnb.Imputer`), which keeps the chosen
    configurations fitted (to impute new rows, save, draw multiple imputations). Cost: every configuration is fitted and imputes
    once on the table with hidden cells, and each configuration chosen for some column once more
    on the real table. The two larger parts: the latent-class search (EM for several component
    counts on at most ``search_rows`` rows, once, each count to a looser tolerance; then the
    chosen count on every row, in each of the two passes), and the conditional medians of
    median-filled columns (101 draws per cell), drawn only for the cells that are used: the hidden
    cells in the selection, each configuration's own columns in the fill. Pass a single
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
        ``"auto"``: all of :data:`CONFIGURATIONS` (``"naive"``, ``"latent"``, ``"tan"``, ``"mvn"``, ``"tan-mi"``;
        ``"tan-mi"`` left out when ``estimator`` already has ``edge_score="mi"``, the same model as ``"tan"``);
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
    missingness : {"auto", "mar", "mnar"}, default="auto"
        ``"auto"``: test self-masking missingness against MAR by BIC and fill from the self-masking model
        where it wins (``"mnar"`` in ``chosen``); ``"mar"``: no test; ``"mnar"``: the self-masking model without
        the test; as
        :class:`~bayesnb.Imputer`'s ``missingness`` (:mod:`bayesnb.impute.mnar_config`, docs/mnar.md).

    Returns
    -------
    TableImputation
        ``(table, chosen, scores, n_components, odds)``; the imputed numeric cells of ``table`` are
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
    imp = Imputer(configurations=configurations, holdout=holdout, label_given=label_given, estimator=estimator,
                  search_rows=search_rows, verbose=verbose, columns="missing", missingness=missingness,
                  random_state=random_state)
    table = fit_fill(imp, X, y)
    return TableImputation(table, dict(imp.chosen_), imp.scores_, imp.n_components_,
                           tuple(c for c, o in imp.odds_.items() if o.used))


def fit_fill(imp, X, y=None):
    """Fit the unfitted :class:`~bayesnb.Imputer` ``imp`` on ``X`` as :func:`impute_table` does and return
    the completed table (``bayesnb impute-table`` calls it with its own imputer, to report its choices).

    One random stream (from ``imp.random_state``) serves the selection, the fits and then the fills, and no
    joint model is fitted for draws, so the table equals ``impute_table``'s with the same parameters.

    Parameters
    ----------
    imp : Imputer
        Unfitted; fitted in place (its ``random_state`` becomes the generator it used).
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Labels, as in :func:`impute_table`.

    Returns
    -------
    DataFrame
        The completed table.
    """
    configs, labels = imp._check_params(X, y, "impute_table")  # Imputer.fit, its messages naming impute_table
    rng = as_generator(imp.random_state)  # one stream: the selection, the fits, then the fills
    imp.random_state = rng
    imp._fit(X, labels, configs, y is not None, "impute_table", draws=False)  # no draws: no joint model for them
    return imp.impute(X, labels, random_state=rng)
