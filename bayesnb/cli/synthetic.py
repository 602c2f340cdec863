"""``bayesnb evaluate-synthetic``: the synthetic-data report of two tables (:func:`bayesnb.synthetic_report`)."""

from __future__ import annotations

import json

from .._utils import shown_list
from . import _when_run as when_run
from .files import UsageError, check_output, read_table, status, write_output
from .labels import check_drop_option, labelled_rows
from .options import TABLE, add_command, data_opts, drop_opt, output_opt, seed_value

__all__ = ["cmd_evaluate_synthetic", "register"]


def register(subparsers):
    """Add ``bayesnb evaluate-synthetic`` and its options to ``subparsers``."""
    ev = add_command(
        subparsers, "evaluate-synthetic", cmd_evaluate_synthetic,
        help="compare a synthetic table with the real one",
        description="The synthetic-data report (bayesnb.synthetic_report): per-column TVD/KS, "
                    "Cramér's V of every pair of columns, the propensity pMSE and, with --target, "
                    "TSTR vs TRTR accuracy. Prints a summary (--json: everything as JSON).")
    ev.add_argument("real", help=f"real {TABLE}")
    ev.add_argument("synthetic", help=f"synthetic {TABLE}, with the same columns")
    ev.add_argument("--target", default=None, help="label column: adds TSTR and TRTR accuracy")
    drop_opt(ev)
    ev.add_argument("--real-test", default=None, metavar="TEST",
                    help="real rows to test the classifiers on (default: 30%% of REAL held out)")
    ev.add_argument("--bins", type=int, default=10, help="quantile bins of numeric columns for Cramér's V")
    ev.add_argument("--json", action="store_true", help="print the report as JSON")
    output_opt(ev, help="write the report as a long table (CSV, Parquet or JSON)")
    ev.add_argument("--seed", type=seed_value, default=0)
    data_opts(ev)


def cmd_evaluate_synthetic(args):
    """``bayesnb evaluate-synthetic``: print (``--json``: as JSON) the report; ``-o`` writes it as a table."""
    inputs = [args.real, args.synthetic] + ([args.real_test] if args.real_test else [])
    if args.output is not None:
        check_output(args.output, inputs, force=args.force)
    if [args.real, args.synthetic, args.real_test].count("-") > 1:
        raise UsageError("only one of the tables can be read from stdin ('-')")
    check_drop_option(args)
    if args.bins < 2:
        raise UsageError(f"--bins must be at least 2; received {args.bins}")
    read = {"na_values": args.na_values, "numeric": args.numeric, "categorical": args.categorical}
    real = read_table(args.real, **read)
    synthetic = read_table(args.synthetic, **read)
    test = read_table(args.real_test, **read) if args.real_test else None
    for path, df in ((args.synthetic, synthetic), (args.real_test, test)):
        if df is None:
            continue
        missing, extra = [c for c in real.columns if c not in df.columns], [c for c in df.columns if c not in real.columns]
        if missing or extra:
            raise UsageError(f"{path}: the columns differ from {args.real}'s: lacks {shown_list(missing, 10)}, "
                             f"has extra {shown_list(extra, 10)}")
    if args.target is not None:  # the one rule for missing labels, table by table
        tables = ((args.real, real), (args.synthetic, synthetic), (args.real_test, test))
        real, synthetic, test = (None if df is None else labelled_rows(df, args.target, path, args.drop_unlabelled)[0]
                                 for path, df in tables)
    if args.real_test and args.target is None:
        raise UsageError("--real-test needs --target (it is the test set of the TSTR/TRTR classifiers)")
    status("comparing the tables (with the C2ST detectors, alpha-precision/beta-recall"
           + (" and DCR share)" if test is not None else ")")
           + (" and training the TSTR/TRTR classifiers" if args.target else ""))
    report = when_run.synthetic_report(real, synthetic, target=args.target, real_test=test, bins=args.bins,
                              random_state=args.seed)
    if args.json:
        print(json.dumps({"summary": report.summary, "columns": _records(report.columns),
                          "pairs": _records(report.pairs)}, indent=2))
    else:
        print(report)
    if args.output is not None:
        write_output(report.to_frame(), args, f"wrote the report to {args.output}", inputs)
    return 0


def _records(frame):
    """A table's rows as JSON-ready dicts (missing values, ``<NA>`` and NaN, as None)."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
