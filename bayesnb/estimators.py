"""scikit-learn estimators: validate, encode, call the core, store attributes.

All public methods live in :class:`BaseNB`; the subclasses only choose their feature
blocks (one family over all columns, or ``NaiveBayes(features=...)`` for a mix).

Missing values (NaN, None, ``pd.NA``) are allowed in ``X`` for fitting and for every
predict method. They are treated as *missing at random*: in fit the cell is left out
of that feature's statistics (for a Multinomial block, whose columns share one
probability vector, a row with a missing cell is left out of that block's counts);
in prediction the feature is marginalised out, which for Naive Bayes drops its factor
(for a Multinomial block the row is scored over its observed columns).
"""

from __future__ import annotations

import copy
import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from . import posterior as _post
from ._utils import ColumnNames, is_frame, missing_mask, take_rows, warn_all_missing
from .generative import GenerativeMixin
from .model import PosteriorMixin
from .persistence import PersistenceMixin
from .families import Bernoulli, Categorical, Gaussian, Multinomial

__all__ = ["BaseNB", "NaiveBayes", "MultinomialNB", "BernoulliNB", "CategoricalNB", "GaussianNB"]

#: The largest total ``sample_weight`` (per fit, or accumulated over partial_fit calls): float64
#: counts every integer up to 2**53 exactly; beyond it a row of weight 1 can vanish (c + 1 == c).
MAX_TOTAL_WEIGHT = float(2**53)


