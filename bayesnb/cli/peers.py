"""The scikit-learn functions commands use when they run: ``score``'s log loss, ``demo``'s comparison.

Importing scikit-learn costs more than building the whole parser, so the command modules reach
these through :mod:`bayesnb.cli._when_run` (``when_run.log_loss``) and ``bayesnb --help`` never
imports them.
"""

from __future__ import annotations

from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

__all__ = ["SkCategoricalNB", "StratifiedKFold", "log_loss"]
