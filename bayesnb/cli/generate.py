"""``bayesnb impute`` and ``bayesnb sample``: the generative subcommands.

``impute`` is :meth:`~bayesnb.generative.GenerativeMixin.impute` from the shell: the label
column (``--target``, by default the model's ``target_name_`` when DATA has it) is passed
as ``y`` (missing labels allowed), ``--strategy`` and ``-m`` are ``strategy`` and
``n_imputations``, and ``--latent K|auto`` fits a latent-class model on DATA first
(:meth:`~bayesnb.generative.GenerativeMixin.fit_latent_class`) and imputes with it. With
one random generator seeded by ``--seed`` for both, the output equals
``model.impute(X, strategy=..., n_imputations=..., y=y, n_components=K, random_state=seed)``.
Several imputations are written as one long table: a first column ``.imputation``
(1..M), then DATA's columns, M blocks of rows.

A model from ``bayesnb fit --for-imputation`` (``fit(X, y, impute=Imputer(...))``) holds the imputer
:func:`~bayesnb.impute_table` fits: with ``--strategy auto`` or ``draw`` and no ``--latent``, the model's
``impute`` fills with it, so the output equals ``model.imputer_.impute(X, y, ...)`` (the label column is
used when it was fitted with ``--label-given``). MODEL may also hold an :class:`~bayesnb.Imputer` (``bayesnb fit-imputer``, ``Imputer.save``): then
each column is filled by the configuration the imputer chose for it and the output equals
``imputer.impute(X, y, strategy=..., n_imputations=M, random_state=seed)`` (``--strategy auto`` or
``draw``; ``--latent`` does not apply; the label column, ``--target`` or the imputer's, is used
when the imputer was fitted with ``--label-given``).
"""

from __future__ import annotations

import sys
from functools import partial

import numpy as np
import pandas as pd

from .._utils import as_generator, shown_list
from . import _when_run as when_run
from .commands import _labels_like, _model_and_table
from .files import UsageError, check_output, write_output
from .modelfile import load_model
from .options import TABLE, float_opt, model_command, output_opt, parse_latent, seed_value
from .tableimpute import choices_note

__all__ = ["IMPUTATION_COLUMN", "cmd_impute", "cmd_sample", "register"]

#: the first column of ``bayesnb impute -m M`` (M > 1): which completed table a row belongs to
IMPUTATION_COLUMN = ".imputation"


def _labels(model, df, args, default=None):
    """``y`` for impute (None/NaN where unknown) and the name of its column, or ``(None, None)``.

    ``default``: the label column when ``--target`` is not given (else the model's ``target_name_``).
    """
    if args.no_labels:
        if args.target is not None:
            raise UsageError("--target and --no-labels contradict each other; give one")
        return None, None
    name = args.target
    if name is None:
        name = default if default is not None else getattr(model, "target_name_", None)
        if name is None or name not in df.columns:
            return None, None
    elif name not in df.columns:
        raise UsageError(f"{args.data}: no column {name!r} (columns: {shown_list(df.columns, 10)})")
    names = getattr(model, "feature_names_in_", None)
    if names is not None and name in [str(n) for n in names]:
        raise UsageError(f"--target {name!r} is one of the model's feature columns, not the label column")
    col = df[name]
    y = np.asarray(_labels_like(model, col[col.notna()]), dtype=object)
    out = np.full(len(col), None, dtype=object)
    out[col.notna().to_numpy()] = y
    return out, name


