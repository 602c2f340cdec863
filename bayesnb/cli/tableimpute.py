"""``bayesnb impute-table`` and ``bayesnb fit-imputer``: a table's imputation chosen per column (:class:`bayesnb.Imputer`).

``impute-table DATA`` is the shell's default imputation of a table: per column, the configuration
(naive Bayes, latent-class mixture, TAN, multivariate normal) that imputes hidden observed cells of
DATA best, fitted on DATA itself. ``--target COL`` names the label column (every row labelled, or
``--drop-unlabelled`` to leave out the rows with none): it fits every configuration and, with
``--label-given``, each row's imputation is also conditioned on its label; the label column is
copied to the output unchanged. Without ``--target`` every row has one class. The output equals
``impute_table(X, y, configurations=..., label_given=..., search_rows=..., random_state=SEED).table``
(:func:`bayesnb.impute.table.fit_fill` on the same :class:`~bayesnb.Imputer`), with DATA's other
columns where they were.

``fit-imputer DATA -o IMPUTER.bnb`` fits the same :class:`~bayesnb.Imputer` (a choice for every
column, ``columns="all"``) and saves it; ``bayesnb impute IMPUTER.bnb NEW`` then fills DATA or new
rows with its columns, with the chosen models (and draws multiple imputations).
"""

from __future__ import annotations

import time

from . import _when_run as when_run
from .files import UsageError, atomic_path, check_output, quiet, read_table, status, write_output
from .labels import check_drop_option, labelled_rows
from .modelfile import key_of
from .options import TABLE, add_command, data_opts, drop_opt, float_opt, force_opt, key_opt, output_opt, seed_value

__all__ = ["add_imputer_options", "choices_note", "cmd_fit_imputer", "cmd_impute_table", "parse_configurations",
           "register"]


def parse_configurations(text):
    """``--configurations``: ``"auto"`` or comma-separated names among :data:`~bayesnb.impute.table.CONFIGURATIONS`."""
    if text == "auto":
        return "auto"
    try:  # the rule impute_table applies, checked before the table is read
        return when_run.configuration_names(tuple(c.strip() for c in text.split(",") if c.strip()))
    except ValueError:
        names = ", ".join(when_run.CONFIGURATIONS)
        raise UsageError(f"--configurations must be 'auto' or distinct names among {names} "
                         f"separated by commas; received {text!r}") from None


def add_imputer_options(q):
    """Add the options ``impute-table`` and ``fit-imputer`` share to parser ``q``."""
    q.add_argument("--target", default=None, metavar="COL",
                   help="label column (every row labelled, or --drop-unlabelled; copied unchanged): the class of "
                        "every model. Default: none, every row one class (the label, if any, is imputed like a column)")
    drop_opt(q)
    q.add_argument("--label-given", action="store_true",
                   help="also condition each row's imputation on its --target label (label_given=True)")
    q.add_argument("--configurations", default="auto", metavar="auto|A,B",
                   help="configurations to choose among: auto (naive,latent,tan,mvn,tan-mi; the default) or some of them "
                        "separated by commas; one name: no selection")
    q.add_argument("--missingness", choices=("mar", "auto", "mnar"), default="auto",
                   help="how cells came to be missing: auto (the default: at random unless BIC says that columns are "
                        "missing because of their own values: then those columns are filled from the self-masking "
                        "model), mar (at random given the observed cells, no test), or mnar (self-masking, no test)")
    q.add_argument("--search-rows", type=int, default=5000, metavar="N",
                   help="rows the latent-class component search runs on when DATA has more (default 5000)")
    q.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
    data_opts(q)


def choices_note(imp, columns=None):
    """``"naive for a, b; latent (3 component(s) per class) for c"``: which configuration fills which column (and
    the columns whose fills are reweighted by their self-masking odds, ``Imputer.odds_``)."""
    by = {}
    for col, cfg in imp.chosen_.items():
        if columns is None or col in columns:
            by.setdefault(cfg, []).append(str(col))
    how = {"latent": f" ({imp.n_components_} component(s) per class)",
           "mnar": " (self-masking: missing because of their own values, by BIC)"}
    odds = [str(c) for c, o in getattr(imp, "odds_", {}).items() if o.used and (columns is None or c in columns)]
    return "; ".join([f"{cfg}{how.get(cfg, '')} for " + ", ".join(cols) for cfg, cols in by.items()]
                     + ([f"self-masking odds (missing because of their own values, by BIC) for {', '.join(odds)}"]
                        if odds else []))


