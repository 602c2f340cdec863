"""``bayesnb outliers``: the log density of each row under a saved model, and which rows are outliers.

Writes DATA with two more columns: ``log_density``, ``model.score_samples(X)`` (``log p(x)``
under the posterior predictive, missing cells marginalised), and ``outlier``, ``log_density
< threshold``. The threshold is the model's own (``offset_``, stored when
``set_outlier_threshold`` was called before saving) unless ``--contamination`` is given;
otherwise, or with ``--contamination C``, it is ``set_outlier_threshold(X, C)`` on DATA:
the C-quantile of DATA's finite log densities (default C = 0.05). So the ``outlier`` column
equals ``model.is_outlier(X)`` of the Python API after the same call.
"""

from __future__ import annotations

import sys

import numpy as np

from .._utils import shown_list
from .commands import _model_and_table
from .files import UsageError, check_output, write_table

__all__ = ["DEFAULT_CONTAMINATION", "cmd_outliers"]

#: the contamination used when the model has no stored threshold and none is given
DEFAULT_CONTAMINATION = 0.05


def cmd_outliers(args):
    """``bayesnb outliers``: DATA plus ``log_density`` and ``outlier`` columns; prints how many were flagged."""
    check_output(args.output, [args.model, args.data, args.key_file], force=args.force)
    model, df, X = _model_and_table(args)
    if args.target is not None:
        if args.target not in df.columns:
            raise UsageError(f"{args.data}: no column {args.target!r} (columns: {shown_list(df.columns, 10)})")
        if args.target in [str(c) for c in X.columns]:
            raise UsageError(f"--target {args.target!r} is one of the model's feature columns, not the label column")
    taken = [c for c in ("log_density", "outlier") if c in df.columns]
    if taken:
        raise UsageError(f"{args.data}: already has column(s) {taken}, which this command writes; rename them")
    if args.contamination is not None or getattr(model, "offset_", None) is None:
        c = DEFAULT_CONTAMINATION if args.contamination is None else args.contamination
        if not 0.0 < c < 0.5:
            raise UsageError(f"--contamination must be in (0, 0.5); received {c}")
        model.set_outlier_threshold(X, contamination=c)
        source = f"the {c:g} quantile of {args.data}'s log densities"
    else:
        source = f"the model's stored threshold (contamination {getattr(model, 'contamination_', float('nan')):g})"
    scores = model.score_samples(X)
    flagged = scores < model.offset_
    out = df.copy()
    out["log_density"] = scores
    out["outlier"] = flagged
    message = (f"{int(flagged.sum())} of {len(flagged)} rows flagged as outliers "
               f"(log_density < {model.offset_:.6g}, {source})")
    if not np.all(np.isfinite(scores)):
        message += f"; {int((~np.isfinite(scores)).sum())} row(s) have log_density -inf"
    to_stdout = args.output in (None, "-")
    write_table(out, args.output, done=None if args.quiet else f"{message}; wrote {args.output}",
                inputs=[args.model, args.data], float_format=args.float_format, fmt=args.format, force=args.force)
    if to_stdout and not args.quiet:
        print(message, file=sys.stderr, flush=True)
    return 0
