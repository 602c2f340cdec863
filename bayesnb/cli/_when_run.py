"""What the commands use only when they run, imported on first use (PEP 562).

``bayesnb --help``, ``bayesnb datasets list`` and every command's ``register(subparsers)``
build the parser without the estimators, the imputer, the synthesizer, criticism, the model
format or the plots; a command's handler reaches them as ``when_run.NAME`` (``from ..HOME
import NAME``, looked up on each use). The import-graph checks read the table as imports.
"""

import sys
from importlib.util import resolve_name

from .._utils import lazy_exports

_HOMES = {
    "plot": "..",
    "SkCategoricalNB": "peers",
    "StratifiedKFold": "peers",
    "log_loss": "peers",
    "check_independence": "..criticism.checks",
    "check_marginals": "..criticism.checks",
    "block_layouts": "..criticism.diagnostics",
    "compare_posteriors": "..criticism.diagnostics",
    "BernoulliNB": "..estimators",
    "CategoricalNB": "..estimators",
    "ComplementNB": "..estimators",
    "GaussianNB": "..estimators",
    "MultinomialNB": "..estimators",
    "NBOutlierDetector": "..estimators.outlier",  # where defined: is_a looks in sys.modules for it
    "NaiveBayes": "..estimators.naive_bayes",
    "auto_blocks": "..estimators.auto_features",
    "column_kinds": "..estimators.auto_features",
    "MODES": "..estimators.auto_features",
    "BY_NAME": "..families",
    "AUTO_CONTAMINATION": "..generative.outlier_threshold",
    "outlier_offset": "..generative.outlier_threshold",
    "CONFIGURATIONS": "..impute.configs",
    "configuration_names": "..impute.configs",
    "reading_model": "..impute.configs",
    "Imputer": "..impute.imputer",
    "fit_fill": "..impute.table",
    "DP": "..privacy",
    "pool": "..impute.pooling",
    "pool_synthetic": "..synth.combining",
    "credible_interval": "..inference.draws",
    "posterior_moments": "..inference.draws",
    "sample_posterior_draws": "..inference.draws",
    "ess_bulk": "..inference.mcmc_stats",
    "rhat_rank": "..inference.mcmc_stats",
    "show_progress": "..inference.nuts",
    "ModelFileError": "..io.persistence",
    "load": "..io.persistence",
    "read_model_file": "..io.persistence",
    "blank_missing": "..synth.missing_nodes",
    "indicators_in": "..synth.missing_nodes",
    "observed_support": "..synth.observed_support",
    "sample_in_range": "..synth.observed_range",
    "private_draws": "..synth.private_synth",
    "synthetic_report": "..synth.quality",
    "Synthesizer": "..synth.synthesizer",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES)


def is_a(obj, name: str) -> bool:
    """``isinstance(obj, when_run.NAME)`` without importing ``NAME``'s home when it is not loaded yet.

    An instance of a class (or of a subclass) exists only once the class's module is imported, so a
    home not in ``sys.modules`` answers False at no cost: ``bayesnb info`` on a classifier's file
    need not load the imputer, the synthesizer and the outlier detector to learn that it holds none.
    """
    module = sys.modules.get(resolve_name(_HOMES[name], __package__))  # the module defining NAME
    return module is not None and isinstance(obj, vars(module)[name])
