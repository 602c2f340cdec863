"""The ``bayesnb`` command line (also ``python -m bayesnb``).

Subcommands::

    bayesnb demo [--out DIR] [--quick]            the whole library on the bundled house-votes data
    bayesnb fit DATA --target COL -o MODEL.bnb     fit a model to a CSV/Parquet table and save it
    bayesnb predict MODEL.bnb DATA [-o OUT.csv]    predicted class (and --proba probabilities)
    bayesnb score MODEL.bnb DATA --target COL      accuracy and log loss on labelled data
    bayesnb info MODEL.bnb                         what a model file contains
    bayesnb impute MODEL.bnb DATA [-o OUT.csv]     fill missing cells
    bayesnb sample MODEL.bnb -n N [-o OUT.csv]     synthetic rows

User mistakes (a missing file, an unknown column, a corrupted model, a folder that does not
exist...) print one line on stderr and exit with status 2; a failed demo step exits with
status 1. ``bayesnb --debug ...`` (or ``BAYESNB_DEBUG=1``) shows the traceback instead.
No command writes over one of its inputs, and every output file is written completely to a
temporary file and only then renamed onto the destination (see :mod:`bayesnb._cli_io`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ._cli_demo import DemoStepError as _DemoStepError
from ._cli_io import (
    PROG,
    UsageError,
    atomic_path,
    check_output,
    read_table,
    warn,
    write_table,
)
from ._cli_model import features_of, key_of, load_model, read_for_model, unseen_warning

__all__ = ["UsageError", "main", "read_table", "score_model", "write_table"]

FAMILIES = ("auto", "categorical", "gaussian", "multinomial", "bernoulli")


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line (``bayesnb fit: error: ...``) and exit status 2."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------ subcommands
def _parse_alpha(text):
    if text is None:
        return None
    if text == "auto":
        return "auto"
    try:
        a = float(text)
    except ValueError:
        raise UsageError(f"--alpha must be a number >= 0 or 'auto'; received {text!r}") from None
    if not a >= 0:
        raise UsageError(f"--alpha must be a number >= 0 or 'auto'; received {text!r}")
    return a


def make_estimator(family, alpha, X):
    """The estimator that ``bayesnb fit --family FAMILY --alpha ALPHA`` uses for table ``X``."""
    from . import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, NaiveBayes
    from .families import Categorical, Gaussian

    kw = {} if alpha is None else {"alpha": alpha}
    if family == "categorical":
        return CategoricalNB(**kw)
    if family == "multinomial":
        return MultinomialNB(**kw)
    if family == "bernoulli":
        return BernoulliNB(**kw)
    if family == "gaussian":
        if alpha is not None:
            raise UsageError("--alpha applies to count/categorical families; a Gaussian family has no alpha")
        return GaussianNB()
    # auto: text/bool/category columns -> Categorical, numeric -> Gaussian
    cat = [c for c in X.columns if X[c].dtype.kind not in "iuf"]
    num = [c for c in X.columns if X[c].dtype.kind in "iuf"]
    features = {}
    if cat:
        features[tuple(cat)] = Categorical(**kw)
    if num:
        features[tuple(num)] = Gaussian()
    return NaiveBayes(features=features)


def cmd_fit(args):
    check_output(args.output, [args.data, args.key_file])
    key = key_of(args)  # before fitting: a bad key file fails fast
    df = read_table(args.data, args.na_values, numeric=args.numeric, categorical=args.categorical)
    if args.target not in df.columns:
        raise UsageError(f"{args.data}: no column {args.target!r} (columns: {list(df.columns)[:10]})")
    y = df[args.target]
    if y.isna().any():
        n = int(y.isna().sum())
        if not args.drop_unlabelled:
            raise UsageError(f"{args.data}: {n} row(s) have no {args.target!r} label "
                             "(pass --drop-unlabelled to leave them out)")
        df = df[~y.isna()]
        y = df[args.target]
    X = df.drop(columns=[args.target])
    if args.columns:
        cols = [c.strip() for c in args.columns.split(",")]
        bad = [c for c in cols if c not in X.columns]
        if bad:
            raise UsageError(f"{args.data}: no column(s) {bad}")
        X = X[cols]
    model = make_estimator(args.family, _parse_alpha(args.alpha), X)
    t0 = time.perf_counter()
    model.fit(X, y.astype(str) if y.dtype == object else y)
    dt = time.perf_counter() - t0
    with atomic_path(args.output) as tmp:
        model.save(tmp, key=key)
    ev = model.log_evidence_
    print(f"fitted {type(model).__name__} on {X.shape[0]} rows x {X.shape[1]} features in {dt * 1000:.0f} ms")
    for b in model.posterior_.blocks:
        names = [str(n) for n in b.names]
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} columns)" if len(names) > 6 else "")
        print(f"  block {type(b.family).__name__}: {shown}")
    counts = ", ".join(f"{c}: {n:g}" for c, n in zip(model.classes_, model.class_count_))
    print(f"  classes: {counts}")
    print(f"  training accuracy: {model.score(X, y.astype(str) if y.dtype == object else y):.3f}")
    print(f"  log evidence log p(X, y): {ev:.2f}" if ev is not None else "  log evidence: undefined (improper prior)")
    print(f"saved model to {args.output}")
    return 0


def _labels_like(model, y):
    """Coerce labels read from a file to the type of the model's classes."""
    import numpy as np

    classes = model.classes_
    if classes.dtype.kind in "iuf" and y.dtype == object:
        try:
            return y.astype(classes.dtype)
        except (TypeError, ValueError):
            return y
    if classes.dtype.kind in "OU" and y.dtype != object:
        return y.astype(str)
    return np.asarray(y)


