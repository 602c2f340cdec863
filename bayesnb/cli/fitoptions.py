"""``bayesnb fit``'s own options (beside those it shares with ``bayesnb mcmc``) and the structure they ask for.

:func:`add_fit_options` adds ``--chunksize``, ``--semi-supervised``, the structure options and the
``--for-imputation`` options to the ``fit`` subparser; :func:`add_structure_options` adds
``--structure``, ``--k`` and ``--edge-score`` (``bayesnb mcmc`` takes them too: ``run_mcmc`` samples
every structure), and :func:`with_structure` passes them to the estimator the command builds (its
``structure``, ``k`` and ``edge_score`` hyperparameters); :func:`imputation_options` turns
``--for-imputation`` (with ``--configurations``, ``--label-given``, ``--search-rows``, ``--seed`` and ``--missingness``) into
``fit(X, y, impute=Imputer(configurations=..., label_given=..., search_rows=..., random_state=SEED))``;
:func:`privacy_options` reads ``--privacy SPEC`` (``DP``'s keyword arguments, and the declared categories) and
``--public-unlabelled``, and :func:`with_privacy` gives the estimator ``privacy=DP(...)`` and those categories.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from pathlib import Path

from . import _when_run as when_run
from .chunks import add_chunk_options
from .families import family_takes
from .._utils import UserError
from .files import UsageError
from .options import seed_value
from .tableimpute import parse_configurations

__all__ = ["STRUCTURE_OPTIONS", "add_fit_options", "add_structure_options", "imputation_options", "privacy_errors",
           "privacy_options", "with_privacy", "with_structure"]

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
    q.add_argument("--missingness", choices=("mar", "auto", "mnar"), default=None,
                   help="with --for-imputation: how cells came to be missing (as impute-table; default auto)")
    q.add_argument("--privacy", default=None, metavar="SPEC",
                   help="fit with differential privacy: privacy=DP(**SPEC), SPEC a JSON file (or the JSON object "
                        "itself) of DP's keyword arguments (epsilon, delta, mechanism, bounds, classes, row_length, "
                        "row_norm, noise_prior, class_share, random_state) and \"categories\": {column: [values]} of "
                        "the categorical columns; the families must be declared (--family NAME or --numeric-family "
                        "gaussian)")
    q.add_argument("--public-unlabelled", action="store_true",
                   help="with --semi-supervised and --privacy: declare the unlabelled rows public (not rows of the "
                        "private data: EM reads them without noise): fit_semi_supervised(..., public_unlabeled=True)")


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
    given = [f"--{o.replace('_', '-')}" for o in ("configurations", "search_rows", "seed", "missingness")
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
                           label_given=args.label_given, random_state=0 if args.seed is None else args.seed,
                           missingness=args.missingness or "auto")
    return {"impute": imp if args.search_rows is None else imp.set_params(search_rows=args.search_rows)}


def _read_spec(text):
    """The JSON object of ``--privacy SPEC``: SPEC's text when it starts with ``{``, else the file SPEC holds."""
    inline = text.lstrip().startswith("{")
    where = "--privacy" if inline else f"--privacy {text}"
    if not inline and not os.path.isfile(text):
        raise UsageError(f"{where}: no such file" if not os.path.exists(text) else f"{where}: not a file")
    try:
        spec = json.loads(text if inline else Path(text).read_text(encoding="utf-8"))
    except ValueError as e:
        raise UsageError(f"{where}: not valid JSON ({e})") from None
    if not isinstance(spec, dict):
        raise UsageError(f"{where}: expected a JSON object of DP's keyword arguments, e.g. {{\"epsilon\": 1.0, "
                         f"\"classes\": [\"a\", \"b\"]}}; received a JSON {type(spec).__name__}")
    return spec, where


