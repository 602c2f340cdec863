"""``bayesnb predict``: the predicted class of each row; ``--proba``/``--log``/``--joint`` scores,
``--interval`` credible intervals and ``--each-draw`` probabilities under exact posterior draws."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import _when_run as when_run
from .commands import _model_and_table
from .files import UsageError, check_output, write_output
from .options import TABLE, model_command, output_opt, seed_value

__all__ = ["DRAW_COLUMNS", "cmd_predict", "register"]


def register(subparsers):
    """Add ``bayesnb predict`` and its options to ``subparsers``."""
    pr = model_command(subparsers, "predict", cmd_predict, "predict classes with a saved model",
                       "Predict the class of each row of DATA with a saved model; the model's feature "
                       "columns are taken by name (others are ignored).", data_help=f"{TABLE} to predict")
    output_opt(pr)
    pr.add_argument("--proba", action="store_true", help="add one p(class) column per class")
    pr.add_argument("--keep", action="store_true", help="keep the input columns in the output")
    pr.add_argument("--column", default="prediction", help="name of the prediction column")
    pr.add_argument("--interval", type=float, default=None, metavar="CI",
                    help="add the equal-tailed CI credible interval of each p(class) over exact posterior draws "
                         "(columns 'p(c) lo', 'p(c) hi'; credible_interval of model.predict_proba_draws), e.g. 0.94")
    pr.add_argument("--log", action="store_true", help="add one 'log p(c)' column per class (model.predict_log_proba)")
    pr.add_argument("--joint", action="store_true",
                    help="add one 'log p(x, c)' column per class (model.predict_joint_log_proba)")
    pr.add_argument("--each-draw", action="store_true",
                    help="instead, write p(class) under each of --draws exact posterior draws "
                         "(model.predict_proba_draws): one row per draw and input row, columns .draw, .row, p(c)...")
    pr.add_argument("--draws", type=int, default=1000, metavar="N",
                    help="posterior draws for --interval and --each-draw (default 1000)")
    pr.add_argument("--seed", type=seed_value, default=0, help="random seed of --interval and --each-draw (default 0)")


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
        write_output(out, args, f"wrote {args.draws} draws x {len(X)} rows of p(class) to {args.output}",
                     [args.model, args.data])
        return 0
    out = df.copy() if args.keep else pd.DataFrame(index=df.index)
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
        lo, hi = when_run.credible_interval(model.predict_proba_draws(X, n_draws=args.draws, random_state=args.seed),
                                   ci=args.interval)
        for k, c in enumerate(model.classes_):
            out[f"p({c}) lo"], out[f"p({c}) hi"] = lo[:, k], hi[:, k]
    write_output(out, args, f"wrote {len(out)} predictions to {args.output}", [args.model, args.data])
    return 0
