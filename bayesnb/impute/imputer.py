"""``Imputer``: the table's best imputation per column, chosen by self-validation, kept as a fitted model.

``Imputer().fit(X).impute(X)`` is :func:`bayesnb.impute_table`'s imputation (the procedure is in
:mod:`bayesnb.impute.table`): ``fit`` hides observed cells, chooses for each column the configuration
(naive Bayes, latent-class mixture, TAN, class-conditional multivariate normal) that imputes them
best, and fits the chosen configurations on the whole table; the fitted imputer then fills the
training table or new rows with the same columns, saves to a model file (:meth:`Imputer.save`, no
pickle) and loads back (:meth:`Imputer.load`, :func:`bayesnb.load`), and draws multiple imputations
(``strategy="draw"``) for :func:`bayesnb.pool` from one joint model of every column, the latent-class
configuration (``draw_configuration_``), not from each column's point choice.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .configs import (
    SEARCH_ROWS,
    _check_search_rows,
    configuration_names,
    fill_config,
    fit_config,
    cell_losses,
    clearly_worse,
    loss_kinds,
    project_fills,
    reading_model,
    shrunk_losses,
)
from ..io.imputer_file import imputer_from_file, imputer_to_file
from .._progress import progress
from .._utils import as_generator, is_numeric_column
from ..estimators import NaiveBayes
from ..generative.values import column_supports
from ..generative.zero_links import keep_zero_links, zero_links
from .mnar_config import MISSINGNESS, MNAR_CONFIGURATION, fit_mnar_member
from .mnar_odds import fit_odds, odds_fills
from .selfmasking import NoSelectionColumn
from .mvn import _check_table
from ..io.persistence import load, register_composite, save

__all__ = ["Imputer"]

_WHO = "Imputer"
#: the columns of ``Imputer.scores_``
_SCORES = ["column", "configuration", "loss", "shrunk_loss", "n_hidden", "chosen"]


class Imputer(TransformerMixin, BaseEstimator):
    """Impute a table with, per column, the configuration that imputes its hidden observed cells best.

    ``fit`` runs the selection of :mod:`bayesnb.impute.table` (steps 1-3) on ``X`` and fits the chosen
    configurations on ``X`` (step 4); :meth:`impute` (and :meth:`transform`) fills the missing cells
    of ``X`` or of new rows with its columns with each column's chosen model, then moves each numeric
    fill to the nearest value its column takes in the training table (its observed range, its codes,
    its point masses) and keeps the training table's zero links (:mod:`bayesnb.generative.zero_links`).
    ``Imputer(**kw).fit(X, y).impute(X, y)`` is ``impute_table(X, y, **kw).table``.

    Parameters
    ----------
    configurations : "auto", str or sequence of str, default="auto"
        ``"auto"``: all of :data:`~bayesnb.impute.table.CONFIGURATIONS` (``"naive"``, ``"latent"``,
        ``"tan"``, ``"mvn"``, ``"tan-mi"``; ``"tan-mi"`` left out when ``estimator`` already has ``edge_score="mi"``);
        a name or a list of them to choose among; a single name: no selection (that configuration imputes every column).
    holdout : float, default=0.15
        Probability that an observed cell is hidden for the selection.
    label_given : bool, default=False
        Condition each row's imputation on its label (``impute(X, y)``); otherwise the labels only
        fit the models and the class is inferred from the observed cells.
    estimator : NaiveBayes, optional
        Unfitted template whose parameters every configuration uses (default ``NaiveBayes()``).
    search_rows : int or None, default=5000
        The ``"latent"`` configuration chooses its component count on a random subsample of this many
        rows when the table has more; None: on every row.
    random_state : None, int or Generator
        Seeds the hidden cells and the latent-class EM (``fit``).
    verbose : bool or None, default=None
        A progress bar over the configurations fitted (None: :func:`bayesnb.set_progress`).
    columns : {"all", "missing"}, default="all"
        The columns a configuration is chosen for: ``"all"``, every column with hidden cells (so new
        rows missing any column are filled by its chosen model); ``"missing"``, only the columns with a
        missing cell in the training table (fewer configurations to fit; what
        :func:`~bayesnb.impute_table` does). A column without a choice is filled by the first
        configuration fitted (in ``configurations`` order).
    missingness : {"auto", "mar", "mnar"}, default="auto"
        How a cell came to be missing (:mod:`bayesnb.impute.mnar_config`). ``"auto"`` (the default): at random
        unless the evidence (BIC against three MAR models: one missing rate per column, per column and state, and
        per column given the fully observed columns) says that the columns' missingness depends on their own
        values (self-masking): then the columns the self-masking model can fill (see ``missingness_``) are filled
        from it (``"mnar"`` in ``chosen_``), each cell's predictive given that it is missing. It costs three more EM
        fits and a few logistic regressions per column with missing cells (docs/mnar.md). A categorical column
        takes a missingness node only when it has at most as many values as there are classes (its selection is
        identified through them; :func:`~bayesnb.impute.mnar_config.identified_values`). Every other categorical
        column with missing cells gets its own self-masking odds on its chosen configuration's predictive
        (:mod:`bayesnb.impute.mnar_odds`, ``odds_``), used where BIC prefers them to missingness at random given
        the other columns. ``"mar"``: at random, given the row's observed cells (no test, none of its cost).
        ``"mnar"``: the self-masking model for every column that can take a missingness node, and the odds for
        every other categorical column, without the tests.

    Attributes
    ----------
    chosen_ : dict
        Column -> the configuration that imputes it (its point fill); ``"mnar"``: the self-masking model.
    missingness_ : dict or None
        The test of self-masking against MAR (``missingness`` not ``"mar"``): ``choice`` (``"MNAR"`` or
        ``"MAR"``), ``loglik_mar``, ``loglik_mnar``, ``k``, ``n``, ``penalty`` (``k/2 log n``) and
        ``n_components``, ``loglik_mar_state``, ``k_state``, ``loglik_mar_observed``, ``k_observed``
        (:class:`~bayesnb.impute.mnar_evidence.MNAREvidence`); None when not tested (``"mar"``, or no column
        can take a missingness node). Under ``"auto"`` the self-masking model fills a numeric column only where
        the model under the nodes (``"latent"``, else ``"naive"``) imputed its hidden cells best, a categorical
        one unless that model imputed them clearly worse than the chosen configuration.
    odds_ : dict
        Column -> :class:`~bayesnb.impute.mnar_odds.OddsColumn`: the self-masking odds fitted for each categorical
        column with missing cells that the self-masking model does not fill (none under ``"mar"``), on the predictive
        of its chosen configuration (``"naive"``, ``"latent"``, ``"tan"`` or ``"tan-mi"``): ``rho`` (``p(missing |
        value)``), the log-likelihoods of self-masking and of MAR given the other columns, and ``used``: whether
        the column's fills are its predictive given that the cell is missing (``chosen_`` still names the
        configuration whose predictive is reweighted).
    draw_configuration_ : str or None
        The configuration that draws every missing cell under ``impute(strategy="draw")``:
        ``"latent"`` when it is among ``configurations``, the single configuration when only one was
        asked for, else None (each column from ``chosen_``). Multiple imputation needs one joint
        model of every column: draws of a row's cells from different configurations are independent
        of each other given its observed cells, and a column drawn by the naive model ignores the
        other columns given the class, which biases an analysis that relates them (docs/benchmarks.md,
        "Multiple imputation"). The latent-class model is the configuration whose model links every
        pair of columns, of any type, and its component count is chosen by a held-out log score of
        the hidden cells given the rest of their row (one component: the naive model).
    scores_ : DataFrame or None
        One row per (column, configuration) scored: ``column``, ``configuration``, ``loss`` (NRMSE
        squared, normalised absolute error or error rate on the hidden cells), ``shrunk_loss`` (the loss
        the choice compares: a categorical column's shrunk toward what the table's other categorical
        columns say, :func:`~bayesnb.impute.configs.shrunk_losses`; a numeric column's its ``loss``),
        ``n_hidden``, ``chosen``. None when a single configuration was asked for.
    n_components_ : int or None
        Components per class of the ``"latent"`` configuration (chosen on the table with hidden
        cells); None when it was not fitted.
    models_ : dict
        Configuration -> its fitted model on the training table, for the configurations in
        ``chosen_``: a :class:`~bayesnb.NaiveBayes` (``"naive"``, ``"tan"``, ``"tan-mi"``), ``(NaiveBayes,
        LatentClassFit)`` (``"latent"``) or a :class:`~bayesnb.impute.mvn.MVNFit` (``"mvn"``).
    columns_ : list
        The training table's columns, in order.
    supports_ : dict
        ``{column position: ColumnSupport}``: the values each numeric column takes in the training table.
    zero_links_ : list of (int, int)
        The training table's zero links ``(target, source)``.
    labelled_ : bool
        Whether ``fit`` was given labels (without, every row is one class).
    target_name_ : str
        Only on an imputer from ``bayesnb fit-imputer --target COL``: the label column, which
        ``bayesnb impute`` passes as ``y`` (saved in the file).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb import Imputer
    >>> from bayesnb.datasets import load_penguins
    >>> X = load_penguins().drop(columns="species")
    >>> X = X.mask(np.random.default_rng(0).random(X.shape) < 0.2)
    >>> imp = Imputer(configurations=("naive", "tan"), random_state=0).fit(X)
    >>> int(imp.impute(X).isna().sum().sum())
    0
    """

    def __init__(self, configurations="auto", holdout=0.15, label_given=False, estimator=None,
                 search_rows=SEARCH_ROWS, random_state=None, verbose=None, columns="all", missingness="auto"):
        self.configurations = configurations
        self.holdout = holdout
        self.label_given = label_given
        self.estimator = estimator
        self.search_rows = search_rows
        self.random_state = random_state
        self.verbose = verbose
        self.columns = columns
        self.missingness = missingness

    def _check_params(self, X, y, who):
        y = _check_table(X, y, self.estimator, who)
        configs = configuration_names(self.configurations, who, self.estimator)
        if not (isinstance(self.holdout, numbers.Real) and not isinstance(self.holdout, bool)
                and 0 < self.holdout < 1):
            raise ValueError(f"{who}: holdout must be a fraction in (0, 1); received {self.holdout!r}.")
        _check_search_rows(self.search_rows, who)
        if not (isinstance(self.columns, str) and self.columns in ("all", "missing")):
            raise ValueError(f"{who}: columns must be 'all' or 'missing'; received {self.columns!r}.")
        if not (isinstance(self.missingness, str) and self.missingness in MISSINGNESS):
            raise ValueError(f"{who}: missingness must be one of {MISSINGNESS}; received {self.missingness!r}.")
        return configs, y

    # --------------------------------------------------------------------- fit
    def fit(self, X, y=None):
        """Choose a configuration per column on hidden cells of ``X`` and fit the chosen ones on ``X``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            The training table; missing cells NaN/None/``pd.NA``.
        y : array-like of shape (n_samples,), optional
            Labels of the rows (every row labelled), used to fit every configuration. None: one
            class for every row.

        Returns
        -------
        self
        """
        configs, labels = self._check_params(X, y, _WHO)
        return self._fit(X, labels, configs, y is not None, _WHO)

    def _fit(self, X, y, configs, labelled, who, draws=True):
        estimator = NaiveBayes() if self.estimator is None else self.estimator
        rng = as_generator(self.random_state)
        prepare = [c for c in X.columns if self.columns == "all" or X[c].isna().any()]
        given = y if self.label_given else None
        self.columns_, self.labelled_ = list(X.columns), bool(labelled)
        self.supports_, self.zero_links_ = column_supports(X), zero_links(X)
        if len(configs) == 1:
            member, self.n_components_ = fit_config(configs[0], estimator, X, y, self.label_given, rng,
                                                    self.search_rows)
            self.models_, self.chosen_, self.scores_ = {configs[0]: member}, dict.fromkeys(prepare, configs[0]), None
            self.draw_configuration_ = configs[0]
            return self._self_masking(X, y, estimator, rng, who, set())
        observed = X.notna().to_numpy()
        # a child stream: a table blanked with the same seed (rng.random(X.shape) < p) would otherwise
        # have its missing cells exactly where the first draws fall, and no observed cell would be hidden
        hidden = observed & (rng.spawn(1)[0].random(X.shape) < self.holdout)
        Xh = X.copy()
        for j, c in enumerate(X.columns):
            if hidden[:, j].any():
                if not is_numeric_column(X[c]) and Xh[c].dtype == bool:  # a bool column holds no missing cell
                    Xh[c] = Xh[c].astype(object)
                Xh.loc[hidden[:, j], c] = None if not is_numeric_column(X[c]) else np.nan
        bar = progress(total=2 * len(configs), desc=f"{who}: configurations", verbose=self.verbose)
        fills, count = {}, None
        for cfg in configs:
            bar.set_postfix_str(f"{cfg} (hidden cells)")
            member, n = fit_config(cfg, estimator, Xh, y, self.label_given, rng, self.search_rows)
            fills[cfg] = fill_config(cfg, member, Xh, given, rng, cells=hidden)[0]  # only hidden cells are scored
            count = n if cfg == "latent" else count
            bar.update()
        # the loss each fill minimises, by the rule of the members that made the fills (fitted on Xh)
        rows, chosen, kinds, worse = [], {}, dict(zip(X.columns, loss_kinds(Xh))), set()
        # the model under the nodes, whose fills "auto" compares with the chosen ones (_self_masking)
        base = None if self.missingness != "auto" else next((c for c in ("latent", "naive") if c in configs), None)
        judged = [(j, c) for j, c in enumerate(X.columns) if hidden[:, j].any()]
        truths = {c: X[c].to_numpy()[hidden[:, j]] for j, c in judged}
        column_fills = {c: {cfg: fills[cfg][c].to_numpy()[hidden[:, j]] for cfg in configs} for j, c in judged}
        cells = {c: {cfg: cell_losses(truths[c], column_fills[c][cfg], kinds[c]) for cfg in configs} for _, c in judged}
        shrunk = shrunk_losses(cells, kinds, configs)
        for j, c in judged:
            best = min(configs, key=lambda cfg: shrunk[c][cfg])  # exact ties: the earlier, the cheaper
            if base is not None and (cells[c][base].mean() > cells[c][best].mean() if kinds[c] != "error" else
                                     clearly_worse(truths[c], column_fills[c][base], column_fills[c][best], kinds[c])):
                worse.add(c)
            if c in prepare:
                chosen[c] = best
            rows += [{"column": c, "configuration": cfg, "loss": float(cells[c][cfg].mean()),
                      "shrunk_loss": shrunk[c][cfg], "n_hidden": int(hidden[:, j].sum()), "chosen": cfg == best}
                     for cfg in configs]
        unjudged = [c for c in prepare if c not in chosen and X[c].isna().any()]
        if unjudged:
            empty = [c for c in unjudged if X[c].isna().all()]
            why = (f"{empty} have no observed cell" + ("; " if len(empty) < len(unjudged) else "")) if empty else ""
            few = [c for c in unjudged if c not in empty]
            why += (f"no observed cell of {few} was hidden (too few observed cells for holdout={self.holdout})"
                    if few else "")
            warnings.warn(f"{who}: {why}; they are imputed with the first configuration, {configs[0]!r}.",
                          UserWarning, stacklevel=3)
        for c in unjudged:
            chosen[c] = configs[0]
        # strategy="draw" draws every column from the one joint model of all of them, "latent" (see impute);
        # impute_table (draws=False) never draws. Fitted only for the draws, it takes a stream of its own (a spawned
        # child leaves the main stream where it was), so every other fit, the test of self-masking and the fills
        # are impute_table's with the same seed.
        draw = "latent" if draws and "latent" in configs else None
        # the real table: the latent count chosen above is fitted again, not searched again
        models = {}
        fitted = [cfg for cfg in configs if cfg in chosen.values()] + ([draw] if draw not in (None, *chosen.values())
                                                                        else [])
        for cfg in fitted or configs[:1]:  # no column to prepare (no missing cell): the first, for later tables
            bar.set_postfix_str(f"{cfg} (the table)")
            stream = rng.spawn(1)[0] if cfg == draw and draw not in chosen.values() else rng
            models[cfg] = fit_config(cfg, estimator, X, y, self.label_given, stream, self.search_rows, count)[0]
            bar.update()
        bar.close()
        self.models_, self.chosen_, self.n_components_, self.draw_configuration_ = models, chosen, count, draw
        self.scores_ = pd.DataFrame(rows, columns=_SCORES)
        return self._self_masking(X, y, estimator, rng, who, worse)

    def _self_masking(self, X, y, estimator, rng, who, worse):
        """Test self-masking against MAR (``missingness``) and, where it is used, make the self-masking model
        fill (and draw) each column with a missingness node. Under ``"auto"`` the columns in ``worse`` are tested
        but not filled by it: those whose hidden cells the model under the nodes
        (``"latent"``, else ``"naive"``) imputed worse than the chosen configuration: a numeric column where it
        was not the best, a categorical one where it was worse by more than two standard errors of the paired
        difference (:func:`~bayesnb.impute.configs.clearly_worse`)."""
        self.missingness_, self.odds_ = None, {}
        if self.missingness == "mar":
            return self
        # the categorical columns the self-masking model cannot fill take their own odds (mnar_odds, below)
        rest = [c for c in X.columns if not is_numeric_column(X[c]) and X[c].isna().any()]
        try:
            member, evidence = fit_mnar_member(X, y, estimator, self.n_components_ or 1, self.missingness, rng, who)
        except NoSelectionColumn:  # "mnar" with no column for a node: the odds alone, if any column takes them
            if not rest:
                raise
            member, evidence = None, None
        self.missingness_ = None if evidence is None else dict(evidence)
        if member is not None:
            taken = [X.columns[sc.column] for sc in member.fit.columns
                     if self.missingness == "mnar" or X.columns[sc.column] not in worse]
            for c in taken:
                self.chosen_[c] = MNAR_CONFIGURATION
            if self.draw_configuration_ is not None:  # one joint model draws every column: the one with the nodes
                self.draw_configuration_ = MNAR_CONFIGURATION
            self.models_ = {**{cfg: m for cfg, m in self.models_.items() if cfg in self.chosen_.values()},
                            MNAR_CONFIGURATION: member}
        rest = [c for c in rest if self.chosen_.get(c) != MNAR_CONFIGURATION]
        self.odds_ = fit_odds(X, y, self.chosen_, self.models_, rest, test=self.missingness == "auto", who=who)
        if self.missingness == "mnar" and member is None and not self.odds_:
            raise NoSelectionColumn(f"{who}: missingness='mnar', but no column can take a missingness node or "
                                    "self-masking odds (the odds need a categorical column with two to 64 observed "
                                    "values, filled by naive, latent, tan or tan-mi, whose predictive varies "
                                    "between rows).")
        return self

    # ------------------------------------------------------------------ impute
    def _rows(self, X, y, who):
        """``X`` checked against the training columns, and the labels its imputation is conditioned on."""
        check_is_fitted(self, "models_")
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"{who}: X must be a pandas DataFrame with the training columns; "
                            f"received {type(X).__name__}.")
        if list(X.columns) != self.columns_:
            raise ValueError(f"{who}: X must have the training columns, in order: {self.columns_[:10]}"
                             f"{'...' if len(self.columns_) > 10 else ''}; received {list(X.columns)[:10]}.")
        if y is not None:
            y = np.asarray(y)
            if y.shape != (X.shape[0],):
                raise ValueError(f"{who}: y must have shape ({X.shape[0]},), one label per row of X (None where "
                                 f"unknown); received shape {y.shape}.")
        if not self.label_given:
            return None
        if y is None:  # without labels at fit every row is the one class; with them, unknown
            return np.zeros(X.shape[0], dtype=np.int64) if not self.labelled_ else None
        classes = list(reading_model(self).classes_)
        known = set(classes)
        bad = [v for v in y[~np.asarray(pd.isna(y), dtype=bool)] if v not in known] if self.labelled_ else []
        if bad:
            raise ValueError(f"{who}: y has label(s) {list(dict.fromkeys(bad))[:5]} that are not among the training "
                             f"classes {classes[:10]}; give None where a row's label is unknown.")
        return y

    def impute(self, X, y=None, *, strategy="auto", n_imputations=1, random_state=None):
        """Fill the missing cells of ``X`` with each column's chosen configuration.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            The training table or new rows with its columns; missing cells NaN/None/``pd.NA``.
        y : array-like of shape (n_samples,), optional
            Labels of the rows (None/NaN where unknown): the imputation is conditioned on them when
            ``label_given``; otherwise ignored.
        strategy : {"auto", "draw"}, default="auto"
            ``"auto"``: each configuration's point fill (posterior-predictive mean, median or mode,
            as :func:`~bayesnb.impute_table`); ``"draw"``: draws from one joint model of every column,
            ``draw_configuration_`` (the latent-class model by default; each column's chosen model when
            it is None), with one posterior draw of its parameters per completed table (proper multiple
            imputation, for :func:`bayesnb.pool`). A column whose self-masking odds are used (``odds_``) is filled
            from its predictive given that the cell is missing: its most probable value, or draws from it given the
            row's observed cells, the rates drawn once per completed table (the configuration's parameters at
            their posterior mean).
        n_imputations : int, default=1
            Number of completed tables (more than 1 needs ``strategy="draw"``).
        random_state : None, int or Generator
            Seeds the draws.

        Returns
        -------
        DataFrame, or a list of ``n_imputations`` DataFrames
            Observed cells unchanged; the imputed numeric cells are values their column takes in the
            training table.
        """
        given = self._rows(X, y, f"{_WHO}.impute")
        if strategy not in ("auto", "draw"):
            raise ValueError(f"{_WHO}.impute: strategy must be 'auto' or 'draw'; received {strategy!r}.")
        m = n_imputations
        whole = isinstance(m, numbers.Integral) and not isinstance(m, bool) and m >= 1
        if not whole or (m > 1 and strategy != "draw"):
            raise ValueError(f"{_WHO}.impute: n_imputations must be a whole number >= 1, and more than 1 only with "
                             f"strategy='draw'; received n_imputations={m!r}, strategy={strategy!r}.")
        rng = as_generator(random_state)
        missing = [c for c in X.columns if X[c].isna().any()]
        first, draw = next(iter(self.models_)), getattr(self, "draw_configuration_", None)
        use = {c: draw if strategy == "draw" and draw is not None else self.chosen_.get(c, first) for c in missing}
        miss = X.isna().to_numpy()  # each configuration's medians only for the columns it fills
        tables = {cfg: fill_config(cfg, model, X, given, rng, strategy, m,
                                   cells=miss & np.array([use.get(c) == cfg for c in X.columns])[None, :])
                  for cfg, model in self.models_.items() if cfg in use.values()}
        odds = odds_fills(getattr(self, "odds_", {}), self.models_, X, given, rng, strategy, m, f"{_WHO}.impute")
        out = []
        for i in range(m):
            table = X.copy()
            for c in missing:
                table[c] = tables[use[c]][i][c]
            for c, fills in odds.items():  # each cell's predictive given that it is missing
                ok = pd.notna(fills[i])  # (None: an impossible row keeps its configuration's fill)
                if table[c].dtype.kind in "fiub":  # new rows whose column is all missing: no values' dtype yet
                    table[c] = table[c].astype(object)
                table.iloc[np.flatnonzero(X[c].isna().to_numpy())[ok], table.columns.get_loc(c)] = fills[i][ok]
            table = keep_zero_links(table, X, self.zero_links_)  # columns from different configurations
            out.append(project_fills(table, X, self.supports_))
        return out[0] if m == 1 else out

    def transform(self, X):
        """``impute(X)``: the completed table (scikit-learn's transformer API).

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)

        Returns
        -------
        DataFrame
        """
        return self.impute(X)

    # ------------------------------------------------------------- model file
    def save(self, path, *, key=None, overwrite=False):
        """Write the fitted imputer to ``path`` in bayesnb's model format (no pickle).

        The file holds every chosen configuration's fitted model (the latent-class and multivariate
        normal states included), ``chosen_``, ``scores_`` and the training table's value records and
        zero links, so ``Imputer.load(path).impute(X)`` equals this imputer's ``impute(X)``.

        Parameters
        ----------
        path : str or os.PathLike
        key : bytes or str, optional
            HMAC key, as in :func:`bayesnb.io.persistence.save`.
        overwrite : bool, default=False
            Replace ``path`` if it exists (else a ``FileExistsError``).
        """
        check_is_fitted(self, "models_")
        save(self, path, key=key, overwrite=overwrite)

    @classmethod
    def load(cls, path, *, key=None):
        """A fitted ``Imputer`` from a file written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
        key : bytes or str, optional
            The HMAC key the file was saved with.

        Returns
        -------
        Imputer
        """
        got = load(path, key=key)
        if not isinstance(got, cls):
            raise TypeError(f"{_WHO}.load: {path} holds a {type(got).__name__}; expected an Imputer saved by "
                            "Imputer.save.")
        return got


register_composite(Imputer, imputer_to_file, imputer_from_file)
