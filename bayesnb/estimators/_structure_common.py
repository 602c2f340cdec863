"""What CategoricalNB's and NaiveBayes's ``structure=`` share once a structure is fitted.

:class:`StructureCommonMixin` holds the predict methods, ``score_samples``, ``log_evidence_``
and ``sample`` of :class:`~bayesnb.estimators._structured.StructureMixin` (context tables of
a categorical block) and :class:`~bayesnb.estimators._structured_mixed.MixedStructureMixin`
(a mixed table). Each of those answers three hooks: :meth:`_structure_fitted` (the fitted
structure, None when naive: every method then falls back on the estimator's base),
:meth:`_structure_joint` (``log p(x | y=k)`` under it) and :meth:`_structure_sample` (feature
values drawn given the classes).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from .. import posterior as _post
from .._utils import as_generator
from ..generative.functions import warn_empty_columns
from ..generative.tables import check_impute_options, label_codes
from ..inference.em import allowed_states
from . import _validation as _val

__all__ = ["StructureCommonMixin"]


class StructureCommonMixin:
    """Predict, score and sample under a fitted structure (see the module docstring)."""

    def _structure_fitted(self):
        """The fitted structure (with a ``log_evidence``), or None under the naive structure."""
        raise NotImplementedError

    def _structure_joint(self, X):
        """``log p(x | y=k)`` under the fitted structure, shape (n_samples, n_classes)."""
        raise NotImplementedError

    def _structure_sample(self, z, rng, parameter_uncertainty):
        """Feature values drawn given the classes ``z`` (n,): an array, or a DataFrame with the training names."""
        raise NotImplementedError

    def _structure_impute_setup(self, X, strategy, n_imputations, random_state, y, n_components, latent):
        """What both structures' ``impute`` start with once a structure is fitted.

        Checks the options (a latent-class model needs the naive structure), validates and
        encodes ``X``, and warns about never-observed columns. Returns ``(m, rng, X, encoded,
        allowed)``: the number of completed tables, the generator, the validated ``X``, its
        encoded blocks and the (n, K) classes each row may take (all, or its known label).
        """
        m = check_impute_options(strategy, n_imputations, self._who)
        if latent is not None or n_components == "auto" or int(n_components) != 1:
            raise NotImplementedError(f"{self._who}.impute(n_components=, latent=) needs structure='naive'; "
                                      f"received n_components={n_components!r}, latent={type(latent).__name__}.")
        rng = as_generator(random_state)
        X = self._check_X(X, reset=False)
        encoded, _ = self._encode_blocks(X, self.posterior_)
        K = len(self.classes_)
        allowed = np.ones((X.shape[0], K), dtype=bool) if y is None else allowed_states(
            np.arange(K), label_codes(self.classes_, y, X.shape[0], self._who))
        warn_empty_columns(self.posterior_, "impute", self._who, encoded, stacklevel=4)
        return m, rng, X, encoded, allowed

    @property
    def log_evidence_(self):
        """Closed-form ``log p(X, y)`` under the fitted structure (None under an improper prior)."""
        check_is_fitted(self, "posterior_")
        fitted = self._structure_fitted()
        if fitted is None:
            return _post.log_evidence(self.posterior_)
        label = _post.label_log_evidence(self.posterior_)
        return None if label is None else label + fitted.log_evidence

    def predict_joint_log_proba(self, X):
        """``log p(x, y=k)`` per row and class, shape (n_samples, n_classes).

        Under a structure other than naive, missing cells are marginalised exactly given the
        class (see :mod:`bayesnb.structured` and :mod:`bayesnb._structured_mixed`); otherwise
        as :meth:`BaseNB.predict_joint_log_proba`.
        """
        if self._structure_fitted() is None:
            return super().predict_joint_log_proba(X)
        return self._structure_joint(X) + self.posterior_.class_log_prior

    def predict_log_proba(self, X):
        """``log p(y=k | x)``; under a structure, from the exact joint (missing cells marginalised)."""
        if self._structure_fitted() is None:
            return super().predict_log_proba(X)
        return _post.normalise(self.predict_joint_log_proba(X), self.posterior_.class_log_prior, self._who)

    def predict(self, X):
        """Most probable class of each row; under a structure, from the exact joint."""
        if self._structure_fitted() is None:
            return super().predict(X)
        jll = self.predict_joint_log_proba(X)
        return self.classes_[_post.most_probable(jll, self.posterior_.class_log_prior, self._who)]

    def score_samples(self, X, *, latent=None):
        """``log p(x)`` (densities for numeric cells): logsumexp over classes of :meth:`predict_joint_log_proba`.

        ``latent`` needs structure='naive'.
        """
        if self._structure_fitted() is None:
            return super().score_samples(X, latent=latent)
        if latent is not None:
            raise NotImplementedError(f"{self._who}.score_samples(latent=...) needs structure='naive'.")
        return logsumexp(self.predict_joint_log_proba(X), axis=1)

    def sample(self, n_samples=1, *, y=None, random_state=None, parameter_uncertainty=True, **kwargs):
        """Rows ``(X, y)`` in ancestral order: the class, then every feature after its parents.

        Under a structure other than naive, categorical cells are category values and numeric
        cells come from the conditional Gaussian of their context (one exact posterior draw
        per call with ``parameter_uncertainty``, else each row from the Student-t posterior
        predictive); ``X`` is an object array, or a DataFrame with the training names (numeric
        columns float). ``length``, ``latent`` and ``given`` need structure='naive'.
        """
        if self._structure_fitted() is None:
            return super().sample(n_samples, y=y, random_state=random_state,
                                  parameter_uncertainty=parameter_uncertainty, **kwargs)
        if any(v is not None for v in kwargs.values()):
            raise NotImplementedError(f"{self._who}.sample({', '.join(kwargs)}=...) needs structure='naive'.")
        rng = as_generator(random_state)
        post = self.posterior_
        if y is None:
            if parameter_uncertainty and not post.fixed_class_prior:
                p = rng.dirichlet(post.class_concentration)
            else:
                p = np.exp(post.class_log_prior - logsumexp(post.class_log_prior))
            z = rng.choice(len(p), size=int(n_samples), p=p)
        else:
            yy = np.atleast_1d(np.asarray(y, dtype=object if post.classes.dtype == object else None))
            if yy.shape[0] == 1:
                yy = np.repeat(yy, int(n_samples))
            _val.check_known_labels(yy, post.classes, self._who)
            z = np.searchsorted(post.classes, yy)
        return self._structure_sample(z, rng, parameter_uncertainty), post.classes[z]