def cmd_predict(args):
    import pandas as pd

    check_output(args.output, [args.model, args.data, args.key_file])
    model = load_model(args)
    df = read_for_model(model, args)
    X = features_of(model, df, args.data)
    unseen_warning(model, X, args.data)
    out = pd.DataFrame(index=df.index)
    if args.keep:
        out = df.copy()
    out[args.column] = model.predict(X)
    if args.proba:
        P = model.predict_proba(X)
        for k, c in enumerate(model.classes_):
            out[f"p({c})"] = P[:, k]
    write_table(out, args.output, done=f"wrote {len(out)} predictions to {args.output}",
                inputs=[args.model, args.data])
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
    import numpy as np
    from sklearn.metrics import log_loss

    y = np.asarray(y)
    P = model.predict_proba(X)
    known = np.isin(y, model.classes_)
    acc = float(np.mean(model.classes_[P.argmax(1)] == y))
    ll = float(log_loss(y[known], P[known], labels=model.classes_)) if known.any() else float("nan")
    return acc, ll, int(known.sum())


def cmd_score(args):
    import numpy as np

    model = load_model(args)
    df = read_for_model(model, args)
    if args.target not in df.columns:
        raise UsageError(f"{args.data}: no column {args.target!r}")
    df = df[~df[args.target].isna()]
    if df.empty:
        raise UsageError(f"{args.data}: no row has a {args.target!r} label")
    X = features_of(model, df, args.data)
    unseen_warning(model, X, args.data)
    y = np.asarray(_labels_like(model, df[args.target]))
    acc, ll, n_known = score_model(model, X, y)
    print(f"rows: {len(y)}")
    print(f"accuracy: {acc:.4f}")
    if n_known == 0:
        print("log loss: undefined (no row has a class the model knows)")
    else:
        print(f"log loss: {ll:.4f}" + (f" (on {n_known} rows with a known class)" if n_known < len(y) else ""))
    return 0


def cmd_info(args):
    import json

    from .persistence import _read

    model = load_model(args)
    meta, _ = _read(args.model, key=key_of(args))
    print(f"{args.model}: {meta['estimator']} (format {meta['format']} v{meta['format_version']}, "
          f"written by bayesnb {meta['bayesnb_version']})")
    print(json.dumps(meta["summary"], indent=2)[:4000])
    ev = model.log_evidence_
    print(f"log evidence: {ev:.4f}" if ev is not None else "log evidence: undefined (improper prior)")
    return 0


def cmd_impute(args):
    import pandas as pd

    check_output(args.output, [args.model, args.data, args.key_file])
    model = load_model(args)
    df = read_for_model(model, args)
    X = features_of(model, df, args.data)
    unseen_warning(model, X, args.data)
    before = int(X.isna().sum().sum())
    filled = model.impute(X, random_state=args.seed)
    filled = pd.DataFrame(filled, columns=X.columns, index=X.index) if not hasattr(filled, "columns") else filled
    out = df.copy()
    out[list(X.columns)] = filled[list(X.columns)]
    write_table(out, args.output, done=f"filled {before} missing cell(s); wrote {args.output}",
                inputs=[args.model, args.data])
    return 0


