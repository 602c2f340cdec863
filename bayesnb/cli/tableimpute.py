"""``bayesnb impute-table``: fill a table's missing cells with no saved model (:func:`bayesnb.impute_table`).

This is the shell's default imputation of a table: per column, the configuration (naive Bayes,
latent-class mixture, TAN) that imputes hidden observed cells of DATA best, fitted on DATA
itself. ``--target COL`` names the label column (every row labelled, or
``--drop-unlabelled`` to leave out the rows with none): it fits every
configuration and, with ``--label-given``, each row's imputation is also conditioned on its
label; the label column is copied to the output unchanged. Without ``--target`` every row has
one class. The output equals ``impute_table(X, y, configurations=..., label_given=...,
search_rows=..., random_state=SEED).table`` with DATA's other columns where they were.
``bayesnb impute MODEL DATA`` imputes with a given saved model instead (and draws multiple
imputations).
"""

from __future__ import annotations

from .._utils import shown_list
from ..imputation import CONFIGURATIONS, _configuration_names, impute_table
from .io import UsageError, check_output, read_table, status, write_table
from .labels import check_drop_option, labelled_rows

__all__ = ["cmd_impute_table", "parse_configurations"]


def parse_configurations(text):
    """``--configurations``: ``"auto"`` or comma-separated names among :data:`~bayesnb.imputation.CONFIGURATIONS`."""
    if text == "auto":
        return "auto"
    try:  # the rule impute_table applies, checked before the table is read
        return _configuration_names(tuple(c.strip() for c in text.split(",") if c.strip()))
    except ValueError:
        raise UsageError(f"--configurations must be 'auto' or distinct names among {', '.join(CONFIGURATIONS)} "
                         f"separated by commas; received {text!r}") from None


def cmd_impute_table(args):
    """``bayesnb impute-table``: the completed table, each column imputed by the configuration chosen for it."""
    check_output(args.output, [args.data], force=args.force)
    configurations = parse_configurations(args.configurations)
    check_drop_option(args)
    if args.label_given and args.target is None:
        raise UsageError("--label-given needs --target (the label column to condition on)")
    if args.search_rows is not None and args.search_rows < 2:
        raise UsageError(f"--search-rows must be at least 2; received {args.search_rows}")
    df = read_table(args.data, na_values=args.na_values, numeric=args.numeric, categorical=args.categorical)
    y, X = None, df
    if args.target is not None:
        if args.target not in df.columns:
            raise UsageError(f"{args.data}: no column {args.target!r} (columns: {shown_list(df.columns, 10)})")
        df, _ = labelled_rows(df, args.target, args.data, args.drop_unlabelled,
                              "leave out --target to impute the label like a column")
        y, X = df[args.target].to_numpy(dtype=object), df.drop(columns=args.target)
    if X.shape[1] == 0:
        raise UsageError(f"{args.data}: no column to impute besides the label {args.target!r}")
    before = int(X.isna().sum().sum())
    status(f"choosing per column among {', '.join(CONFIGURATIONS if configurations == 'auto' else configurations)} "
           f"on hidden observed cells of {len(X)} rows")
    res = impute_table(X, y, configurations=configurations, label_given=args.label_given,
                       search_rows=args.search_rows, random_state=args.seed)
    out = df.copy()
    out[list(X.columns)] = res.table[list(X.columns)]
    by = {}
    for col, cfg in res.chosen.items():
        by.setdefault(cfg, []).append(str(col))
    notes = [f"{cfg}{f' ({res.n_components} component(s) per class)' if cfg == 'latent' else ''} for "
             + ", ".join(cols) for cfg, cols in by.items()]
    done = "; ".join([f"filled {before} missing cell(s)"] + (["chose " + "; ".join(notes)] if notes else [])
                     + [f"wrote {args.output}"])
    write_table(out, args.output, done=done, inputs=[args.data], float_format=args.float_format, fmt=args.format,
                force=args.force)
    return 0
