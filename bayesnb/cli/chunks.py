"""``bayesnb fit --chunksize N``: fit a CSV larger than memory, ``partial_fit`` on chunks of rows.

Every chunk is parsed with one type per column (:mod:`~bayesnb.cli.chunkread`), so a column
never changes type mid-file. With the families given it is one pass (types of the first chunk,
confirmed on the whole chunk by :func:`_confirmed`; classes from ``--classes`` or a pass over the
target); with ``auto`` a first pass reads every cell as text to fix each column's type, the
missing columns and the classes, and the second fits. A category first seen late joins its
column, which gives the model of one ``fit`` on the whole table. What cannot be streamed is
refused or said (``--alpha auto``; numeric families chosen on the first chunk, with a warning).
See docs/cli.md, "Tables larger than memory: `fit --chunksize`".
"""

from __future__ import annotations

import itertools
import os
import sys
import time

import numpy as np
import pandas as pd

from .._utils import arrow_factorize, is_arrow_text, one_class_on_purpose, shown_list
from . import _when_run as when_run
from .chunkread import SAMPLE_ROWS, agrees, first_chunk_kinds, header, keep_freed_memory, read_kinds, scan_kinds
from .families import reads_numbers
from .files import UsageError, _mixed_numeric_warning, _number_text, _split_names, quiet, warn
from .labels import record_target_index, report_dropped, warn_one_class

__all__ = ["add_chunk_options", "fit_chunks"]


def add_chunk_options(parser):
    """Add ``--chunksize`` and ``--classes`` to the argparse ``parser`` of ``bayesnb fit``."""
    parser.add_argument("--chunksize", type=int, default=None, metavar="N",
                        help="read a CSV larger than memory N rows at a time (model.partial_fit per chunk; the "
                             "same model as one fit). Where auto chooses families, a first pass reads the column "
                             "types and classes; where every family is given (--family NAME, or --family COL=NAME "
                             "with --numeric-family gaussian) the types are the first chunk's and, with --classes, "
                             "the file is read once")
    parser.add_argument("--classes", default=None, metavar="A,B,...",
                        help="with --chunksize: every label of --target (no pass spent finding them)")


def _progress(what, rows, done=False):
    """``pass 1/2 (column types and classes): 12,000 rows read``, rewritten in place on a terminal's stderr."""
    if quiet() or not sys.stderr.isatty():
        return
    print(f"\r{what}: {rows:,} rows read" + ("\n" if done else ""), end="", file=sys.stderr, flush=True)


def _check(path, chunksize):
    if path == "-" or os.path.splitext(path)[1].lower() in (".parquet", ".pq"):
        raise UsageError(f"--chunksize reads a CSV/TSV file in chunks of rows; received {path!r}: fit it without "
                         "--chunksize")
    if chunksize < 1:
        raise UsageError(f"--chunksize must be a positive number of rows; received {chunksize}")
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")


def _declared(args, names, family, per_column):
    """``({column: kind} known before reading, {column: why it holds numbers}, all families given)``."""
    _split_names(args.numeric, "--numeric", names, args.data)
    _split_names(args.categorical, "--categorical", names, args.data)
    both = sorted(set(args.numeric or []) & set(args.categorical or []))
    if both:
        raise UsageError(f"column(s) {both} are given both as --numeric and --categorical")
    declared = {c: "text" for c in args.categorical or []}
    numbers = {c: f"--numeric {c}" for c in args.numeric or []}
    for c, name in (per_column or {}).items():
        if not reads_numbers(name) and c not in numbers:
            declared.setdefault(c, "text")
        elif reads_numbers(name) and c not in declared:
            numbers[c] = f"--family {c}={name}"
    features = [c.strip() for c in args.columns.split(",")] if args.columns else [c for c in names if c != args.target]
    given = family != "auto" or (per_column is not None and (getattr(args, "numeric_family", "auto") == "gaussian"
                                                              or all(c in per_column for c in features)))
    return declared, numbers, given


def _typed(values, kind):
    """Labels (texts, or numbers as a chunk read them) as the target column's kind reads them."""
    if kind == "int":
        return {int(float(t)) for t in values}
    if kind == "float":
        return {float(t) for t in values}
    if kind == "bool":
        return {t if isinstance(t, bool) else t in ("True", "TRUE", "true") for t in values}
    return {t if isinstance(t, str) else _number_text(t) for t in values}


