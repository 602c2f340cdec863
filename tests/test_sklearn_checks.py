"""scikit-learn's own estimator checks (``parametrize_with_checks``) over every bayesnb classifier.

Checks that cannot pass are listed in ``EXPECTED_FAILED_CHECKS`` with the reason; they
run as xfail, so a fix shows up as XPASS.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from bayesnb import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, NaiveBayes

ESTIMATORS = [MultinomialNB(), BernoulliNB(), CategoricalNB(), GaussianNB(), NaiveBayes()]

# Issue 4: ``fit`` treats the label -1 as "unlabelled" (scikit-learn's semi_supervised
# convention) and runs EM; check_classifiers_classes fits labels {-1, 1} and expects both
# as classes_, so the two requirements contradict each other.
_MINUS_ONE_IS_UNLABELLED = (
    "by design (issue 4) fit reads y == -1 as an unlabelled row (scikit-learn's semi_supervised "
    "convention) and runs semi-supervised EM (with a warning), so labels {-1, 1} give classes_ == [1]; "
    "partial_fit(X, y, classes=[-1, 1]) treats -1 as a class"
)

EXPECTED_FAILED_CHECKS = {
    name: {"check_classifiers_classes": _MINUS_ONE_IS_UNLABELLED}
    for name in ("MultinomialNB", "BernoulliNB", "CategoricalNB", "GaussianNB", "NaiveBayes")
}

def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
