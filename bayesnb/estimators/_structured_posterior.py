"""Full posteriors of a structured CategoricalNB: exact draws and NUTS (see :mod:`bayesnb.inference.structured_model`).

Under the naive structure both methods are those of :class:`bayesnb.model.PosteriorMixin`,
unchanged. Under TAN / k-DB every conditional table ``p(x_j | class, parents)`` is a
Dirichlet posterior per context, drawn exactly (``sample_posterior``) or sampled by NUTS
(``run_mcmc``), both returned as one ArviZ ``DataTree`` with the parents as named dims.
"""

from __future__ import annotations

import numpy as np

from .. import structured as _st
from ..diagnostics import datatree_from_layout
from ..inference.numpyro_model import check_proper
from ..inference.structured_model import (
    run_structured_nuts,
    structured_draws,
    structured_inputs,
    structured_layout,
    structured_moments,
)
from . import _validation as _val

__all__ = ["StructuredPosteriorMixin", "check_structured_mcmc_args", "structured_mcmc_data"]


def check_structured_mcmc_args(who, kind, num_warmup, num_samples, num_chains, y, **naive_only):
    """Refuse what ``run_mcmc`` under a structure other than naive does not do.

    Parameters
    ----------
    who : str
        The estimator's name (for the messages).
    kind : str
        The learned structure (``structure_kind_``).
    num_warmup, num_samples, num_chains : int
        Non-negative / positive / positive integers.
    y : array-like or None
        The labels (None is refused: unlabelled rows need the naive model).
    **naive_only
        ``likelihood``, ``chain_method``, ``init`` (must be None) and ``n_components`` (must be 1).

    Raises
    ------
    NotImplementedError, ValueError
    """
    odd = {k: v for k, v in naive_only.items() if (v != 1 if k == "n_components" else v is not None)}
    if odd:
        raise NotImplementedError(f"{who}.run_mcmc({', '.join(f'{k}={v!r}' for k, v in odd.items())}) needs "
                                  f"structure='naive'; under {kind!r} leave them at their defaults.")
    for name, v in (("num_warmup", num_warmup), ("num_samples", num_samples), ("num_chains", num_chains)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if name == "num_warmup" else 1):
            raise ValueError(f"{who}: {name} must be a {'non-negative' if name == 'num_warmup' else 'positive'} "
                             f"integer; received {v!r}.")
    if y is None:
        raise NotImplementedError(f"{who}.run_mcmc under structure {kind!r} needs every row "
                                  "labelled (y); unlabelled rows need structure='naive'.")



def structured_mcmc_data(est, X, y, num_warmup, num_samples, num_chains, **naive_only):
    """The checks every structured ``run_mcmc`` makes, then ``(X checked, class codes of y)``.

    Parameters
    ----------
    est : estimator
        A fitted structured estimator (``posterior_``, ``structure_kind_``, ``_who``, ``_check_X``).
    X, y
        The rows and their labels.
    num_warmup, num_samples, num_chains, **naive_only
        As :func:`check_structured_mcmc_args`.

    Returns
    -------
    X : ndarray or DataFrame
    ycodes : ndarray of int of shape (n_samples,)
    """
    who, post = est._who, est.posterior_
    check_structured_mcmc_args(who, est.structure_kind_, num_warmup, num_samples, num_chains, y, **naive_only)
    check_proper(post, who)
    X = est._check_X(X, reset=False)
    yv = _val.check_y(y, X.shape[0], who)
    _val.check_known_labels(yv, post.classes, who)
    return X, np.searchsorted(post.classes, yv)

class StructuredPosteriorMixin:
    """``sample_posterior`` and ``run_mcmc`` on the fitted structure (naive: the base methods)."""

    def _structured_layout(self):
        post = self.posterior_
        block = post.blocks[0]
        return structured_layout(self._tables, post.classes, block.names, block.family.value_labels(block.state),
                                 post.fixed_class_prior)

    def _class_concentration(self):
        post = self.posterior_
        return None if post.fixed_class_prior else post.class_concentration

    def _exact_moments(self):
        """Closed-form posterior mean and sd of every variable of :meth:`sample_posterior` under a
        structure (``{variable: (mean, sd)}``, for :func:`bayesnb.compare_posteriors`)."""
        return structured_moments(self._tables, self._class_concentration(), self._structured_layout())

    def _structure_draws(self, n_draws, rng):
        """Exact draws of every table ``p(x_j | class, parents)``, one Dirichlet posterior per context:
        ``pi`` and ``theta_<feature>`` (:mod:`bayesnb.inference.structured_model`'s layout)."""
        layout = self._structured_layout()
        draws = structured_draws(self._tables, self._class_concentration(), layout, n_draws, rng)
        return draws, layout.dims, layout.coords

    def _structure_mcmc(self, X, ycodes, num_warmup, num_samples, num_chains, seed, progress_bar, target_accept_prob):
        """NUTS on :mod:`bayesnb.inference.structured_model` (one Dirichlet per context, the labelled
        rows through their counts); see ``run_mcmc``."""
        who, post = self._who, self.posterior_
        codes = self._encoded(X)[0]
        K, tab = len(post.classes), self._tables
        block = post.blocks[0]
        counted = _st.fit_tables(tab.family, block.state, codes, ycodes, np.ones(len(ycodes)), K, tab.parents,
                                 tab.n_values, who)
        shapes, priors, data = structured_inputs(tab, post.class_prior_alpha, post.class_log_prior,
                                                 post.fixed_class_prior, np.bincount(ycodes, minlength=K),
                                                 counted.stats)
        layout = self._structured_layout()
        draws, stats, secs = run_structured_nuts(shapes, priors, data, layout, fixed_pi=post.fixed_class_prior,
                                                 num_warmup=num_warmup, num_samples=num_samples,
                                                 num_chains=num_chains, seed=seed, progress_bar=progress_bar,
                                                 target_accept_prob=target_accept_prob)
        attrs = {"inference": "NUTS (NumPyro)", "likelihood": "suffstats", "estimator": who,
                 "structure": self.structure_kind_, "num_warmup": int(num_warmup), "num_chains": int(num_chains),
                 "total_seconds": secs}
        return datatree_from_layout(draws, layout.dims, layout.coords, sample_stats=stats, attrs=attrs)