def register(subparsers):
    """Add ``bayesnb impute`` and ``bayesnb sample`` and their options to ``subparsers``."""
    im = model_command(
        subparsers, "impute", cmd_impute, "fill missing cells with a saved model or imputer",
        "Fill the missing cells of DATA from the model's posterior predictive given each "
        "row's observed cells (and its label, when DATA has the label column). Equals "
        "model.impute(X, strategy=..., n_imputations=M, y=labels, n_components=K, "
        "random_state=SEED) of the Python API. With an imputer from 'bayesnb fit-imputer' "
        "(bayesnb.Imputer), each column is filled by the configuration chosen for it: "
        "imputer.impute(X, y, strategy=auto|draw, n_imputations=M, random_state=SEED).",
        data_help=f"{TABLE} with missing cells")
    output_opt(im)
    im.add_argument("--target", default=None, metavar="COL",
                    help="label column of DATA, passed as y (missing labels allowed; default: the model's "
                         "target name, when DATA has that column)")
    im.add_argument("--no-labels", action="store_true", help="do not use the label column even if DATA has it")
    im.add_argument("--strategy", choices=("auto", "mode", "mean", "draw"), default="auto",
                    help="auto (each family's best point estimate; the default), mode, mean, or draw "
                         "(random draws: multiple imputation)")
    im.add_argument("-m", "--imputations", type=int, default=1, metavar="M",
                    help="number of completed tables (with --strategy draw); M > 1 writes one long table "
                         "whose first column .imputation numbers them 1..M")
    im.add_argument("--latent", default=None, metavar="K|auto",
                    help="fit a latent-class model on DATA first (K components per class, or 'auto': "
                         "chosen by held-out likelihood) and impute with it")
    im.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
    float_opt(im)

    sa = model_command(
        subparsers, "sample", cmd_sample, "draw synthetic rows from a saved model",
        "Draw synthetic labelled rows from the model's posterior predictive.")
    sa.add_argument("-n", type=int, default=10, help="number of rows (default 10)")
    output_opt(sa)
    sa.add_argument("--target", default=None,
                    help="name of the label column (default: the training target's name, else 'class')")
    sa.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
    sa.add_argument("--prior", action="store_true",
                    help="draw from the prior predictive instead (model.sample(n, prior=True): one draw of the "
                         "parameters from their priors, shared by the rows): a prior predictive check")
    sa.add_argument("--proper", action="store_true",
                    help="a Synthesizer's file: one posterior draw of the parameters shared by the rows, as "
                         "Synthesizer.sample(parameter_uncertainty=True) (default: its posterior-mean plug-in); "
                         "refused for a model from 'bayesnb fit', which always draws so, and with --prior")
    float_opt(sa)


def cmd_impute(args):
    """``bayesnb impute``: fill the missing cells of a table from a saved model."""
    check_output(args.output, [args.model, args.data, args.key_file], force=args.force)
    m = int(args.imputations)
    if m < 1:
        raise UsageError(f"-m/--imputations must be at least 1; received {m}")
    if m > 1 and args.strategy != "draw":
        raise UsageError(f"-m/--imputations {m} needs --strategy draw (several imputations are draws); "
                         f"received --strategy {args.strategy}")
    latent = parse_latent(args.latent)
    model, df, X = _model_and_table(args, imputer=True)
    imputer = model if when_run.is_a(model, "Imputer") else None
    if imputer is not None:
        model = when_run.reading_model(imputer)
        _check_imputer_options(imputer, args, latent)
    if m > 1 and IMPUTATION_COLUMN in df.columns:
        raise UsageError(f"{args.data}: has a column {IMPUTATION_COLUMN!r}, which -m {m} writes; rename it")
    y, label = _labels(model, df, args, getattr(imputer, "target_name_", None))
    rng = as_generator(args.seed)
    fit, notes = None, []
    own = getattr(model, "imputer_", None)  # a model from `bayesnb fit --for-imputation`
    answers = own is not None and latent in (None, 1) and args.strategy in ("auto", "draw")
    filler = imputer if imputer is not None else own if answers else None  # an Imputer fills, not the model
    unused = label is not None and filler is not None and not filler.label_given
    if label is not None:
        notes.append(f"labels from column {label!r} ({sum(v is not None for v in y)} of {len(y)} rows labelled"
                     + ("; not used: the imputer was fitted without --label-given)" if unused else ")"))
    if latent is not None and latent != 1:
        if not args.quiet:
            print(f"fitting a latent-class model on {len(X)} rows "
                  f"({'choosing the number of components' if latent == 'auto' else f'{latent} per class'})...",
                  file=sys.stderr, flush=True)
        fit = model.fit_latent_class(X, y, n_components=latent, random_state=rng)
        notes.append(f"latent classes: {fit.n_components} component(s) per class"
                     + (" (chosen by held-out likelihood)" if latent == "auto" else ""))
    before = int(X.isna().sum().sum())
    if imputer is None:
        names = own.columns_ if answers else X.columns  # the imputer's training columns (DATA's are text)
        got = model.impute(X.set_axis(names, axis=1), strategy=args.strategy, n_imputations=m, random_state=rng,
                           y=None if unused else y, latent=fit)
        notes.append("the model's imputer's choices: " + (choices_note(own) or "none") if answers else
                     "imputed with the model itself" + ("" if fit is not None or own is not None else
                                                        " (bayesnb fit --for-imputation: a model chosen per column)"))
    else:
        got = imputer.impute(X.set_axis(imputer.columns_, axis=1), y, strategy=args.strategy, n_imputations=m,
                             random_state=rng)  # the training columns' names (DATA's are text)
        notes.append("the imputer's choices: " + (choices_note(imputer) or "none"))
    tables = []
    for k, f in enumerate(got if m > 1 else [got], start=1):
        out = df.copy()
        out[list(X.columns)] = f.set_axis(X.columns, axis=1)[list(X.columns)]
        if m > 1:
            out.insert(0, IMPUTATION_COLUMN, k)
        tables.append(out)
    out = tables[0] if m == 1 else pd.concat(tables, ignore_index=True)
    what = f"filled {before} missing cell(s)" + (f" {m} times" if m > 1 else "")
    write_output(out, args, "; ".join([what] + notes + [f"wrote {args.output}"]), [args.model, args.data])
    return 0


