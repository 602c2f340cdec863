"""Semi-supervised fitting of every bayesnb estimator (:class:`SemiSupervisedMixin`, part of
:class:`~bayesnb.generative.GenerativeMixin`): EM with the closed-form conjugate M-step
(:func:`bayesnb.inference.em.fit_semi_supervised`)."""

from __future__ import annotations

import numpy as np

from .._utils import DataError
from ..inference import em
from .method_checks import check_not_private
from .tables import partial_labels

__all__ = ["SemiSupervisedMixin"]


class SemiSupervisedMixin:
    """``fit_semi_supervised``: some labels missing (Nigam et al. 2000)."""

    def _semi_supervised_em(self, X, encoded, codes, rw, labelled_weight, tol, max_iter):
        """EM of :meth:`fit_semi_supervised` once the labelled rows are fitted: a ``SemiSupervisedFit``.

        ``X`` the rows, ``encoded`` their blocks, ``codes`` their class indices (-1 unlabelled),
        ``rw`` the EM row weights, ``labelled_weight`` the sample weights of the labelled rows
        (0 for the others); a structure's override learns its structure from them first.
        """
        return em.fit_semi_supervised(self.posterior_, encoded, codes, rw, self._check_class_params(len(self.classes_)),
                                      tol=tol, max_iter=max_iter)

    def fit_semi_supervised(self, X, y, *, unlabeled="auto", sample_weight=None, unlabeled_weight=1.0, tol=1e-6,
                            max_iter=100):
        """Fit with some labels missing: EM with the closed-form conjugate M-step.

        Nigam et al. (2000). Labelled rows keep their class; unlabelled rows contribute
        with their class responsibilities, times ``unlabeled_weight``. The priors (including
        ``"auto"`` values) are resolved on the labelled rows and then held fixed. The
        M-step is the posterior mean, which is the MAP of the prior shifted by one
        pseudo-count (Dirichlet/Beta) or by ``a0 - 3/2`` (Normal-Inverse-Gamma); EM
        climbs the matching log posterior, recorded in ``em_objective_`` (never
        decreases). With every label present this is exactly :meth:`fit` (which never
        reads a label as "unlabelled": it is always supervised).

        Parameters
        ----------
        X, sample_weight
            As in ``fit``.
        y : array-like of shape (n_samples,)
            Labels, unlabelled rows marked as ``unlabeled`` says.
        unlabeled : object, default="auto"
            The marker of an unlabelled row, as in :func:`missing_labels`. A missing
            value (``None``, ``NaN``, ``pd.NA``) always marks one; ``"auto"``: so does
            ``-1`` when the labels are integers (scikit-learn's ``semi_supervised``
            convention), and integer labels holding both ``-1`` and missing values are
            an error (is ``-1`` a class?). ``None``: only missing values (``-1`` is a
            class). Any other value, e.g. ``"?"`` for string labels: labels equal to it.
        unlabeled_weight : float, default=1.0
            Weight of each unlabelled row (Nigam et al.'s lambda); 0 ignores them.
        tol : float, default=1e-6
            Stop when the relative objective change is below ``tol``.
        max_iter : int, default=100

        Returns
        -------
        self
            With ``em_objective_``, ``n_iter_``, ``converged_`` and ``transduction_``
            (the most probable label of every training row).

        Examples
        --------
        >>> import numpy as np
        >>> from bayesnb import GaussianNB
        >>> X = np.array([[0.0], [0.2], [3.0], [3.1], [0.1], [2.9]])
        >>> m = GaussianNB().fit_semi_supervised(X, [0, 0, 1, 1, -1, -1])
        >>> m.classes_.tolist(), m.transduction_.tolist()
        ([0, 1], [0, 0, 1, 1, 0, 1])
        """
        check_not_private(self, "fit_semi_supervised", "it runs EM")
        self._reset_fitted()
        who = self._who
        split = partial_labels(y, unlabeled, who)
        if split is None or not split[0].any():  # the full validation (and its message) is fit's
            return self.fit(X, y, sample_weight)
        miss, labels = split
        if miss.all():
            raise DataError(f"{who}: every label is missing; at least one labelled row is needed.")
        lam = float(unlabeled_weight)
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"{self._who}: unlabeled_weight must be >= 0; received {unlabeled_weight!r}.")
        n = miss.shape[0]
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if w.ndim == 0:
            w = np.full(n, float(w))
        y_fill = np.empty(n, dtype=labels.dtype)
        y_fill[~miss] = labels
        y_fill[miss] = labels[0]
        w0 = np.where(miss, 0.0, w) if w.shape == (n,) else w
        # validation, encoding (categories from every row, labelled or not), priors
        self._fit(X, y_fill, w0, classes=None, partial=False, encode_zero_weight_rows=True)
        self._record_target_name(y)  # y_fill is an array: keep the name of a Series y
        w = self._check_weights(sample_weight, n)
        _, encoded = self._gen_encode(X)
        K = len(self.classes_)
        codes = np.full(n, -1, dtype=np.int64)
        codes[~miss] = np.searchsorted(self.classes_, labels) if K > 1 else 0
        rw = w * np.where(miss, lam, 1.0)
        self._check_total_weight(rw, 0.0)  # unlabeled_weight scales the unlabelled rows' counts
        fit = self._semi_supervised_em(X, encoded, codes, rw, np.where(miss, 0.0, w), tol, max_iter)
        post = self.posterior_ = fit.posterior
        self.classes_ = post.classes
        self.class_count_ = post.class_count
        self.class_log_prior_ = post.class_log_prior
        self._set_attributes()
        self.em_objective_ = fit.em_objective
        self.n_iter_ = len(fit.em_objective) - 1
        self.converged_ = fit.converged
        self.transduction_ = self.classes_[fit.transduction]
        return self
