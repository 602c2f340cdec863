"""scikit-learn estimators: validate, encode, call the core, store attributes.

All public methods live in :class:`BaseNB` (``_base``); the subclasses only choose their
feature blocks (one family over all columns in ``single``, or ``NaiveBayes(features=...)``
for a mix in ``naive_bayes``) and declare their hyperparameters in ``_parameter_constraints``
(checked by ``validation``, which holds every input check).
"""

from .auto_features import auto_blocks as auto_blocks
from ._basenb import BaseNB
from .validation import MAX_TOTAL_WEIGHT as MAX_TOTAL_WEIGHT
from .naive_bayes import NaiveBayes
from .outlier import NBOutlierDetector
from .single import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB

__all__ = ["BaseNB", "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB", "NaiveBayes",
           "NBOutlierDetector"]
