"""Imputation of tables: the fitted :class:`Imputer`, one-call :func:`impute_table`, MNAR and pooling.

- :mod:`~bayesnb.impute.table` -- :func:`impute_table`: choose a configuration per column and impute
- :mod:`~bayesnb.impute.imputer` -- :class:`Imputer`, the same as a fitted, saved, reusable estimator
- :mod:`~bayesnb.impute.configs`, :mod:`~bayesnb.impute.fitted` -- the configurations and the
  imputer an estimator fits for its own missing cells
- :mod:`~bayesnb.impute.mvn`, :mod:`~bayesnb.impute.niw`, :mod:`~bayesnb.impute.mvn_mnar` --
  the multivariate-normal configuration (Normal-Inverse-Wishart), and its self-masking variant
- :mod:`~bayesnb.impute.selfmasking` -- :func:`impute_mnar` / :func:`mnar_sensitivity`; :mod:`~bayesnb.impute.mnar_evidence`
  -- MAR or MNAR by BIC (Imputer's default test)
- :mod:`~bayesnb.impute.pooling` -- :func:`pool`: Rubin's rules over multiple imputations
- :mod:`~bayesnb.impute.relations` -- deterministic relations between columns

The public names are imported from their module when first used.
"""

from .._utils import lazy_exports

_HOMES = {
    "Imputer": "imputer",
    "MNARImputation": "selfmasking",
    "TableImputation": "table",
    "impute_mnar": "selfmasking",
    "impute_table": "table",
    "mnar_sensitivity": "selfmasking",
    "pool": "pooling",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
