"""Generative uses of the fitted posterior: sampling, imputation, outlier scores, EM.

(Under construction: the methods are added to every estimator through
:class:`GenerativeMixin`.)
"""

from __future__ import annotations

__all__ = ["GenerativeMixin"]


class GenerativeMixin:
    """Generative methods shared by every bayesnb estimator."""
