"""What the ``bayesnb`` commands share: reading a labelled table, fitting ``fit``'s model, loading a model and its table.

:func:`fit_table` is the model of ``bayesnb fit`` (also fitted by ``bayesnb mcmc``);
:func:`split_target` splits a table into features and ``--target`` labels. The commands
themselves (their arguments and handlers) live in one module each: :mod:`~bayesnb.cli.fit`,
:mod:`~bayesnb.cli.predict`, :mod:`~bayesnb.cli.score`, ...
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._utils import one_class_on_purpose, shown_list
from . import _when_run as when_run
from .chunks import fit_chunks
from .families import column_families, make_estimator
from .fitoptions import imputation_options, privacy_errors, privacy_options, with_privacy, with_structure
from .files import UsageError, read_table
from .labels import labelled_rows, record_target_index, warn_one_class
from .modelfile import features_of, load_model, read_for_model, unseen_warning

__all__ = ["ALPHA_WORDS", "MAX_ALPHA", "fit_table", "split_target"]

#: the texts ``--alpha`` takes besides numbers (those of NaiveBayes and CategoricalNB's alpha)
ALPHA_WORDS = ("auto", "hierarchical")
#: the largest ``--alpha``: a pseudo-count of rows, as the families bound it (2**53, where floats stop counting)
MAX_ALPHA = 2.0**53


def _parse_alpha(text):
    """``--alpha``: None, one of :data:`ALPHA_WORDS` or a number from 0 to :data:`MAX_ALPHA`."""
    if text is None:
        return None
    if text in ALPHA_WORDS:
        return text
    why = f"--alpha must be a number >= 0, 'auto' or 'hierarchical'; received {text!r}"
    try:
        a = float(text)
    except ValueError:
        raise UsageError(why) from None
    if not a >= 0:  # also NaN
        raise UsageError(why)
    if not a <= MAX_ALPHA:  # also inf
        raise UsageError(f"--alpha must be at most 2**53 (a pseudo-count of rows); received {text!r}")
    return a


def _labels(y):
    """Text labels as ``str`` (a missing label stays missing: ``NaN``).

    A column of Python strings (the usual case) is factorized once and its few distinct
    labels taken back into a ``str`` array (no per-cell conversion); other object columns
    (numbers among texts) are converted cell by cell.
    """
    if y.dtype != object:
        return y
    codes, uniques = pd.factorize(y.to_numpy(), use_na_sentinel=True)
    if len(uniques) and all(type(u) is str for u in uniques):
        texts = pd.Series(np.asarray(uniques, dtype=object)).astype(str).array  # the dtype astype(str) gives
        return pd.Series(texts.take(codes, allow_fill=True), index=y.index, name=y.name)
    return y.where(y.isna(), y.astype(str))


def split_target(df, args, where=None, report=True):
    """``(X, y)`` of table ``df``: the ``--target`` column, ``--columns`` (or every other column) as features.

    Rows with no label are an error unless ``--drop-unlabelled`` (then left out, their count
    reported on stderr unless ``report`` is false; see :func:`~bayesnb.cli.labels.labelled_rows`)
    or ``--semi-supervised`` (then kept).
    """
    where = where or args.data
    if args.target not in df.columns:
        raise UsageError(f"{where}: no column {args.target!r} (columns: {shown_list(df.columns, 10)})")
    if not getattr(args, "semi_supervised", False):
        instead = "--semi-supervised to use them" if hasattr(args, "semi_supervised") else None
        df, _ = labelled_rows(df, args.target, where, args.drop_unlabelled, instead, report=report)
    y = df[args.target]
    X = df.drop(columns=[args.target])
    if args.columns:
        cols = [c.strip() for c in args.columns.split(",")]
        bad = [c for c in cols if c not in X.columns]
        if bad:
            raise UsageError(f"{where}: no column(s) {bad}")
        X = X[cols]
    return X, _labels(y)


def fit_table(args):
    """Fit the model of ``bayesnb fit``'s options (also those of ``bayesnb mcmc``) to ``args.data``.

    Parameters
    ----------
    args : argparse.Namespace
        ``data``, ``target``, ``columns``, ``family``, ``alpha``, ``drop_unlabelled``, the
        reading options and (``fit`` only) ``chunksize``.

    Returns
    -------
    model : fitted estimator
    X, y : the training table and labels (None with ``--chunksize``: never all in memory)
    n_rows, n_features : int
    seconds : float
        Time spent fitting.
    """
    alpha = _parse_alpha(args.alpha)
    if getattr(args, "semi_supervised", False) and (args.drop_unlabelled or args.chunksize is not None):
        raise UsageError("--semi-supervised uses the unlabelled rows (EM over the whole table): it cannot be "
                         "combined with --drop-unlabelled or --chunksize")
    dp, categories = privacy_options(args)  # --privacy SPEC, --public-unlabelled
    family, per_column = column_families(args)
    if getattr(args, "classes", None) is not None and args.chunksize is None:
        raise UsageError("--classes applies to a chunked fit (--chunksize N); without it the classes are read "
                         "from the table")

    def make(X, y):
        model, scores = make_estimator(family, alpha, X, y, per_column, getattr(args, "numeric_family", "auto"))
        return with_privacy(with_structure(model, args), dp, categories, X), scores

    if getattr(args, "chunksize", None) is not None:
        imputation_options(None, args)  # --for-imputation refused with --chunksize
        return fit_chunks(args, alpha, make, lambda df, where: split_target(df, args, where, report=False),
                          family, per_column)
    df = read_table(args.data, args.na_values, numeric=args.numeric, categorical=args.categorical)
    X, y = split_target(df, args)
    warn_one_class(pd.unique(y.dropna()), args.target, args.data)
    known = y.notna().to_numpy()  # --semi-supervised: auto chooses families on the labelled rows
    model, scores = make(X[known], y[known]) if not known.all() else make(X, y)
    t0 = time.perf_counter()
    if getattr(args, "semi_supervised", False):
        imputation_options(model, args)  # --for-imputation refused with --semi-supervised
        public = {"public_unlabeled": True} if dp is not None else {}  # --public-unlabelled (privacy_options)
        with privacy_errors(dp):
            model.fit_semi_supervised(X, y.to_numpy(dtype=object) if y.isna().any() else y, **public)
    else:
        with one_class_on_purpose(), privacy_errors(dp):  # warned above, naming the file and the column
            model.fit(X, y, **imputation_options(model, args))  # --for-imputation: its imputer too
    if scores is not None:  # the families that auto chose beside the named ones
        model.family_scores_ = scores
    record_target_index(model, df.columns, args.target)
    return model, X, y, X.shape[0], X.shape[1], time.perf_counter() - t0


def _labels_like(model, y):
    """Coerce labels read from a file to the type of the model's classes."""
    classes = model.classes_
    if classes.dtype.kind in "iuf" and y.dtype == object:
        try:
            return y.astype(classes.dtype)
        except (TypeError, ValueError):
            return y
    if classes.dtype.kind in "OU" and y.dtype != object:
        return y.astype(str)
    return np.asarray(y)


def _model_and_table(args, labels=None, imputer=False):
    """The model of ``args.model``, the table ``args.data`` and its feature columns ``X``.

    With ``labels`` (a column name), rows with no label are refused unless
    ``--drop-unlabelled`` (then left out; :func:`~bayesnb.cli.labels.labelled_rows`). Warns
    about categorical values the model never saw.
    """
    model = load_model(args, imputer=imputer)
    nb = when_run.reading_model(model) if imputer else model  # an Imputer's data is read as its models read it
    df = read_for_model(nb, args)
    if labels is not None:
        if labels not in df.columns:
            raise UsageError(f"{args.data}: no column {labels!r}")
        df, _ = labelled_rows(df, labels, args.data, args.drop_unlabelled)
        if df.empty:
            raise UsageError(f"{args.data}: no row has a {labels!r} label")
    X = features_of(nb, df, args.data)
    unseen_warning(nb, X, args.data)
    return model, df, X
