"""The ``--target`` column of the ``bayesnb`` commands: the one rule for missing labels, and
where the column stood in the training table.

Rows whose label cell is missing are refused, in one line naming ``--drop-unlabelled``; with
``--drop-unlabelled`` they are left out and their count is reported on stderr (also with
``-q``: the output then describes fewer rows than the input). ``bayesnb fit`` records the
target's position among the feature columns (:func:`record_target_index`), so that
``bayesnb sample`` writes its rows in the training table's column order.
"""

from __future__ import annotations

import sys
import warnings

from .._utils import shown_list
from .files import UsageError, prog

__all__ = ["check_drop_option", "labelled_rows", "record_target_index", "report_dropped", "warn_one_class"]


def warn_one_class(classes, target, where):
    """Warn (``UserWarning``) when the training labels hold a single class, naming it.

    Parameters
    ----------
    classes : iterable
        The distinct labels of the training rows (missing ones left out).
    target : str
        The label column.
    where : str
        The training table's name.
    """
    classes = list(classes)
    if len(classes) == 1:
        warnings.warn(f"{where}: every labelled row has the class {classes[0]!r} in {target!r}: the model predicts "
                      "that class for every row (a classifier needs rows of at least two classes)", UserWarning,
                      stacklevel=2)


def record_target_index(model, columns, target):
    """Set ``model.target_index_``: how many of its feature columns preceded ``target`` in the table.

    Saved in the model file; ``bayesnb sample`` inserts the label column there. Nothing is set
    when ``columns`` lacks ``target`` or the model has no feature names.

    Parameters
    ----------
    model : fitted bayesnb estimator
    columns : sequence of str
        The training table's columns, in its order.
    target : str
        The label column.
    """
    names = getattr(model, "feature_names_in_", None)
    columns = [str(c) for c in columns]
    if names is None or target not in columns:
        return
    before = set(columns[: columns.index(target)])
    model.target_index_ = sum(str(n) in before for n in names)


def check_drop_option(args):
    """Refuse ``--drop-unlabelled`` without ``--target`` (a command whose ``--target`` is optional)."""
    if args.drop_unlabelled and args.target is None:
        raise UsageError("--drop-unlabelled needs --target (the label column whose missing cells it leaves out)")


def report_dropped(n, target):
    """Say on stderr that ``n`` rows with no ``target`` label were left out (nothing when ``n`` is 0).

    Parameters
    ----------
    n : int
        Rows left out.
    target : str
        The label column.
    """
    if n:
        print(f"{prog()}: left out {n} row(s) with no {target!r} label (--drop-unlabelled)", file=sys.stderr,
              flush=True)


def labelled_rows(df, target, where, drop, instead=None, report=True):
    """The rows of ``df`` that have a ``target`` label, by the rule of ``--drop-unlabelled``.

    Parameters
    ----------
    df : DataFrame
        The table.
    target : str
        The label column (``--target``).
    where : str
        The table's name for messages (its path, or a range of its rows).
    drop : bool
        ``--drop-unlabelled``: leave the unlabelled rows out instead of refusing them.
    instead : str, optional
        Another way out the message offers (e.g. ``"--semi-supervised to use them"``).
    report : bool
        Report the count left out on stderr (:func:`report_dropped`); false when the caller
        sums the counts of several pieces and reports once.

    Returns
    -------
    kept : DataFrame
        ``df`` itself when every row is labelled, else its labelled rows.
    n_dropped : int
        Rows left out.

    Raises
    ------
    UsageError
        ``df`` has no column ``target``, or some rows have no label and ``drop`` is false.
    """
    if target not in df.columns:
        raise UsageError(f"{where}: no column {target!r} (columns: {shown_list(df.columns, 10)})")
    missing = df[target].isna()
    n = int(missing.sum())
    if not n:
        return df, 0
    if not drop:
        raise UsageError(f"{where}: {n} row(s) have no {target!r} label (pass --drop-unlabelled to "
                         f"leave them out{', or ' + instead if instead else ''})")
    if report:
        report_dropped(n, target)
    return df[~missing], n