def cmd_sample(args):
    import numpy as np
    import pandas as pd

    if args.n < 1:
        raise UsageError(f"-n must be at least 1; received {args.n}")
    check_output(args.output, [args.model, args.key_file])
    model = load_model(args)
    X, y = model.sample(args.n, random_state=args.seed)
    names = getattr(model, "feature_names_in_", None)
    cols = [str(c) for c in names] if names is not None else [f"x{j}" for j in range(model.n_features_in_)]
    out = X.copy() if hasattr(X, "columns") else pd.DataFrame(np.asarray(X), columns=cols)
    if args.target in out.columns:
        raise UsageError(f"--target {args.target!r} is one of the model's feature columns; choose another name")
    out[args.target] = np.asarray(y)
    write_table(out, args.output, done=f"wrote {len(out)} synthetic row(s) to {args.output}", inputs=[args.model])
    return 0


def cmd_demo(args):
    from ._cli_demo import run_demo

    return run_demo(out=args.out, quick=args.quick, seed=args.seed)


# ------------------------------------------------------------------------------ parser
def build_parser():
    """The argparse parser of the ``bayesnb`` command."""
    from . import __version__

    p = _Parser(
        prog="bayesnb",
        description="Naive Bayes as a Bayesian model: conjugate posteriors, exact predictives, "
                    "safe model files. Run 'bayesnb demo' to see everything on bundled data.",
    )
    p.add_argument("--version", action="version", version=f"bayesnb {__version__}")
    p.add_argument("--debug", action="store_true",
                   help="show the Python traceback of an error instead of a one-line message")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_parser = sub.add_parser

    def add_parser(*a, **kw):  # every subcommand also takes --debug (after its name)
        q = _add_parser(*a, **kw)
        q.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show the Python traceback of an error instead of a one-line message")
        return q

    sub.add_parser = add_parser

    def key_opt(q, what):
        q.add_argument("--key-file", default=None, metavar="PATH",
                       help=f"secret key file: {what} (HMAC-SHA256; see docs/cli.md)")

    d = sub.add_parser("demo", help="run the tour on the bundled 1984 house-votes data",
                       description="Fit Naive Bayes to the 1984 U.S. House votes (bundled), compare with "
                                   "scikit-learn by cross-validation, show the most informative votes with "
                                   "credible intervals and the generative uses available in this build; "
                                   "writes report.txt and PNG figures into --out.")
    d.add_argument("--out", default="bayesnb-report", help="folder for the report (default: ./bayesnb-report)")
    d.add_argument("--quick", action="store_true", help="fewer folds and draws (a few seconds)")
    d.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    d.set_defaults(func=cmd_demo)

    def names(text):
        return [c.strip() for c in text.split(",") if c.strip()]

    def data_opts(q):
        q.add_argument("--na-values", type=lambda s: s.split(","), default=None, metavar="A,B",
                       help="cell texts read as missing, replacing the default (pandas' NA, NaN, null, None, "
                            "N/A, ... and ?); an empty cell is always missing")
        q.add_argument("--numeric", type=names, default=None, metavar="COL,...",
                       help="read these columns as numbers (a text cell is an error unless in --na-values)")
        q.add_argument("--categorical", type=names, default=None, metavar="COL,...",
                       help="read these columns as categories (text), even if they hold numbers")

    f = sub.add_parser("fit", help="fit a model to a table and save it",
                       description="Fit a Naive Bayes model to DATA (CSV, TSV or Parquet) predicting --target, "
                                   "and save it to -o in bayesnb's safe model format. Missing cells are "
                                   "allowed (left out of the statistics).")
    f.add_argument("data", help="training table (.csv, .tsv, .parquet)")
    f.add_argument("--target", required=True, help="name of the label column")
    f.add_argument("-o", "--output", required=True, help="model file to write (e.g. model.bnb)")
    f.add_argument("--family", choices=FAMILIES, default="auto",
                   help="feature family: auto (text columns categorical, numeric Gaussian), "
                        "categorical, gaussian, multinomial (counts), bernoulli (0/1)")
    f.add_argument("--alpha", default=None,
                   help="smoothing pseudo-count (Dirichlet/Beta prior), e.g. 1 (Laplace), 0.5, 0, or 'auto' "
                        "(maximise the evidence)")
    f.add_argument("--columns", default=None, metavar="A,B,C", help="use only these feature columns")
    f.add_argument("--drop-unlabelled", action="store_true", help="leave out rows with no label")
    data_opts(f)
    key_opt(f, "sign the model file, so that it loads only with the same key")
    f.set_defaults(func=cmd_fit)

    pr = sub.add_parser("predict", help="predict classes with a saved model",
                        description="Predict the class of each row of DATA with a saved model; the "
                                    "model's feature columns are taken by name (others are ignored).")
    pr.add_argument("model", help="model file written by 'bayesnb fit' or model.save()")
    pr.add_argument("data", help="table to predict (.csv, .tsv, .parquet; '-' = stdin CSV)")
    pr.add_argument("-o", "--output", default=None, help="output table (default: CSV on stdout)")
    pr.add_argument("--proba", action="store_true", help="add one p(class) column per class")
    pr.add_argument("--keep", action="store_true", help="keep the input columns in the output")
    pr.add_argument("--column", default="prediction", help="name of the prediction column")
    data_opts(pr)
    key_opt(pr, "the model file must be signed with this key")
    pr.set_defaults(func=cmd_predict)

    s = sub.add_parser("score", help="accuracy and log loss of a saved model on labelled data",
                       description="Evaluate a saved model on DATA with true labels in --target.")
    s.add_argument("model")
    s.add_argument("data")
    s.add_argument("--target", required=True, help="name of the label column")
    data_opts(s)
    key_opt(s, "the model file must be signed with this key")
    s.set_defaults(func=cmd_score)

    i = sub.add_parser("info", help="describe a model file", description="Print what a model file contains.")
    i.add_argument("model")
    key_opt(i, "the model file must be signed with this key")
    i.set_defaults(func=cmd_info)

    im = sub.add_parser("impute", help="fill missing cells with a saved model",
                        description="Fill the missing cells of DATA from the model's posterior "
                                    "predictive given each row's observed cells.")
    im.add_argument("model")
    im.add_argument("data")
    im.add_argument("-o", "--output", default=None, help="output table (default: CSV on stdout)")
    im.add_argument("--seed", type=int, default=0)
    data_opts(im)
    key_opt(im, "the model file must be signed with this key")
    im.set_defaults(func=cmd_impute)
    sa = sub.add_parser("sample", help="draw synthetic rows from a saved model",
                        description="Draw synthetic labelled rows from the model's posterior predictive.")
    sa.add_argument("model")
    sa.add_argument("-n", type=int, default=10, help="number of rows (default 10)")
    sa.add_argument("-o", "--output", default=None, help="output table (default: CSV on stdout)")
    sa.add_argument("--target", default="class", help="name of the label column (default: class)")
    sa.add_argument("--seed", type=int, default=0)
    key_opt(sa, "the model file must be signed with this key")
    sa.set_defaults(func=cmd_sample)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Python warnings raised while a command runs, as one line on stderr."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else ""
    warn(f"{category.__name__}: {text}")


