"""The ``bayesnb`` subcommands: each reads its inputs, calls the library and writes its outputs.

Every function takes the parsed ``argparse`` namespace and returns the exit status.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss

from ..impute.configs import reading_model
from .._utils import one_class_on_purpose, shown_list
from .chunks import fit_chunks
from .demo import run_demo
from .families import FAMILIES, column_families, make_estimator
from .fitoptions import imputation_options, with_structure
from .files import QUIET, UsageError, atomic_path, check_output, read_table, write_table
from .labels import labelled_rows, record_target_index, warn_one_class
from .model import features_of, key_of, load_model, read_for_model, unseen_warning
from .tableimpute import choices_note

__all__ = ["DRAW_COLUMNS", "FAMILIES", "cmd_demo", "cmd_fit", "cmd_predict", "cmd_score", "fit_table", "make_estimator", "score_model",
           "split_target"]

#: the texts ``--alpha`` takes besides numbers (those of NaiveBayes and CategoricalNB's alpha)
ALPHA_WORDS = ("auto", "hierarchical")


def _parse_alpha(text):
    """``--alpha``: None, one of :data:`ALPHA_WORDS` or a number >= 0."""
    if text is None:
        return None
    if text in ALPHA_WORDS:
        return text
    why = f"--alpha must be a number >= 0, 'auto' or 'hierarchical'; received {text!r}"
    try:
        a = float(text)
    except ValueError:
        raise UsageError(why) from None
    if not a >= 0:
        raise UsageError(why)
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
    family, per_column = column_families(args)
    if getattr(args, "classes", None) is not None and args.chunksize is None:
        raise UsageError("--classes applies to a chunked fit (--chunksize N); without it the classes are read "
                         "from the table")

    def make(X, y):
        model, scores = make_estimator(family, alpha, X, y, per_column, getattr(args, "numeric_family", "auto"))
        return with_structure(model, args), scores

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
        model.fit_semi_supervised(X, y.to_numpy(dtype=object) if y.isna().any() else y)
    else:
        with one_class_on_purpose():  # warned above, naming the file and the column
            model.fit(X, y, **imputation_options(model, args))  # --for-imputation: its imputer too
    if scores is not None:  # the families that auto chose beside the named ones
        model.family_scores_ = scores
    record_target_index(model, df.columns, args.target)
    return model, X, y, X.shape[0], X.shape[1], time.perf_counter() - t0


def cmd_fit(args):
    """``bayesnb fit``: fit a model to a table and save it (signed with ``--key-file``)."""
    check_output(args.output, [args.data, args.key_file], force=args.force)
    key = key_of(args)  # before fitting: a bad key file fails fast
    model, X, y, n, d, dt = fit_table(args)
    with atomic_path(args.output) as tmp:
        model.save(tmp, key=key, overwrite=True)  # tmp: atomic_path's own new, empty file
    if not QUIET[0]:  # -q: the model file is the output; no summary
        _fit_summary(args, model, X, y, n, d, dt)
    return 0


def _fit_summary(args, model, X, y, n, d, dt):
    """Print what ``bayesnb fit`` fitted: blocks, classes, training accuracy, evidence, the file."""
    ev = model.log_evidence_
    print(f"fitted {type(model).__name__} on {n} rows x {d} features in {dt * 1000:.0f} ms")
    for b in model.posterior_.blocks:
        names = [str(n) for n in b.names]
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} columns)" if len(names) > 6 else "")
        print(f"  block {type(b.family).__name__}: {shown}")
    kind = getattr(model, "structure_kind_", "naive")
    if kind != "naive":  # --structure: the dependencies learnt (their list: bayesnb info)
        edges = sum(len(p) for p in model.structure_.values())
        how = " (chosen by held-out log-likelihood)" if model.get_params()["structure"] == "auto" else ""
        print(f"  structure: {kind}{how}, {edges} feature-to-feature edges (listed by 'bayesnb info')")
    counts = ", ".join(f"{c}: {n:g}" for c, n in zip(model.classes_, model.class_count_))
    print(f"  classes: {counts}")
    if X is not None:
        known = y.notna().to_numpy()
        n_known = f" (the {int(known.sum())} labelled rows)" if not known.all() else ""
        print(f"  training accuracy{n_known}: {model.score(X[known], y[known]):.3f}")
    print(f"  log evidence log p(X, y): {ev:.2f}" if ev is not None else "  log evidence: undefined (improper prior)")
    if getattr(model, "imputer_", None) is not None:  # --for-imputation
        print(f"  imputer: chose {choices_note(model.imputer_) or 'nothing (no column had a hidden cell)'}")
    print(f"saved model to {args.output}")


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
    nb = reading_model(model) if imputer else model  # an Imputer's data is read as its models read it
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


#: the first two columns of ``bayesnb predict --each-draw``: the posterior draw and DATA's row (both from 1)
DRAW_COLUMNS = (".draw", ".row")


def _proba_draws_table(model, X, args):
    """``predict --each-draw``: ``model.predict_proba_draws`` as one long table (draw, row, p(class)...)."""
    if args.keep or args.proba or args.log or args.joint or args.interval is not None:
        raise UsageError("--each-draw writes its own long table (one row per draw and input row); it cannot be "
                         "combined with --keep, --proba, --log, --joint or --interval")
    if args.draws < 1:
        raise UsageError(f"--draws must be at least 1; received {args.draws}")
    P = model.predict_proba_draws(X, n_draws=args.draws, random_state=args.seed)
    n_draws, n = P.shape[:2]
    out = pd.DataFrame({DRAW_COLUMNS[0]: np.repeat(np.arange(1, n_draws + 1), n),
                        DRAW_COLUMNS[1]: np.tile(np.arange(1, n + 1), n_draws)})
    for k, c in enumerate(model.classes_):
        out[f"p({c})"] = P[:, :, k].ravel()
    return out


def cmd_predict(args):
    """``bayesnb predict``: predicted class; ``--proba``/``--log``/``--joint`` scores, ``--interval``, ``--each-draw``."""
    check_output(args.output, [args.model, args.data, args.key_file], force=args.force)
    model, df, X = _model_and_table(args)
    if args.each_draw:
        out = _proba_draws_table(model, X, args)
        write_table(out, args.output, done=f"wrote {args.draws} draws x {len(X)} rows of p(class) to {args.output}",
                    inputs=[args.model, args.data], fmt=args.format, force=args.force)
        return 0
    out = pd.DataFrame(index=df.index)
    if args.keep:
        out = df.copy()
    out[args.column] = model.predict(X)
    for flag, method, name in ((args.proba, model.predict_proba, "p({})"),
                               (args.log, model.predict_log_proba, "log p({})"),
                               (args.joint, model.predict_joint_log_proba, "log p(x, {})")):
        if flag:
            S = method(X)
            for k, c in enumerate(model.classes_):
                out[name.format(c)] = S[:, k]
    if args.interval is not None:
        if not 0 < args.interval < 1 or args.draws < 2:
            raise UsageError(f"--interval must be in (0, 1) and --draws at least 2; received {args.interval} and "
                             f"{args.draws}")
        lo, hi = model.predict_proba_interval(X, ci=args.interval, n_draws=args.draws, random_state=args.seed)
        for k, c in enumerate(model.classes_):
            out[f"p({c}) lo"], out[f"p({c}) hi"] = lo[:, k], hi[:, k]
    write_table(out, args.output, done=f"wrote {len(out)} predictions to {args.output}",
                inputs=[args.model, args.data], fmt=args.format, force=args.force)
    return 0


def score_model(model, X, y):
    """Accuracy and log loss of a fitted model on labelled rows, as ``bayesnb score`` prints them.

    Parameters
    ----------
    model : fitted bayesnb estimator
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels; a label the model does not know counts as a wrong prediction and is
        left out of the log loss.

    Returns
    -------
    accuracy : float
    log_loss : float
        scikit-learn's ``sklearn.metrics.log_loss`` (probabilities clipped at the machine
        epsilon of their dtype) on the rows with a known class; NaN if there are none.
    n_known : int
        Number of rows with a known class.
    """

    y = np.asarray(y)
    P = model.predict_proba(X)
    known = np.isin(y, model.classes_)
    acc = float(np.mean(model.classes_[P.argmax(1)] == y))
    ll = float(log_loss(y[known], P[known], labels=model.classes_)) if known.any() else float("nan")
    return acc, ll, int(known.sum())


def cmd_score(args):
    """``bayesnb score``: accuracy and log loss of a saved model on labelled rows."""
    model, df, X = _model_and_table(args, labels=args.target)
    y = np.asarray(_labels_like(model, df[args.target]))
    acc, ll, n_known = score_model(model, X, y)
    print(f"rows: {len(y)}")
    print(f"accuracy: {acc:.4f}")
    if n_known == 0:
        print("log loss: undefined (no row has a class the model knows)")
    else:
        print(f"log loss: {ll:.4f}" + (f" (on {n_known} rows with a known class)" if n_known < len(y) else ""))
    return 0


def cmd_demo(args):
    """``bayesnb demo``: the tour on the bundled house-votes data."""
    return run_demo(out=args.out, quick=args.quick, seed=args.seed)