class BaseNB(PosteriorMixin, GenerativeMixin, PersistenceMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / partial_fit / predict machinery of every bayesnb classifier.

    Subclasses implement ``_block_specs(X)`` returning ``[(columns, family), ...]``.
    Fitted on a DataFrame, every estimator also has ``feature_dtypes_`` (object ndarray
    of shape (n_features_in_,), the training columns' dtypes), which ``sample`` uses to
    return the same dtypes.
    """

    # ------------------------------------------------------------------ subclass hooks
    def _block_specs(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def _who(self) -> str:
        return type(self).__name__

    def _accepts_sparse(self) -> bool:
        return False

    def _class_params(self):
        """``(class_alpha, fit_prior, class_prior)`` as given by the user."""
        return self.class_alpha, self.fit_prior, self.class_prior

    def _sparse_hint(self) -> str:
        """How to fix a sparse matrix given to a model that needs dense data."""
        return "Convert it with X.toarray()."

    # ------------------------------------------------------------------- validation
    def _check_X(self, X, reset: bool):
        """Validate ``X`` at the boundary: type, shape, column names, infinite values.

        DataFrames and object arrays are kept as they are (their columns may hold
        strings and missing values). ``X`` is never modified in place.
        """
        who = self._who
        if sp.issparse(X) and not self._accepts_sparse():
            raise TypeError(
                f"{who}: expected a dense array or DataFrame; received a sparse matrix "
                f"({type(X).__name__}, format {X.format!r}). {self._sparse_hint()}"
            )
        if is_frame(X):
            if X.shape[0] == 0 or X.shape[1] == 0:
                raise ValueError(
                    f"{who}: expected X with at least one row and one column; received an empty "
                    f"DataFrame of shape {X.shape}."
                )
            try:
                validate_data(self, X, skip_check_array=True, reset=reset)
            except ValueError as e:  # scikit-learn's feature-name check does not name the estimator
                raise ValueError(str(e) if who in str(e) else f"{who}: {e}") from None
            if reset:  # what sample() needs to give back the training frame's dtypes
                self.feature_dtypes_ = np.asarray(list(X.dtypes), dtype=object)
        else:
            if reset:
                self.__dict__.pop("feature_dtypes_", None)
            X = validate_data(
                self, X, reset=reset, accept_sparse=["csr", "csc"] if self._accepts_sparse() else False,
                dtype=None, ensure_all_finite=False,
            )
        _check_no_infinity(X, who, getattr(self, "feature_names_in_", None))
        return X

    def _check_y(self, y, n):
        """Validate the labels: one per row, none missing or infinite, all of one type."""
        who = self._who
        if y is None:
            raise ValueError(f"{who} requires y to be passed, but the target y is None.")
        # Look at a list's Python objects before NumPy coerces them (["a", 1] would become strings).
        from_list = not hasattr(y, "dtype")
        y = np.asarray(y, dtype=object) if from_list else np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)  # DataConversionWarning, as scikit-learn
        if y.ndim != 1:
            raise ValueError(f"{who}: y should be a 1d array (one label per row); received shape {y.shape}.")
        if y.shape[0] != n:
            raise ValueError(f"{who}: expected one label per row of X ({n}); received {y.shape[0]} labels.")
        missing = missing_mask(y)
        if missing.any():
            raise ValueError(
                f"{who}: expected a label for every training row; y contains {int(missing.sum())} "
                "missing label(s) (None/NaN/pd.NA). Leave those rows out, or call "
                "fit_semi_supervised(X, y) to learn from the unlabelled rows too (semi-supervised EM)."
            )
        infinite = _infinite(y)
        if infinite.any():
            raise ValueError(f"{who}: expected class labels; y contains {int(infinite.sum())} infinite value(s).")
        if y.dtype == object:
            from pandas.api.types import infer_dtype

            if infer_dtype(y, skipna=False) in ("mixed", "mixed-integer"):
                kinds = sorted({type(v).__name__ for v in y})
                raise TypeError(f"{who}: expected labels of one type; y mixes {kinds}.")
            if from_list:
                y = np.asarray(y.tolist())  # the dtype NumPy gives the list (as scikit-learn)
        if y.dtype.kind in "US":  # strings are always class labels (and np.unique is not cheap)
            return y
        try:
            check_classification_targets(y)
        except ValueError as e:
            raise ValueError(f"{who}: expected class labels; {e}") from None
        return y

    def _check_weights(self, sample_weight, n):
        """Non-negative finite weights of shape (n,), not all zero, none subnormal, total <= 2**53 (ones when None)."""
        who = self._who
        if sample_weight is None:
            return np.ones(n)
        try:
            w = np.asarray(sample_weight, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(
                f"{who}: expected numeric sample_weight; received {type(sample_weight).__name__}."
            ) from None
        if w.ndim == 0:
            w = np.full(n, float(w))
        if w.shape != (n,):
            raise ValueError(f"{who}: expected sample_weight of shape ({n},); received shape {w.shape}.")
        if not np.all(np.isfinite(w)):
            raise ValueError(
                f"{who}: expected finite sample_weight; received {int((~np.isfinite(w)).sum())} "
                "non-finite weight(s)."
            )
        if np.any(w < 0):
            raise ValueError(
                f"{who}: expected sample_weight >= 0; received {int((w < 0).sum())} negative weight(s), "
                f"e.g. {float(w[w < 0][0])}."
            )
        if not w.any():
            raise ValueError(f"{who}: expected at least one positive sample_weight; received only zeros.")
        tiny = (w > 0) & (w < np.finfo(float).tiny)
        if tiny.any():
            raise ValueError(
                f"{who}: expected sample_weight of 0 or at least {np.finfo(float).tiny:.3g}; received "
                f"{int(tiny.sum())} subnormal weight(s), e.g. {float(w[tiny][0]):.3g}, too small for float64 to "
                "hold the weighted statistics precisely. Use 0 to leave a row out (a weight such as 1e-300 "
                "is accepted: it means almost no data)."
            )
        self._check_total_weight(w, 0.0)
        return w

    def _check_total_weight(self, w, already):
        """The total weight (plus ``already`` counted by earlier partial_fit calls) is at most 2**53."""
        with np.errstate(over="ignore"):
            total = float(np.sum(w)) + already
        if not total <= MAX_TOTAL_WEIGHT:
            got = "overflows float64" if not np.isfinite(total) else f"is {total:.3g}"
            earlier = f" (with {already:.3g} from earlier partial_fit calls)" if already else ""
            raise ValueError(
                f"{self._who}: expected sample_weight summing to at most 2**53 ({MAX_TOTAL_WEIGHT:.3g}), the "
                f"largest total that float64 counts exactly; the total weight{earlier} {got}. Weights are "
                "counts (a weight of 2 is a duplicated row), so they are never rescaled: divide them by a "
                "constant yourself if their scale means nothing (it sets how much the data outweigh the prior)."
            )

    def _check_class_params(self, K):
        """Validate ``class_alpha`` and ``class_prior`` for ``K`` classes."""
        who = self._who
        class_alpha, fit_prior, class_prior = self._class_params()
        try:
            a = np.asarray(class_alpha, dtype=float)
        except (TypeError, ValueError):
            a = np.array(np.nan)
        if a.ndim > 1 or (a.ndim == 1 and a.shape[0] != K) or not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ValueError(
                f"{who}: expected class_alpha to be a number >= 0 or {K} of them (one per class); "
                f"received {class_alpha!r}."
            )
        if class_prior is not None:
            try:
                p = np.asarray(class_prior, dtype=float)
            except (TypeError, ValueError):
                raise TypeError(f"{who}: expected class_prior of numbers; received {class_prior!r}.") from None
            if p.shape != (K,):
                raise ValueError(
                    f"{who}: expected class_prior with one probability per class ({K}); "
                    f"received {p.size} value(s) (shape {p.shape})."
                )
            if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
                raise ValueError(
                    f"{who}: expected class_prior of probabilities >= 0 summing to 1; "
                    f"received {p.tolist()} (sum {p.sum():g})."
                )
        return a, fit_prior, class_prior

    def _check_predictive(self):
        """The validated ``predictive`` setting."""
        predictive = self.predictive
        if predictive not in ("mean", "marginal"):
            raise ValueError(f"{self._who}: expected predictive='mean' or 'marginal'; received {predictive!r}.")
        return predictive

    # ------------------------------------------------------------------ block access
    def _take(self, X, columns, family):
        """The block's columns of ``X`` in the form its family expects."""
        all_cols = len(columns) == X.shape[1] and np.array_equal(columns, np.arange(X.shape[1]))
        if is_frame(X):
            sub = X.iloc[:, columns]
            if family.raw_values:
                return sub
            try:
                if any(getattr(t, "kind", "O") == "O" for t in sub.dtypes):  # may hold pd.NA / None
                    sub = sub.astype(object).where(sub.notna(), np.nan)
                return sub.to_numpy(dtype=float, na_value=np.nan)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{self._who}: columns {list(sub.columns)} must be numeric for a "
                    f"{type(family).__name__} block; received dtypes {sorted(set(map(str, sub.dtypes)))}."
                ) from None
        sub = X if all_cols else X[:, columns]
        if sp.issparse(sub) or family.raw_values:
            return sub
        if sub.dtype.kind not in "biuf":
            missing = missing_mask(sub)
            try:  # None / pd.NA become NaN (missing); a new array, never in place
                return np.asarray(np.where(missing, np.nan, sub) if missing.any() else sub, dtype=float)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{self._who}: a {type(family).__name__} block expects numbers; received "
                    f"dtype {sub.dtype} ({e})."
                ) from None
        return sub

    def _encode_blocks(self, X, post=None, extend=False):
        """Encode every block of ``X``; returns (encoded list, new states list)."""
        encoded, states = [], []
        if post is None:
            specs = self._specs
        else:
            specs = [(b.columns, b.family) for b in post.blocks]
        for i, (cols, fam) in enumerate(specs):
            state = None if post is None else post.blocks[i].state
            data, new_state = fam.encode(self._take(X, cols, fam), state, extend=extend, who=self._who)
            encoded.append(data)
            states.append(new_state)
        return encoded, states

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
        return self._fit(X, y, sample_weight, classes=None, partial=False)

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
        who = self._who
        first = not hasattr(self, "posterior_")
        if first and classes is None:
            raise ValueError(
                f"{who}: expected classes= (every class label) on the first call to partial_fit; "
                "received classes=None."
            )
        if not first and classes is not None:
            given = _unique_labels(np.asarray(classes), who)
            if given.shape != self.classes_.shape or not np.all(given == self.classes_):
                raise ValueError(
                    f"{who}: expected classes={self.classes_.tolist()} as in the first call to "
                    f"partial_fit; received classes={given.tolist()}."
                )
        return self._fit(X, y, sample_weight, classes=classes if first else self.classes_, partial=not first)

    def _fit(self, X, y, sample_weight, classes, partial, encode_zero_weight_rows=False):
        who = self._who
        X = self._check_X(X, reset=not partial)
        n = X.shape[0]
        y = self._check_y(y, n)
        w = self._check_weights(sample_weight, n)
        if partial:
            self._check_total_weight(w, float(np.sum(self.class_count_)))
        if partial or classes is not None:
            classes_ = self.classes_ if partial else _unique_labels(np.asarray(classes), who)
            unknown = ~np.isin(y, classes_)
            if unknown.any():
                raise ValueError(
                    f"{who}: expected labels among classes={classes_.tolist()}; received label(s) "
                    f"{_unique_labels(y[unknown], who)[:5].tolist()} that are not in classes."
                )
        else:
            classes_ = _unique_labels(y, who)
        # a zero weight is a removed row: it adds nothing, not even a category (semi-supervised
        # EM keeps its unlabelled rows for the encoding: their values are categories too)
        if not w.all() and not encode_zero_weight_rows:
            keep = w > 0
            X, y, w, n = take_rows(X, keep), y[keep], w[keep], int(keep.sum())
        K = len(classes_)
        class_alpha, fit_prior, class_prior = self._check_class_params(K)
        self._check_predictive()
        codes = np.searchsorted(classes_, y) if K > 1 else np.zeros(n, dtype=int)
        resp = np.zeros((n, K))
        resp[np.arange(n), codes] = w

        if not partial:
            self._specs = self._resolve_specs(X)
            encoded, states = self._encode_blocks(X)
            old = None
        else:
            old = self.posterior_
            encoded, states = self._encode_blocks(X, old, extend=True)
        all_names = getattr(self, "feature_names_in_", None)
        # columns with no observed value in any batch so far (a batch missing a column that
        # an earlier batch observed is not "all missing": its posterior is not the prior)
        seen_before = getattr(self, "_never_observed", None) if partial else None
        never_observed = []
        blocks = []
        for i, (cols, fam) in enumerate(self._specs):
            new_stats = fam.stats(encoded[i], resp, states[i])
            if old is not None:
                prev = old.blocks[i]
                # the batch may have extended the encoding (e.g. new categories)
                prev_stats = fam.reindex_stats(prev.stats, prev.state, states[i])
                new_stats = fam.merge(prev_stats, new_stats)
            names = ColumnNames(cols, all_names)
            allm = np.asarray(fam.all_missing(encoded[i]), dtype=bool)
            if seen_before is not None and seen_before[i].shape == allm.shape:
                allm = allm & seen_before[i]
            never_observed.append(allm)
            if allm.any():
                warn_all_missing(who, [names[j] for j in np.flatnonzero(allm)])
            blocks.append((fam, cols, names, states[i], new_stats, who))
        self._never_observed = never_observed
        class_count = resp.sum(0) + (old.class_count if old is not None else 0.0)
        self.posterior_ = _post.build(classes_, class_count, class_alpha, fit_prior, class_prior, blocks)
        self.classes_ = self.posterior_.classes
        self.class_count_ = self.posterior_.class_count
        self.class_log_prior_ = self.posterior_.class_log_prior
        self._set_attributes()
        return self

    def _resolve_specs(self, X):
        specs = []
        for cols, fam in self._block_specs(X):
            specs.append((np.asarray(cols, dtype=int), copy.deepcopy(fam)))
        return specs

    @property
    def log_evidence_(self):
        """Closed-form log marginal likelihood ``log p(X, y)`` of the training data.

        Computed from ``posterior_`` on access. None when a prior is improper
        (``alpha=0``, ``class_alpha=0`` with ``fit_prior=True``, or a Gaussian
        ``prior=None``/``"reference"``), where the evidence is undefined.
        See :func:`bayesnb.posterior.log_evidence` for the per-block parts.
        """
        check_is_fitted(self, "posterior_")
        return _post.log_evidence(self.posterior_)

    def _set_attributes(self):
        """Cache each family's prediction tables; subclasses add scikit-learn attributes."""
        self._caches = [b.family.predict_cache(b.prior, b.posterior) for b in self.posterior_.blocks]

    # -------------------------------------------------------------------- predicting
    def predict_joint_log_proba(self, X):
        """``log p(x, y=k)`` for each row and class.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are marginalised out.

        Returns
        -------
        joint_log_proba : ndarray of shape (n_samples, n_classes)
            Unnormalised log scores; columns follow ``classes_``.
        """
        check_is_fitted(self, "posterior_")
        X = self._check_X(X, reset=False)
        encoded, _ = self._encode_blocks(X, self.posterior_)
        return _post.joint_log_likelihood(self.posterior_, encoded, self._check_predictive(), self._caches)

    def predict_log_proba(self, X):
        """``log p(y=k | x)`` for each row and class.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are marginalised out.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``; normalised with logsumexp, never NaN.
        """
        jll = self.predict_joint_log_proba(X)
        return _post.normalise(jll, self.posterior_.class_log_prior, self._who)

    def predict_proba(self, X):
        """``p(y=k | x)`` for each row and class (rows sum to 1).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are marginalised out.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class of each row.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are marginalised out.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        log_proba = self.predict_log_proba(X)  # checks the fitted state first
        return self.classes_[np.argmax(log_proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = self._accepts_sparse()
        return tags


def _unique_labels(y, who):
    """Sorted unique labels; a clear TypeError when they cannot be compared."""
    try:
        return np.unique(y)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in np.ravel(y)})
        raise TypeError(f"{who}: expected labels of one type; received a mix of {kinds}.") from None


#: pandas ``infer_dtype`` results of object data that may hold a float infinity
_MAY_HOLD_FLOATS = frozenset({"floating", "mixed-integer-float", "mixed", "mixed-integer", "decimal"})


def _infinite(values: np.ndarray) -> np.ndarray:
    """Bool mask of the infinite cells of an array of any dtype (strings are never infinite)."""
    if values.dtype.kind == "f":
        return np.isinf(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape, dtype=bool)
    from pandas.api.types import infer_dtype

    flat = values.ravel()
    if infer_dtype(flat, skipna=True) not in _MAY_HOLD_FLOATS:  # e.g. all strings: no Python loop
        return np.zeros(values.shape, dtype=bool)
    mask = np.fromiter(
        (isinstance(v, (float, np.floating)) and math.isinf(v) for v in flat), dtype=bool, count=flat.size
    )
    return mask.reshape(values.shape)


def _check_no_infinity(X, who: str, names=None) -> None:
    """Raise a ValueError naming the columns of ``X`` that hold +-inf (NaN is missing, allowed)."""
    if sp.issparse(X):
        if X.dtype.kind != "f" or not np.isinf(X.data).any():
            return
        coo = X.tocoo()
        bad = np.isinf(coo.data)
        count, cols = int(bad.sum()), np.unique(coo.col[bad])
    elif is_frame(X):
        per_col = np.zeros(X.shape[1], dtype=np.int64)
        kinds = np.array([getattr(t, "kind", "O") for t in X.dtypes])
        floats = np.flatnonzero(kinds == "f")
        if floats.size:  # all float columns in one pass
            values = X.iloc[:, floats].to_numpy(dtype=np.float64, na_value=np.nan)
            per_col[floats] = np.isinf(values).sum(axis=0)
        for j in np.flatnonzero(kinds == "O"):
            per_col[j] = _infinite(np.asarray(X.iloc[:, j].to_numpy(dtype=object))).sum()
        count, cols = int(per_col.sum()), np.flatnonzero(per_col)
    else:
        mask = _infinite(X)
        if not mask.any():
            return
        count, cols = int(mask.sum()), np.flatnonzero(mask.any(axis=0))
    if count:
        shown = [str(names[c]) for c in cols[:5]] if names is not None else [int(c) for c in cols[:5]]
        raise ValueError(
            f"{who}: expected finite values in X (missing values may be NaN, None or pd.NA); "
            f"received {count} infinite value(s) in column(s) {shown}{' ...' if len(cols) > 5 else ''}."
        )


# ============================================================================ estimators
class _SingleFamilyNB(BaseNB):
    """One family over every column."""

    def _block_specs(self, X):
        return [(np.arange(X.shape[1]), self._family())]

    def _family(self):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def _block(self):
        return self.posterior_.blocks[0]


class MultinomialNB(_SingleFamilyNB):
    """Multinomial Naive Bayes (word counts) with Dirichlet priors.

    The posterior-mean parameters are scikit-learn's ``MultinomialNB`` at the same
    ``alpha`` (set ``class_alpha=0`` for its class prior).

    Parameters
    ----------
    alpha : float, "auto" or array-like of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every word (1 = Laplace, 0 = maximum likelihood).
        ``"auto"`` maximises the closed-form evidence (empirical Bayes).
    fit_prior : bool, default=True
        Learn class proportions; False uses a uniform class prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed class probabilities.
    class_alpha : float or array-like, default=1.0
        Dirichlet pseudo-count of each class in the class-proportion prior.
    predictive : {"mean", "marginal"}, default="mean"
        Posterior-mean plug-in, or the exact Dirichlet-multinomial predictive.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Posterior-mean ``log theta``.
    alpha_ : float or ndarray
        The smoothing used (the evidence-maximising value for ``alpha="auto"``).
    log_evidence_ : float or None
        ``log p(X, y)`` in closed form (None under an improper prior).
    posterior_ : NBPosterior
        The full posterior (class proportions and every block), a typed NamedTuple.
    n_features_in_ : int
        Number of columns seen in fit.
    feature_names_in_ : ndarray of str of shape (n_features_in_,)
        Column names, only when fitted on a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 1, 0], [0, 1, 3]]); y = np.array(["a", "b"])
    >>> MultinomialNB().fit(X, y).predict([[3, 0, 0]])
    array(['a'], dtype='<U1')
    """

    def __init__(self, *, alpha=1.0, fit_prior=True, class_prior=None, class_alpha=1.0, predictive="mean"):
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha
        self.predictive = predictive

    def _family(self):
        return Multinomial(alpha=self.alpha)

    def _accepts_sparse(self):
        return True

    def _set_attributes(self):
        super()._set_attributes()
        b = self._block
        self.feature_count_ = b.stats.counts
        self.feature_log_prob_ = self._caches[0][0].T  # posterior-mean log theta, (K, d)
        a = b.prior.concentration[0]  # the same Dirichlet for every class
        self.alpha_ = float(a[0]) if np.all(a == a[0]) else a.copy()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True  # as scikit-learn's MultinomialNB
        return tags


class BernoulliNB(_SingleFamilyNB):
    """Bernoulli Naive Bayes (binary features, absence scored) with Beta priors.

    Posterior-mean parameters equal scikit-learn's ``BernoulliNB`` at the same ``alpha``
    (with ``class_alpha=0``).

    Parameters
    ----------
    alpha : float or "auto", default=1.0
        Beta pseudo-count of each outcome; ``"auto"`` maximises the evidence.
    binarize : float or None, default=0.0
        Threshold for turning values into 0/1 (as scikit-learn). None requires 0/1
        input and rejects other values with an error.
    fit_prior, class_prior, class_alpha, predictive
        As in :class:`MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_, alpha_,
    n_features_in_, feature_names_in_
        As in :class:`MultinomialNB`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted count of 1s.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Posterior-mean ``log p(x_j = 1 | y)``.
    """

    def __init__(self, *, alpha=1.0, binarize=0.0, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean"):
        self.alpha = alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha
        self.predictive = predictive

    def _family(self):
        return Bernoulli(alpha=self.alpha, binarize=self.binarize)

    def _accepts_sparse(self):
        return True

    def _set_attributes(self):
        super()._set_attributes()
        b = self._block
        self.feature_count_ = b.stats.ones
        self.feature_log_prob_ = self._caches[0][0]  # posterior-mean log p(x_j = 1 | y)
        self.alpha_ = float(b.prior.a.flat[0]) if b.prior.a.size else float("nan")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # as scikit-learn's BernoulliNB
        return tags


class CategoricalNB(_SingleFamilyNB):
    """Categorical Naive Bayes with Dirichlet priors; any value type, missing allowed.

    Posterior-mean parameters equal scikit-learn's ``CategoricalNB`` at the same
    ``alpha`` (with ``class_alpha=0`` and the same categories).

    Parameters
    ----------
    alpha : float, "auto", array-like or dict, default=1.0
        Dirichlet pseudo-count per value (see :class:`bayesnb.families.Categorical`).
    categories : "auto", list or list of lists, default="auto"
        Declared categories.
    min_categories : int or array-like, optional
        As scikit-learn, for integer-coded features.
    fit_prior, class_prior, class_alpha, predictive
        As in :class:`MultinomialNB`.

    Attributes
    ----------
    categories_ : list of ndarray
        The categories of each feature (code order).
    n_categories_ : ndarray of shape (n_features,)
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j)
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`MultinomialNB`.
    """

    def __init__(self, *, alpha=1.0, categories="auto", min_categories=None, fit_prior=True,
                 class_prior=None, class_alpha=1.0, predictive="mean"):
        self.alpha = alpha
        self.categories = categories
        self.min_categories = min_categories
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha
        self.predictive = predictive

    def _family(self):
        return Categorical(alpha=self.alpha, categories=self.categories, min_categories=self.min_categories)

    def _set_attributes(self):
        super()._set_attributes()
        from .families.categorical import log_probs

        b = self._block
        self.categories_ = list(b.state.categories)
        self.n_categories_ = np.array([len(c) for c in b.state.categories])
        self.category_count_ = list(b.stats.counts)
        self.feature_log_prob_ = log_probs(b.posterior)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


class GaussianNB(_SingleFamilyNB):
    """Gaussian Naive Bayes with Normal-Inverse-Gamma priors.

    ``prior=None`` is maximum likelihood and equals scikit-learn's
    ``GaussianNB(var_smoothing=0)`` (with ``class_alpha=0``); the default ``"auto"``
    is a weak prior scaled to the data, so zero-variance features need no smoothing hack.
    scikit-learn's ``var_smoothing`` is therefore deliberately not a parameter here: the
    prior does its job (``prior="reference"`` gives the unbiased n - 1 variances).

    Parameters
    ----------
    prior : {"auto", None, "reference"} or dict, default="auto"
        See :class:`bayesnb.families.Gaussian`.
    priors : array-like of shape (n_classes,), optional
        Fixed class probabilities (scikit-learn's name; same as ``class_prior``).
    class_prior : array-like of shape (n_classes,), optional
        Fixed class probabilities.
    fit_prior, class_alpha, predictive
        As in :class:`MultinomialNB`; ``predictive="marginal"`` uses Student-t.

    Attributes
    ----------
    theta_ : ndarray of shape (n_classes, n_features)
        Posterior mean of each class mean.
    var_ : ndarray of shape (n_classes, n_features)
        Plug-in variance ``b_n / a_n`` (the MLE under ``prior=None``).
    class_prior_ : ndarray of shape (n_classes,)
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`MultinomialNB`.
    """

    def __init__(self, *, prior="auto", priors=None, class_prior=None, fit_prior=True, class_alpha=1.0,
                 predictive="mean"):
        self.prior = prior
        self.priors = priors
        self.class_prior = class_prior
        self.fit_prior = fit_prior
        self.class_alpha = class_alpha
        self.predictive = predictive

    def _class_params(self):
        if self.priors is not None and self.class_prior is not None:
            raise ValueError(
                f"{self._who}: expected either priors or class_prior (the same thing), not both; "
                f"received priors={self.priors!r} and class_prior={self.class_prior!r}."
            )
        cp = self.class_prior if self.class_prior is not None else self.priors
        return self.class_alpha, self.fit_prior, cp

    def _family(self):
        return Gaussian(prior=self.prior)

    def _set_attributes(self):
        super()._set_attributes()
        from .families.gaussian import plug_in

        mu, var = plug_in(self._block.posterior)
        self.theta_, self.var_ = mu, var
        self.class_prior_ = np.exp(self.class_log_prior_)


class NaiveBayes(BaseNB):
    """Naive Bayes over a table that mixes feature families, one block per group of columns.

    Parameters
    ----------
    features : "auto" or dict, default="auto"
        Maps a column (name or position) or a tuple of columns to a family instance,
        e.g. ``{"dish": Categorical(), ("w1", "w2"): Multinomial(), "sleep": Gaussian()}``.
        Every column must be covered. ``"auto"`` chooses by dtype: strings, objects,
        categoricals and bools -> :class:`Categorical` (one block), numbers ->
        :class:`Gaussian` (one block).
    fit_prior, class_prior, class_alpha, predictive
        As in :class:`MultinomialNB`.

    Attributes
    ----------
    blocks_ : list of (list of str, Family)
        The resolved blocks: column names and family.
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`MultinomialNB`.
    """

    def __init__(self, features="auto", *, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean"):
        self.features = features
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha
        self.predictive = predictive

    def _accepts_sparse(self):
        feats = self.features
        return (isinstance(feats, dict) and len(feats) > 0
                and all(getattr(f, "accepts_sparse", False) for f in feats.values()))

    def _sparse_hint(self):
        if isinstance(self.features, dict):
            dense = sorted({type(f).__name__ for f in self.features.values()
                            if not getattr(f, "accepts_sparse", False)})
            return f"Its {dense} block(s) need dense data: convert with X.toarray()."
        return ("features='auto' chooses Categorical/Gaussian blocks, which need dense data: "
                "convert with X.toarray(), or map the columns to Multinomial()/Bernoulli() in features.")

    def _block_specs(self, X):
        """Resolve ``features`` to ``[(column positions, family), ...]`` covering every column once."""
        from .families._base import Family

        who = self._who
        n_cols = X.shape[1]
        names = list(X.columns) if is_frame(X) else None
        features = self.features
        if isinstance(features, str) and features == "auto":
            return auto_blocks(X)
        if not isinstance(features, dict):
            raise TypeError(
                f"{who}: expected features='auto' or a dict mapping columns to families; "
                f"received {features!r}."
            )
        shown_columns = names if names is not None else f"positions 0..{n_cols - 1}"

        def position(key):
            if names is not None and key in names:
                return names.index(key)
            if isinstance(key, numbers.Integral) and not isinstance(key, bool) and -n_cols <= key < n_cols:
                return int(key) % n_cols
            raise ValueError(
                f"{who}: features names column {key!r}, which is not in X; expected one of the "
                f"columns of X ({shown_columns})."
            )

        specs, owner = [], {}
        for key, fam in features.items():
            if not isinstance(fam, Family):
                got = (f"the class {fam.__name__} (instantiate it: {fam.__name__}())"
                       if isinstance(fam, type) else f"{type(fam).__name__} {fam!r}")
                raise TypeError(
                    f"{who}: features[{key!r}] must be a family instance such as Categorical(), "
                    f"Gaussian(), Multinomial() or Bernoulli(); received {got}."
                )
            keys = list(key) if isinstance(key, (tuple, list)) else [key]
            if not keys:
                raise ValueError(f"{who}: features key {key!r} names no column; expected at least one.")
            cols = [position(k) for k in keys]
            for c in cols:
                if c in owner:
                    label = c if names is None else names[c]
                    raise ValueError(
                        f"{who}: expected each column in exactly one block; column {label!r} is "
                        f"assigned twice (in features[{owner[c]!r}] and features[{key!r}])."
                    )
                owner[c] = key
            specs.append((cols, fam))
        unassigned = [c for c in range(n_cols) if c not in owner]
        if unassigned:
            shown = unassigned if names is None else [names[c] for c in unassigned]
            raise ValueError(
                f"{who}: expected every column of X in features; column(s) {shown} are not "
                "assigned a family (map them, or use features='auto')."
            )
        return specs

    def _set_attributes(self):
        super()._set_attributes()
        self.blocks_ = [(list(b.names), b.family) for b in self.posterior_.blocks]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def auto_blocks(X, categorical=None):
    """``features="auto"``: Categorical for non-numeric/bool columns, Gaussian for numeric ones.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n_samples, n_features)
    categorical : Categorical, optional
        The family of the categorical block (default ``Categorical()``).

    Returns
    -------
    list of (list of int, Family)
        Column positions and family of each block.
    """
    if is_frame(X):
        import pandas as pd

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
    cat = [j for j, k in enumerate(kinds) if k not in "iuf"]
    num = [j for j, k in enumerate(kinds) if k in "iuf"]
    specs = []
    if cat:
        specs.append((cat, Categorical() if categorical is None else categorical))
    if num:
        specs.append((num, Gaussian()))
    return specs