def fit_chunks(args, alpha, make, split, family="auto", per_column=None):
    """Fit ``make(X, y)`` (the model and the scores of ``auto``'s choices) chunk by chunk.

    The return value is that of :func:`~bayesnb.cli.commands.fit_table`. ``split(df, where)``
    turns a chunk into ``(X, y)`` as ``bayesnb fit`` does; ``family`` and ``per_column`` are
    :func:`~bayesnb.cli.families.column_families` of the options.
    """
    if alpha == "auto":
        raise UsageError("--alpha auto is chosen by the evidence of the whole table, which --chunksize never "
                         "holds; give a number (e.g. --alpha 1), or fit without --chunksize")
    path, n = args.data, int(args.chunksize)
    _check(path, n)
    keep_freed_memory()  # each chunk reuses the pages of the one before (no page faults per chunk)
    names = header(path, args.na_values)
    if args.target not in names:
        raise UsageError(f"{path}: no column {args.target!r} (columns: {shown_list(names, 10)})")
    declared, numbers, given = _declared(args, names, family, per_column)
    given_classes = getattr(args, "classes", None)
    missing, classes, texts, dropped, rows, sampled = None, None, None, 0, None, False
    if given:
        # the types of the first rows, checked on the whole first chunk once it is read (_confirmed)
        kinds = first_chunk_kinds(path, n, args.na_values, declared, rows=SAMPLE_ROWS)
        sampled = n > SAMPLE_ROWS
        if given_classes is None:  # a first pass over the target column alone
            label_kinds = {c: k for c, k in kinds.items() if c != args.target}
            target_kind, _, texts, rows, dropped = scan_kinds(path, args.na_values, label_kinds, args.target,
                                                              lambda r: _progress("pass 1/2 (classes)", r))
            _progress("pass 1/2 (classes)", rows, done=True)
            kinds[args.target] = target_kind[args.target]
    else:
        kinds, missing, texts, rows, dropped = scan_kinds(path, args.na_values, declared, args.target,
                                                          lambda r: _progress("pass 1/2 (column types)", r))
        _progress("pass 1/2 (column types and classes)", rows, done=True)
    kinds = _usable(kinds, numbers, args, path)
    structure = getattr(args, "structure", None)
    numeric = [c for c, k in kinds.items() if c != args.target and k in ("int", "float")]
    if structure not in (None, "naive") and numeric:  # a chunked fit fixes each numeric column's family up front
        raise UsageError(f"--structure {structure} with --chunksize takes categorical columns only (the structure "
                         f"is learnt on the first chunk); {path} has numeric column(s) {shown_list(numeric, 5)}: "
                         "fit without --chunksize")
    chunks = read_kinds(path, n, args.na_values, kinds, missing)
    if sampled:
        def whole_chunk_kinds():
            full = first_chunk_kinds(path, n, args.na_values, declared)
            if given_classes is None:
                full[args.target] = kinds[args.target]  # the whole file's (its first pass)
            return _usable(full, numbers, args, path)

        chunks, kinds = _confirmed(chunks, kinds, whole_chunk_kinds,
                                   lambda k: read_kinds(path, n, args.na_values, k, missing))
    if given_classes is not None:
        classes = _typed([c.strip() for c in given_classes.split(",") if c.strip()], kinds[args.target])
    elif texts is not None:
        classes = _typed(texts, kinds[args.target])
    if classes is not None:
        report_dropped(dropped, args.target)  # once for the file, not per chunk
        warn_one_class(classes, args.target, path)
    what = "pass 2/2 (partial_fit)" if given_classes is None else "one pass (partial_fit)"
    model, seen, t = None, 0, 0.0
    for df in chunks:
        rows_of = f"{path} (rows {df.index[0] + 1}-{df.index[-1] + 1})"
        X, y = split(df, rows_of)
        # text labels read by pyarrow as they are (partial_fit codes them through their distinct values),
        # others as a NumPy str array (no per-chunk sort to check them); with their distinct values
        y, labels = _str_labels(y)
        if given_classes is not None:
            dropped += len(df) - len(y)
            new = set(labels) - classes
            if new:
                raise UsageError(f"{rows_of}: label(s) {shown_list(sorted(map(str, new)), 5)} of {args.target!r} are "
                                 f"not in --classes")
        t0 = time.perf_counter()
        if model is None:
            for c in kinds:
                if kinds[c] == "text" and c not in declared and c in X.columns:
                    _mixed_numeric_warning(df, c, path)  # on the first chunk only
            model, scores = make(X, y)
            pinned = _pin_auto_families(model, X, y)
            scores = pinned if pinned is not None else scores
            text = y.dtype.kind == "U" or is_arrow_text(y.dtype)
            model.partial_fit(X, y, classes=np.array(sorted(classes), dtype=object if text else y.dtype))
            _read_dtypes(model)
            if scores is not None and len(scores):
                model.family_scores_ = scores  # the first chunk's choice, as `bayesnb info` shows it
            _family_warning(model, len(df), rows)
        else:
            model.partial_fit(X, y)
        t += time.perf_counter() - t0
        seen += len(df)
        _progress(what, seen)
    _progress(what, seen, done=True)
    if model is None:
        raise UsageError(f"{path}: the table is empty")
    if given_classes is not None:
        report_dropped(dropped, args.target)
        warn_one_class(classes, args.target, path)
    if isinstance(y, np.ndarray):  # labels passed as a NumPy str array: the name pandas would have given
        model.target_name_ = str(args.target)
    record_target_index(model, names, args.target)
    return model, None, None, seen, len(model.feature_names_in_), t


