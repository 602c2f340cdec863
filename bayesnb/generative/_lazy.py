"""The modules the generative methods use only on some calls, imported when first used (PEP 562).

A latent-class model (``sample(latent=...)``, ``impute(latent=...)``, reading NUTS draws of one)
needs :mod:`~bayesnb.generative.latent` and, through it, the ArviZ layouts of
:mod:`bayesnb.criticism`; defining or fitting an estimator does not. The import-graph checks
read the table as imports.
"""

from .._utils import lazy_exports

_HOMES = {"latent": "."}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
