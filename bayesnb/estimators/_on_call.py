"""The modules the estimators use only on some calls, imported when first used (PEP 562).

``from bayesnb import NaiveBayes`` loads what defining the estimators, ``fit`` and ``predict``
need; the structure engine and its uses (learned parents, exact imputation and sampling, EM,
draws, the private structure), NUTS and the NumPyro model, the ArviZ layouts and the reading of
MCMC draws load on the first call that needs them (``on_call.engine.node_data(...)``; a look-up
through the table costs about a microsecond). The import-graph checks read the table as imports.
"""

from .._utils import lazy_exports

_HOMES = {
    "constrained_draws": "..structure",
    "cv": "..structure",
    "diagnostics": "..criticism",
    "draws": "..inference",
    "engine": "..structure",
    "exact_impute": "..structure",
    "infer": "..structure",
    "latent": "..generative",
    "numpyro_model": "..inference",
    "nuts": "..inference",
    "private_fit": "..structure",
    "select": "..structure",
    "structure_draws": "..structure",
    "structured_em": "..structure",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
