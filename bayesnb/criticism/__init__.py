"""Model criticism: does the fitted model match the data, and does MCMC match the closed form?

- :mod:`~bayesnb.criticism.checks` -- :func:`check_independence`, :func:`check_marginals`,
  :func:`check_mcar` (posterior predictive checks)
- :mod:`~bayesnb.criticism.mcar` -- the test of missing completely at random
- :mod:`~bayesnb.criticism.diagnostics` -- ArviZ ``DataTree`` layouts and :func:`compare_posteriors`
- :mod:`~bayesnb.criticism.posterior_check` -- its statistics and verdict text

The public names are imported from their module when first used.
"""

from .._utils import lazy_exports

_HOMES = {
    "check_independence": "checks",
    "check_marginals": "checks",
    "check_mcar": "checks",
    "compare_posteriors": "diagnostics",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
