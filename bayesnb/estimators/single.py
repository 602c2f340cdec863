"""The single-family estimators: one family over every column, scikit-learn's names and attributes."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..families import Bernoulli, Categorical, Complement, Gaussian, Multinomial
from ..families.categorical import log_probs
from ..families.gaussian import plug_in
from . import validation as _val
from ._basenb import BaseNB
from ._structured import STRUCTURE_CONSTRAINTS, StructureMixin


class _SingleFamilyNB(BaseNB):
    """One family over every column; ``_family()`` builds it from the estimator's parameters."""

    def _block_specs(self, X, resp=None):
        return [(np.arange(X.shape[1]), self._family())]

    def _family(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _accepts_sparse(self):
        return bool(getattr(self._family(), "accepts_sparse", False))

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
    fit_prior, class_prior, class_alpha, privacy
        As in :class:`BaseNB`.
    predictive : {"mean", "marginal"}, default="mean"
        Posterior-mean plug-in, or the exact Dirichlet-multinomial predictive.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted count of each word in each class.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Posterior-mean ``log theta``.
    alpha_ : float or ndarray
        The smoothing used (the evidence-maximising value for ``alpha="auto"``).
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 1, 0], [0, 1, 3]]); y = np.array(["a", "b"])
    >>> MultinomialNB().fit(X, y).predict([[3, 0, 0]])
    array(['a'], dtype='<U1')
    """

    _parameter_constraints: ClassVar[dict] = _val.constraints("alpha")
    _input_tags: ClassVar[dict] = {"positive_only": True}
    _poor_score = True  # as scikit-learn's MultinomialNB

    def __init__(self, *, alpha=1.0, fit_prior=True, class_prior=None, class_alpha=1.0, predictive="mean",
                 privacy=None):
        self.alpha = alpha
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive,
                         privacy=privacy)

    def _family(self):
        return Multinomial(alpha=self.alpha)

    def _set_attributes(self):
        super()._set_attributes()
        a = self._block.prior.concentration[0]  # the same Dirichlet for every class
        self.feature_count_ = self._block.stats.counts
        self.feature_log_prob_ = self._caches[0][0].T  # posterior-mean log theta, (K, d)
        self.alpha_ = float(a[0]) if np.all(a == a[0]) else a.copy()


class ComplementNB(_SingleFamilyNB):
    """Complement Naive Bayes (Rennie et al. 2003): the multinomial model, classified by complement weights.

    ``predict``, ``predict_proba``, ``predict_log_proba`` and ``predict_joint_log_proba``
    equal scikit-learn's ``ComplementNB`` at the same ``alpha`` and ``norm``: each class is
    scored by ``x @ w[k]`` with ``w[k, j] = -log theta_c[k, j]``, ``theta_c[k]`` the
    smoothed word distribution of all the *other* classes pooled (``norm=True``: ``log
    theta_c`` divided by its sum over the words); the class prior is added only when there
    is a single class. These weights are a plug-in of the posterior-mean counts, a
    heuristic decision rule rather than a posterior predictive.

    The fitted model is the multinomial one: ``posterior_``, ``log_evidence_``, the exact
    draws, MCMC and the generative methods (``sample``, ``impute``, ``score_samples``) are
    those of :class:`MultinomialNB` with the same ``alpha``, the per-class Dirichlet, and so
    is ``predict_proba_draws`` (exact draws of the
    multinomial ``p(y | x, theta)``: the complement weights have no posterior of their own).

    Parameters
    ----------
    alpha : float, "auto" or array-like of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every word (1 = Laplace), of each class's and each
        complement's distribution. ``alpha=0`` is refused when a complement has a word
        with no count (its weight would be infinite).
    norm : bool, default=False
        Rennie et al.'s second normalisation of the weights (scikit-learn's ``norm``).
    fit_prior, class_prior, class_alpha, privacy
        As in :class:`BaseNB`; the class prior enters the predictions only with one class,
        as in scikit-learn, and the generative methods always.
    predictive : {"mean", "marginal"}, default="mean"
        For the generative methods (plug-in or Dirichlet-multinomial); ``predict*`` uses the
        plug-in complement weights either way.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted count of each word in each class.
    feature_all_ : ndarray of shape (n_features,)
        Weighted count of each word over every class.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights ``w`` (scikit-learn's name for them).
    alpha_ : float or ndarray
        The smoothing used (the evidence-maximising value for ``alpha="auto"``).
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.

    References
    ----------
    Rennie, J. D., Shih, L., Teevan, J., & Karger, D. R. (2003). Tackling the poor
    assumptions of naive Bayes text classifiers. ICML, 616-623.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2, 1, 0], [0, 1, 3], [3, 0, 0]]); y = np.array(["a", "b", "a"])
    >>> ComplementNB().fit(X, y).predict([[3, 0, 1]])
    array(['a'], dtype='<U1')
    """

    _parameter_constraints: ClassVar[dict] = _val.constraints("alpha", "norm")
    _input_tags: ClassVar[dict] = {"positive_only": True}
    _poor_score = True

    def __init__(self, *, alpha=1.0, norm=False, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean", privacy=None):
        self.alpha = alpha
        self.norm = norm
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive,
                         privacy=privacy)

    def _family(self):
        return Complement(alpha=self.alpha, norm=self.norm)

    def _set_attributes(self):
        super()._set_attributes()
        b = self._block
        a = b.prior.concentration[0]
        self.feature_count_ = b.stats.counts
        self.feature_all_ = b.stats.counts.sum(axis=0)
        self.feature_log_prob_ = b.family.complement_weights(b.prior, b.posterior, self._caches[0])
        self.alpha_ = float(a[0]) if np.all(a == a[0]) else a.copy()


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
    fit_prior, class_prior, class_alpha, predictive, privacy
        As in :class:`BaseNB`.

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted count of 1s.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Posterior-mean ``log p(x_j = 1 | y)``.
    alpha_ : float
        The smoothing used (the evidence-maximising value for ``alpha="auto"``).
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.
    """

    _parameter_constraints: ClassVar[dict] = _val.constraints("alpha", "binarize")
    _poor_score = True  # as scikit-learn's BernoulliNB

    def __init__(self, *, alpha=1.0, binarize=0.0, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean", privacy=None):
        self.alpha = alpha
        self.binarize = binarize
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive,
                         privacy=privacy)

    def _family(self):
        return Bernoulli(alpha=self.alpha, binarize=self.binarize)

    def _set_attributes(self):
        super()._set_attributes()
        b = self._block
        self.feature_count_ = b.stats.ones
        self.feature_log_prob_ = self._caches[0][0]  # posterior-mean log p(x_j = 1 | y)
        self.alpha_ = float(b.prior.a.flat[0]) if b.prior.a.size else float("nan")


