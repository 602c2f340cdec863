"""``--family`` and ``--numeric-family``: the model ``bayesnb fit`` (and ``mcmc``) builds for a table.

``--family NAME`` gives one family to every feature column (today's estimators:
``CategoricalNB``, ``GaussianNB``, ``MultinomialNB``, ...), or ``auto`` (the default):
``NaiveBayes(features="auto")``, text, bool and category columns Categorical and each
numeric column the family its closed-form evidence chooses among Poisson, LogNormal,
Hurdle(LogNormal), Gaussian and a grid of Histograms (see
:mod:`bayesnb.estimators.auto_features`).

``--family COL=NAME`` (repeated) names the family of single columns, and
``--numeric-family gaussian`` gives every numeric column not named a Gaussian; the columns
not named keep what ``auto`` gives them. The model is then ``NaiveBayes(features={...})``
with one block per family, its columns grouped (:func:`column_features`).
"""

from __future__ import annotations

import inspect

import numpy as np

from .._utils import shown_list
from . import _when_run as when_run
from .files import UsageError

__all__ = ["NUMERIC_FAMILIES", "add_family_options", "column_families", "family_takes", "make_estimator",
           "reads_numbers"]

#: the values of ``--numeric-family``
NUMERIC_FAMILIES = ("auto", "gaussian")
#: the estimator ``--family NAME`` fits where one is named after the family; the others fit NaiveBayes
ESTIMATORS = {"categorical": "CategoricalNB", "gaussian": "GaussianNB", "multinomial": "MultinomialNB",
              "complement": "ComplementNB", "bernoulli": "BernoulliNB"}
#: what --alpha is for the families whose NaiveBayes block takes a number only (not 'auto', 'hierarchical')
ALPHA_MEANING = {"histogram": "its pseudo-count per bin", "hurdle": "the Beta pseudo-count of P(x = 0)"}


def family_takes(family, parameter="alpha"):
    """Whether ``family`` (a :class:`~bayesnb.families.Family` class) takes ``parameter``: a pseudo-count
    ``alpha`` (``--alpha``), or ``categories`` (``--privacy``'s declared categories)."""
    return parameter in inspect.signature(family).parameters


def reads_numbers(name):
    """Whether the family registered as ``name`` reads its columns as numbers (not raw values to encode)."""
    family = when_run.BY_NAME.get(name)
    return family is not None and not family.raw_values


def add_family_options(parser):
    """Add ``--family`` (repeatable) and ``--numeric-family`` to an argparse ``parser`` (fit, mcmc)."""
    parser.add_argument("--family", action="append", default=None, metavar="NAME|COL=NAME",
                        help="feature family. NAME for every column: auto (the default: text, bool and category "
                             "columns categorical; each numeric column the family its evidence chooses among "
                             "poisson, lognormal, hurdle, gaussian and histograms of 8 to 256 bins), "
                             "categorical, gaussian, multinomial (counts), complement (counts, Complement NB), "
                             "bernoulli (0/1), poisson (counts, column by column), lognormal (positive values), "
                             "histogram (numbers, binned at the training quantiles; --alpha is its pseudo-count "
                             "per bin), hurdle (values >= 0 with exact zeros: P(x = 0) and a log-normal for x > 0). "
                             "COL=NAME (repeatable) for one column, e.g. --family age=gaussian --family "
                             "city=categorical; the columns not named keep what auto gives them")
    parser.add_argument("--numeric-family", choices=NUMERIC_FAMILIES, default="auto",
                        help="family of the numeric columns --family COL=NAME does not name: auto (by evidence, "
                             "the default) or gaussian (categorical + Gaussian naive Bayes, no search)")


def column_families(args):
    """``(family, {column: family})`` of ``--family`` (and ``--numeric-family``).

    Parameters
    ----------
    args : argparse.Namespace
        ``family`` (a list of ``NAME`` and ``COL=NAME`` texts, or None) and
        ``numeric_family``.

    Returns
    -------
    family : str
        The one ``--family NAME`` (``"auto"`` when none was given).
    per_column : dict or None
        ``{column: NAME}`` of the ``--family COL=NAME`` options; None when the model is one
        estimator (``--family NAME`` alone, ``--numeric-family auto``).

    Raises
    ------
    UsageError
        An unknown family, a column named twice, two ``--family NAME``, or ``--family NAME``
        (other than ``auto``) beside ``--family COL=NAME`` or ``--numeric-family gaussian``.
    """
    single, per_column = [], {}
    for text in getattr(args, "family", None) or []:
        col, eq, name = text.rpartition("=")
        name = name.strip()
        if not eq:
            if name != "auto" and name not in when_run.BY_NAME:
                families = ", ".join(when_run.BY_NAME)
                raise UsageError(f"--family {text!r}: no such family; expected one of auto, {families}, "
                                 "or COL=FAMILY for one column")
            single.append(name)
            continue
        col = col.strip()
        if not col:
            raise UsageError(f"--family {text!r}: give COL=FAMILY (a column name before '=')")
        if name not in when_run.BY_NAME:
            raise UsageError(f"--family {text!r}: no such family {name!r} for a column; expected one of "
                             f"{', '.join(when_run.BY_NAME)}")
        if col in per_column:
            raise UsageError(f"--family names column {col!r} twice ({col}={per_column[col]} and {col}={name})")
        per_column[col] = name
    if len(set(single)) > 1:
        raise UsageError(f"--family is given {len(single)} families for every column ({', '.join(single)}); give one, "
                         "or COL=FAMILY per column")
    family = single[0] if single else "auto"
    numeric = getattr(args, "numeric_family", "auto") or "auto"
    if family != "auto" and (per_column or numeric != "auto"):
        given = "--family COL=FAMILY" if per_column else f"--numeric-family {numeric}"
        raise UsageError(f"--family {family} gives every column one family; it cannot be combined with {given} "
                         "(name each column's family instead, e.g. --family age=gaussian)")
    return family, (per_column if per_column or numeric != "auto" else None)


