"""The one rule for missing labels of every ``bayesnb`` command that takes ``--target``.

Rows whose label cell is missing are refused, in one line naming ``--drop-unlabelled``; with
``--drop-unlabelled`` they are left out and their count is reported on stderr (also with
``-q``: the output then describes fewer rows than the input).
"""

from __future__ import annotations

import sys

from .io import PROG, UsageError

__all__ = ["check_drop_option", "labelled_rows", "report_dropped"]


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
        print(f"{PROG[0]}: left out {n} row(s) with no {target!r} label (--drop-unlabelled)", file=sys.stderr,
              flush=True)


def labelled_rows(df, target, where, drop, instead=None, report=True):
    """The rows of ``df`` that have a ``target`` label, by the rule of ``--drop-unlabelled``.

    Parameters
    ----------
    df : DataFrame
        The table; it must have the column ``target``.
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
        Some rows have no label and ``drop`` is false.
    """
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
