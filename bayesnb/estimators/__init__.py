"""scikit-learn estimators: validate, encode, call the core, store attributes.

All public methods live in :class:`BaseNB` (``_base``); the subclasses only choose their
feature blocks (one family over all columns in ``single``, or ``NaiveBayes(features=...)``
for a mix in ``naive_bayes``) and declare their hyperparameters in ``_parameter_constraints``
(checked by ``validation``, which holds every input check).

The names are imported from their module when first used, so ``from bayesnb import CategoricalNB``
loads neither ``NaiveBayes`` nor the outlier detector.
"""

from typing import TYPE_CHECKING

from .._utils import lazy_exports

if TYPE_CHECKING:  # what the lazy table below gives, for static readers (type checkers, IDEs, the API docs)
    from ._basenb import BaseNB
    from .auto_features import auto_blocks
    from .naive_bayes import NaiveBayes
    from .outlier import NBOutlierDetector
    from .single import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB
    from .validation import MAX_TOTAL_WEIGHT

_HOMES = {
    "BaseNB": "_basenb",
    "BernoulliNB": "single",
    "CategoricalNB": "single",
    "ComplementNB": "single",
    "GaussianNB": "single",
    "MAX_TOTAL_WEIGHT": "validation",
    "MultinomialNB": "single",
    "NBOutlierDetector": "outlier",
    "NaiveBayes": "naive_bayes",
    "auto_blocks": "auto_features",
}

__all__ = ["BaseNB", "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB", "NaiveBayes",
           "NBOutlierDetector"]
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
del TYPE_CHECKING  # not a public name of the package