def privacy_options(args):
    """``(DP or None, categories or None)`` of ``--privacy SPEC``; checks ``--public-unlabelled`` beside it.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (a command without ``--privacy``: ``(None, None)``).

    Returns
    -------
    dp : DP or None
        ``DP(**SPEC)``, SPEC's keys other than ``categories``.
    categories : dict, list or None
        SPEC's ``categories``: ``{column: [values]}``, the declared categories of the categorical columns,
        or one list ``[values]`` shared by all of them.

    Raises
    ------
    UsageError
        A missing or unreadable SPEC, bad JSON, an unknown key, a value DP refuses (its own message),
        ``--public-unlabelled`` without ``--semi-supervised`` or ``--privacy``, ``--semi-supervised`` under
        ``--privacy`` without ``--public-unlabelled``, or ``--privacy`` with an option a private fit refuses.
    """
    text, public, semi = getattr(args, "privacy", None), getattr(args, "public_unlabelled", False), \
        getattr(args, "semi_supervised", False)
    if public and not semi:
        raise UsageError("--public-unlabelled declares the unlabelled rows of --semi-supervised public; add "
                         "--semi-supervised")
    if text is None:
        if public:
            raise UsageError("--public-unlabelled applies to a private fit (--privacy SPEC); without it EM reads "
                             "every row anyway")
        return None, None
    if semi and not public:
        raise UsageError("--semi-supervised with --privacy runs EM on the unlabelled rows without noise: add "
                         "--public-unlabelled only if they are public (not rows of the private data); otherwise "
                         "leave them out (--drop-unlabelled)")
    for option, given, why in (
            ("--chunksize", getattr(args, "chunksize", None) is not None, "partial_fit per chunk would spend the "
             "budget again on every chunk"),
            ("--for-imputation", getattr(args, "for_imputation", False), "the imputer's search reads the raw rows "
             "without noise"),
            ("--alpha auto", getattr(args, "alpha", None) == "auto", "the alpha chosen by the evidence of the raw "
             "rows would leak them; give a number")):
        if given:
            raise UsageError(f"--privacy cannot be combined with {option}: {why}")
    one_family = [f for f in getattr(args, "family", None) or [] if "=" not in f and f.strip() != "auto"]
    if not one_family and getattr(args, "numeric_family", "auto") == "auto":
        raise UsageError("--privacy needs the families declared: --family NAME, or --numeric-family gaussian (with "
                         "--family COL=NAME for single columns); auto chooses them by the evidence of the raw rows, "
                         "which is not private")
    spec, where = _read_spec(text)
    categories = spec.pop("categories", None)
    known = [f.name for f in dataclasses.fields(when_run.DP)]
    unknown = sorted(set(spec) - set(known))
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {unknown}; expected DP's keyword arguments ({', '.join(known)}) "
                         "and categories")
    if "epsilon" not in spec:
        raise UsageError(f"{where}: no \"epsilon\" (the privacy budget, a number > 0)")
    lists = categories.values() if isinstance(categories, dict) else [categories]
    if categories is not None and not all(isinstance(v, list) and v and all(
            isinstance(c, (str, int, float)) and not isinstance(c, bool) for c in v) for v in lists):
        raise UsageError(f"{where}: categories must be an object {{column: [value, ...]}} or one list [value, ...] "
                         "shared by every categorical column, each list non-empty and of texts or numbers; received "
                         f"{json.dumps(categories)[:80]}")
    for key, ok, what in (("classes", isinstance(spec.get("classes"), list), "a list of the class labels"),
                          ("random_state", type(spec.get("random_state")) is int, "an integer (or null)")):
        if spec.get(key) is not None and not ok:
            raise UsageError(f"{where}: {key} must be {what}; received {json.dumps(spec[key])[:80]}")
    if isinstance(spec.get("bounds"), dict):  # JSON pairs are lists; DP takes (lo, hi)
        spec["bounds"] = {k: tuple(v) if isinstance(v, list) else v for k, v in spec["bounds"].items()}
    try:
        return when_run.DP(**spec), categories
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: {e}") from None


def with_privacy(model, dp, categories, X):
    """``model`` with ``privacy=dp`` and the declared ``categories`` of its categorical columns set.

    Parameters
    ----------
    model : estimator
        The estimator ``bayesnb fit`` built (and :func:`with_structure` set).
    dp : DP or None
        :func:`privacy_options`' setting (None: ``model`` as it is).
    categories : dict, list or None
        ``{column: [values]}`` (every column of a family that takes ``categories`` needs one), or one list
        shared by all those columns.
    X : DataFrame
        The feature columns.

    Returns
    -------
    model : estimator

    Raises
    ------
    UsageError
        An estimator without ``privacy``, a categorical column with no declared categories, or a declared
        column that is not one of the model's categorical columns.
    """
    if dp is None:
        return model
    params = model.get_params(deep=False)
    if "privacy" not in params:
        raise UsageError(f"--privacy does not apply to this --family: its estimator {type(model).__name__} has no "
                         "privacy")
    features = params.get("features")
    blocks = features.items() if isinstance(features, dict) else [(tuple(X.columns), model)]
    takes = [(cols, part) for cols, part in blocks if family_takes(type(part), "categories")]
    named = [str(c) for cols, _ in takes for c in cols]
    declared = dict.fromkeys(named, categories) if isinstance(categories, list) else dict(categories or {})
    lacking = [c for c in named if c not in declared]
    if lacking:
        raise UsageError(f"--privacy: the categorical column(s) {lacking} need declared categories (read from the "
                         "data, the values seen would be released without noise): add \"categories\": {\"" +
                         lacking[0] + "\": [...], ...} to SPEC")
    if categories is not None and not named:
        raise UsageError(f"--privacy: categories declares the categories of categorical columns; this --family's "
                         f"{type(model).__name__} has none")
    extra = [c for c in declared if c not in named]
    if extra:
        raise UsageError(f"--privacy: categories names {extra}, not categorical column(s) of this model "
                         f"(categorical: {named or 'none'})")
    for cols, part in takes:
        part.set_params(categories=[declared[str(c)] for c in cols])  # a part bayesnb fit built, not the user's
    if params.get("structure") == "auto" and "auto_cv" in params:  # privacy's own rule, no cross-validation
        model.set_params(auto_cv=False)
    return model.set_params(privacy=dp)


@contextlib.contextmanager
def privacy_errors(dp):
    """Under ``--privacy``, what a private fit refuses (the estimator's ``ValueError``) as a one-line UsageError."""
    try:
        yield
    except UserError:  # already the user's, in one line
        raise
    except (ValueError, TypeError, NotImplementedError) as e:
        if dp is None:
            raise
        raise UsageError(f"--privacy: {str(e).strip().splitlines()[0]}") from e
