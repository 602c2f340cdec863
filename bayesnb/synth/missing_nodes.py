"""Missing-indicator nodes of :class:`~bayesnb.Synthesizer` (``missing="model"``).

Missingness is data (DESIGN.md, "One model"): every column ``c`` with a missing cell gets a
binary node ``m_c`` (True where ``c`` is missing), an ordinary categorical column of the table
the model is fitted on, so the structure learner chooses its parents (the class, other
indicators, fully observed columns) by evidence like any other node's, and a latent-class
model makes it a naive feature of its components. The column ``c`` itself is modelled from
its observed cells (its missing cells marginalised: missing at random given the indicators'
parents). A synthetic row is drawn whole, then ``c`` is blanked where ``m_c`` is True and the
indicators are dropped.

One constraint keeps the missing rates right: a column that has missing cells is never joined
to an indicator (``NaiveBayes(forbidden_edges=...)``, :func:`forbidden_pairs`). The engine
fits a node on the rows where it and its parents are observed, so an indicator ``m_j`` with a
parent ``x_k`` would learn ``p(m_j | x_k)`` only where ``x_k`` is observed, i.e. given
``m_k = 0``, and sampling would draw it for every row: when missing cells cluster in rows
(absent voters), the rate of ``m_j`` would come out too low. The indicators themselves,
always observed, carry the correlation between missing patterns.

Names: with string column names an indicator is ``P + ":" + c`` with ``P`` the shortest of
``"_missing_"``, ``"_missing__"``, ... that no column name starts with, so it cannot clash with
a column and :func:`indicators_in` reads the pairs back from a saved model's feature names
(the indicators are the names ``_missing<underscores>:<column>`` with the most underscores,
``<column>`` being another feature). Other column labels get ``("_missing", c)`` tuples.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["add_indicators", "blank_missing", "forbidden_pairs", "indicator_names", "indicators_in"]

_STEM = "_missing"
_NAME = re.compile(r"^_missing(_+):(.*)$", re.DOTALL)


def indicator_names(X):
    """``{column: indicator label}`` for every column of ``X`` with a missing cell (in column order).

    Parameters
    ----------
    X : DataFrame
        The feature columns (the target excluded).

    Returns
    -------
    dict
        Empty when no cell is missing.
    """
    missing = [c for c in X.columns if X[c].isna().any()]
    if not missing:
        return {}
    if all(isinstance(c, str) for c in X.columns):
        prefix = _STEM + "_"
        while any(c.startswith(prefix) for c in X.columns):
            prefix += "_"
        return {c: f"{prefix}:{c}" for c in missing}
    taken, out = set(X.columns), {}
    for c in missing:
        label = (_STEM, c)
        while label in taken:
            label = ("_" + label[0], c)
        out[c] = label
    return out


def add_indicators(X, names):
    """A new table: ``X`` with one bool column ``names[c]`` per column ``c`` (True where ``c`` is missing).

    ``X`` is not modified.
    """
    if not names:
        return X
    flags = pd.DataFrame({ind: X[c].isna().to_numpy() for c, ind in names.items()}, index=X.index)
    return pd.concat([X, flags], axis=1)


def forbidden_pairs(columns, names):
    """The ``forbidden_edges`` of the model: every (column with missing cells, indicator) pair, or None.

    ``columns`` are the model table's column labels (indicators included): the pairs name them
    when they are all strings (the model then has feature names), else give their positions.
    See the module docstring for why.
    """
    pairs = [(c, ind) for c in names for ind in names.values()]
    if not pairs or all(isinstance(c, str) for c in columns):
        return pairs or None
    where = {c: j for j, c in enumerate(columns)}
    return [(where[a], where[b]) for a, b in pairs]


def blank_missing(out, names):
    """Blank the sampled cells whose indicator is True and drop the indicators (a new table)."""
    if not names:
        return out
    out = out.copy()
    for c, ind in names.items():
        flag = np.asarray(out[ind], dtype=object) == True  # noqa: E712 (bool or np.bool_ draws)
        out[c] = out[c].mask(flag)
    return out.drop(columns=list(names.values()))


def indicators_in(feature_names):
    """``{column: indicator}`` read back from a model's feature names (see the module docstring).

    Parameters
    ----------
    feature_names : sequence of str

    Returns
    -------
    dict
        Empty when the names hold no indicator.
    """
    names = [str(n) for n in feature_names]
    found = [(len(m.group(1)), m.group(2), n) for n in names if (m := _NAME.match(n))]
    if not found:
        return {}
    depth = max(k for k, _, _ in found)
    return {c: n for k, c, n in found if k == depth and c in names}