def _imputer_and_table(args, columns):
    """The unfitted Imputer of the options, DATA, its feature columns ``X`` and labels ``y`` (None)."""
    configurations = parse_configurations(args.configurations)
    check_drop_option(args)
    if args.label_given and args.target is None:
        raise UsageError("--label-given needs --target (the label column to condition on)")
    if args.search_rows is not None and args.search_rows < 2:
        raise UsageError(f"--search-rows must be at least 2; received {args.search_rows}")
    df = read_table(args.data, na_values=args.na_values, numeric=args.numeric, categorical=args.categorical)
    y, X = None, df
    if args.target is not None:
        df, _ = labelled_rows(df, args.target, args.data, args.drop_unlabelled,
                              "leave out --target to impute the label like a column")
        y, X = df[args.target].to_numpy(dtype=object), df.drop(columns=args.target)
    if X.shape[1] == 0:
        raise UsageError(f"{args.data}: no column to impute besides the label {args.target!r}")
    among = when_run.CONFIGURATIONS if configurations == "auto" else configurations
    status(f"choosing per column among {', '.join(among)} on hidden observed cells of {len(X)} rows")
    imp = when_run.Imputer(configurations=configurations, label_given=args.label_given, search_rows=args.search_rows,
                  random_state=args.seed, columns=columns, missingness=args.missingness)
    return imp, df, X, y


def register(subparsers):
    """Add ``bayesnb impute-table`` and ``bayesnb fit-imputer`` and their options to ``subparsers``."""
    it = add_command(
        subparsers, "impute-table", cmd_impute_table,
        help="fill missing cells with the configuration that imputes DATA best",
        description="bayesnb.Imputer (impute_table) from the shell, the default imputation of a "
                    "table: per column, the configuration (naive, latent class, TAN, mvn) whose "
                    "imputations of a random 15% of DATA's observed cells, hidden on purpose, are "
                    "the most accurate, fitted on DATA. Slower than 'impute' (seconds to minutes: it "
                    "fits every configuration twice). 'fit-imputer' saves the choice as a model for "
                    "'impute MODEL DATA'.")
    it.add_argument("data", help=f"{TABLE} with missing cells")
    output_opt(it)
    add_imputer_options(it)
    float_opt(it)

    fi = add_command(
        subparsers, "fit-imputer", cmd_fit_imputer,
        help="fit bayesnb.Imputer on a table and save it (for impute)",
        description="impute-table's choice for every column of DATA, fitted and saved as one "
                    "model file: Imputer(...).fit(X, y).save(OUTPUT). 'bayesnb impute OUTPUT NEW' "
                    "then fills DATA or new rows with its columns (--strategy draw -m M: draws).")
    fi.add_argument("data", help=f"training {TABLE}")
    fi.add_argument("-o", "--output", required=True, help="imputer file to write (e.g. imputer.bnb)")
    force_opt(fi)
    add_imputer_options(fi)
    key_opt(fi, "sign the imputer file, so that it loads only with the same key")


def cmd_impute_table(args):
    """``bayesnb impute-table``: the completed table, each column imputed by the configuration chosen for it."""
    check_output(args.output, [args.data], force=args.force)
    imp, df, X, y = _imputer_and_table(args, "missing")
    before = int(X.isna().sum().sum())
    filled = when_run.fit_fill(imp, X, y)
    out = df.copy()
    out[list(X.columns)] = filled[list(X.columns)]
    note = choices_note(imp)
    done = "; ".join([f"filled {before} missing cell(s)"] + (["chose " + note] if note else [])
                     + [f"wrote {args.output}"])
    write_output(out, args, done, [args.data])
    return 0


def cmd_fit_imputer(args):
    """``bayesnb fit-imputer``: fit an Imputer on DATA and save it (signed with ``--key-file``)."""
    check_output(args.output, [args.data, args.key_file], force=args.force)
    key = key_of(args)  # before fitting: a bad key file fails fast
    t0 = time.perf_counter()
    imp, df, X, y = _imputer_and_table(args, "all")
    imp.fit(X, y)
    if args.target is not None:  # `bayesnb impute` passes this column as the labels, as for a fitted model
        imp.target_name_ = args.target
    with atomic_path(args.output) as tmp:
        imp.save(tmp, key=key, overwrite=True)  # tmp: atomic_path's own new, empty file
    if not quiet():  # -q: the model file is the output; no summary
        print(f"fitted Imputer on {X.shape[0]} rows x {X.shape[1]} columns in {time.perf_counter() - t0:.1f} s")
        print(f"  chose {choices_note(imp) or 'nothing (no column had a hidden cell)'}")
        print(f"saved imputer to {args.output}")
    return 0
