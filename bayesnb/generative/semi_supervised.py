"""Semi-supervised fitting of every bayesnb estimator (:class:`SemiSupervisedMixin`, part of
:class:`~bayesnb.generative.GenerativeMixin`): EM with the closed-form conjugate M-step
(:func:`bayesnb.inference.em.fit_semi_supervised`); under ``privacy=DP(...)``, the labelled rows released
as ``fit`` releases them and EM on unlabelled rows declared public
(:func:`bayesnb.inference.private_em.fit_public_unlabelled`)."""

from __future__ import annotations

import numpy as np

from .._utils import DataError, take_rows
from ..inference import em
from ..inference.private_em import fit_public_unlabelled
from ..inference.private_stats import public_blocks
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

    def fit_semi_supervised(self, X, y, *, unlabeled="auto", sample_weight=None, unlabeled_weight=None, tol=1e-6,
                            max_iter=100, public_unlabeled=False):
        """Fit with some labels missing: EM with the closed-form conjugate M-step.

        Nigam et al. (2000). Labelled rows keep their class; unlabelled rows contribute
        with their class responsibilities, times ``unlabeled_weight``. The priors (including
        ``"auto"`` values) are resolved on the labelled rows and then held fixed. The
        M-step is the posterior mean, which is the MAP of the prior shifted by one
        pseudo-count (Dirichlet/Beta) or by ``a0 - 3/2`` (Normal-Inverse-Gamma); EM
        climbs the matching log posterior, recorded in ``em_objective_`` (never
        decreases). With every label present this is exactly :meth:`fit` (which never
        reads a label as "unlabelled": it is always supervised).

        Under ``privacy=DP(...)`` the labelled rows are released exactly as :meth:`fit`
        releases them (same noise for the same ``random_state``, same budget and
        ``privacy_spent_``), and EM runs on the unlabelled rows only if they are declared
        public (``public_unlabeled=True``): they are read without noise. The release's
        posterior is the prior of that EM (the released statistics stay fixed; each
        unlabelled row adds its responsibility-weighted statistics, times
        ``unlabeled_weight``, counted as the release counts a private row: a count block's
        rows scaled to the declared row bound), so the result is post-processing of the
        release plus public data and costs no further budget (docs/privacy.md, "Text
        (count blocks)"). ``transduction_`` then covers the public rows only, in their
        order: the labelled rows' labels are private data, which a released model (and
        its file) must not carry. A count block's public rows are scored as given but
        counted scaled, so there ``em_objective_`` may dip.

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
        unlabeled_weight : float, optional
            Weight of each unlabelled row (Nigam et al.'s lambda); 0 ignores them. None
            (the default): 1.0, or under ``privacy=`` the weight at which each class's
            share of the public rows (their mass over the number of classes) carries the
            released statistics' whole mass (a count block's clipped noise in every cell
            included, which the public rows must outweigh for EM to move the model;
            :func:`~bayesnb.inference.private_em.fit_public_unlabelled`).
        tol : float, default=1e-6
            Stop when the relative objective change is below ``tol``.
        max_iter : int, default=100
        public_unlabeled : bool, default=False
            Declare the unlabelled rows public (not rows of the private data set: documents
            anyone may read, or the user's own). Required under ``privacy=``, where EM reads
            them without noise; ignored without privacy.

        Returns
        -------
        self
            With ``em_objective_``, ``n_iter_``, ``converged_`` and ``transduction_``
            (the most probable label of every training row; under ``privacy=``, of every
            public row).

        Examples
        --------
        >>> import numpy as np
        >>> from bayesnb import GaussianNB
        >>> X = np.array([[0.0], [0.2], [3.0], [3.1], [0.1], [2.9]])
        >>> m = GaussianNB().fit_semi_supervised(X, [0, 0, 1, 1, -1, -1])
        >>> m.classes_.tolist(), m.transduction_.tolist()
        ([0, 1], [0, 0, 1, 1, 0, 1])
        """
        if not isinstance(public_unlabeled, (bool, np.bool_)):
            raise ValueError(f"{self._who}: public_unlabeled must be True or False; received {public_unlabeled!r}.")
        who, private = self._who, self.privacy is not None
        if not private:
            self._reset_fitted()
        elif not public_unlabeled:
            raise ValueError(
                f"{who}.fit_semi_supervised with privacy=: EM reads the unlabelled rows without noise, so they would "
                "get no protection and the result would not be differentially private for them. Pass "
                "public_unlabeled=True only if those rows are public (e.g. documents anyone may read, not rows of the "
                "private training set); otherwise fit on the labelled rows alone.")
        else:
            self._check_private_em()
        split = partial_labels(y, unlabeled, who)
        if split is None or not split[0].any():  # the full validation (and its message) is fit's (its release)
            return self.fit(X, y, sample_weight)
        miss, labels = split
        if miss.all():
            raise DataError(f"{who}: every label is missing; at least one labelled row is needed.")
        if private:
            return self._private_semi_supervised(X, y, miss, labels, sample_weight, unlabeled_weight, tol, max_iter)
        lam = self._check_unlabeled_weight(1.0 if unlabeled_weight is None else unlabeled_weight)
        n = miss.shape[0]
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if w.ndim == 0:
            w = np.full(n, float(w))
        y_fill = np.empty(n, dtype=labels.dtype)
        y_fill[~miss] = labels
        y_fill[miss] = labels[0]
        w0 = np.where(miss, 0.0, w) if w.shape == (n,) else w
        # validation, encoding (categories from every row, labelled or not), priors; the values each
        # numeric column takes are read from every row, at the weight the EM gives it
        self._fit(X, y_fill, w0, classes=None, partial=False, encode_zero_weight_rows=True,
                  support_weight=w * np.where(miss, lam, 1.0) if w.shape == (n,) else None)
        self._record_target_name(y)  # y_fill is an array: keep the name of a Series y
        w = self._check_weights(sample_weight, n)
        _, encoded = self._gen_encode(X)
        K = len(self.classes_)
        codes = np.full(n, -1, dtype=np.int64)
        codes[~miss] = np.searchsorted(self.classes_, labels) if K > 1 else 0
        rw = w * np.where(miss, lam, 1.0)
        self._check_total_weight(rw, 0.0)  # unlabeled_weight scales the unlabelled rows' counts
        fit = self._semi_supervised_em(X, encoded, codes, rw, np.where(miss, 0.0, w), tol, max_iter)
        self._store_em(fit)
        self.transduction_ = self.classes_[fit.transduction]
        return self

    def _check_unlabeled_weight(self, unlabeled_weight):
        """``unlabeled_weight`` as a float ``>= 0`` (a ``ValueError`` otherwise)."""
        try:
            lam = float(unlabeled_weight)
        except (TypeError, ValueError):
            lam = float("nan")
        if not np.isfinite(lam) or lam < 0:
            raise ValueError(f"{self._who}: unlabeled_weight must be a finite number >= 0; received "
                             f"{unlabeled_weight!r}.")
        return lam

    def _store_em(self, fit):
        """Keep an EM fit's posterior and its record (``em_objective_``, ``n_iter_``, ``converged_``)."""
        self._store_posterior(fit.posterior, self._never_observed)
        self.em_objective_ = fit.em_objective
        self.n_iter_ = len(fit.em_objective) - 1
        self.converged_ = fit.converged

    def _private_semi_supervised(self, X, y, miss, labels, sample_weight, unlabeled_weight, tol, max_iter):
        """:meth:`fit_semi_supervised` under ``privacy=`` (``miss``: the unlabelled rows, ``labels`` the others'):
        ``fit``'s release of the labelled rows, then EM on the public unlabelled rows
        (:func:`~bayesnb.inference.private_em.fit_public_unlabelled`)."""
        who = self._who
        lam = None if unlabeled_weight is None else self._check_unlabeled_weight(unlabeled_weight)
        X = self._check_X(X, reset=True)
        if X.shape[0] != miss.shape[0]:
            raise DataError(f"{who}: X has {X.shape[0]} rows and y {miss.shape[0]} labels; they must match.")
        self.fit(take_rows(X, ~miss), labels, sample_weight)  # the release: fit's, on the labelled rows
        self._record_target_name(y)
        public_X = take_rows(X, miss)
        _, encoded = self._gen_encode(public_X)
        specs = [(b.columns, b.family) for b in self.posterior_.blocks]
        counted = public_blocks(self.privacy, specs, encoded, getattr(self, "feature_names_in_", None), who)
        fit = fit_public_unlabelled(self.posterior_, encoded, counted, public_X.shape[0], lam,
                                    self._check_class_params(len(self.classes_)), tol=tol, max_iter=max_iter)
        self._store_em(fit)
        self.transduction_ = self.classes_[fit.transduction]  # the public rows only: labels are private
        return self

    def _check_private_em(self):
        """Refuse a private semi-supervised fit this estimator cannot make (a hook: a structure refuses its own)."""