def _check_imputer_options(imputer, args, latent):
    """Refuse the options of ``impute`` that a saved Imputer does not take."""
    if latent is not None:
        raise UsageError(f"--latent is for a model from 'bayesnb fit'; {args.model} holds an Imputer, whose "
                         "configurations (the latent-class one among them) were chosen and fitted by fit-imputer")
    if args.strategy not in ("auto", "draw"):
        raise UsageError(f"--strategy {args.strategy}: an Imputer fills with 'auto' (each column's chosen model's "
                         "point fill) or 'draw'")


def cmd_sample(args):
    """``bayesnb sample``: synthetic labelled rows from a saved model (``--prior``: from its prior predictive).

    The label column is named ``--target``, by default the training target's name
    (``target_name_``, recorded when ``y`` was a named pandas Series, as ``bayesnb fit``
    passes it), else ``class``. It stands where it stood in the training table
    (``target_index_``, recorded by ``bayesnb fit``), else after the features. A model saved by
    ``Synthesizer.save`` with missing-indicator columns gets its cells blanked where they are
    True, and the indicators are not written (as ``Synthesizer.sample``). A file of a
    Synthesizer's latent-class model is sampled with its latent components, and a Synthesizer's
    structure saved with ``support="observed"`` (``sample_support_``) on its observed support, as
    ``Synthesizer.sample(n, random_state=seed, parameter_uncertainty=PROPER)`` (no ``--prior``; ``PROPER``
    True with ``--proper``, else the plug-in), its numeric values kept within their observed ranges as
    ``Synthesizer.sample`` keeps them (:mod:`bayesnb.synth.observed_range`).
    """
    if args.n < 1:
        raise UsageError(f"-n must be at least 1; received {args.n}")
    check_output(args.output, [args.model, args.key_file], force=args.force)
    model = load_model(args, synthesizer=True)
    latent = None
    if when_run.is_a(model, "Synthesizer"):  # a latent-class choice: the estimator with its LatentClassFit
        if args.prior and model.latent_ is not None:
            raise UsageError(f"--prior: {args.model} holds a Synthesizer's latent-class model, whose prior "
                             "predictive 'bayesnb sample' does not draw; leave out --prior")
        model, latent = model.model_, model.latent_
    fitted = model  # a Synthesizer's: its values kept in their observed ranges, as Synthesizer.sample keeps them
    synthesizer = not args.prior and getattr(model, "sample_support_", None) is not None
    if args.proper and not synthesizer:
        raise UsageError("--proper applies to a Synthesizer's file without --prior (its default is the plug-in); "
                         + ("--prior draws the parameters from their priors" if args.prior else
                            f"{args.model} holds a model that 'bayesnb sample' always draws one posterior sample "
                            "of the parameters for"))
    if synthesizer and latent is None and model.sample_support_ in ("observed", "backoff"):
        # a Synthesizer's structure, sampled as Synthesizer.sample draws it
        model = when_run.observed_support(model, model.sample_support_)
    target = args.target if args.target is not None else getattr(model, "target_name_", "class")
    draw = partial(model.sample, prior=True) if args.prior else partial(model.sample, latent=latent)
    if synthesizer:  # a Synthesizer's default: the plug-in
        draw = partial(draw, parameter_uncertainty=args.proper)
        X, y = when_run.sample_in_range(lambda rows, rng, _g, _y: draw(rows, random_state=rng), fitted, args.n,
                                        args.seed, who="bayesnb sample")[:2]
    else:
        X, y = draw(args.n, random_state=args.seed)
    names = getattr(model, "feature_names_in_", None)
    cols = [str(c) for c in names] if names is not None else [f"x{j}" for j in range(model.n_features_in_)]
    out = X.copy() if hasattr(X, "columns") else pd.DataFrame(np.asarray(X), columns=cols)
    # a Synthesizer's missing indicators: blank, then drop them
    out = when_run.blank_missing(out, when_run.indicators_in(cols))
    # a private model's
    out = when_run.private_draws(model, out, dict(zip(cols, getattr(model, "feature_dtypes_", ()))))
    if target in out.columns:
        raise UsageError(f"--target {target!r} is one of the model's feature columns; choose another name")
    # where the label stood in the training table (bayesnb fit records it), else last
    out.insert(min(getattr(model, "target_index_", out.shape[1]), out.shape[1]), target, np.asarray(y))
    what = "prior predictive" if args.prior else "synthetic"
    write_output(out, args, f"wrote {len(out)} {what} row(s) to {args.output}", [args.model])
    return 0
