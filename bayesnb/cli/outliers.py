"""``bayesnb outliers``: the outlier score of each row under a saved model or detector, and which rows are outliers.

Writes DATA with two more columns: ``log_density``, the score of an
:class:`~bayesnb.NBOutlierDetector` (``score_samples``: ``log p(x)`` under the posterior predictive,
missing cells marginalised, minus the range tails' costs of a detector that has them), and
``outlier``, ``log_density < threshold``. A detector file whose statistic is the cells' surprise
(``statistic_ == "surprise"``, what the default ``statistic="auto"`` takes for dense rows) writes its score
as ``score`` instead: minus the row's surprise, not ``log p(x)``. MODEL is either

- a detector file (``NBOutlierDetector.save``): its own scores and threshold, so the ``outlier``
  column equals ``det.predict(X) == -1`` of the Python API; or
- a model file (``bayesnb fit``, ``model.save``): ``NBOutlierDetector(model, contamination=C,
  range_tails=False, statistic="density").fit(DATA)``, whose scores are ``model.score_samples(X)`` and whose
  threshold is the C-quantile of DATA's finite scores (default C = 0.05). A model file written by a bayesnb that
  still had ``set_outlier_threshold`` carries that threshold (``offset_``): it is used, and named as
  such, unless ``--contamination`` is given.

With ``--contamination C`` the threshold is always the C-quantile of DATA's scores.
"""

from __future__ import annotations

import sys

import numpy as np

from .._utils import shown_list
from . import _when_run as when_run
from .files import UsageError, check_output, write_output
from .modelfile import features_of, load_model, read_for_model, unseen_warning
from .options import TABLE, float_opt, model_command, output_opt

__all__ = ["cmd_outliers", "register"]


def _scores_and_threshold(model, X, contamination, data):
    """The rows' scores, the threshold and a phrase saying where the threshold comes from."""
    if when_run.is_a(model, "NBOutlierDetector"):
        scores = model.score_samples(X)
        if contamination is None:
            return scores, model.offset_, f"the detector's threshold (contamination {model.contamination_:g})"
    elif contamination is None and getattr(model, "offset_", None) is not None:  # a file of an older bayesnb
        return (model.score_samples(X), model.offset_, "the threshold stored in the model file by an older "
                f"bayesnb's set_outlier_threshold (contamination {getattr(model, 'contamination_', float('nan')):g})")
    else:
        c = when_run.AUTO_CONTAMINATION if contamination is None else contamination
        det = when_run.NBOutlierDetector(model, contamination=c, range_tails=False, statistic="density").fit(X)
        return det.score_samples(X), det.offset_, f"the {c:g} quantile of {data}'s log densities"
    return (scores, when_run.outlier_offset(scores, contamination, "bayesnb outliers"),
            f"the {contamination:g} quantile of {data}'s scores")


def register(subparsers):
    """Add ``bayesnb outliers`` and its options to ``subparsers``."""
    ou = model_command(
        subparsers, "outliers", cmd_outliers, "log density of each row and an outlier flag",
        "Write DATA with two more columns: log_density (the score of an NBOutlierDetector: "
        "log p(x) under the posterior predictive; a detector file scored by its cells' surprise writes score "
        "instead) and outlier (that score below the threshold). "
        "MODEL is a detector file (NBOutlierDetector.save: its scores and threshold) or a model "
        "file (NBOutlierDetector(model, contamination=C, range_tails=False, statistic='density').fit(DATA), "
        "C = 0.05 by default). Prints how many rows were flagged.", data_help=f"{TABLE} to score")
    output_opt(ou)
    ou.add_argument("--contamination", type=float, default=None, metavar="C",
                    help="expected outlier share in DATA, in (0, 0.5]: the threshold is the C-quantile of DATA's "
                         "scores (default: a detector file's threshold, else 0.05)")
    ou.add_argument("--target", default=None, metavar="COL",
                    help="DATA's label column: checked to exist and not to be a feature, kept in the output "
                         "(the score sums over classes; labels are not used)")
    float_opt(ou)


def cmd_outliers(args):
    """``bayesnb outliers``: DATA plus ``log_density`` (or a surprise detector's ``score``) and ``outlier`` columns;
    prints how many were flagged."""
    check_output(args.output, [args.model, args.data, args.key_file], force=args.force)
    if args.contamination is not None and not 0.0 < args.contamination <= 0.5:
        raise UsageError(f"--contamination must be in (0, 0.5]; received {args.contamination}")
    model = load_model(args, detector=True)
    nb = model.estimator_ if when_run.is_a(model, "NBOutlierDetector") else model
    df = read_for_model(nb, args)
    X = features_of(nb, df, args.data)
    unseen_warning(nb, X, args.data)
    if args.target is not None:
        if args.target not in df.columns:
            raise UsageError(f"{args.data}: no column {args.target!r} (columns: {shown_list(df.columns, 10)})")
        if args.target in [str(c) for c in X.columns]:
            raise UsageError(f"--target {args.target!r} is one of the model's feature columns, not the label column")
    # a surprise detector's score is minus its rows' surprise (NBOutlierDetector(statistic=)), not log p(x)
    name = "score" if getattr(model, "statistic_", "density") == "surprise" else "log_density"
    taken = [c for c in (name, "outlier") if c in df.columns]
    if taken:
        raise UsageError(f"{args.data}: already has column(s) {taken}, which this command writes; rename them")
    scores, threshold, source = _scores_and_threshold(model, X, args.contamination, args.data)
    flagged = scores < threshold
    out = df.assign(**{name: scores, "outlier": flagged})
    message = (f"{int(flagged.sum())} of {len(flagged)} rows flagged as outliers "
               f"({name} < {threshold:.6g}, {source})")
    if not np.all(np.isfinite(scores)):
        message += f"; {int((~np.isfinite(scores)).sum())} row(s) have {name} -inf"
    to_stdout = args.output in (None, "-")
    write_output(out, args, None if args.quiet else f"{message}; wrote {args.output}", [args.model, args.data])
    if to_stdout and not args.quiet:
        print(message, file=sys.stderr, flush=True)
    return 0