def _usable(kinds, numbers, args, path):
    """``kinds`` checked against ``numbers`` (``--numeric``, ``--family COL=NUMERIC``: a column of text or booleans
    refused) and cut to ``--columns`` and the target (the parser skips the other columns)."""
    for c, why in numbers.items():
        if kinds[c] in ("text", "bool"):
            raise UsageError(f"{path}: column {c!r} ({why}) holds text; expected numbers (list the text in "
                             "--na-values to read it as missing)")
    if args.columns:
        used = {c.strip() for c in args.columns.split(",")} | {args.target}
        bad = sorted(used - set(kinds))
        if bad:
            raise UsageError(f"{path}: no column(s) {bad}")
        kinds = {c: k for c, k in kinds.items() if c in used}
    return kinds


def _confirmed(chunks, kinds, whole_chunk_kinds, read):
    """``(chunks, kinds)``, the first chunk read with ``kinds`` inferred on a sample of its first rows checked.

    Where the whole first chunk agrees with them (:func:`~bayesnb.cli.chunkread.agrees`), the
    chunks as read; where it does not (or a cell of it is not of its column's type), the file
    is read again (``read(kinds)``) with ``whole_chunk_kinds()``, the kinds pandas infers on the
    whole first chunk, so the types are always the first chunk's.
    """
    try:
        first = next(chunks)
    except StopIteration:
        return iter(()), kinds
    except UsageError:  # a cell of another type further down (or further on: read again, it says so)
        first = None
    if first is not None and agrees(first, kinds):
        return itertools.chain([first], chunks), kinds
    chunks.close()
    kinds = whole_chunk_kinds()
    return read(kinds), kinds


def _str_labels(y):
    """``(labels, their distinct values)`` of a chunk's label column.

    Text read by pyarrow is kept as it is (its distinct values from pyarrow's dictionary);
    other text labels become a NumPy ``str`` array, gathered through their few distinct values
    (one ``pandas.factorize``); other labels are kept as they are.
    """
    if is_arrow_text(y.dtype):
        distinct, codes = arrow_factorize(y.array)
        if len(codes) and codes.min() >= 0:
            return y, distinct.tolist()
    elif y.dtype.kind in "OT" or isinstance(y.dtype, pd.StringDtype):
        codes, distinct = pd.factorize(y, use_na_sentinel=True)
        distinct = distinct.to_numpy(dtype=object)
    else:
        return y, pd.unique(y).tolist()
    if len(codes) and codes.min() >= 0:
        return np.asarray(distinct, dtype=str)[codes], distinct.tolist()
    return y.to_numpy(dtype=str), distinct.tolist()


def _read_dtypes(model):
    """Record a text column read by pyarrow with the dtype pandas' parser gives text (as ``bayesnb fit`` without
    --chunksize records it), not the dictionary-encoded one the chunks are read as."""
    dtypes = getattr(model, "feature_dtypes_", None)
    if dtypes is not None:
        text = pd.Series([""]).dtype  # pandas' text dtype: str (pandas 3) or object
        model.feature_dtypes_ = np.asarray([text if is_arrow_text(t) else t for t in dtypes], dtype=object)


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
    if not (isinstance(features, str) and features in when_run.MODES) or "numeric" not in when_run.column_kinds(X):
        return None
    with one_class_on_purpose():  # the CLI warns once for the file (warn_one_class)
        first = clone(model).fit(X, y)
    model.set_params(features={tuple(cols): fam for cols, fam in first.blocks_}, alpha=None)
    return first.family_scores_


def _family_warning(model, n_first, n_all):
    """Say which families ``auto`` chose for the numeric columns not named, on the first chunk."""
    scores = getattr(model, "family_scores_", None)
    if scores is None or n_all is None or n_first >= n_all or len(scores) == 0:
        return
    won = scores[scores["chosen"].astype(bool)]  # the columns auto chose (not those --family named)
    chosen = [f"{c}: {str(f).split('(')[0]}" for c, f in zip(won["column"], won["family"])]
    if chosen:
        warn(f"--family auto chose the family of each numeric column by its evidence on the first chunk "
             f"({n_first} of {n_all} rows): {', '.join(chosen[:8])}{' ...' if len(chosen) > 8 else ''}; "
             "Histogram bins are its quantiles; to choose them yourself give --family COL=FAMILY per column "
             "or --numeric-family gaussian")
