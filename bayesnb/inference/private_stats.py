"""The differentially private release of a fit's sufficient statistics (docs/privacy.md).

:func:`private_statistics` splits a :class:`bayesnb.DP` budget over the class counts and the
blocks (:meth:`bayesnb.privacy.Budget.split`), releases the class counts here and each block's statistics
through its family's ``dp_stats``, and reports the split; the conjugate update on the
released statistics is post-processing.
"""

from __future__ import annotations

import math

import numpy as np

from ..families.dp_release import RowBound
from ..privacy import DP, project_simplex

__all__ = ["block_bounds", "private_statistics", "public_blocks", "release_class_counts", "share_weights"]


def block_bounds(dp: DP, specs, all_names, who):
    """Per block, the declared ``(lo, hi)`` (or None) of each of its columns.

    A key of ``dp.bounds`` is a column name (fitted on a DataFrame) or position; a key naming
    no column is an error.
    """
    d = sum(len(cols) for cols, _ in specs)
    by_position = {}
    for key, b in dict(dp.bounds or {}).items():
        if all_names is not None and key in list(all_names):
            by_position[list(all_names).index(key)] = b
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < d:
            by_position[int(key)] = b
        else:
            shown = list(all_names) if all_names is not None else f"positions 0..{d - 1}"
            raise ValueError(f"{who}: DP(bounds=...) names column {key!r}, which is not in X; expected one of "
                             f"{shown}.")
    return [[by_position.get(int(c)) for c in cols] for cols, _ in specs]


def _block_bounds(bounds, fam, dp):
    """What a block's ``dp_stats`` gets as ``bounds``: its columns' ``(lo, hi)`` (or None), and for a
    ``joint_columns`` block the pair ``(column bounds, RowBound(dp.row_length, dp.row_norm, dp.noise_prior))``."""
    return (bounds, RowBound(dp.row_length, dp.row_norm, dp.noise_prior)) if fam.joint_columns else bounds


def share_weights(dp, weights):
    """Budget weights ``[class counts] + blocks`` (or nodes) with ``dp.class_share``, if given, as the first's fraction.

    Parameters
    ----------
    dp : bayesnb.DP
    weights : list of float
        The class counts' weight first, then one per block or node.

    Returns
    -------
    list of float
    """
    if dp.class_share is None or len(weights) == 1:
        return weights
    rest = sum(weights[1:])
    return [dp.class_share * rest / (1.0 - dp.class_share)] + list(weights[1:])


def release_class_counts(share, resp):
    """The class counts ``resp.sum(0)`` with noise of ``share`` (L1 2, L2 ``sqrt(2)``: a replaced row moves one
    unit out of a class and into another), projected onto ``{c >= 0, sum(c) = n}`` (``n`` is public)."""
    return project_simplex(share.noisy(resp.sum(0), 2.0, math.sqrt(2.0)), float(resp.sum()))


def private_statistics(dp: DP, resp, specs, encoded, states, names, all_names, who):
    """Class counts and block statistics released under ``dp``, and the account of the budget.

    The budget is split in proportion to the number of statistics released: one share for the
    class counts and, per column of each block, one per statistic its family releases
    (``dp_statistics``: 1 for counts, 3 for a Gaussian's counts, sums and sums of squares), so
    that every released statistic, each of L1 sensitivity 2, gets the same share and the same
    Laplace noise scale; ``dp.class_share`` instead gives the class counts that fraction. Under
    replace-one neighbours the number of rows ``n`` is public, so the noisy class
    counts are projected onto ``{c >= 0, sum(c) = n}``; the class counts' L1 sensitivity is 2
    and their L2 sensitivity ``sqrt(2)``.

    Parameters
    ----------
    dp : DP
    resp : ndarray of shape (n, K)
        One-hot labels (unit weights).
    specs, encoded, states, names
        As in :func:`bayesnb.inference.conjugate.fit_posterior`.
    all_names : ndarray of str or None
        The column names of X (to resolve ``dp.bounds``).
    who : str

    Returns
    -------
    class_count : ndarray of shape (K,)
    stats : list
        One statistics NamedTuple per block.
    spent : dict
        ``{"epsilon", "delta", "mechanism", "split"}``; ``split`` maps ``"class_count"`` and
        each block (``"block i (Family, d columns)"``) to its ``(epsilon, delta)``.
    """
    budget = dp.budget()
    # a block's share: its family's dp_statistics (statistics released per column, each of L1 sensitivity 2)
    # per column, or once for a block whose columns share a row's total (joint_columns: one count vector,
    # whose sensitivity the row length bounds)
    shares = budget.split(share_weights(dp, [1] + [fam.dp_statistics * (1 if fam.joint_columns else len(cols))
                                            for cols, fam in specs]))
    class_count = release_class_counts(shares[0], resp)
    bounds = block_bounds(dp, specs, all_names, who)
    stats = [fam.dp_stats(encoded[i], resp, states[i], shares[i + 1], _block_bounds(bounds[i], fam, dp),
                          list(names[i]), who)
             for i, (_, fam) in enumerate(specs)]
    split = {"class_count": (float(shares[0].epsilon), float(shares[0].delta))}
    for i, (cols, fam) in enumerate(specs):
        key = f"block {i} ({type(fam).__name__}, {len(cols)} column{'s' if len(cols) != 1 else ''})"
        split[key] = (float(shares[i + 1].epsilon), float(shares[i + 1].delta))
    spent = {"epsilon": float(dp.epsilon), "delta": float(dp.delta), "mechanism": dp.mechanism, "split": split}
    return class_count, stats, spent


def public_blocks(dp: DP, specs, encoded, all_names, who):
    """Each block of declared public rows as the release counts a private row (each family's ``dp_public_rows``).

    Parameters
    ----------
    dp : DP
    specs : list of (columns, Family)
    encoded : list
        The public rows' encoded blocks.
    all_names : ndarray of str or None
    who : str

    Returns
    -------
    list
        The transformed encoded blocks (new objects; ``encoded`` is not modified).
    """
    bounds = block_bounds(dp, specs, all_names, who)
    return [fam.dp_public_rows(encoded[i], _block_bounds(bounds[i], fam, dp)) for i, (_, fam) in enumerate(specs)]
