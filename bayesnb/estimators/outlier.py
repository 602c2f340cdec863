"""``NBOutlierDetector``: a scikit-learn novelty detector on the cells' surprise or the log density of a bayesnb model.

With ``statistic="density"`` the score of a row is ``log p(x)`` under the wrapped model's posterior predictive
(its ``score_samples``: missing cells marginalised, a value outside a family's support or range costing its
improbability), plus, with ``range_tails=True``, what leaving each numeric column's training range costs
(:mod:`bayesnb.generative.range_tails`). With ``statistic="surprise"`` (the default for dense rows) it is minus the
larger of two sums of cell surprises (:mod:`bayesnb.generative.cell_surprise`), one under the model and one
under its naive companion. The threshold comes from ``contamination`` on the training rows
(:mod:`bayesnb.generative.outlier_threshold`, the code ``bayesnb outliers`` uses too), and
:meth:`NBOutlierDetector.cell_scores` names the cells that make a row unusual. A fitted detector is
saved whole (model, threshold, range tails, companion and references) by :meth:`NBOutlierDetector.save`, in the model
format: :func:`bayesnb.load` returns it and ``bayesnb outliers DETECTOR.bnb DATA`` uses it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OutlierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.validation import _check_sample_weight, _num_samples, check_is_fitted

from .._utils import missing_mask, one_class_on_purpose
from ..generative.cell_surprise import cell_surprise, fit_cell_reference
from ..generative.outlier_threshold import check_contamination, outlier_offset
from ..generative.range_tails import fit_range_tails, ordered_columns, range_tail_costs
from ..io.detector_file import STATISTICS, detector_from_file, detector_to_file
from ..io.persistence import register_composite, save
from ..generative.support import blank_impossible, impossible_cells
from ._basenb import BaseNB
from .naive_bayes import NaiveBayes

__all__ = ["NBOutlierDetector"]

_WHO = "NBOutlierDetector"
_CELL_METHODS = ("auto", "contribution", "conditional")


class NBOutlierDetector(OutlierMixin, BaseEstimator):
    """Novelty detection with the cells' surprise or ``log p(x)`` under a bayesnb model (higher = more normal).

    Parameters
    ----------
    estimator : bayesnb estimator, default=None
        The model of the table (None: ``NaiveBayes(structure="auto", edge_score="hierarchical")``,
        naive, TAN or k-DB by evidence, the edges scored by the hierarchical model's evidence, so
        that a row whose values are each typical but do not go together scores low;
        the cross-validation guard of ``"auto"`` measures a classifier's ``-log p(y | x)``, so it
        runs when :meth:`fit` is given labels ``y`` and is off for one class, where that loss
        is 0: ``auto_cv=False``). Unfitted: a clone is fitted in
        :meth:`fit` on the rows given, with their labels ``y`` when given, else as one class
        (a model of the columns alone, as :func:`~bayesnb.impute_table` with ``y=None``).
        Already fitted: used as it is, and :meth:`fit` only sets the threshold. Note that
        :func:`sklearn.base.clone` (cross-validation, grid search) returns an unfitted copy,
        which :meth:`fit` then fits on its rows.
    contamination : "auto" or float, default="auto"
        The share of the training rows flagged as outliers, in ``(0, 0.5]``: ``offset_`` is
        that quantile of their finite scores. ``"auto"``: 0.05
        (:data:`~bayesnb.generative.outlier_threshold.AUTO_CONTAMINATION`, the CLI's default).
    range_tails : bool, default=True
        Add to each row's score, for every cell beyond its column's training range, minus its
        distance beyond the range in units of an exponential tail fitted to the column's most extreme
        training values (:mod:`bayesnb.generative.range_tails`: 0 at the edge), in each column the
        model scores with an ordered numeric family (``Family.ordered_support``: Gaussian, LogNormal,
        Histogram, Poisson; not a numerically coded Categorical or Bernoulli), so
        a value beyond the range costs at least what the column's own extremes say (with
        ``statistic="surprise"``: in each cell, before it is ranked). False: no such cost (with
        ``"density"`` the score is the model's ``log p(x)`` alone).
    statistic : {"auto", "surprise", "density"}, default="auto"
        What a row scores. ``"density"``: ``log p(x)`` (minus the range tails' costs). ``"surprise"``: each
        cell's log score (:meth:`cell_scores`) is ranked against the training rows' cells of its column, and
        its surprise is minus the log of that empirical p-value (below the lowest training cell, that plus
        the nats beyond it; :mod:`bayesnb.generative.cell_surprise`), so a narrow column (its rarest category,
        held by 7% of the rows: 2.7) weighs as much as a wide one whose cells spread over many nats. A row's
        surprise is the sum over its cells, under the model and, when the model has a structure (TAN or
        k-DB), under its naive companion (the same estimator with ``structure="naive"`` and the families the
        model chose, fitted on the same rows, labels and weights), and its score is minus the larger of the
        two: a row whose columns shift together is caught by the naive sum, which charges every shifted
        column, a row whose values do not go together by the structure's. ``"auto"``: ``"surprise"``, or
        ``"density"`` for sparse input (ranking every cell of a sparse matrix would make it dense) and for
        a private model (the training cells' scores it keeps would release exact counts and values;
        ``"surprise"`` is refused there). docs/outliers.md compares them.

    Attributes
    ----------
    estimator_ : bayesnb estimator
        The fitted model (its ``score_samples`` are the scores of ``statistic="density"``; its cells
        are ranked for ``"surprise"``).
    offset_ : float
        The threshold: ``decision_function = score_samples - offset_``.
    range_tails_ : RangeTails or None
        Those columns' training ranges and tail scales (None with ``range_tails=False`` or when the
        model has no such column).
    contamination_ : float
        The contamination used (``"auto"`` resolved).
    statistic_ : str
        The statistic used (``"auto"`` resolved): ``"surprise"`` or ``"density"``.
    marginal_ : bayesnb estimator or None
        The naive companion of ``statistic="surprise"`` (None: the model is naive, private, or fitted before with
        several classes and ``fit`` got no labels, and its own surprise is the score).
    references_ : list of CellReference or None
        The training cells' scores of the model and its companion (``statistic="surprise"``).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when the model was fitted on a DataFrame.

    See Also
    --------
    sklearn.ensemble.IsolationForest, sklearn.neighbors.LocalOutlierFactor

    Notes
    -----
    A row impossible under the model (``log p(x) = -inf``, e.g. a value outside a family's
    support at ``alpha=0``) is always an outlier; ``-inf`` training scores are left out of the
    quantile. :meth:`save` writes the fitted detector (its model, ``offset_``, range tails, and for the
    surprise its naive companion and cell references) to a
    model file, which :func:`bayesnb.load` reads back and ``bayesnb outliers`` uses.
    ``benchmarks/bench_outliers.py`` compares this detector with IsolationForest,
    LOF, ECOD, COPOD and AVF (``docs/outliers.md``).

    Examples
    --------
    >>> from bayesnb import NBOutlierDetector
    >>> from bayesnb.datasets import load_penguins
    >>> X = load_penguins().drop(columns="species")
    >>> det = NBOutlierDetector(contamination=0.1).fit(X)
    >>> round(float((det.predict(X) == -1).mean()), 2)
    0.1
    >>> odd = X.iloc[[0]].assign(body_mass_g=50_000)
    >>> bool(det.score_samples(odd)[0] < det.score_samples(X.iloc[[0]])[0])
    True
    >>> det.cell_scores(odd).idxmin(axis=1).tolist()
    ['body_mass_g']
    """

    def __init__(self, estimator=None, *, contamination="auto", range_tails=True, statistic="auto"):
        self.estimator = estimator
        self.contamination = contamination
        self.range_tails = range_tails
        self.statistic = statistic

    def fit(self, X, y=None, sample_weight=None):
        """Fit the model (unless it is fitted already) and set ``offset_`` on ``X``'s scores.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            The training rows (assumed mostly normal).
        y : array-like of shape (n_samples,), optional
            Labels for fitting an unfitted model (one class each, so ``log p(x)`` is a mixture
            over them); None: one class for every row. A fitted model is not refitted; with
            ``statistic="surprise"`` its naive companion is fitted on these labels (on one class when
            None, and not at all when None and the fitted model has several classes).
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the fits of the model and of its naive companion, and weights of the rows in
            the quantile and in the cell references (a row of weight 2 counts as the row repeated).

        Returns
        -------
        self
        """
        c = check_contamination(self.contamination, _WHO)
        if not isinstance(self.range_tails, (bool, np.bool_)):
            raise ValueError(f"{_WHO}: range_tails must be True or False; received {self.range_tails!r}.")
        if not isinstance(self.statistic, str) or self.statistic not in STATISTICS:
            raise ValueError(f"{_WHO}: statistic must be one of {STATISTICS}; received {self.statistic!r}.")
        if self.statistic == "surprise" and sp.issparse(X):
            raise TypeError(f"{_WHO}: statistic='surprise' ranks each cell of dense or DataFrame rows; received a "
                            "sparse matrix. Use statistic='density' (or 'auto', which takes it for sparse input).")
        model = _default_model(y is not None) if self.estimator is None else self.estimator
        if not isinstance(model, BaseNB):
            raise TypeError(f"{_WHO}: estimator must be a bayesnb estimator (NaiveBayes, CategoricalNB, ...); "
                            f"received {type(model).__name__}.")
        private = model.get_params().get("privacy") is not None
        if self.statistic == "surprise" and private:
            raise ValueError(f"{_WHO}: statistic='surprise' keeps the training cells' scores (their exact category "
                             "counts and values), which a private model must not release; received a model with "
                             "privacy=. Use statistic='density' (or 'auto', which takes it for a private model).")
        prefitted = hasattr(model, "posterior_")  # fitted: what every bayesnb method checks (check_is_fitted)
        labels = np.zeros(_num_samples(X), dtype=np.int64) if y is None else y
        if prefitted:
            self.estimator_ = model
        else:
            with one_class_on_purpose():  # one class (y=None) is how a detector models p(x)
                self.estimator_ = clone(model).fit(X, labels, sample_weight=sample_weight)
        self.contamination_ = c
        self.statistic_ = "density" if self.statistic == "density" or sp.issparse(X) or private else "surprise"
        weights = None if sample_weight is None else _check_sample_weight(sample_weight, np.empty(_num_samples(X)),
                                                                          ensure_non_negative=True)
        ordered = ordered_columns(self.estimator_, self.estimator_.n_features_in_) if self.range_tails else None
        self.range_tails_ = fit_range_tails(X, weights, ordered) if self.range_tails else None
        self.marginal_, self.references_ = None, None
        if self.statistic_ == "surprise":
            if not (prefitted and y is None and len(self.estimator_.classes_) > 1):
                self.marginal_ = _naive_companion(model, self.estimator_, X, labels, sample_weight)
            cells, observed = self._cells(X)
            self.references_ = [fit_cell_reference(cell, observed, weights) for cell in cells]
            scores = _larger_sum([cell_surprise(ref, cell, observed) for ref, cell in zip(self.references_, cells)])
        else:
            scores = self._scores(X)
        self.offset_ = outlier_offset(scores, c, _WHO, weights)
        self.n_features_in_ = self.estimator_.n_features_in_
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        return self

    def score_samples(self, X):
        """Each row's score (higher = more normal). ``statistic_="density"``: ``log p(x)``, the model's
        ``score_samples`` minus the range tails' costs (``range_tails=True``); ``"surprise"``: minus the larger
        of the model's and its naive companion's sums of cell surprises (``statistic`` above).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "offset_")
        return self._scores(X)

    def _scores(self, X):
        if getattr(self, "statistic_", "density") == "surprise":  # a detector pickled before statistic_: density
            return _larger_sum(self._surprises(X))
        scores = self.estimator_.score_samples(X)  # the model's checks of X first
        costs = self._range_costs(X)
        return scores if costs is None else scores - costs.sum(axis=1)

    def _models(self):
        return [self.estimator_] + ([] if self.marginal_ is None else [self.marginal_])

    def _cells(self, X):
        """Each of :meth:`_models`'s dense (n, d) cell scores of ``X``, the range tails' costs (computed once)
        taken off, and ``X``'s observed cells."""
        cells = [np.asarray(_model_cells(m, X), dtype=float) for m in self._models()]  # the models' checks of X first
        costs = self._range_costs(X)
        return [cell if costs is None else cell - costs for cell in cells], ~missing_mask(
            X.to_numpy() if isinstance(X, pd.DataFrame) else X)

    def _surprises(self, X):
        """The (n, d) cell surprises of ``X`` under each of :meth:`_models`."""
        if sp.issparse(X):
            raise TypeError(f"{_WHO}: this detector's statistic is 'surprise', which ranks each cell of dense or "
                            "DataFrame rows; received a sparse matrix (fit with statistic='density' to score one).")
        cells, observed = self._cells(X)
        return [cell_surprise(ref, cell, observed) for ref, cell in zip(self.references_, cells)]

    def _range_costs(self, X):
        """Each cell's range-tail cost (n, d), or None: the one reader of ``range_tails_`` (a detector
        pickled before it existed has none, and scores and cells alike are the model's alone)."""
        return range_tail_costs(getattr(self, "range_tails_", None), X, _WHO)

    def decision_function(self, X):
        """``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """+1 for an inlier, -1 for an outlier (``decision_function(X) < 0``).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) of int
        """
        return np.where(self.decision_function(X) < 0, -1, 1)

    def cell_scores(self, X, *, method="auto"):
        """Per-cell scores: which cells make a row unusual (lower = more unusual).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        method : {"auto", "contribution", "conditional"}, default="auto"
            ``"contribution"``: the model's ``feature_log_contributions``, which add up to
            ``score_samples`` with the class term (every structure: under TAN / k-DB each node's
            ``log p(x_j | pa_j, y)``). ``"conditional"``: ``log p(x_ij | x_i,-j)``, the
            log density of the cell given the rest of its row, as
            ``score_samples(X) - score_samples(X with column j missing)``: for every structure
            (dense or DataFrame input; missing cells score 0, a cell outside its family's support
            ``-inf``, and NaN marks another cell of a row that is impossible with and without it). ``"auto"``: contributions where
            the model offers them, else conditional. Either way minus each cell's range-tail cost
            (``range_tails=True``), so the cells add up to ``score_samples`` with the class term.
            That is with ``statistic_="density"``. With ``"surprise"`` each cell is minus its surprise (0
            for a missing cell, ``-inf`` outside its family's support) under the model whose sum gave the
            row's score, so the cells add up to ``score_samples``; ``method`` must then be ``"auto"``.

        Returns
        -------
        ndarray of shape (n_samples, n_features), or DataFrame for DataFrame input
            (``"contribution"`` on sparse input: a CSR matrix).
        """
        check_is_fitted(self, "offset_")
        if method not in _CELL_METHODS:
            raise ValueError(f"{_WHO}: method must be one of {_CELL_METHODS}; received {method!r}.")
        if getattr(self, "statistic_", "density") == "density":
            cells, costs = _model_cells(self.estimator_, X, method), self._range_costs(X)
            return cells if costs is None else cells - costs
        if method != "auto":
            raise ValueError(f"{_WHO}: with statistic='surprise' the cells are ranked against the training cells of "
                             f"the fit's own method, so method must be 'auto'; received {method!r}.")
        surprises = np.stack(self._surprises(X))  # (models, n, d)
        which = np.argmax(surprises.sum(axis=2), axis=0)
        cells = -surprises[which, np.arange(surprises.shape[1])]
        return pd.DataFrame(cells, index=X.index, columns=X.columns) if isinstance(X, pd.DataFrame) else cells

    def save(self, path, *, key=None, overwrite=False):
        """Write the fitted detector to ``path`` in bayesnb's model format (no pickle).

        The file holds the fitted model, ``offset_``, ``contamination_``, the range tails and, for
        ``statistic_="surprise"``, the naive companion and the cell references, so
        ``bayesnb.load(path).decision_function(X)`` equals this detector's, and
        ``bayesnb outliers path DATA`` flags the rows this detector's :meth:`predict` flags.

        Parameters
        ----------
        path : str or os.PathLike
        key : bytes or str, optional
            HMAC key, as in :func:`bayesnb.io.persistence.save`.
        overwrite : bool, default=False
            Replace ``path`` if it exists (else a ``FileExistsError``).
        """
        check_is_fitted(self, "offset_")
        save(self, path, key=key, overwrite=overwrite)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        model = _default_model() if self.estimator is None else self.estimator
        tags.input_tags = get_tags(model).input_tags
        return tags


def _default_model(labelled=False):
    """The model of ``estimator=None``: ``NaiveBayes(structure="auto", edge_score="hierarchical")`` (the
    edge score of higher mean held-out log-likelihood on the outlier benchmark's tables, the rule by which
    the Synthesizer keeps it; ``docs/outliers.md``), which models the dependence
    between the columns (a naive model of one class is the product of the column marginals, blind
    to a row whose values are each typical but do not go together). Its cross-validation guard
    (the classifier's out-of-fold ``-log p(y | x)`` against naive's) is on when the rows come
    with labels ``y``, and off for one class, where that loss is 0 for every structure."""
    return NaiveBayes(structure="auto", auto_cv=bool(labelled), edge_score="hierarchical")


def _larger_sum(surprises):
    """A row's score under ``statistic="surprise"``: minus the larger of the models' sums of its cells'
    surprises (one (n, d) array per model)."""
    return -np.max([s.sum(axis=1) for s in surprises], axis=0)


def _model_cells(model, X, method="auto"):
    """``model``'s cell scores of ``X`` by ``method`` (``cell_scores``'s), before the range tails' costs."""
    if method == "contribution" or (method == "auto" and hasattr(model, "feature_log_contributions")):
        return model.feature_log_contributions(X)
    if sp.issparse(X):
        raise TypeError(f"{_WHO}: cell_scores(method='conditional') needs dense or DataFrame rows (a missing "
                        "cell is marginalised); received a sparse matrix. Use method='contribution' "
                        "with a naive model.")
    return _conditional_scores(model, X)


