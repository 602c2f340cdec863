"""Differentially private releases of sufficient statistics, shared by the families' ``dp_stats``.

Neighbouring datasets differ in one row replaced by another (docs/privacy.md). Each helper
states the L1 and L2 sensitivity of what it releases and post-processes the noisy result into
valid statistics; the families say which helper their statistics need.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["VAR_FLOOR", "check_declared", "check_no_auto", "check_no_bounds", "noisy_counts", "noisy_moments", "require_bounds"]

#: the smallest released within-class variance, as a fraction of the squared half-range of the
#: bounds (a released sd is at least 10% of the half-range): keeps every variance positive, and
#: a variance that noise pushed near 0 from making the model overconfident
VAR_FLOOR = 1e-2


def check_no_auto(value, what, who):
    """Refuse an ``"auto"`` hyperparameter (chosen by evidence on the raw data)."""
    if isinstance(value, str) and value == "auto":
        raise ValueError(f"{who}: {what}='auto' maximises the evidence of the raw data, which is not "
                         f"differentially private; with privacy= give {what} a fixed value (e.g. 1.0).")


def check_declared(declared, names, who):
    """Refuse columns whose categories were read from the data (they reveal its values)."""
    found = [names[j] for j, d in enumerate(declared) if not d]
    if found:
        raise ValueError(f"{who}: with privacy= the categories must be declared, not read from the data "
                         f"(which reveals its values); column(s) {found} have none. Give categories= "
                         "or a pandas categorical dtype.")


def check_no_bounds(bounds, names, family, who):
    """Refuse bounds given for the columns of a family that does not clip values."""
    given = [names[j] for j, b in enumerate(bounds) if b is not None]
    if given:
        raise ValueError(f"{who}: privacy bounds apply to numeric (Gaussian) columns; column(s) {given} "
                         f"are in a {family} block, which needs none. Remove them from DP(bounds=...).")


def require_bounds(bounds, names, who):
    """``(lo, hi)`` arrays of a block whose every column must have declared bounds."""
    missing = [names[j] for j, b in enumerate(bounds) if b is None]
    if missing:
        raise ValueError(
            f"{who}: a private Gaussian block needs declared bounds for every column; none for {missing}. "
            "Give DP(bounds={column: (lo, hi)}) from knowledge of the domain: bounds read from the data "
            "(its min and max) would themselves leak it.")
    return (np.array([b[0] for b in bounds], dtype=float), np.array([b[1] for b in bounds], dtype=float))


def noisy_counts(counts, budget):
    """Counts of one value per row and column, released with noise; negative counts set to 0.

    Parameters
    ----------
    counts : list of ndarray
        Per column, counts of shape (K, V_j): each row adds at most 1 to one cell of each
        column (a missing cell to none). Replacing a row moves at most one unit per column,
        so over ``d`` columns the L1 sensitivity is ``2 d`` and the L2 sensitivity ``sqrt(2 d)``.
    budget : bayesnb.privacy.Budget

    Returns
    -------
    list of ndarray
        Same shapes, non-negative.
    """
    d = len(counts)
    if d == 0:
        return []
    flat = np.concatenate([np.ravel(c) for c in counts])
    noisy = np.maximum(budget.noisy(flat, 2.0 * d, math.sqrt(2.0 * d)), 0.0)
    out, at = [], 0
    for c in counts:
        out.append(noisy[at:at + c.size].reshape(c.shape))
        at += c.size
    return out


def noisy_moments(X, observed, resp, lo, hi, budget):
    """Per (class, column) count, mean and sum of squared deviations of clipped values, with noise.

    Values are clipped to ``[lo, hi]`` and mapped to ``u = (x - c) / r`` in ``[-1, 1]``
    (``c``, ``r`` the centre and half-range). The budget is split in three equal shares over
    the counts ``n`` (L1 ``2 d``, L2 ``sqrt(2 d)``), the sums of ``u`` (L1 ``2 d``, L2 ``2 sqrt(d)``:
    a row kept in its class may move ``u`` by 2) and the sums of ``u**2`` (L1 ``2 d``,
    L2 ``sqrt(2 d)``). Post-processing: ``n >= 0``, the mean within the bounds, the variance
    between ``VAR_FLOOR * r**2`` and the largest the bounds allow.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Values (missing cells hold 0).
    observed : ndarray of bool, shape (n, d)
    resp : ndarray of shape (n, K)
        One-hot labels (each row's weight at most 1).
    lo, hi : ndarray of shape (d,)
    budget : bayesnb.privacy.Budget

    Returns
    -------
    n, mean, m2 : ndarray of shape (K, d)
    """
    c, r = (lo + hi) / 2, (hi - lo) / 2
    obs = np.broadcast_to(observed, X.shape)
    u = np.where(obs, (np.clip(X, lo, hi) - c) / r, 0.0)
    d = X.shape[1]
    b_n, b_1, b_2 = budget.split([1, 1, 1])
    n = np.maximum(b_n.noisy(resp.T @ obs.astype(float), 2.0 * d, math.sqrt(2.0 * d)), 0.0)
    s1 = b_1.noisy(resp.T @ u, 2.0 * d, 2.0 * math.sqrt(d))
    s2 = b_2.noisy(resp.T @ (u * u), 2.0 * d, math.sqrt(2.0 * d))
    has = n > 0
    safe = np.where(has, n, 1.0)
    mu = np.clip(s1 / safe, -1.0, 1.0)
    var = np.clip(s2 / safe - mu * mu, VAR_FLOOR, np.maximum(1.0 - mu * mu, VAR_FLOOR))
    mean = np.where(has, c + r * mu, 0.0)
    m2 = np.where(has, n * var * r * r, 0.0)
    return n, mean, m2
