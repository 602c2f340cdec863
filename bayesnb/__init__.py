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

import importlib as _importlib
from typing import TYPE_CHECKING

from ._progress import set_progress
from ._utils import (
    AllMissingWarning,
    FirstBatchFamilyWarning,
    OneClassWarning,
    SearchEdgeWarning,
    ZeroProbabilityCondition,
    ZeroProbabilityWarning,
    lazy_exports,
)
from ._version import __version__

if TYPE_CHECKING:  # what the lazy table below gives, for static readers (type checkers, IDEs, the API docs)
    from .criticism.checks import check_independence, check_marginals, check_mcar
    from .criticism.diagnostics import compare_posteriors
    from .estimators.naive_bayes import NaiveBayes
    from .estimators.outlier import NBOutlierDetector
    from .estimators.single import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB
    from .families import Bernoulli, Categorical, Complement, Gaussian, Histogram, Hurdle, LogNormal, Multinomial, Poisson
    from .impute.imputer import Imputer
    from .impute.pooling import pool
    from .impute.selfmasking import MNARImputation, impute_mnar, mnar_sensitivity
    from .impute.table import TableImputation, impute_table
    from .inference.em import LatentClassFit
    from .inference.nb_posterior import NBPosterior
    from .io.persistence import load
    from .privacy import DP
    from .synth.combining import pool_synthetic
    from .synth.quality import SyntheticReport, synthetic_report
    from .synth.synthesizer import Synthesizer

#: every public name but the warnings, ``set_progress`` and ``__version__`` lives in a module imported when the
#: name is first used (PEP 562): ``import bayesnb`` loads none of them, ``from bayesnb import CategoricalNB``
#: loads what that estimator needs, and a wing used only on call (criticism, imputation, the model file,
#: synthetic data) loads when its function is called
_HOMES = {
    "BernoulliNB": "estimators.single",
    "CategoricalNB": "estimators.single",
    "ComplementNB": "estimators.single",
    "GaussianNB": "estimators.single",
    "MultinomialNB": "estimators.single",
    "NaiveBayes": "estimators.naive_bayes",
    "NBOutlierDetector": "estimators.outlier",
    "Bernoulli": "families",
    "Categorical": "families",
    "Complement": "families",
    "Gaussian": "families",
    "Histogram": "families",
    "Hurdle": "families",
    "LogNormal": "families",
    "Multinomial": "families",
    "Poisson": "families",
    "LatentClassFit": "inference.em",
    "NBPosterior": "inference.nb_posterior",
    "DP": "privacy",
    "check_independence": "criticism.checks",
    "check_marginals": "criticism.checks",
    "check_mcar": "criticism.checks",
    "compare_posteriors": "criticism.diagnostics",
    "Imputer": "impute.imputer",
    "MNARImputation": "impute.selfmasking",
    "TableImputation": "impute.table",
    "impute_mnar": "impute.selfmasking",
    "impute_table": "impute.table",
    "mnar_sensitivity": "impute.selfmasking",
    "pool": "impute.pooling",
    "pool_synthetic": "synth.combining",
    "load": "io.persistence",
    "Synthesizer": "synth.synthesizer",
    "SyntheticReport": "synth.quality",
    "synthetic_report": "synth.quality",
}

#: what a user imports: estimators, families, the privacy setting, functions and the warnings to filter
#: (result types such as NBPosterior, LatentClassFit, TableImputation, MNARImputation and SyntheticReport are
#: returned, not imported; they live in their modules, as do BaseNB and missing_labels)
__all__ = [
    "DP",
    "AllMissingWarning",
    "FirstBatchFamilyWarning",
    "Bernoulli",
    "BernoulliNB",
    "Categorical",
    "CategoricalNB",
    "Complement",
    "ComplementNB",
    "Gaussian",
    "GaussianNB",
    "Hurdle",
    "Imputer",
    "Histogram",
    "LogNormal",
    "Multinomial",
    "MultinomialNB",
    "NBOutlierDetector",
    "NaiveBayes",
    "OneClassWarning",
    "Poisson",
    "SearchEdgeWarning",
    "Synthesizer",
    "ZeroProbabilityCondition",
    "ZeroProbabilityWarning",
    "check_independence",
    "check_marginals",
    "check_mcar",
    "compare_posteriors",
    "impute_mnar",
    "impute_table",
    "mnar_sensitivity",
    "pool",
    "pool_synthetic",
    "set_progress",
    "synthetic_report",
    "load",
]
#: the subpackages, reached as attributes (``bayesnb.families.Gaussian``, ``bayesnb.plot``) and imported on
#: first use, as ``import bayesnb.families`` would
_SUBPACKAGES = frozenset({"cli", "criticism", "datasets", "estimators", "families", "generative", "impute", "inference",
                          "io", "plot", "structure", "synth"})
_lazy_name, __dir__ = lazy_exports(__name__, _HOMES)


def __getattr__(name):
    """A public name of :data:`_HOMES` or a subpackage, imported on first use (PEP 562)."""
    if name in _SUBPACKAGES:
        return _importlib.import_module(f"{__name__}.{name}")
    return _lazy_name(name)


del TYPE_CHECKING, lazy_exports  # not public names of the package
