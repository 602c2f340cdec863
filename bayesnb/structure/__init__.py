"""Structure: which features each feature is conditioned on besides the class, and the one engine.

One package, by job:

- :mod:`~bayesnb.structure.learn` -- edge scores (BDeu log Bayes factors or mutual information)
  and TAN / k-DB parent sets, from encoded categorical data;
- :mod:`~bayesnb.structure.hierarchical` -- hierarchical smoothing of a categorical node's
  tables (each context's Dirichlet centred on its parent context's estimate);
- :mod:`~bayesnb.structure.engine` -- the engine: every feature a node whose family is fitted
  on its contexts (class x parents' states), naive being the empty parent sets;
- :mod:`~bayesnb.structure.infer` -- exact log-likelihoods and contributions on the forest;
- :mod:`~bayesnb.structure.exact_impute` -- exact imputation and (conditional) sampling;
- :mod:`~bayesnb.structure.structure_draws` -- exact draws of every node's parameters per context;
- :mod:`~bayesnb.structure.structured_em` -- semi-supervised and latent-class EM over the nodes;
- :mod:`~bayesnb.structure.select` -- ``structure="auto"``: candidates compared by evidence,
  with a cross-validation guard against naive;
- :mod:`~bayesnb.structure.graph_figure` -- the drawing of a fitted structure.

The one NumPyro model of every structure, naive included, is :mod:`bayesnb.inference.numpyro_model`
(:func:`~bayesnb.inference.numpyro_model.structure_inputs`), run by the NUTS runner of every model.

The public names of :mod:`~bayesnb.structure.learn` are re-exported here
(``from bayesnb.structure import learn_parents``). Nothing else is imported at package level,
so that the families layer can use :mod:`~bayesnb.structure.hierarchical` without loading the
engine.
"""

from .learn import (
    EDGE_SCORES,
    STRUCTURES,
    EdgeScores,
    PairCounts,
    chow_liu_parents,
    class_mutual_information,
    conditional_mutual_information,
    edge_log_bayes_factors,
    edge_scores,
    edge_scores_from_counts,
    kdb_parents,
    learn_parents,
    pair_counts,
    scoring_rows,
    topological_order,
    warn_few_rows,
    without_edges,
)

__all__ = ["EDGE_SCORES", "STRUCTURES", "EdgeScores", "PairCounts", "chow_liu_parents", "class_mutual_information",
           "conditional_mutual_information", "edge_log_bayes_factors", "edge_scores", "edge_scores_from_counts",
           "kdb_parents", "learn_parents", "pair_counts", "scoring_rows", "topological_order", "warn_few_rows",
           "without_edges"]