def _naive_companion(model, fitted, X, labels, sample_weight):
    """The naive model fitted beside a structured one for ``statistic="surprise"``: the same estimator with
    ``structure="naive"`` and, where it takes ``features``, the families the fitted model chose, so that both
    read every column alike. None when the fitted model is naive (or has no ``structure``)."""
    params = model.get_params()
    if getattr(fitted, "structure_kind_", "naive") == "naive" or "structure" not in params:
        return None
    companion = clone(model).set_params(structure="naive")
    if "features" in params:  # the fitted families (each carries its own alpha), keyed by X's own labels
        names = list(X.columns) if isinstance(X, pd.DataFrame) else None  # (an integer label is a name first)
        key = (lambda c: names[int(c)]) if names is not None else int
        companion.set_params(features={tuple(key(c) for c in b.columns): clone(b.family)
                                       for b in fitted.posterior_.blocks},
                             **({"alpha": None} if "alpha" in params else {}))
    with one_class_on_purpose():
        return companion.fit(X, labels, sample_weight=sample_weight)


def _conditional_scores(model, X):
    """``log p(x_ij | x_i,-j)`` for each cell: the score minus the score with that column missing
    (``-inf`` for a cell outside its family's support, even beside another such cell)."""
    frame = isinstance(X, pd.DataFrame)
    data = X if frame else np.asarray(X)
    if data.ndim != 2:
        raise ValueError(f"{_WHO}: X must be 2-D (n_samples, n_features); received shape {data.shape}.")
    full = model.score_samples(data)
    out = np.zeros(data.shape, dtype=float)
    for j in range(data.shape[1]):
        hidden = data.copy()
        if frame:
            column = hidden.iloc[:, j]
            hidden[hidden.columns[j]] = column.where(np.zeros(len(column), dtype=bool))
            observed = column.notna().to_numpy()
        else:
            if hidden.dtype.kind not in "fcO":
                hidden = hidden.astype(float)
            hidden[:, j] = None if hidden.dtype == object else np.nan
            observed = ~pd.isna(data[:, j])
        with np.errstate(invalid="ignore"):  # -inf - -inf: NaN, the row is impossible without the cell too
            diff = full - model.score_samples(hidden)
        out[:, j] = np.where(observed, diff, 0.0)
    # p(x_ij | rest) = 0 whatever the rest for a cell outside its family's support
    return impossible_cells(out, blank_impossible(model, data)[1], X)


register_composite(NBOutlierDetector, detector_to_file, detector_from_file)
