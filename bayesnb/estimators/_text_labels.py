"""Class labels stored by pyarrow as text, coded without a Python string per label.

``fit``/``partial_fit`` take a label column of text stored by pyarrow (a pandas ``Series`` of
``str`` or of a ``pd.ArrowDtype`` of strings or of a dictionary of strings, as
``bayesnb fit --chunksize`` reads its target) as it comes: the labels are checked and coded
through their few distinct values (:func:`~bayesnb._utils.arrow_factorize`), the same labels
and classes as the column's strings in a NumPy array give.
"""

from __future__ import annotations

import numpy as np

from .._utils import DataError, arrow_factorize

__all__ = ["arrow_label_codes"]


def arrow_label_codes(y, classes, who: str, check: bool = True):
    """Position of each label of ``y`` (checked by :func:`~bayesnb.estimators.validation.check_y`) among the
    sorted ``classes``.

    Parameters
    ----------
    y : pandas ExtensionArray of shape (n,)
    classes : ndarray of shape (K,)
        Sorted classes.
    who : str
    check : bool
        Refuse a label that is not among ``classes`` (naming it).

    Returns
    -------
    codes : ndarray of int, shape (n,)
    """
    distinct, codes = arrow_factorize(y)
    pos = np.array([_position(classes, v) for v in distinct], dtype=np.intp)
    if check and (pos < 0).any():
        unknown = sorted(str(v) for v in np.asarray(distinct, dtype=object)[pos < 0])
        raise DataError(f"{who}: expected labels among classes={classes.tolist()}; received label(s) "
                        f"{unknown[:5]} that are not in classes.")
    return pos[codes] if len(classes) > 1 else np.zeros(len(codes), dtype=int)


def _position(classes, value):
    """Index of ``value`` in the sorted ``classes`` (-1 where absent)."""
    try:
        i = int(np.searchsorted(classes, value))
    except TypeError:  # classes of another type (numbers): not a class
        return -1
    return i if i < len(classes) and classes[i] == value else -1
