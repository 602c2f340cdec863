"""The public surface (issue 29, item 5): what ``bayesnb.__all__`` holds, and how many public methods a
fitted estimator has, counted as scikit-learn's own (its ``CategoricalNB`` has 13)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

import bayesnb

#: what a user imports from ``bayesnb``: estimators, families, settings, functions and warnings to filter
PUBLIC = {
    "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB", "NaiveBayes", "NBOutlierDetector",
    "Bernoulli", "Categorical", "Complement", "Gaussian", "Histogram", "Hurdle", "LogNormal", "Multinomial", "Poisson",
    "DP", "Imputer", "Synthesizer",
    "check_independence", "check_marginals", "check_mcar", "compare_posteriors", "impute_mnar", "impute_table",
    "mnar_sensitivity", "pool", "set_progress", "synthetic_report", "load",
    "AllMissingWarning", "FirstBatchFamilyWarning", "OneClassWarning", "SearchEdgeWarning", "ZeroProbabilityCondition",
    "ZeroProbabilityWarning",
}

#: the most public methods a fitted estimator may have (issue 29: "<= 25 public names")
MAX_METHODS = 25

ESTIMATORS = ["CategoricalNB", "NaiveBayes", "GaussianNB", "BernoulliNB", "MultinomialNB", "ComplementNB"]


def public_methods(obj):
    """The public methods of ``obj`` as scikit-learn's are counted: callable public names that are not
    fitted attributes (no leading underscore, no trailing one)."""
    return sorted(n for n in dir(obj) if not n.startswith("_") and not n.endswith("_") and callable(getattr(obj, n)))


def _fitted(name):
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, size=(40, 3)), np.repeat([0, 1], 20)
    return getattr(bayesnb, name)().fit(X.astype(float) if name == "GaussianNB" else X, y)


def test_all_holds_only_what_a_user_imports():
    assert set(bayesnb.__all__) == PUBLIC and len(bayesnb.__all__) == len(PUBLIC)
    assert all(hasattr(bayesnb, n) for n in bayesnb.__all__)
    # the base class and helpers are importable from their modules
    from bayesnb.estimators import BaseNB
    from bayesnb.generative import missing_labels

    assert isinstance(_fitted("CategoricalNB"), BaseNB) and callable(missing_labels)
    assert not hasattr(bayesnb, "BaseNB") and not hasattr(bayesnb, "missing_labels")


def test_the_count_is_scikit_learns():
    rng = np.random.default_rng(0)
    sk = SkCategoricalNB().fit(rng.integers(0, 3, size=(20, 2)), np.repeat([0, 1], 10))
    assert len(public_methods(sk)) == 13, public_methods(sk)

