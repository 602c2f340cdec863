"""scikit-learn estimators: validate, encode, call the core, store attributes.

All public methods live in :class:`BaseNB`; the subclasses only choose their feature
blocks (one family over all columns, or ``NaiveBayes(features=...)`` for a mix).

Missing values (NaN, None, ``pd.NA``) are allowed in ``X`` for fitting and for every
predict method. They are treated as *missing at random*: in fit the cell is left out
of that feature's statistics; in prediction the feature is marginalised out, which
for Naive Bayes drops its factor (for a Multinomial block the row is scored over its
observed columns).
"""

from __future__ import annotations

import copy
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_array, check_is_fitted, validate_data

from . import posterior as _post
from ._utils import warn_all_missing
from .generative import GenerativeMixin
from .model import PosteriorMixin
from .persistence import PersistenceMixin
from .families import Bernoulli, Categorical, Gaussian, Multinomial
from .families.multinomial import log_theta

__all__ = ["BaseNB", "NaiveBayes", "MultinomialNB", "BernoulliNB", "CategoricalNB", "GaussianNB"]


def _is_frame(X) -> bool:
    return hasattr(X, "iloc") and hasattr(X, "columns")


class BaseNB(PosteriorMixin, GenerativeMixin, PersistenceMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / partial_fit / predict machinery of every bayesnb classifier.

    Subclasses implement ``_block_specs(X)`` returning ``[(columns, family), ...]``.
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
        return (getattr(self, "class_alpha", 1.0), getattr(self, "fit_prior", True),
                getattr(self, "class_prior", None))

    # ------------------------------------------------------------------- validation
    def _check_X(self, X, reset: bool):
        """Validate shape / names / sparsity; keep DataFrames and object arrays as they are."""
        who = self._who
        if _is_frame(X):
            validate_data(self, X, skip_check_array=True, reset=reset)
            if X.shape[0] == 0 or X.shape[1] == 0:
                raise ValueError(f"{who}: X is empty (shape {X.shape}); expected at least one row and one column.")
            return X
        if sp.issparse(X) and not self._accepts_sparse():
            raise TypeError(
                f"{who}: received a sparse matrix, but this model has a block that needs "
                "dense data (Categorical/Gaussian). Use .toarray() or Multinomial/Bernoulli blocks."
            )
        X = check_array(
            X, accept_sparse=["csr", "csc"] if self._accepts_sparse() else False,
            dtype=None, ensure_all_finite=False, estimator=self, input_name="X",
        )
        validate_data(self, X, skip_check_array=True, reset=reset)
        return X

    def _check_y(self, y, n):
        who = self._who
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(f"{who}: y must be 1-D (one label per row); received shape {y.shape}.")
        if y.shape[0] != n:
            raise ValueError(f"{who}: X has {n} rows but y has {y.shape[0]} labels.")
        if y.dtype == object:
            kinds = {type(v).__name__ for v in y if v is not None}
            numeric = {"int", "float", "bool"} | {t for t in kinds if t.startswith(("int", "float", "uint"))}
            if len(kinds) > 1 and not kinds <= numeric:
                raise TypeError(f"{who}: y mixes label types {sorted(kinds)}; expected labels of one type.")
        from ._utils import missing_mask

        if missing_mask(y).any():
            raise ValueError(
                f"{who}: y contains {int(missing_mask(y).sum())} missing label(s) (None/NaN); "
                "every training row needs a label."
            )
        check_classification_targets(y)
        return y

    def _check_weights(self, sample_weight, n):
        if sample_weight is None:
            return np.ones(n)
        w = np.asarray(sample_weight, dtype=float)
        if w.ndim == 0:
            w = np.full(n, float(w))
        if w.shape != (n,):
            raise ValueError(f"{self._who}: sample_weight has shape {w.shape}; expected ({n},).")
        if not np.all(np.isfinite(w)):
            raise ValueError(f"{self._who}: sample_weight must be finite.")
        if np.any(w < 0):
            raise ValueError(
                f"{self._who}: sample_weight must be >= 0; received {int((w < 0).sum())} negative weight(s)."
            )
        return _check_sample_weight(w, np.empty((n, 0)))

    def _check_class_params(self, K):
        who = self._who
        class_alpha, fit_prior, class_prior = self._class_params()
        a = np.asarray(class_alpha, dtype=float)
        if a.ndim > 1 or (a.ndim == 1 and a.shape[0] != K) or not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ValueError(f"{who}: class_alpha must be a number >= 0 or {K} of them; received {class_alpha!r}.")
        if class_prior is not None:
            p = np.asarray(class_prior, dtype=float)
            if p.shape != (K,):
                raise ValueError(f"{who}: class_prior has {p.size} entries; expected one per class ({K}).")
            if np.any(p < 0) or not np.isclose(p.sum(), 1.0):
                raise ValueError(f"{who}: class_prior must be >= 0 and sum to 1; received sum {p.sum():g}.")
        return a, fit_prior, class_prior

    def _check_predictive(self):
        predictive = getattr(self, "predictive", "mean")
        if predictive not in ("mean", "marginal"):
            raise ValueError(f"{self._who}: predictive must be 'mean' or 'marginal'; received {predictive!r}.")
        return predictive

    # ------------------------------------------------------------------ block access
    def _take(self, X, columns, family):
        """The block's columns of ``X`` in the form its family expects."""
        all_cols = len(columns) == X.shape[1] and np.array_equal(columns, np.arange(X.shape[1]))
        if _is_frame(X):
            sub = X.iloc[:, columns]
            if isinstance(family, Categorical):
                return sub
            try:
                return sub.to_numpy(dtype=float, na_value=np.nan)
            except (TypeError, ValueError):
                raise TypeError(
                    f"{self._who}: columns {list(sub.columns)} must be numeric for a "
                    f"{type(family).__name__} block; received dtypes {sorted(set(map(str, sub.dtypes)))}."
                ) from None
        sub = X if all_cols else X[:, columns]
        if sp.issparse(sub) or isinstance(family, Categorical):
            return sub
        if sub.dtype.kind not in "biuf":
            try:
                return np.asarray(sub, dtype=float)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"{self._who}: a {type(family).__name__} block needs numbers; received "
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

    # ----------------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the posterior to labelled data.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Training data; missing cells (NaN/None/pd.NA) are left out of their feature's
            statistics (missing at random).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; a weight of 2 is exactly a duplicated row.

        Returns
        -------
        self
        """
        for attr in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
            delattr(self, attr)
        if self._has_missing_labels(y):  # semi-supervised EM (generative.py)
            return self.fit_semi_supervised(X, y, sample_weight=sample_weight)
        return self._fit(X, y, sample_weight, classes=None, partial=False)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of labelled data to the posterior (counts accumulate).

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`fit`.
        classes : array-like of shape (n_classes,), optional
            All class labels; required on the first call, ignored afterwards if equal.

        Returns
        -------
        self
        """
        first = not hasattr(self, "posterior_")
        if first and classes is None:
            raise ValueError(f"{self._who}: classes must be passed on the first call to partial_fit.")
        if not first and classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"{self._who}: classes={list(np.unique(classes))} differs from the classes of the "
                f"first partial_fit call {list(self.classes_)}."
            )
        return self._fit(X, y, sample_weight, classes=classes if first else self.classes_, partial=not first)

    def _fit(self, X, y, sample_weight, classes, partial):
        who = self._who
        X = self._check_X(X, reset=not partial)
        n = X.shape[0]
        y = self._check_y(y, n)
        w = self._check_weights(sample_weight, n)
        if partial or classes is not None:
            classes_ = self.classes_ if partial else _unique_labels(np.asarray(classes), who)
            unknown = ~np.isin(y, classes_)
            if unknown.any():
                raise ValueError(
                    f"{who}: y has label(s) {list(np.unique(y[unknown]))[:5]} that are not in "
                    f"classes {list(classes_)}."
                )
        else:
            classes_ = _unique_labels(y, who)
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
        names = self._feature_names(X)
        blocks = []
        for i, (cols, fam) in enumerate(self._specs):
            new_stats = fam.stats(encoded[i], resp, states[i])
            if old is not None:
                prev = old.blocks[i]
                prev_stats = prev.stats
                if isinstance(fam, Categorical) and states[i] != prev.state:
                    from .families.categorical import reindex_stats

                    prev_stats = reindex_stats(prev_stats, prev.state, states[i])
                new_stats = fam.merge(prev_stats, new_stats)
            allm = fam.all_missing(encoded[i])
            if allm.any():
                warn_all_missing(who, [names[c] for c in np.asarray(cols)[allm]])
            blocks.append((fam, cols, [names[c] for c in cols], states[i], new_stats, who))
        class_count = resp.sum(0) + (old.class_count if old is not None else 0.0)
        self.posterior_ = _post.build(classes_, class_count, class_alpha, fit_prior, class_prior, blocks)
        self.classes_ = self.posterior_.classes
        self.class_count_ = self.posterior_.class_count
        self.class_log_prior_ = self.posterior_.class_log_prior
        self.log_evidence_ = _post.log_evidence(self.posterior_)
        self._set_attributes()
        return self

    def _feature_names(self, X):
        if hasattr(self, "feature_names_in_"):
            return [str(c) for c in self.feature_names_in_]
        return [f"x{j}" for j in range(X.shape[1])]

    def _resolve_specs(self, X):
        specs = []
        for cols, fam in self._block_specs(X):
            specs.append((np.asarray(cols, dtype=int), copy.deepcopy(fam)))
        return specs

    def _set_attributes(self):
        """Subclasses copy posterior means into scikit-learn-style attributes."""
        self._caches = [None] * len(self.posterior_.blocks)

    # -------------------------------------------------------------------- predicting
    def predict_joint_log_proba(self, X):
        """``log p(x, y=k)`` for each row and class.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Missing cells are marginalised out.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
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

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns follow ``classes_``.
        """
        jll = self.predict_joint_log_proba(X)
        return _post.normalise(jll, self.posterior_.class_log_prior, self._who)

    def predict_proba(self, X):
        """``p(y=k | x)`` for each row and class (rows sum to 1).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class of each row.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = self._accepts_sparse()
        return tags


def _unique_labels(y, who):
    try:
        return np.unique(y)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in np.ravel(y)})
        raise TypeError(f"{who}: labels mix types {kinds}; expected labels of one type.") from None


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
    n_features_in_ : int
    feature_names_in_ : ndarray of str

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
        b = self._block
        lt = log_theta(b.posterior)
        self.feature_count_ = b.stats.counts
        self.feature_log_prob_ = lt
        a = b.prior.concentration
        self.alpha_ = float(a.flat[0]) if np.all(a == a.flat[0]) else a[0].copy()
        self._caches = [np.ascontiguousarray(lt.T)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
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
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_, alpha_
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
        with np.errstate(divide="ignore", invalid="ignore"):
            self.feature_log_prob_ = np.log(b.posterior.a) - np.log(b.posterior.a + b.posterior.b)
        self.alpha_ = float(b.prior.a.flat[0]) if b.prior.a.size else float("nan")


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
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_
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
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_
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
            raise ValueError("GaussianNB: give either priors or class_prior, not both.")
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
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_
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
        return isinstance(feats, dict) and all(f.accepts_sparse for f in feats.values())

    def _block_specs(self, X):
        who = self._who
        n_cols = X.shape[1]
        names = list(X.columns) if _is_frame(X) else None
        if isinstance(self.features, str):
            if self.features != "auto":
                raise ValueError(f"{who}: features must be 'auto' or a dict; received {self.features!r}.")
            return _auto_blocks(X)
        if not isinstance(self.features, dict):
            raise TypeError(f"{who}: features must be 'auto' or a dict; received {type(self.features).__name__}.")

        def position(key):
            if names is not None and key in names:
                return names.index(key)
            if isinstance(key, numbers.Integral) and not isinstance(key, bool) and -n_cols <= key < n_cols:
                return int(key) % n_cols
            raise ValueError(f"{who}: features names column {key!r}, which is not in X "
                             f"(columns: {names if names is not None else list(range(n_cols))}).")

        specs, seen = [], {}
        for key, fam in self.features.items():
            keys = list(key) if isinstance(key, (tuple, list)) else [key]
            from .families._base import Family

            if not isinstance(fam, Family):
                raise TypeError(f"{who}: features[{key!r}] must be a family such as Categorical(); "
                                f"received {type(fam).__name__}.")
            cols = [position(k) for k in keys]
            for c in cols:
                if c in seen:
                    raise ValueError(f"{who}: column {c if names is None else names[c]!r} is in two blocks.")
                seen[c] = key
            specs.append((cols, fam))
        missing = [c for c in range(n_cols) if c not in seen]
        if missing:
            shown = missing if names is None else [names[c] for c in missing]
            raise ValueError(f"{who}: column(s) {shown} are not assigned a family in features; "
                             "map every column (or use features='auto').")
        return specs

    def _set_attributes(self):
        super()._set_attributes()
        self.blocks_ = [(list(b.names), b.family) for b in self.posterior_.blocks]
        self._caches = [
            np.ascontiguousarray(log_theta(b.posterior).T) if isinstance(b.family, Multinomial) else None
            for b in self.posterior_.blocks
        ]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def _auto_blocks(X):
    """Choose Categorical for non-numeric/bool columns and Gaussian for numeric ones."""
    if _is_frame(X):
        kinds = [X[c].dtype.kind if hasattr(X[c].dtype, "kind") else "O" for c in X.columns]
        import pandas as pd

        kinds = ["O" if isinstance(X[c].dtype, pd.CategoricalDtype) else k for c, k in zip(X.columns, kinds)]
    elif sp.issparse(X):
        return [(np.arange(X.shape[1]), Multinomial())]
    else:
        X = np.asarray(X)
        if X.dtype.kind == "O":
            kinds = []
            for j in range(X.shape[1]):
                col = [v for v in X[:, j] if v is not None and not (isinstance(v, float) and np.isnan(v))]
                kinds.append("f" if col and all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                                for v in col) else "O")
        else:
            kinds = [X.dtype.kind] * X.shape[1]
    cat = [j for j, k in enumerate(kinds) if k not in "iuf"]
    num = [j for j, k in enumerate(kinds) if k in "iuf"]
    specs = []
    if cat:
        specs.append((cat, Categorical()))
    if num:
        specs.append((num, Gaussian()))
    return specs
