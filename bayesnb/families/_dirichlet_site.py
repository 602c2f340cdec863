"""The NUTS site forms of a padded Dirichlet block, and the one rule that picks one.

A Categorical (or Histogram) block samples its ``theta`` (K, d, V_max) through one of two
site modules, both exactly Dirichlet(alpha) rows: :mod:`~bayesnb.families._stick_rows`
(stick-breaking logits) and :mod:`~bayesnb.families._tilted_gamma` (normalised Gammas).
:class:`DirichletSite` writes out what each must provide; :func:`site_for` is the choice
from the block's numbers of values, made once per block and recorded in the parameters
:meth:`DirichletSite.sample_site` returns (under :data:`SITE_KEY`), so that the
labelled-data likelihood uses the same form without guessing it from its statistics.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from . import _stick_rows, _tilted_gamma

__all__ = ["FORMS", "SITE_KEY", "DirichletSite", "site_for"]

#: the key of the chosen site module in the parameters of a block's NUTS site
SITE_KEY = "site"


@runtime_checkable
class DirichletSite(Protocol):
    """What a site module of a padded Dirichlet block provides (``sizes``: each feature's number of values).

    Attributes
    ----------
    SITE : str
        The suffix of the sample site, ``theta_<label>__<SITE>``.
    """

    SITE: str

    def prior_args(self, alpha, sizes) -> dict:
        """The site's prior arrays (float32) from padded pseudo-counts ``alpha`` (K, d, V_max)."""

    def sampler_args(self, alpha, conc, sizes) -> dict:
        """Arrays that tune the sampler, not the model, from the prior and (or None) a posterior ``conc``."""

    def stats_args(self, counts, sizes) -> dict:
        """The labelled counts (K, d, V_max) as :meth:`suffstat_loglik` reads them, float32."""

    def suffstat_loglik(self, params, stats_args):
        """``sum n log theta`` from :meth:`sample_site`'s parameters and :meth:`stats_args` (JAX)."""

    def sample_site(self, label, sizes, prior_args, feature_plate, class_plate) -> dict:
        """The sample site and the deterministic ``theta_<label>``; returns ``{"log_theta", ...}``."""

    def site_values(self, label, theta, sizes, prior_args=None) -> dict:
        """The sample site's value whose rows are ``theta`` (..., K, d, V_max)."""


#: the site modules, by their ``SITE``
FORMS = {m.SITE: m for m in (_stick_rows, _tilted_gamma)}


def site_for(sizes, stick_max) -> DirichletSite:
    """The site module of a block whose features have ``sizes`` values.

    Parameters
    ----------
    sizes : sequence of int
        Each feature's number of values.
    stick_max : int
        The most values for stick-breaking logits (``Categorical.STICK_MAX_VALUES``).

    Returns
    -------
    DirichletSite
        :mod:`~bayesnb.families._stick_rows` when no feature has more than ``stick_max``
        values, else :mod:`~bayesnb.families._tilted_gamma`.
    """
    return FORMS["stick" if max(sizes, default=0) <= stick_max else "log_gamma"]
