"""The one NumPyro plate model of Naive Bayes, and the MCMC runner.

(Under construction: estimator methods come through :class:`PosteriorMixin`.)
"""

from __future__ import annotations

__all__ = ["PosteriorMixin"]


class PosteriorMixin:
    """Full-posterior methods (exact conjugate draws, NUTS) shared by every estimator."""
