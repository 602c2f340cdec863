"""``bayesnb explain``: each feature's share of each row's log density under a saved model.

:meth:`~bayesnb.generative.GenerativeMixin.feature_log_contributions` from the shell:
``C[i, j] = sum_k p(y=k | x_i) log p(x_ij | y=k)`` (0 for a missing cell), which add up
exactly to ``log p(x_i)`` with the class term ``class_term[i] = sum_k p(k | x_i) (log p(y=k)
- log p(k | x_i))``: ``score_samples(X) = C.sum(1) + class_term``. The most negative
contributions are the cells that make a row unusual.

Wide (default): one row per row of DATA, one column per model feature holding its
contribution, then ``class_term`` and ``log_density`` (their sum, ``model.score_samples``).
``--long``: one row per (row, feature): ``.row`` (DATA's row, from 1), ``feature``, ``value``
(the cell as text, empty when missing) and ``contribution``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .commands import _model_and_table
from .files import UsageError, check_output, write_output
from .options import TABLE, float_opt, model_command, output_opt

__all__ = ["EXTRA_COLUMNS", "LONG_COLUMNS", "cmd_explain", "explain_table", "register"]

#: the columns the wide table adds after the features
EXTRA_COLUMNS = ("class_term", "log_density")
#: the columns of ``--long``
LONG_COLUMNS = (".row", "feature", "value", "contribution")


def explain_table(model, X, long=False):
    """The table ``bayesnb explain`` writes for the rows ``X`` (a DataFrame of the model's features).

    Parameters
    ----------
    model : fitted bayesnb estimator
    X : DataFrame
    long : bool, default=False
        One row per (row, feature) instead of one per row.

    Returns
    -------
    DataFrame
        Wide: the feature columns (contributions), ``class_term``, ``log_density``; long:
        :data:`LONG_COLUMNS`.
    """
    C, term = model.feature_log_contributions(X, return_class_term=True)
    C = np.asarray(C.to_numpy() if hasattr(C, "to_numpy") else C, dtype=float)
    names = [str(c) for c in X.columns]
    if not long:
        taken = [c for c in EXTRA_COLUMNS if c in names]
        if taken:
            raise UsageError(f"the model has feature column(s) {taken}, which the wide table adds; pass --long")
        return pd.DataFrame(C, columns=names).assign(class_term=term, log_density=model.score_samples(X))
    n, d = C.shape
    cells = X.to_numpy(dtype=object)
    text = np.array([[None if pd.isna(v) else str(v) for v in row] for row in cells], dtype=object).reshape(n, d)
    return pd.DataFrame({".row": np.repeat(np.arange(1, n + 1), d), "feature": np.tile(np.array(names, dtype=object), n),
                         "value": text.ravel(), "contribution": C.ravel()})


def register(subparsers):
    """Add ``bayesnb explain`` and its options to ``subparsers``."""
    ex = model_command(
        subparsers, "explain", cmd_explain, "each feature's contribution to each row's log density",
        "model.feature_log_contributions from the shell: C[i, j] = sum_k p(k | x_i) log p(x_ij | k) "
        "(0 for a missing cell); with class_term they add up to log_density = model.score_samples. "
        "The most negative contributions are what makes a row unusual. Wide (default): one column per "
        "feature, then class_term and log_density; --long: one row per (row, feature).",
        data_help=f"{TABLE} to explain")
    output_opt(ex)
    ex.add_argument("--long", action="store_true",
                    help="one row per row and feature: .row (from 1), feature, value (the cell), contribution")
    float_opt(ex)


def cmd_explain(args):
    """``bayesnb explain``: per-row feature contributions to ``log p(x)`` (wide, or ``--long``)."""
    check_output(args.output, [args.model, args.data, args.key_file], force=args.force)
    model, _, X = _model_and_table(args)
    out = explain_table(model, X, long=args.long)
    write_output(out, args, f"wrote the contributions of {X.shape[1]} feature(s) for {len(X)} row(s) to {args.output}",
                 [args.model, args.data])
    return 0
