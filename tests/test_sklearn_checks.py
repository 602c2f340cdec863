"""scikit-learn's own estimator checks (``parametrize_with_checks``) over every bayesnb classifier.

Every check must pass: there is no list of expected failures. (``check_classifiers_classes``
fits labels such as ``{-1, 1}``; ``fit`` is always supervised, so ``-1`` is a class there.)
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from cases import PER_ESTIMATOR

import bayesnb

# each class with its defaults, and the structures (one engine: CategoricalNB's and NaiveBayes's)
ESTIMATORS = [case.cls() for case in PER_ESTIMATOR] + [bayesnb.CategoricalNB(structure="tan"),
                                                       bayesnb.NaiveBayes(structure="kdb", k=2)]


# sklearn's checks partial_fit an unfitted NaiveBayes(features="auto") on numeric data, which
# chooses the families on that first batch and says so (tests/test_auto_partial_fit.py)
@pytest.mark.filterwarnings("ignore::bayesnb.FirstBatchFamilyWarning")
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
