"""``bayesnb check``: posterior predictive checks of a saved model on labelled data."""

from __future__ import annotations

import json

import numpy as np

from . import _when_run as when_run
from .commands import _labels_like, _model_and_table
from .files import UsageError, check_output, status, write_output
from .options import TABLE, drop_opt, model_command, output_opt, seed_value

__all__ = ["cmd_check", "register"]


def register(subparsers):
    """Add ``bayesnb check`` and its options to ``subparsers``."""
    ch = model_command(
        subparsers, "check", cmd_check, "check the independence assumption on labelled data",
        "Posterior predictive check of conditional independence (check_independence): for "
        "every feature pair within each class, a dependence statistic of DATA against "
        "replicated datasets; prints the most severe pairs.", data_help=f"labelled {TABLE}")
    ch.add_argument("--target", required=True, help="name of the label column")
    drop_opt(ch)
    ch.add_argument("--replicates", type=int, default=200, help="replicated datasets (default 200)")
    ch.add_argument("--seed", type=seed_value, default=0)
    ch.add_argument("--marginals", action="store_true",
                    help="check each numeric column's family within each class instead (check_marginals: "
                         "skewness, zeros, range, distinct values against replicated data)")
    ch.add_argument("--json", action="store_true", help="print every row as JSON")
    output_opt(ch)


def cmd_check(args):
    """``bayesnb check``: the independence check (``check_independence``), most severe pairs first.

    With ``--marginals``, the check of each numeric column's family instead
    (``check_marginals``). Prints the 20 most severe rows (``--json``: every row as JSON);
    ``-o`` writes the whole table.
    """
    if args.replicates < 1:
        raise UsageError(f"--replicates must be at least 1; received {args.replicates}")
    if args.output is not None:
        check_output(args.output, [args.model, args.data, args.key_file], force=args.force)
    model, df, X = _model_and_table(args, labels=args.target)
    y = np.asarray(_labels_like(model, df[args.target]))
    unknown = sorted({str(v) for v in y if v not in set(model.classes_)})
    if unknown:
        raise UsageError(f"{args.data}: labels the model does not know in {args.target!r}: {unknown[:5]}")
    check = when_run.check_marginals if args.marginals else when_run.check_independence
    status(f"comparing {len(X)} rows with {args.replicates} replicated tables from the posterior predictive")
    table = check(model, X, y, n_replicates=args.replicates, random_state=args.seed)
    what = "(class, feature, statistic)" if args.marginals else "(class, pair)"
    if args.json:
        print(json.dumps(table.astype(object).where(table.notna(), None).to_dict(orient="records"), indent=2,
                         default=str))
    else:
        flagged = int((table["p_value"] <= 0.05).sum())
        print(f"{len(table)} {what} checks, {args.replicates} replicates: {flagged} with p <= 0.05")
        print(table.head(20).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.output is not None:
        write_output(table, args, f"wrote {len(table)} rows to {args.output}", [args.model, args.data])
    return 0
