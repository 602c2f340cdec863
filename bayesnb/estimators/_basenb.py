"""BaseNB: the shared fit / partial_fit / predict machinery of every bayesnb classifier.

Missing values (NaN, None, ``pd.NA``) are allowed in ``X`` for fitting and for every
predict method. They are treated as *missing at random*: in fit the cell is left out
of that feature's statistics (for a Multinomial block, whose columns share one
probability vector, a row with a missing cell is left out of that block's counts);
in prediction the feature is marginalised out, which for Naive Bayes drops its factor
(for a Multinomial block the row is scored over its observed columns).
"""

from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..io import dask_data as _dask
from ..inference import nb_posterior as _post
from .._utils import (ColumnNames, DataError, is_frame, missing_mask, one_hot, row_weights, take_rows, warn_all_missing,
                      warn_one_class)
from ..generative import GenerativeMixin
from ..generative.values import forget_supports, record_supports
from ..inference.conjugate import fit_posterior
from ._posterior_methods import PosteriorMixin
from ..io.saving import PersistenceMixin
from . import _dask_fit
from . import validation as _val


class BaseNB(PosteriorMixin, GenerativeMixin, PersistenceMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / partial_fit / predict machinery of every bayesnb classifier.

    Subclasses implement ``_block_specs(X)`` returning ``[(columns, family), ...]`` and
    declare their hyperparameters in ``_parameter_constraints``, checked at the start of
    every fit. Fitted on a DataFrame, every estimator also has ``feature_dtypes_`` (object
    ndarray of shape (n_features_in_,), the training columns' dtypes), which ``sample``
    uses to return the same dtypes.

    Parameters
    ----------
    fit_prior : bool, default=True
        Learn class proportions; False uses a uniform class prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed class probabilities.
    class_alpha : float or array-like of shape (n_classes,), default=1.0
        Dirichlet pseudo-count of each class in the class-proportion prior.
    predictive : {"mean", "marginal"}, default="mean"
        Posterior-mean plug-in, or the exact posterior predictive of each family
        (Dirichlet-multinomial, Beta-Bernoulli, Student-t).
    privacy : bayesnb.DP, optional
        Fit under differential privacy: noise on the class counts and on each block's
        sufficient statistics (docs/privacy.md); everything after the fit is post-processing.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log class probabilities used in prediction (set by ``fit_prior`` and ``class_prior``).
    log_evidence_ : float or None
        ``log p(X, y)`` in closed form (None under an improper prior).
    posterior_ : NBPosterior
        The full posterior (class proportions and every block), a typed NamedTuple.
    n_features_in_ : int
        Number of columns seen in fit.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names, only when fitted on a DataFrame with string column names.
    privacy_spent_ : dict
        With ``privacy``: ``{"epsilon", "delta", "mechanism", "split"}``, the budget spent
        and its split over the class counts and the blocks.
    target_name_ : str
        The name of ``y``, only when it was a pandas Series with a string name (e.g.
        ``df["party"]``); kept in model files, and ``bayesnb sample`` names its label column
        with it.
    target_index_ : int
        Set by ``bayesnb fit`` only: how many feature columns preceded the label column in
        the training table; kept in model files, and ``bayesnb sample`` puts its label
        column there.
    """

    _parameter_constraints: ClassVar[dict] = _val.constraints()
    #: scikit-learn input tags set on top of ``allow_nan`` and ``sparse`` (e.g. ``positive_only``)
    _input_tags: ClassVar[dict] = {}
    #: scikit-learn's ``poor_score`` classifier tag (as its estimator of the same name)
    _poor_score = False

    def __init__(self, *, fit_prior=True, class_prior=None, class_alpha=1.0, predictive="mean", privacy=None):
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha
        self.predictive = predictive
        self.privacy = privacy

    # ------------------------------------------------------------------ subclass hooks
    def _block_specs(self, X, resp):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def _who(self) -> str:
        return type(self).__name__

    def _accepts_sparse(self) -> bool:
        return False

    def _class_params(self):
        """``(class_alpha, fit_prior, class_prior)`` as given by the user."""
        return self.class_alpha, self.fit_prior, self.class_prior

    def _dask_unsupported(self) -> str | None:
        """The setting that cannot be fitted from summed statistics of partitions (Dask), or None."""
        if self.privacy is not None:
            return "privacy=DP(...) (the noise is added once, to the statistics of the whole table)"
        return None

    def _sparse_hint(self) -> str:
        """How to fix a sparse matrix given to a model that needs dense data."""
        return "Convert it with X.toarray()."

    # ------------------------------------------------------------------- validation
    # (the checks live in validation; these names are what the mixins call)
    def _check_X(self, X, reset: bool):
        return _val.check_X(self, X, reset)

    def _check_weights(self, sample_weight, n):
        return _val.check_weights(sample_weight, n, self._who)

    def _check_total_weight(self, w, already):
        _val.check_total_weight(w, already, self._who)

    def _check_class_params(self, K):
        """Validate ``class_alpha`` and ``class_prior`` for ``K`` classes."""
        return _val.check_class_params(*self._class_params(), K, self._who)

    def _check_predictive(self):
        """The validated ``predictive`` setting."""
        _val.validate_params(self, ["predictive"])
        return self.predictive

    # ------------------------------------------------------------------ block access
    def _take(self, X, columns, family):
        """The block's columns of ``X`` in the form its family expects."""
        all_cols = len(columns) == X.shape[1] and np.array_equal(columns, np.arange(X.shape[1]))
        if is_frame(X):
            sub = X.iloc[:, columns]
            if family.raw_values:
                return sub
            try:
                dtypes = set(sub.dtypes)
                only = dtypes.pop() if len(dtypes) == 1 else None
                if isinstance(only, np.dtype) and only.kind in "biuf":
                    # columns of one NumPy number type: their values as an array of that type
                    # would be taken, without a copy (one block; families read any layout)
                    return sub.to_numpy()
                if all(isinstance(t, np.dtype) and t.kind in "biuf" for t in sub.dtypes):
                    return sub.to_numpy(dtype=float)  # NumPy numbers: NaN is their only missing value
                if any(getattr(t, "kind", "O") == "O" for t in sub.dtypes):  # may hold pd.NA / None
                    sub = sub.astype(object).where(sub.notna(), np.nan)
                return sub.to_numpy(dtype=float, na_value=np.nan)
            except (TypeError, ValueError):
                raise DataError(f"{self._who}: {_non_numbers(sub, type(family).__name__)}") from None
        consecutive = len(columns) and np.array_equal(columns, np.arange(columns[0], columns[0] + len(columns)))
        sub = X if all_cols else X[:, columns[0]:columns[0] + len(columns)] if consecutive else X[:, columns]
        if sp.issparse(sub) or family.raw_values:
            return sub
        if sub.dtype.kind not in "biuf":
            missing = missing_mask(sub)
            try:  # None / pd.NA become NaN (missing); a new array, never in place
                return np.asarray(np.where(missing, np.nan, sub) if missing.any() else sub, dtype=float)
            except (TypeError, ValueError) as e:
                raise DataError(
                    f"{self._who}: a {type(family).__name__} block expects numbers; received "
                    f"dtype {sub.dtype} ({e})."
                ) from None
        return sub

    def _encode_blocks(self, X, post=None, extend=False):
        """Encode every block of ``X``; returns (encoded list, new states list)."""
        encoded, states = [], []
        specs = self._specs if post is None else [(b.columns, b.family) for b in post.blocks]
        for i, (cols, fam) in enumerate(specs):
            state = None if post is None else post.blocks[i].state
            block = self._take(X, cols, fam)
            try:
                data, new_state = fam.encode(block, state, extend=extend, who=self._who)
            except ValueError as err:
                raise self._located(err, fam, block, state, extend, cols) from None
            encoded.append(data)
            states.append(new_state)
        return encoded, states

    def _located(self, err, fam, block, state, extend, cols):
        """``err`` (a family's ValueError on a block) as a DataError naming the rows and columns that raise it."""
        rows, where = _val.locate_bad_cells(lambda b: fam.encode(b, state, extend=extend, who=self._who), block)
        if not rows:
            return DataError(str(err))
        names = getattr(self, "feature_names_in_", None)
        label = [names[c] if names is not None else int(c) for c in np.asarray(cols)]
        column = (f" in column(s) {[label[c] for c in where]}" if where
                  else f" in the block of column(s) {label[:10]}{' ...' if len(label) > 10 else ''}")
        first = " (the first 5)" if len(rows) == 5 else ""
        return DataError(f"{err} The odd cell(s) are in the row(s) at position(s) {rows}{first} of X{column}; "
                          "the whole call is refused (fix or drop those rows).")

    def _reset_fitted(self):
        """Forget everything learned (attributes ending in ``_``) before a new fit."""
        for attr in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
            delattr(self, attr)

    # ----------------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the posterior to labelled data.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Training data; missing cells (NaN/None/pd.NA) are left out of their feature's
            statistics (missing at random).
        y : array-like of shape (n_samples,)
            Class labels, all of one type, one for every row: ``fit`` is always
            supervised, and every value is a class (``-1`` too). A missing label
            (None, NaN, ``pd.NA``) is an error; to learn from unlabelled rows as well,
            call :meth:`fit_semi_supervised`.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; a weight of 2 is exactly a duplicated row and a
            weight of 0 exactly a removed one (its values do not become categories).
            Weights are counts and are never rescaled: a tiny weight (1e-300) means
            almost no data. Subnormal weights (below 2.2e-308) and a total above
            2**53 (~9.0e15, the largest total float64 counts exactly) are errors.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._reset_fitted()
        if _dask.is_dask(X):
            _dask_fit.fit(self, X, y, sample_weight, classes=None, partial=False)
        else:
            self._fit(X, y, sample_weight, classes=None, partial=False)
        warn_one_class(self.classes_, self._who)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data to the posterior (counts accumulate).

        Parameters
        ----------
        X, sample_weight
            As in :meth:`fit`.
        y : array-like of shape (n_samples,)
            Class labels, each one of ``classes`` (no missing labels here).
        classes : array-like of shape (n_classes,), optional
            All class labels. Required on the first call; on later calls it may be
            left out or must equal ``classes_``.

        Returns
        -------
        self : object
            The updated estimator.
        """
        _val.check_private_fit(self.privacy, sample_weight, True, self._who)
        first = not hasattr(self, "posterior_")
        _val.check_partial_fit_classes(classes, None if first else self.classes_, self._who)
        if _dask.is_dask(X):
            forget_supports(self)  # a Dask batch is not read for them: the records would be incomplete
            return _dask_fit.fit(self, X, y, sample_weight, classes=classes if first else self.classes_,
                                 partial=not first)
        return self._fit(X, y, sample_weight, classes=classes if first else self.classes_, partial=not first)

    def _fit(self, X, y, sample_weight, classes, partial, encode_zero_weight_rows=False, support_weight=None):
        who = self._who
        _val.validate_params(self)
        privacy = self.privacy
        _val.check_private_fit(privacy, sample_weight, partial, who)
        if privacy is not None and privacy.classes is not None and classes is None:
            classes = privacy.classes
        X = self._check_X(X, reset=not partial)
        if not partial:
            self._record_target_name(y)
        n = X.shape[0]
        y = _val.check_y(y, n, who, arrow=True)  # (text stored by pyarrow: coded through its distinct labels)
        w = self._check_weights(sample_weight, n)
        if partial:
            self._check_total_weight(w, float(np.sum(self.class_count_)))
        classes_ = (self.classes_ if partial else
                    _val.unique_labels(y if classes is None else np.asarray(classes), who))
        codes = _val.label_codes(y, classes_, who, check=partial or classes is not None)
        # a zero weight is a removed row: it adds nothing, not even a category (semi-supervised
        # EM keeps its unlabelled rows for the encoding: their values are categories too)
        if not w.all() and not encode_zero_weight_rows:
            keep = w > 0
            X, y, w, codes, n = take_rows(X, keep), y[keep], w[keep], codes[keep], int(keep.sum())
        K = len(classes_)
        class_alpha, fit_prior, class_prior = self._check_class_params(K)
        resp = one_hot(codes, w, K)  # (families read the codes back from it: no argmax per block)
        del codes, w  # (n,) ints and weights no longer needed: not held through the fit's peak

        if not partial:
            self._specs = self._resolve_specs(X, resp)
            encoded, states = self._encode_blocks(X)
            old = None
        else:
            old = self.posterior_
            encoded, states = self._encode_blocks(X, old, extend=True)
        # the values each numeric column takes, counted by row weight (imputations keep to them); the
        # semi-supervised fit passes its rows' weights, its unlabelled rows' values included
        record_supports(self, X, partial, row_weights(resp) if support_weight is None else support_weight)
        all_names = getattr(self, "feature_names_in_", None)
        names = [ColumnNames(cols, all_names) for cols, _ in self._specs]
        never_observed = self._track_all_missing([fam.all_missing(e) for (_, fam), e in zip(self._specs, encoded)],
                                                 names, partial)
        fitted = self._fit_posterior(classes_, resp, self._specs, encoded, states, names, class_alpha, fit_prior,
                                     class_prior, previous=old, who=who, privacy=privacy, all_names=all_names)
        if privacy is not None:  # which columns have no observed cell is read from the raw rows: not kept
            fitted, self.privacy_spent_ = fitted
            never_observed = [np.zeros_like(a) for a in never_observed]  # (its reader, partial_fit, is refused)
        elif not partial:  # a refit without privacy is not DP, whatever an earlier fit was
            self.__dict__.pop("privacy_spent_", None)
        return self._store_posterior(fitted, never_observed)

    def _fit_posterior(self, *args, **kwargs):
        """:func:`bayesnb.inference.conjugate.fit_posterior` (a hook: a private structure releases its own)."""
        return fit_posterior(*args, **kwargs)

    def _store_posterior(self, posterior, never_observed):
        """Keep a fitted posterior and set the attributes read from it; returns ``self``."""
        self.posterior_ = posterior
        self._never_observed = never_observed
        self.classes_ = self.posterior_.classes
        self.class_count_ = self.posterior_.class_count
        self.class_log_prior_ = self.posterior_.class_log_prior
        self._set_attributes()
        return self

    def _record_target_name(self, y):
        """Set ``target_name_`` to the name of a pandas Series ``y`` with a string name; else forget it."""
        name = getattr(y, "name", None) if isinstance(y, pd.Series) else None
        if isinstance(name, str):
            self.target_name_ = name
        else:
            self.__dict__.pop("target_name_", None)

    def _track_all_missing(self, all_missing, names, partial):
        """Per block, the columns no batch so far has observed (of ``all_missing``: this batch's); warns.

        A batch missing a column that an earlier batch observed is not "all missing": its
        posterior is not the prior.
        """
        seen_before = getattr(self, "_never_observed", None) if partial else None
        out = []
        for i in range(len(self._specs)):
            allm = np.asarray(all_missing[i], dtype=bool)
            if seen_before is not None and seen_before[i].shape == allm.shape:
                allm = allm & seen_before[i]
            out.append(allm)
            if allm.any():
                warn_all_missing(self._who, [names[i][j] for j in np.flatnonzero(allm)])
        return out

    def _resolve_specs(self, X, resp, **options):
        return [(np.asarray(cols, dtype=int), copy.deepcopy(fam))
                for cols, fam in self._block_specs(X, resp, **options)]

    def _dask_specs(self, head, light, parts, classes_of):
        """The blocks of a Dask fit (:mod:`._dask_fit`): those of its first partition ``head``
        (validated), as no block of this estimator depends on the data beyond the columns."""
        return self._resolve_specs(head, None)

    @property
    def log_evidence_(self):
        """Closed-form log marginal likelihood ``log p(X, y)`` of the training data.

        Computed from ``posterior_`` on access. None when a prior is improper
        (``alpha=0``, ``class_alpha=0`` with ``fit_prior=True``, or a Gaussian
        ``prior=None``/``"reference"``), where the evidence is undefined.
        See :func:`bayesnb.inference.nb_posterior.log_evidence` for the per-block parts.
        """
        check_is_fitted(self, "posterior_")
        return _post.log_evidence(self.posterior_)

    def _set_attributes(self):
        """Cache each family's prediction tables; subclasses add scikit-learn attributes."""
        self._caches = [b.family.predict_cache(b.prior, b.posterior) for b in self.posterior_.blocks]

    # -------------------------------------------------------------------- predicting
    # Every predict method scores through predict_joint_log_proba, which documents X once.
    def predict_joint_log_proba(self, X):
        """``log p(x, y=k)`` for each row and class.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Rows to score, with the training columns. Missing cells (NaN/None/pd.NA) are
            marginalised out: a feature's factor is dropped (a Multinomial block scores the
            row over its observed columns).

        Returns
        -------
        joint_log_proba : ndarray of shape (n_samples, n_classes)
            Unnormalised log scores; columns follow ``classes_``. (For
            :class:`~bayesnb.ComplementNB` these are scikit-learn's complement scores, not
            ``log p(x, y=k)``.)
        """
        if _dask.is_dask(X):
            return self._lazy(self.predict_joint_log_proba, X, "matrix")
        encoded = self._encoded(X)  # (checks that the model is fitted)
        return _post.joint_log_likelihood(self.posterior_, encoded, self._check_predictive(), self._caches,
                                          classify=True)

    def _lazy(self, method, X, kind, dtype=float):
        """``method`` mapped over the partitions of a Dask ``X``: a lazy Dask collection (see :mod:`bayesnb.io.dask_data`)."""
        check_is_fitted(self, "posterior_")
        return _dask.map_rows(method, X, kind, n_out=len(self.classes_), dtype=dtype, who=self._who)

    def _encoded(self, X):
        """The blocks of ``X`` encoded as in training (checked against the fitted model)."""
        check_is_fitted(self, "posterior_")
        X = self._check_X(X, reset=False)
        return self._encode_blocks(X, self.posterior_)[0]

    def _class_scores(self, X):
        """The class-relative scores ``predict*`` normalise, (n, K); the encoded blocks and the
        row terms are released before the caller's (n, K) work."""
        encoded = self._encoded(X)  # (checks that the model is fitted)
        return _post.joint_log_likelihood_parts(self.posterior_, encoded, self._check_predictive(), self._caches,
                                                classify=True)[0]

    def predict_log_proba(self, X):
        """``log p(y=k | x)`` for each row and class.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            As in :meth:`predict_joint_log_proba`.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``; normalised with logsumexp, never NaN.
        """
        if _dask.is_dask(X):
            return self._lazy(self.predict_log_proba, X, "matrix")
        rel = self._class_scores(X)
        return _post.normalise(rel, self.posterior_.class_log_prior, self._who, copy=False)

    def predict_proba(self, X):
        """``p(y=k | x)`` for each row and class (rows sum to 1).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame
            The rows, as for :meth:`predict_joint_log_proba`.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        if _dask.is_dask(X):
            return self._lazy(self.predict_proba, X, "matrix")
        log_proba = self.predict_log_proba(X)
        return np.exp(log_proba, out=log_proba)  # our own array: no second (n, K) copy

    def predict(self, X):
        """Most probable class of each row.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Rows to classify; a missing cell is marginalised out
            (see :meth:`predict_joint_log_proba`).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        if _dask.is_dask(X):
            check_is_fitted(self, "posterior_")  # before classes_ is read: NotFittedError, not AttributeError
            return self._lazy(self.predict, X, "vector", self.classes_.dtype)
        rel = self._class_scores(X)
        # the argmax of predict_log_proba without normalising (the normaliser is the same for every class)
        return self.classes_[_post.most_probable(rel, self.posterior_.class_log_prior, self._who)]

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of :meth:`predict` on ``X`` against the true labels ``y`` (scikit-learn's).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True labels, none missing (a label the model does not know counts as wrong).
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float

        Raises
        ------
        ValueError
            Some label is missing (None/NaN/pd.NA): the message says which rows.
        """
        _val.check_labelled(y, f"{self._who}.score", "score compares predictions with true labels: leave the "
                            "unlabelled rows out (e.g. keep = pd.notna(y); model.score(X[keep], y[keep])).")
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = self._accepts_sparse()
        for name, value in self._input_tags.items():
            setattr(tags.input_tags, name, value)
        tags.classifier_tags.poor_score = self._poor_score
        return tags


def _non_numbers(sub, family):
    """The message naming the columns of ``sub`` that hold a non-number: the first one's first bad value."""
    bad = []
    for name in sub.columns:
        col = sub[name]
        conv = pd.to_numeric(col.astype(object).where(col.notna(), np.nan), errors="coerce")
        wrong = conv.isna().to_numpy() & col.notna().to_numpy()
        if wrong.any():
            bad.append((name, col, int(np.flatnonzero(wrong)[0]), int(wrong.sum())))
    if not bad:  # a cell pandas reads as a number but NumPy cannot convert
        return f"columns {list(sub.columns)} must be numeric for a {family} block."
    name, col, pos, n = bad[0]
    more = f"; also column(s) {[b[0] for b in bad[1:6]]}" if len(bad) > 1 else ""
    return (f"column {name!r} must be numeric for a {family} block; received {col.iloc[pos]!r} at row "
            f"position {pos} (index {col.index[pos]!r}; {n} such cell(s), dtype {col.dtype}){more}.")