def _one_line(e):
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return f"unknown key {msg}" if isinstance(e, KeyError) else msg


def main(argv=None) -> int:
    """Entry point of the ``bayesnb`` console script; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success; 2 for a user mistake (one line on stderr: ``bayesnb COMMAND: error:
        ...``); 1 when a demo step fails; 130 when interrupted. With ``--debug`` (or the
        environment variable ``BAYESNB_DEBUG=1``) errors raise, showing the traceback.
    """
    import warnings

    from .persistence import ModelFileError

    argv = sys.argv[1:] if argv is None else [os.fspath(a) if hasattr(a, "__fspath__") else str(a) for a in argv]
    options = argv[: argv.index("--")] if "--" in argv else argv
    debug = bool(os.environ.get("BAYESNB_DEBUG")) or "--debug" in options  # known before parsing
    PROG[0] = "bayesnb"
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            parser = build_parser()
            args = parser.parse_args(argv)
            if getattr(args, "command", None) is None:
                parser.print_help()
                return 2
            PROG[0] = f"bayesnb {args.command}"
            return int(args.func(args) or 0)
    except SystemExit as e:  # --help / --version
        return int(e.code or 0)
    except KeyboardInterrupt:
        print(f"{PROG[0]}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except _DemoStepError as e:
        if debug:
            raise
        print(f"{PROG[0]}: error: {e}", file=sys.stderr)
        return 1
    except (UsageError, ModelFileError, OSError, ValueError, TypeError, KeyError) as e:
        if debug:
            raise
        print(f"{PROG[0]}: error: {_one_line(e)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
