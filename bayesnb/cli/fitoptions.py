"""``bayesnb fit``'s own options (beside those it shares with ``bayesnb mcmc``) and the structure they ask for.

:func:`add_fit_options` adds ``--chunksize``, ``--semi-supervised``, ``--structure``, ``--k``
and ``--edge-score`` to the ``fit`` subparser; :func:`with_structure` passes the last three to
the estimator the command builds (its ``structure``, ``k`` and ``edge_score`` hyperparameters).
"""

from __future__ import annotations

from .chunks import add_chunk_options
from .io import UsageError

__all__ = ["STRUCTURE_OPTIONS", "add_fit_options", "with_structure"]

#: the estimator hyperparameters these options set (each option's argparse dest is its name)
STRUCTURE_OPTIONS = ("structure", "k", "edge_score")


def add_fit_options(q):
    """Add ``bayesnb fit``'s chunked, semi-supervised and structure options to parser ``q``.

    Parameters
    ----------
    q : argparse.ArgumentParser
        The ``fit`` subparser.
    """
    add_chunk_options(q)
    q.add_argument("--semi-supervised", action="store_true",
                   help="use the rows with no label too: model.fit_semi_supervised (EM, each unlabelled row "
                        "weighted by its class responsibilities)")
    q.add_argument("--structure", choices=["naive", "tan", "kdb", "auto"], default=None,
                   help="dependencies between features given the class: naive (none; the default), tan (a tree), "
                        "kdb (up to --k parents each) or auto (chosen by held-out log-likelihood): the estimator's "
                        "structure=; with --chunksize it is learnt on the first chunk, as partial_fit does")
    q.add_argument("--k", type=int, default=None, metavar="K",
                   help="parents per feature besides the class under --structure kdb (or auto's k-DB candidate); "
                        "an integer >= 1, default 2: the estimator's k=")
    q.add_argument("--edge-score", choices=["bdeu", "hierarchical", "mi"], default=None,
                   help="score of the edges that tan and kdb learn from (default bdeu): the estimator's edge_score=")


def with_structure(model, args):
    """``model`` with the ``--structure``, ``--k`` and ``--edge-score`` of ``args`` set (those given).

    Parameters
    ----------
    model : estimator
        The estimator ``bayesnb fit`` built from ``--family`` and ``--alpha``.
    args : argparse.Namespace
        The parsed options (a command without these options leaves ``model`` as it is).

    Returns
    -------
    model : estimator
        The same estimator, its hyperparameters set.

    Raises
    ------
    UsageError
        ``--k`` without ``--structure kdb`` or ``auto``, ``--k`` below 1, ``--edge-score``
        under the naive structure, or an estimator without these hyperparameters.
    """
    given = {p: getattr(args, p) for p in STRUCTURE_OPTIONS if getattr(args, p, None) is not None}
    if not given:
        return model
    structure = given.get("structure", "naive")
    if "k" in given and structure not in ("kdb", "auto"):
        raise UsageError(f"--k sets the parents of --structure kdb (or auto's k-DB candidate); the structure is "
                         f"{structure}: add --structure kdb")
    if "k" in given and given["k"] < 1:
        raise UsageError(f"--k must be an integer >= 1 (parents per feature besides the class); received {given['k']}")
    if "edge_score" in given and structure == "naive":
        raise UsageError("--edge-score scores the edges of --structure tan, kdb or auto; the naive structure has "
                         "none: add --structure tan or kdb")
    params = model.get_params(deep=False)
    lacking = [p for p in given if p not in params]
    if lacking:
        options = ", ".join("--" + p.replace("_", "-") for p in lacking)
        raise UsageError(f"{options} does not apply to this --family: its estimator {type(model).__name__} has no "
                         f"{', '.join(lacking)} (NaiveBayes, built by --family auto or COL=FAMILY, has structure, k "
                         "and edge_score; CategoricalNB structure and k)")
    return model.set_params(**given)