class CategoricalNB(StructureMixin, _SingleFamilyNB):
    """Categorical Naive Bayes with Dirichlet priors; any value type, missing allowed.

    Posterior-mean parameters equal scikit-learn's ``CategoricalNB`` at the same
    ``alpha`` (with ``class_alpha=0`` and the same categories).

    Parameters
    ----------
    alpha : float, "auto", "hierarchical", array-like, dict or None, default=None
        Dirichlet pseudo-count per value (see :class:`bayesnb.families.Categorical`).
        ``"hierarchical"`` centres each (class, parents) context's Dirichlet on its parent
        context's estimate, up to the context of all classes (docs/structure.md,
        "Hierarchical smoothing"); under ``structure="naive"`` each class is centred on the
        all-classes estimate, as a structure's node without parents. None (unset) is each
        structure's default: ``alpha=1`` for naive and TAN, ``"hierarchical"`` for k-DB;
        ``structure="auto"`` then compares both smoothings of naive, TAN and k-DB.
    categories : "auto", list or list of lists, default="auto"
        Declared categories.
    min_categories : int or array-like, optional
        As scikit-learn, for integer-coded features.
    structure : {"naive", "tan", "kdb", "auto"}, default="naive"
        Which features each feature depends on besides the class: none (naive), a Chow-Liu
        tree on ``I(X_i; X_j | Y)`` (TAN), up to ``k`` parents each (k-DB), or the one of the
        three with the highest closed-form log evidence (docs/structure.md).
    k : int, default=2
        Number of parents per feature under ``structure="kdb"`` (and ``"auto"``'s k-DB).
    auto_cv : bool, default=True
        With ``structure="auto"``: check the evidence's choice against naive by 5-fold
        cross-validated log loss, and keep naive when the choice is worse by more than one
        standard error (docs/structure.md, "The candidates, and the cross-validation check").
        False skips it (about ten fits fewer).
    forbidden_edges : list of (feature, feature) pairs, optional
        Structure constraints: neither feature of a pair is ever a parent of the other under
        ``"tan"``, ``"kdb"`` or ``"auto"`` (features by name when fitted on a DataFrame, else by
        position). None: every edge may be learned.
    fit_prior, class_prior, class_alpha, predictive, privacy
        As in :class:`BaseNB`.

    Attributes
    ----------
    structure_ : dict
        Feature name -> tuple of its parent features' names (empty under naive).
    structure_hierarchical_ : bool
        Whether the structure's categorical and Histogram nodes use hierarchical smoothing because
        ``alpha`` was left unset (k-DB's default, or ``"auto"``'s hierarchical candidates, naive's included).
    structure_scores_ : DataFrame
        Only with ``structure="auto"``: ``structure``, ``log_evidence`` (``log p(y) + sum_j
        log p(x_j | y, pa_j)``, feature ``j`` on the rows where it and every parent it has in any
        candidate are observed, the same cells for every candidate; ``log p(X, y)`` when no cell
        is missing), ``n_cells`` (how many cells that is), ``cv_log_loss`` and ``cv_diff_se``
        (the cross-validation check of ``auto_cv``), ``chosen``.
    categories_ : list of ndarray
        The categories of each feature (code order).
    n_categories_ : ndarray of shape (n_features,)
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j)
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.
    """

    _parameter_constraints: ClassVar[dict] = {**_val.constraints("alpha", "categories", "min_categories"),
                                              "alpha": [Real, StrOptions({"auto", "hierarchical"}), "array-like",
                                                        None],
                                              **STRUCTURE_CONSTRAINTS}
    _input_tags: ClassVar[dict] = {"categorical": True, "string": True}

    def __init__(self, *, alpha=None, categories="auto", min_categories=None, structure="naive", k=2,
                 auto_cv=True, forbidden_edges=None, fit_prior=True, class_prior=None, class_alpha=1.0,
                 predictive="mean", privacy=None):
        self.alpha = alpha
        self.categories = categories
        self.min_categories = min_categories
        self.structure = structure
        self.k = k
        self.auto_cv = auto_cv
        self.forbidden_edges = forbidden_edges
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive,
                         privacy=privacy)

    def _family(self):
        alpha = 1.0 if self.alpha is None else self.alpha  # unset: 1 (k-DB's nodes: structure_hierarchical_)
        return Categorical(alpha=alpha, categories=self.categories, min_categories=self.min_categories)

    def _set_attributes(self):
        super()._set_attributes()
        b = self._block
        self.categories_ = list(b.state.categories)
        self.n_categories_ = np.array([len(c) for c in b.state.categories])
        self.category_count_ = list(b.stats.counts)
        self.feature_log_prob_ = log_probs(b.posterior)


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
        As in :class:`BaseNB`; ``predictive="marginal"`` uses Student-t.

    Attributes
    ----------
    theta_ : ndarray of shape (n_classes, n_features)
        Posterior mean of each class mean.
    var_ : ndarray of shape (n_classes, n_features)
        Plug-in variance ``b_n / a_n`` (the MLE under ``prior=None``).
    class_prior_ : ndarray of shape (n_classes,)
    classes_, class_count_, class_log_prior_, log_evidence_, posterior_,
    n_features_in_, feature_names_in_
        As in :class:`BaseNB`.
    """

    _parameter_constraints: ClassVar[dict] = _val.constraints("prior", "priors")

    def __init__(self, *, prior="auto", priors=None, class_prior=None, fit_prior=True, class_alpha=1.0,
                 predictive="mean", privacy=None):
        self.prior = prior
        self.priors = priors
        super().__init__(fit_prior=fit_prior, class_prior=class_prior, class_alpha=class_alpha, predictive=predictive,
                         privacy=privacy)

    def _class_params(self):
        return self.class_alpha, self.fit_prior, _val.merge_priors(self.priors, self.class_prior, self._who)

    def _family(self):
        return Gaussian(prior=self.prior)

    def _set_attributes(self):
        super()._set_attributes()
        self.theta_, self.var_ = plug_in(self._block.posterior)
        self.class_prior_ = np.exp(self.class_log_prior_)
