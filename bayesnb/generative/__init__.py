"""Generative uses of the fitted posterior: sampling, imputation, log densities, EM.

The uses are functions of a posterior (:mod:`bayesnb.generative.functions`; the EM fits
are siblings in :mod:`bayesnb.inference.em`), and every bayesnb estimator gets them as
methods through :class:`GenerativeMixin` (:mod:`bayesnb.generative.methods`), which
validates, encodes, calls one function and returns the caller's table type
(:mod:`bayesnb.generative.tables`). They work on whatever blocks the estimator has
(categorical, Bernoulli, multinomial, Gaussian, mixed): the distribution-specific pieces
are the family hooks (``gen_point`` draws or plugs in parameters, ``gen_sample`` draws
features given a class, ``gen_fill`` fills missing cells, ``gen_cell_log_lik`` gives
per-feature log-likelihood contributions, ``gen_log_penalty`` the log prior term of the
EM objective).

=================================  ==========================================================
method                             what it does
=================================  ==========================================================
``sample``                         ancestral draws from the posterior predictive (class, then x)
``sample(prior=True)``             the same from the prior (prior predictive checks)
``impute``                         fill missing cells from p(x_miss | x_obs) (mode/mean/draws)
``fit_latent_class``               each class a mixture of naive-Bayes components (EM), for
                                   imputation that sees dependence between features
``latent.latent_class_draws``      one plug-in latent-class model per NUTS draw of
                                   ``run_mcmc(..., n_components=C)`` (the same model by MCMC)
``score_samples``                  log p(x), missing cells marginalised
``feature_log_contributions``      which features make a row unusual
``fit_semi_supervised``            EM with unlabelled rows (Nigam et al. 2000), only when asked:
                                   ``fit`` is always supervised
=================================  ==========================================================

Parameter uncertainty
---------------------
With ``parameter_uncertainty=True`` one exact conjugate draw of every parameter (class
proportions, per-class feature parameters, document-length rates) is made **per call
of** :meth:`~GenerativeMixin.sample` and **per imputed dataset** of
:meth:`~GenerativeMixin.impute`: rows of one dataset share the draw, as in a replicated
dataset of a posterior predictive check and in Rubin's proper multiple imputation.
With ``False`` the posterior-mean plug-in is used.

Document lengths (multinomial blocks)
-------------------------------------
Fit cannot learn more than its sufficient statistics, and they already hold a length
model: ``L | y=k ~ Poisson(rate_k)`` with ``rate_k`` = total counts of class k / rows of
class k (its posterior ``Gamma(T_k + 1/2, n_k)`` gives the draws). ``sample(length=...)``
overrides it with a fixed length or one length per row. Under this model the counts
of a class are independent ``Poisson(rate_k theta_kj)``, which is how missing count
cells are imputed.
"""

from __future__ import annotations

from ..inference.em import LatentClassFit
from .functions import (
    class_log_weights,
    feature_contributions,
    impute_cells,
    length_rates,
    parameter_points,
    sample_rows,
    score_rows,
)
from .methods import GenerativeMixin
from .tables import missing_labels

__all__ = ["GenerativeMixin", "LatentClassFit", "class_log_weights", "feature_contributions", "impute_cells",
           "length_rates", "missing_labels", "parameter_points", "sample_rows", "score_rows"]
