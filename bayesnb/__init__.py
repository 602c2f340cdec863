"""bayesnb: Naive Bayes as a real Bayesian model.

Naive Bayes written as the generative plate model it is, with conjugate priors:
closed-form posteriors whose means are the additive smoothing of the textbooks (and of
scikit-learn), exact posterior predictives and evidence, and scikit-learn estimators.

Quick start
-----------
>>> from bayesnb import CategoricalNB
>>> from bayesnb.datasets import load_play_tennis
>>> df = load_play_tennis()
>>> clf = CategoricalNB().fit(df.drop(columns="PlayTennis"), df["PlayTennis"])
>>> clf.classes_.tolist()
['No', 'Yes']
"""

from ._progress import set_progress
from ._utils import (
    AllMissingWarning,
    FirstBatchFamilyWarning,
    OneClassWarning,
    SearchEdgeWarning,
    ZeroProbabilityCondition,
    ZeroProbabilityWarning,
)
from ._version import __version__
from .criticism.checks import check_independence, check_marginals, check_mcar
from .criticism.diagnostics import compare_posteriors
from .estimators import (
    BaseNB,
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    NaiveBayes,
    NBOutlierDetector,
)
from .families import Bernoulli, Categorical, Complement, Gaussian, Histogram, Hurdle, LogNormal, Multinomial, Poisson
from .generative import LatentClassFit, missing_labels
from .impute.table import TableImputation, impute_table
from .impute.imputer import Imputer
from .impute.selfmasking import MNARImputation, impute_mnar, mnar_sensitivity
from .io.persistence import load
from .impute.pooling import pool
from .inference.nb_posterior import NBPosterior
from .privacy import DP
from .synth.synthesizer import Synthesizer
from .synth.quality import SyntheticReport, synthetic_report

__all__ = [
    "DP",
    "AllMissingWarning",
    "FirstBatchFamilyWarning",
    "BaseNB",
    "Bernoulli",
    "BernoulliNB",
    "Categorical",
    "CategoricalNB",
    "Complement",
    "ComplementNB",
    "Gaussian",
    "LatentClassFit",
    "GaussianNB",
    "Hurdle",
    "Imputer",
    "Histogram",
    "LogNormal",
    "MNARImputation",
    "Multinomial",
    "MultinomialNB",
    "NBOutlierDetector",
    "NBPosterior",
    "NaiveBayes",
    "OneClassWarning",
    "Poisson",
    "SearchEdgeWarning",
    "SyntheticReport",
    "Synthesizer",
    "TableImputation",
    "ZeroProbabilityCondition",
    "ZeroProbabilityWarning",
    "check_independence",
    "check_marginals",
    "check_mcar",
    "compare_posteriors",
    "__version__",
    "impute_mnar",
    "impute_table",
    "mnar_sensitivity",
    "missing_labels",
    "pool",
    "set_progress",
    "synthetic_report",
    "load",
]
