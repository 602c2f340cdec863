"""``bayesnb fit``'s own options (beside those it shares with ``bayesnb mcmc``) and the structure they ask for.

:func:`add_fit_options` adds ``--chunksize``, ``--semi-supervised``, the structure options and the
``--for-imputation`` options to the ``fit`` subparser; :func:`add_structure_options` adds
``--structure``, ``--k`` and ``--edge-score`` (``bayesnb mcmc`` takes them too: ``run_mcmc`` samples
every structure), and :func:`with_structure` passes them to the estimator the command builds (its
``structure``, ``k`` and ``edge_score`` hyperparameters); :func:`imputation_options` turns
``--for-imputation`` (with ``--configurations``, ``--label-given``, ``--search-rows`` and ``--seed``) into
``fit(X, y, impute=Imputer(configurations=..., label_given=..., search_rows=..., random_state=SEED))``.
"""

from __future__ import annotations

from . import _when_run as when_run
from .chunks import add_chunk_options
from .files import UsageError
from .options import seed_value
from .tableimpute import parse_configurations

__all__ = ["STRUCTURE_OPTIONS", "add_fit_options", "add_structure_options", "imputation_options", "with_structure"]

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
    add_structure_options(q, "; with --chunksize it is learnt on the first chunk, as partial_fit does")
    q.add_argument("--for-imputation", action="store_true",
                   help="also fit, on DATA, the imputer impute-table fits (a model per column chosen on hidden "
                        "cells) and save it in the model: 'bayesnb impute MODEL DATA' then fills with it "
                        "(fit(X, y, impute=Imputer(...)); costs seconds to minutes)")
    q.add_argument("--configurations", default=None, metavar="auto|A,B",
                   help="with --for-imputation: the configurations to choose among (as impute-table; default auto)")
    q.add_argument("--label-given", action="store_true",
                   help="with --for-imputation: condition each row's imputation on its label")
    q.add_argument("--search-rows", type=int, default=None, metavar="N",
                   help="with --for-imputation: rows of the latent-class component search (default 5000)")
    q.add_argument("--seed", type=seed_value, default=None, help="with --for-imputation: random seed (default 0)")


def add_structure_options(q, note=""):
    """Add ``--structure``, ``--k`` and ``--edge-score`` (the estimator's hyperparameters) to parser ``q``.

    Parameters
    ----------
    q : argparse.ArgumentParser
        The ``fit`` or ``mcmc`` subparser (the command builds its estimator with :func:`with_structure`).
    note : str, default=""
        Appended to ``--structure``'s help (what the command does with it).
    """
    q.add_argument("--structure", choices=["naive", "tan", "kdb", "auto"], default=None,
                   help="dependencies between features given the class: naive (none; the default), tan (a tree), "
                        "kdb (up to --k parents each) or auto (chosen by held-out log-likelihood): the estimator's "
                        "structure=" + note)
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


def imputation_options(model, args):
    """``fit``'s keyword arguments for ``--for-imputation``: ``{"impute": Imputer(...)}``, or ``{}`` without it.

    Parameters
    ----------
    model : estimator
        The estimator ``bayesnb fit`` built (``--for-imputation`` needs a NaiveBayes).
    args : argparse.Namespace
        The parsed options (a command without them: ``{}``).

    Returns
    -------
    dict

    Raises
    ------
    UsageError
        An imputer option without ``--for-imputation``, ``--for-imputation`` with ``--chunksize`` or
        ``--semi-supervised``, or an estimator other than NaiveBayes.
    """
    if not hasattr(args, "for_imputation"):  # a command without these options (bayesnb mcmc: its own --seed)
        return {}
    given = [f"--{o.replace('_', '-')}" for o in ("configurations", "search_rows", "seed")
             if getattr(args, o, None) is not None] + (["--label-given"] if getattr(args, "label_given", False) else [])
    if not getattr(args, "for_imputation", False):
        if given:
            raise UsageError(f"{', '.join(given)} set the imputer of --for-imputation; add --for-imputation")
        return {}
    if getattr(args, "chunksize", None) is not None or getattr(args, "semi_supervised", False):
        raise UsageError("--for-imputation fits the imputer on the whole labelled table: it cannot be combined "
                         "with --chunksize or --semi-supervised")
    if not when_run.is_a(model, "NaiveBayes"):
        raise UsageError(f"--for-imputation needs a NaiveBayes (--family auto or COL=FAMILY); this --family builds "
                         f"{type(model).__name__}")
    if args.search_rows is not None and args.search_rows < 2:
        raise UsageError(f"--search-rows must be at least 2; received {args.search_rows}")
    imp = when_run.Imputer(configurations=parse_configurations(args.configurations or "auto"),
                           label_given=args.label_given, random_state=0 if args.seed is None else args.seed)
    return {"impute": imp if args.search_rows is None else imp.set_params(search_rows=args.search_rows)}
