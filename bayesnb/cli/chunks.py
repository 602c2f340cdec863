"""``bayesnb fit --chunksize N``: fit a CSV larger than memory, ``partial_fit`` on pandas chunks.

Two passes over the file, each holding one chunk at a time:

1. **Column types.** pandas infers each chunk's dtypes on its own, so a column of numbers
   in the first chunk may hold a word in a later one, and would change type mid-fit. The
   first pass reads every chunk as :func:`~bayesnb.cli.io.read_table` would and notes the
   columns that are text in any chunk: those are read as text (categories) in every chunk
   of the second pass, as reading the whole file at once would.
2. **Fitting.** Each chunk is split into features and labels exactly as ``bayesnb fit``
   does and added with ``partial_fit`` (the classes, found in the first pass, are given to
   the first call). A category first seen in a late chunk is added to its column by
   ``partial_fit`` (categories stay sorted, each with the prior's pseudo-count in every
   class), which gives the model of one ``fit`` on the whole table.

What cannot be streamed is said, never done silently: ``--alpha auto`` (chosen by the
evidence of the whole table) is refused, and with ``--family auto`` the family of each
numeric column is chosen by its evidence on the *first chunk* (a warning names them; give
``--family`` to choose): a fit on that chunk chooses them and the model gets them as an explicit
features dict (``NaiveBayes(features="auto").partial_fit`` would choose on its first batch with a warning),
so the families and a Histogram's bins are the first chunk's. A progress line on stderr counts the rows read (not with ``-q``,
nor when stderr is not a terminal).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd

from ..estimators._auto import column_kinds
from .io import QUIET, UsageError, read_table_chunks, warn
from .labels import record_target_index, report_dropped, warn_one_class

__all__ = ["fit_chunks", "read_chunks"]

_PASS1, _PASS2 = "pass 1/2 (column types and classes)", "pass 2/2 (partial_fit)"


def _progress(what, rows, done=False):
    """``pass 1/2 (column types and classes): 12,000 rows read``, rewritten in place on a terminal's stderr."""
    if QUIET[0] or not sys.stderr.isatty():
        return
    print(f"\r{what}: {rows:,} rows read" + ("\n" if done else ""), end="", file=sys.stderr, flush=True)


def read_chunks(path, chunksize, na_values=None, numeric=None, categorical=None):
    """:func:`~bayesnb.cli.io.read_table_chunks`, refusing stdin and Parquet and a bad ``chunksize``."""
    if path == "-" or os.path.splitext(path)[1].lower() in (".parquet", ".pq"):
        raise UsageError(f"--chunksize reads a CSV/TSV file twice (column types, then the fit); "
                         f"received {path!r}: fit it without --chunksize")
    if chunksize < 1:
        raise UsageError(f"--chunksize must be a positive number of rows; received {chunksize}")
    yield from read_table_chunks(path, chunksize, na_values, numeric, categorical)


def fit_chunks(args, alpha, make, split):
    """Fit ``make(X)`` chunk by chunk; the return value of :func:`~bayesnb.cli.commands.fit_table`.

    ``split(df, where)`` turns a chunk into ``(X, y)`` as ``bayesnb fit`` does.
    """
    if alpha == "auto":
        raise UsageError("--alpha auto is chosen by the evidence of the whole table, which --chunksize never "
                         "holds; give a number (e.g. --alpha 1), or fit without --chunksize")
    path, n = args.data, int(args.chunksize)
    text, classes, rows, dropped = set(args.categorical or []), set(), 0, 0
    for df in read_chunks(path, n, args.na_values, args.numeric, args.categorical):  # pass 1: types and classes
        text |= {c for c in df.columns if df[c].dtype.kind not in "iufbmM"}
        _, y = split(df, f"{path} (rows {df.index[0] + 1}-{df.index[-1] + 1})")
        classes |= set(pd.unique(y))
        rows += len(df)
        dropped += len(df) - len(y)
        _progress(_PASS1, rows)
    _progress(_PASS1, rows, done=True)
    report_dropped(dropped, args.target)  # once for the file, not per chunk
    warn_one_class(classes, args.target, path)
    categorical = sorted(text - set(args.numeric or []))
    model, seen, t = None, 0, 0.0
    for df in read_chunks(path, n, args.na_values, args.numeric, categorical):  # pass 2: the fit
        X, y = split(df, f"{path} (rows {df.index[0] + 1}-{df.index[-1] + 1})")
        t0 = time.perf_counter()
        if model is None:
            model = make(X)
            scores = _pin_auto_families(model, X, y)
            model.partial_fit(X, y, classes=np.array(sorted(classes), dtype=y.to_numpy().dtype))
            if scores is not None and len(scores):
                model.family_scores_ = scores  # the first chunk's choice, as `bayesnb info` shows it
            _family_warning(model, X, len(df), rows)
        else:
            model.partial_fit(X, y)
        t += time.perf_counter() - t0
        seen += len(df)
        _progress(_PASS2, seen)
    _progress(_PASS2, seen, done=True)
    record_target_index(model, df.columns, args.target)
    return model, None, None, seen, len(model.feature_names_in_), t


def _pin_auto_families(model, X, y):
    """With ``--family auto``: fix the families the first chunk chooses.

    ``NaiveBayes(features="auto").partial_fit`` would make that choice on its first batch with
    a warning (it need not equal ``fit``); here it is made explicitly: a fit on the first chunk
    chooses each numeric column's family (a Histogram's bins are set by the first
    ``partial_fit``, on that same chunk), and ``model`` gets them as its features dict, and the
    CLI says so (:func:`_family_warning`). Returns that fit's ``family_scores_``, or None when
    there is nothing to choose.
    """
    from sklearn.base import clone

    features = getattr(model, "features", None)
    if not (isinstance(features, str) and features == "auto") or "numeric" not in column_kinds(X):
        return None
    first = clone(model).fit(X, y)
    model.set_params(features={tuple(cols): fam for cols, fam in first.blocks_}, alpha=None)
    return first.family_scores_


def _family_warning(model, X, n_first, n_all):
    """Say which families ``--family auto`` chose for numeric columns on the first chunk."""
    scores = getattr(model, "family_scores_", None)
    if scores is None or n_first >= n_all or len(scores) == 0:
        return
    chosen = [f"{b.names[j]}: {type(b.family).__name__}" for b in model.posterior_.blocks
              if type(b.family).__name__ != "Categorical" for j in range(len(b.names))]
    if chosen:
        warn(f"--family auto chose the family of each numeric column by its evidence on the first chunk "
             f"({n_first} of {n_all} rows): {', '.join(chosen[:8])}{' ...' if len(chosen) > 8 else ''}; "
             "Histogram bins are its quantiles; give --family to choose it yourself")
