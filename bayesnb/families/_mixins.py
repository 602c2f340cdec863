"""Mixins that supply groups of :class:`~bayesnb.families._contract.Family` hooks shared by families."""

from __future__ import annotations

import numpy as np

__all__ = ["ThetaSite"]


class ThetaSite:
    """Mixin: the family's one parameter ``theta`` (K, ...) is the NumPyro site ``theta_<label>``.

    Supplies :meth:`~.capabilities.NumPyroSites.params_from_sites`,
    :meth:`~.capabilities.PosteriorDraws.point_params` and
    :meth:`~.capabilities.NumPyroSites.sites_from_params` for such a family (Bernoulli, Multinomial); list it
    before :class:`Family` among the bases.
    """

    param_names = ("theta",)

    def params_from_sites(self, label, static, samples: dict) -> dict:
        """MCMC samples of ``theta_<label>`` -> ``{"theta": (..., K, ...)}``."""
        return {"theta": np.asarray(samples[f"theta_{label}"], dtype=float)}

    def point_params(self, post) -> dict:
        """``{"theta": ...}``, the posterior mean (inverse of ``posterior_from_params``)."""
        return {"theta": self.posterior_moments(post)["theta"][0]}

    def sites_from_params(self, label, static, params: dict, prior_args=None) -> dict:
        """Inverse of :meth:`params_from_sites`: ``{"theta_<label>": theta}``."""
        return {f"theta_{label}": np.asarray(params["theta"])}
