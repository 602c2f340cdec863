"""Complement Naive Bayes (Rennie et al. 2003): the Multinomial model, classified by complement weights.

The generative model is exactly :class:`~bayesnb.families.Multinomial`'s (a Dirichlet per
class over the block's columns): statistics, conjugate update, evidence, exact draws, the
NumPyro model and every generative method (``sample``, ``impute``, ``score_samples``) are
the multinomial ones. Only the *classification* score differs, as in scikit-learn's
``ComplementNB``: each class is scored by how badly its complement (all the other
classes pooled) explains the row::

    theta_c[k, j] = (alpha_j + sum_{c != k} n[c, j]) / (sum_j alpha_j + sum_{c != k} n[c])
    w[k, j]       = -log theta_c[k, j]                         (norm=False)
                  =  log theta_c[k, j] / sum_j log theta_c[k, j]   (norm=True, Rennie's Table 9)
    score(x, k)   = sum_j x_j w[k, j]     (+ log p(y=k) only when there is one class)

``theta_c`` is the posterior mean of the complement's Dirichlet, a plug-in: the weights are
a heuristic decision rule built from posterior-mean counts, not a posterior predictive, so
``predictive="marginal"`` has no complement version (the score is the plug-in either way).
A missing cell is marginalised as in the multinomial: the complement distribution is
renormalised over the row's observed columns before the weights are taken.
"""

from __future__ import annotations

import numpy as np

from ._dirichlet_rows import log_observed_mass, log_theta
from .multinomial import Multinomial

__all__ = ["Complement"]


class Complement(Multinomial):
    """Count block classified by complement weights (scikit-learn's ``ComplementNB``).

    Parameters
    ----------
    alpha : float, "auto" or array-like of shape (d,), default=1.0
        Dirichlet pseudo-count per column, of each class's and of each complement's
        distribution (``"auto"``: the multinomial evidence-maximising scalar).
    norm : bool, default=False
        Divide each class's ``log theta_c`` by its sum over the columns (the second
        normalisation of Rennie et al., Table 9) instead of negating it.

    Notes
    -----
    Everything but the classification score is :class:`Multinomial`'s: the posterior is the
    per-class Dirichlet, and ``log_likelihood`` (used by ``score_samples``, imputation and
    EM) is the multinomial ``log p(tokens | y=k)``. Only :meth:`classify_log_likelihood_parts`
    (what ``predict*`` uses) reads the complement weights, a plug-in of posterior-mean
    counts with no Bayesian justification of its own.
    """

    _param_names = ("alpha", "norm")
    name = "complement"

    def __init__(self, alpha=1.0, norm=False):
        super().__init__(alpha=alpha)
        self.norm = norm

    def _check_norm(self):
        if not isinstance(self.norm, (bool, np.bool_)):
            raise TypeError(f"Complement: norm must be True or False; received {self.norm!r}.")
        return bool(self.norm)

    def complement_concentration(self, prior, post):
        """Dirichlet concentration of each class's complement, (K, d): ``alpha + n_total - n_k``."""
        counts = post.concentration - prior.concentration
        return prior.concentration + (counts.sum(axis=0) - counts)

    def complement_weights(self, prior, post, cache=None):
        """Complement weights ``w`` (K, d): scikit-learn's ``ComplementNB.feature_log_prob_``.

        ``cache``, :meth:`predict_cache` of this posterior, saves computing them again.
        """
        return (self.predict_cache(prior, post) if cache is None else cache)[1].T.copy()

    def check_posterior(self, post, stats, names, classes, who="NaiveBayes"):
        """Refuse a complement distribution with a zero probability (``alpha=0``): its weight is infinite."""
        self._check_norm()
        counts = stats.counts
        if np.all(post.concentration[0] - counts[0] > 0):  # alpha > 0 (the same for every class)
            return
        comp = counts.sum(axis=0) - counts + (post.concentration - counts)
        bad = ~(comp > 0)
        if bad.any():
            k, j = (int(i[0]) for i in np.nonzero(bad))
            label = classes[k].item() if isinstance(classes[k], np.generic) else classes[k]
            raise ValueError(
                f"{who}: the complement of class {label!r} has no count of column {names[j]!r} and "
                "alpha is 0, so its complement weight is infinite (the column is seen in that class "
                f"only, or in none; {int(bad.sum())} such cell(s)). Use alpha > 0.")

    def predict_cache(self, prior, post):
        """``(Multinomial's cache, complement weights transposed (d, K), log theta_c sums (K,))``."""
        lt = log_theta(self.complement_concentration(prior, post))
        s = lt.sum(axis=1)
        w = lt / s[:, None] if self._check_norm() else -lt
        return super().predict_cache(prior, post), np.ascontiguousarray(w.T), s

    def log_likelihood(self, prior, post, block, predictive="mean", cache=None):
        """The multinomial ``log p(tokens | y=k)``, (n, K) (the generative model; see the module)."""
        return super().log_likelihood(prior, post, block, predictive, None if cache is None else cache[0])

    def classify_log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """Complement scores ``x @ w.T`` (n, K) and a zero row term, for ``predict*``.

        ``predictive`` is not used: the weights are a plug-in. A row with missing cells is
        scored by the complement distribution renormalised over its observed columns.
        """
        if predictive not in ("mean", "marginal"):
            raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
        _, w_T, s = self.predict_cache(prior, post) if cache is None else cache
        X, M = block.X, block.missing
        score = np.asarray(X @ w_T)
        if M is not None:
            lm = log_observed_mass(self.complement_concentration(prior, post), M)
            length = np.asarray(X.sum(axis=1)).reshape(-1, 1)
            shift = np.where(length > 0, length * lm, 0.0)
            score = score - shift / s if self._check_norm() else score + shift
        return score, np.zeros(score.shape[0])

    def linear_terms(self, theta, state):
        """None: ``predict*`` scores by complement weights, so no ``coef_`` is the log-odds it uses."""
        return None

    def linear_names(self, names, state):
        """None (see :meth:`linear_terms`)."""
        return None

    def class_prior_in_classify(self, K: int) -> bool:
        """As scikit-learn: the class log prior is added to the scores only with one class."""
        return K == 1
