"""The model format: one safe archive per fitted model, read back with :func:`load`.

- :mod:`~bayesnb.io.persistence` -- ``save`` / ``load``
- :mod:`~bayesnb.io.saving`, :mod:`~bayesnb.io.names` -- the estimators' ``save`` and the classes a model
  file may name (all that defining an estimator loads of this package)
- :mod:`~bayesnb.io.archive` -- bounded, hostile-file-proof reading of a model file, and its HMAC
- :mod:`~bayesnb.io.safejson` -- the file's JSON metadata, parsed in linear time and bounded memory
- :mod:`~bayesnb.io.tree` -- the JSON tree: what a file may name, how values become JSON and arrays
- :mod:`~bayesnb.io.loadcheck` -- the semantic checks of a model read from a file
- :mod:`~bayesnb.io.imputer_file`, :mod:`~bayesnb.io.latent_file`,
  :mod:`~bayesnb.io.synthesizer_file` -- the composite models (Imputer, latent-class fit, Synthesizer)
- :mod:`~bayesnb.io.dask_data` -- Dask collections in and out: detection, row-aligned partitions, lazy maps

The public names are imported from their module when first used.
"""

from .._utils import lazy_exports

_HOMES = {"ModelFileError": "archive", "load": "persistence", "save": "persistence"}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
