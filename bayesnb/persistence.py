"""Saving and loading fitted models in a safe, versioned format (no pickle).

(Under construction: ``save`` comes to every estimator through :class:`PersistenceMixin`.)
"""

from __future__ import annotations

__all__ = ["PersistenceMixin"]


class PersistenceMixin:
    """``save(path)`` for every bayesnb estimator."""