def _one_family(family, alpha, X):
    """The estimator of ``--family NAME`` (one family for every column of ``X``)."""
    kw = {} if alpha is None else {"alpha": alpha}
    if family == "auto":  # the estimators' own rule (text/bool/category columns Categorical, numeric by evidence)
        return when_run.NaiveBayes(**kw)
    factory = when_run.BY_NAME[family]
    if alpha is not None and not family_takes(factory):
        takes = [name for name, f in when_run.BY_NAME.items() if family_takes(f)]
        raise UsageError(f"--alpha applies to the {', '.join(takes[:-1])} and {takes[-1]} families; a {family} "
                         "family has no alpha")
    if family in ESTIMATORS:
        return getattr(when_run, ESTIMATORS[family])(**kw)
    if isinstance(alpha, str):  # 'auto', 'hierarchical': chosen by the estimators above, not by a block's family
        what = ALPHA_MEANING.get(family, "its pseudo-count")
        raise UsageError(f"--alpha of the {family} family must be a number > 0 ({what}); received {alpha!r}")
    return when_run.NaiveBayes(features={tuple(X.columns): factory(**kw)})


def column_features(per_column, numeric_family, alpha, X, y=None):
    """The ``features`` dict of ``--family COL=NAME`` and ``--numeric-family`` for table ``X``.

    Parameters
    ----------
    per_column : dict
        ``{column: NAME}`` (:func:`column_families`).
    numeric_family : {"auto", "gaussian"}
        The family of each numeric column not named (``auto``: chosen by its evidence given
        ``y``, as ``NaiveBayes(features="auto")`` chooses it).
    alpha : float or None
        ``--alpha``: the pseudo-count of every family that has one (Categorical, Bernoulli,
        Multinomial, Complement, Histogram, Hurdle).
    X : DataFrame
        The feature columns.
    y : array-like, optional
        The labels (needed where ``auto`` chooses a numeric family).

    Returns
    -------
    features : dict
        ``{(column, ...): Family}``, one block per family, columns in table order.
    scores : DataFrame or None
        The candidates' scores of the columns that ``auto`` chose (``family_scores_``).
    """
    names = [str(c) for c in X.columns]
    bad = [c for c in per_column if c not in names]
    if bad:
        raise UsageError(f"--family names no column(s) {bad} (feature columns: {shown_list(names, 10)})")
    if alpha == "auto":
        raise UsageError("--alpha auto chooses the alpha of features='auto' alone; with --family COL=FAMILY or "
                         "--numeric-family give a number (e.g. --alpha 1)")
    kinds = dict(zip(names, when_run.column_kinds(X)))
    chosen = {c: per_column.get(c, "categorical" if kinds[c] == "categorical" else numeric_family) for c in names}
    takes = [n for n in set(chosen.values()) if n in when_run.BY_NAME and family_takes(when_run.BY_NAME[n])]
    if alpha is not None and not takes:
        raise UsageError(f"--alpha applies to the categorical, histogram, hurdle, bernoulli, multinomial and "
                         f"complement families; these columns have {', '.join(sorted(set(chosen.values())))}")
    groups, features, scores = {}, {}, None
    for c in names:  # one block per family, in order of first column
        groups.setdefault(chosen[c], []).append(c)
    for name, cols in groups.items():
        if name == "auto":
            continue
        factory = when_run.BY_NAME[name]
        features[tuple(cols)] = factory(alpha=alpha) if family_takes(factory) and alpha is not None else factory()
    if "auto" in groups:
        labels = np.asarray(y)
        resp = (labels[:, None] == np.unique(labels)[None, :]).astype(float)  # one-hot labels
        specs, scores = when_run.auto_blocks(X[groups["auto"]], resp=resp)
        for cols, fam in specs:
            features[tuple(groups["auto"][j] for j in cols)] = fam
    return features, scores


def make_estimator(family, alpha, X, y=None, per_column=None, numeric_family="auto"):
    """The estimator that ``bayesnb fit --family ... --alpha ALPHA`` fits to table ``X`` (labels ``y``).

    Returns
    -------
    model : estimator
    scores : DataFrame or None
        Where ``auto`` chose some columns' families beside named ones: their candidates'
        scores, to store as the fitted model's ``family_scores_``.
    """
    if per_column is None:
        return _one_family(family, alpha, X), None
    features, scores = column_features(per_column, numeric_family, alpha, X, y)
    return when_run.NaiveBayes(features=features), scores
