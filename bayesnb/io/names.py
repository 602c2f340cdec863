"""How a model file names a class, and the estimator classes it may name.

A leaf: :mod:`~bayesnb.io.saving` fills :data:`ESTIMATORS` as the estimators are defined, and the
model format (:mod:`~bayesnb.io.tree`, :mod:`~bayesnb.io.loadcheck`) reads it.
"""

from __future__ import annotations

__all__ = ["ESTIMATORS", "type_key"]

#: estimator classes a model file may name (filled by PersistenceMixin.__init_subclass__)
ESTIMATORS: dict = {}


def type_key(cls) -> str:
    """How a model file names a class: bayesnb's by name, any other by ``module:qualname``."""
    return cls.__name__ if cls.__module__.split(".")[0] == "bayesnb" else f"{cls.__module__}:{cls.__qualname__}"
