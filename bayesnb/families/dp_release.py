"""Differentially private releases of sufficient statistics, shared by the families' ``dp_stats``.

Neighbouring datasets differ in one row replaced by another (docs/privacy.md). Each helper
states the L1 and L2 sensitivity of what it releases and post-processes the noisy result into
valid statistics; the families say which helper their statistics need.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from ..privacy import project_rows

__all__ = ["FLOOR_NOISE_SDS", "RowBound", "VAR_FLOOR_MIN", "check_declared", "check_no_auto",
           "check_no_bounds", "noisy_counts", "noisy_moments", "noisy_pairs", "noisy_row_counts",
           "noisy_sums", "public_rows", "require_bounds", "row_counts_release", "row_sensitivity",
           "scale_rows", "var_floor", "whole_bounds"]

#: the variance floor of :func:`noisy_moments`, in noise standard deviations of the released variance
FLOOR_NOISE_SDS = 1.0
#: the floor's smallest value, as a fraction of the squared half-range of the bounds (keeps every
#: variance positive however large epsilon is)
VAR_FLOOR_MIN = 1e-9


class RowBound(NamedTuple):
    """What a count block's row is bounded by, from :class:`bayesnb.DP`.

    Attributes
    ----------
    length : float or None
        ``DP(row_length=...)``: the largest norm of a row (None: not declared).
    norm : {"l1", "l2"}
        Which norm (``DP(row_norm=...)``).
    noise_prior : float
        Pseudo-count added to every released cell, in noise sds (``DP(noise_prior=...)``).
    """

    length: Any
    norm: str = "l1"
    noise_prior: float = 0.0


def var_floor(n, sd_s2):
    """The smallest released within-class variance, on the scale ``u = (x - c) / r`` of :func:`noisy_moments`.

    ``FLOOR_NOISE_SDS * sd_s2 / n``, the noise sd of the released ``s2 / n`` (``sd_s2`` the noise sd
    of the released sum of ``u**2``, ``n`` the released count), kept within ``[VAR_FLOOR_MIN, 1]``
    (1 is the largest variance of values in ``[-1, 1]``). A variance below the noise level cannot be
    told from 0, and one that noise pushed near 0 would make the model overconfident; the floor
    vanishes as epsilon grows (``sd_s2`` is proportional to ``1 / epsilon``), so a private fit tends
    to the exact one. It reads only released values and the public noise scale: post-processing.

    Parameters
    ----------
    n : ndarray
        Released (non-negative) counts.
    sd_s2 : float

    Returns
    -------
    ndarray
        Same shape as ``n``.
    """
    with np.errstate(divide="ignore"):
        floor = np.where(n > 0, FLOOR_NOISE_SDS * sd_s2 / np.where(n > 0, n, 1.0), 1.0)
    return np.clip(floor, VAR_FLOOR_MIN, 1.0)


def check_no_auto(value, what, who):
    """Refuse an ``"auto"`` hyperparameter (chosen by evidence on the raw data)."""
    if isinstance(value, str) and value == "auto":
        raise ValueError(f"{who}: {what}='auto' maximises the evidence of the raw data, which is not "
                         f"differentially private; with privacy= give {what} a fixed value (e.g. 1.0).")


def check_declared(declared, names, who):
    """Refuse columns whose categories the user did not pass (read from the data, they reveal its values).

    ``declared[j]`` is True only for categories given explicitly (``categories=``): a pandas
    categorical's categories are built from the data by ``astype("category")``, so they do not count.
    """
    found = [names[j] for j, d in enumerate(declared) if not d]
    if found:
        raise ValueError(f"{who}: with privacy= the categories must be declared, not read from the data "
                         f"(which reveals its values); column(s) {found} have none. Give categories= "
                         "(a pandas categorical dtype does not count: astype('category') builds its categories "
                         "from the data).")


def check_no_bounds(bounds, names, family, who):
    """Refuse bounds given for the columns of a family that does not clip values."""
    given = [names[j] for j, b in enumerate(bounds) if b is not None]
    if given:
        raise ValueError(f"{who}: privacy bounds apply to numeric (Gaussian, LogNormal, Poisson) columns; "
                         f"column(s) {given} "
                         f"are in a {family} block, which needs none. Remove them from DP(bounds=...).")


def require_bounds(bounds, names, who, family="Gaussian"):
    """``(lo, hi)`` arrays of a block whose every column must have declared bounds."""
    missing = [names[j] for j, b in enumerate(bounds) if b is None]
    if missing:
        raise ValueError(
            f"{who}: a private {family} block needs declared bounds for every column; none for {missing}. "
            "Give DP(bounds={column: (lo, hi)}) from knowledge of the domain: bounds read from the data "
            "(its min and max) would themselves leak it.")
    return (np.array([b[0] for b in bounds], dtype=float), np.array([b[1] for b in bounds], dtype=float))


def noisy_counts(counts, budget):
    """Counts of one value per row and column, released with noise, each class's vector projected.

    Post-processing: each class's (or context's) noisy vector of a column is projected onto the
    non-negative counts with its noisy total (:func:`bayesnb.privacy.project_rows`): the total is
    kept, cells under a common threshold become 0. (Clipping each cell at 0 would add the positive
    half of every empty cell's noise: on a thin context, mass spread evenly over unseen values.)

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
    noisy = budget.noisy(flat, 2.0 * d, math.sqrt(2.0 * d))
    # each class's (context's) vector onto the counts of its noisy total (post-processing)
    parts = np.split(noisy, np.cumsum([c.size for c in counts])[:-1])
    return [project_rows(part.reshape(c.shape)) for part, c in zip(parts, counts)]


def noisy_moments(X, observed, resp, lo, hi, budget):
    """Per (class, column) count, mean and sum of squared deviations of clipped values, with noise.

    Values are clipped to ``[lo, hi]`` and mapped to ``u = (x - c) / r`` in ``[-1, 1]``
    (``c``, ``r`` the centre and half-range). The budget is split in three equal shares over
    the counts ``n`` (L1 ``2 d``, L2 ``sqrt(2 d)``), the sums of ``u`` (L1 ``2 d``, L2 ``2 sqrt(d)``:
    a row kept in its class may move ``u`` by 2) and the sums of ``u**2`` (L1 ``2 d``,
    L2 ``sqrt(2 d)``).

    Post-processing (released values and the public noise variances ``v_n``, ``v_1``, ``v_2`` of the
    three releases only, so the guarantee is kept):

    - ``n >= 0``; the mean ``m = s1 / n`` within the bounds (``|m| <= 1``);
    - the variance ``s2 / n - m**2`` between :func:`var_floor` (the noise sd of ``s2 / n``: it vanishes
      as epsilon grows) and the largest the bounds allow, ``1 - m**2``;
    - **noise-aware count** (issue 28, defect 6). The released mean is the sample mean plus noise of
      variance ``v_m = (v_1 + m**2 v_n) / n**2`` (delta method on ``s1 / n``). Treated as one
      measurement with known noise, it has variance ``var / n + v_m = var / n_eff`` with
      ``n_eff = n var / (var + n v_m)``: the statistics returned are those of ``n_eff`` rows with the
      released mean and variance. The conjugate update then gives the mean a posterior variance of
      about ``var / n + v_m`` (the noise included), and tends to the exact update as epsilon grows.
      It is an approximation: ``var`` is the released (noisy) variance, the noise is taken as
      Gaussian with its variance, and the variance's own posterior is that of ``n_eff`` rows.

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
    n_eff, mean, m2 : ndarray of shape (K, d)
        The noise-aware count, the mean and ``n_eff`` times the variance (on the data's scale).
    """
    c, r = (lo + hi) / 2, (hi - lo) / 2
    obs = np.broadcast_to(observed, X.shape)
    u = np.where(obs, (np.clip(X, lo, hi) - c) / r, 0.0)
    d = X.shape[1]
    b_n, b_1, b_2 = budget.split([1, 1, 1])
    sens_n, sens_1, sens_2 = (2.0 * d, math.sqrt(2.0 * d)), (2.0 * d, 2.0 * math.sqrt(d)), (2.0 * d, math.sqrt(2.0 * d))
    n = np.maximum(b_n.noisy(resp.T @ obs.astype(float), *sens_n), 0.0)
    s1 = b_1.noisy(resp.T @ u, *sens_1)
    s2 = b_2.noisy(resp.T @ (u * u), *sens_2)
    has = n > 0
    safe = np.where(has, n, 1.0)
    mu = np.clip(s1 / safe, -1.0, 1.0)
    floor = var_floor(n, math.sqrt(b_2.noise_variance(*sens_2)))
    var = np.clip(s2 / safe - mu * mu, floor, np.maximum(1.0 - mu * mu, floor))
    v_mean = (b_1.noise_variance(*sens_1) + mu * mu * b_n.noise_variance(*sens_n)) / (safe * safe)
    n_eff = np.where(has, n * var / (var + n * v_mean), 0.0)
    mean = np.where(has, c + r * mu, 0.0)
    m2 = np.where(has, n_eff * var * r * r, 0.0)
    return n_eff, mean, m2


def noisy_sums(X, observed, resp, lo, hi, fns, budget):
    """Per (class, column) count and sums of ``f(x)`` for each monotone ``f`` of values clipped to bounds.

    Values are clipped to ``[lo, hi]``; for each ``f`` (non-decreasing on the bounds) a row adds
    ``u = (f(x) - f(lo)) / (f(hi) - f(lo))`` in ``[0, 1]`` to its class. The budget is split in
    equal shares over the counts ``n`` and each sum; each is a count-like query (a replaced row
    moves at most one unit out of one class and into another per column): L1 ``2 d``, L2
    ``sqrt(2 d)``. Post-processing: ``n >= 0``, each sum clipped to ``[0, n]`` (so the mean of
    ``f(x)`` lies within ``[f(lo), f(hi)]``), then mapped back: ``sum f = n f(lo) + w sum u``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Values (missing cells hold anything finite).
    observed : ndarray of bool, shape (n, d)
    resp : ndarray of shape (n, K)
        One-hot labels (each row's weight at most 1).
    lo, hi : ndarray of shape (d,)
    fns : list of callable
        Non-decreasing functions of an array.
    budget : bayesnb.privacy.Budget

    Returns
    -------
    n : ndarray of shape (K, d)
    sums : list of ndarray of shape (K, d)
        One per ``f``.
    """
    obs = np.broadcast_to(observed, X.shape)
    x = np.clip(np.where(obs, X, lo), lo, hi)
    d = X.shape[1]
    shares = budget.split([1] * (1 + len(fns)))
    n = np.maximum(shares[0].noisy(resp.T @ obs.astype(float), 2.0 * d, math.sqrt(2.0 * d)), 0.0)
    sums = []
    for f, b in zip(fns, shares[1:]):
        f_lo, f_hi = f(lo), f(hi)
        w = np.where(f_hi > f_lo, f_hi - f_lo, 1.0)
        u = np.where(obs, (f(x) - f_lo) / w, 0.0)
        s = np.clip(b.noisy(resp.T @ u, 2.0 * d, math.sqrt(2.0 * d)), 0.0, n)
        sums.append(n * f_lo + w * s)
    return n, sums


def scale_rows(X, L, norm="l1"):
    """``X`` (dense or sparse, non-negative) with each row of norm above ``L`` scaled to norm ``L``.

    ``norm="l1"``: the row's total; ``"l2"``: its Euclidean norm. Proportions within a row are kept
    (the statistic a Multinomial estimates). Sparse input stays sparse; ``X`` is not modified.
    """
    if norm == "l2":
        sq = X.multiply(X).sum(axis=1) if sp.issparse(X) else (X * X).sum(axis=1)
        length = np.sqrt(np.asarray(sq, dtype=float).ravel())
    else:
        length = np.asarray(X.sum(axis=1), dtype=float).ravel()
    f = np.where(length > L, L / np.where(length > 0, length, 1.0), 1.0)
    return (sp.diags(f) @ X).asformat(X.format) if sp.issparse(X) else X * f[:, None]


def row_sensitivity(L, norm, d):
    """``(L1, L2)`` sensitivity of the class-by-column sums of non-negative rows of norm at most ``L``.

    A replaced row removes its vector ``x`` from one class and adds ``x'`` to another (or the same).
    ``norm="l1"`` (``|x|_1 <= L``): L1 ``2 L``, L2 ``sqrt(2) L``. ``norm="l2"`` (``|x|_2 <= L``):
    L2 ``sqrt(2) L`` again (for non-negative vectors ``|x' - x|_2^2 <= |x|_2^2 + |x'|_2^2``), while
    the L1 sensitivity is only bounded by ``2 sqrt(d) L`` (``|x|_1 <= sqrt(d) |x|_2``), which is why
    ``row_norm="l2"`` goes with the Gaussian mechanism.
    """
    if norm == "l2":
        return 2.0 * math.sqrt(d) * L, math.sqrt(2.0) * L
    return 2.0 * L, math.sqrt(2.0) * L


def noisy_row_counts(counts, L, budget, norm="l1", noise_prior=0.0):
    """Class-by-column sums of rows of norm at most ``L``, released with noise (:func:`row_sensitivity`).

    Post-processing (released values and the public noise sd only): negative counts set to 0;
    a class's total is the sum of its released counts (consistent by construction); then
    ``noise_prior`` noise sds added to every cell (noise-aware smoothing, docs/privacy.md).
    (Projecting each class onto a separately released total was tried and is worse: where noise
    dominates, it keeps only the largest noise spikes.)

    Parameters
    ----------
    counts : ndarray of shape (K, d)
    L : float
    budget : bayesnb.privacy.Budget
    norm : {"l1", "l2"}
    noise_prior : float

    Returns
    -------
    ndarray of shape (K, d)
    """
    sens = row_sensitivity(L, norm, counts.shape[-1])
    out = np.maximum(budget.noisy(counts, *sens), 0.0)
    if noise_prior > 0:
        out += noise_prior * math.sqrt(budget.noise_variance(*sens))
    return out


def row_counts_release(fam, block, resp, state, budget, bounds, names, who):
    """A count block's (Multinomial, Complement) private statistics: the counts of :func:`noisy_row_counts`.

    ``bounds`` is ``(the columns' bounds, RowBound)`` (or ``(bounds, L)``: a row's total at most
    ``L``): rows of norm above ``L`` are scaled down to norm ``L`` (:func:`scale_rows`; sparse
    stays sparse). Which columns are observed is read from the data in the family's encoding state,
    so every declared column counts as observed: ``state`` (the bool array this fit's encoding made)
    is set to all True in place, and a row with a missing cell is left out (complete cases, as in
    ``fam.stats``).
    ``alpha="auto"`` is refused.

    Returns
    -------
    ndarray of shape (K, d)
    """
    check_no_auto(fam.alpha, "alpha", who)
    rb = bounds[1] if isinstance(bounds[1], RowBound) else RowBound(bounds[1])
    check_no_bounds(bounds[0], names, "count (Multinomial)", who)
    if rb.length is None:
        raise ValueError(f"{who}: a private count (Multinomial/Complement) block needs a "
                         "declared bound on the length of a row: give DP(row_length=L) from "
                         "knowledge of the domain (e.g. the longest document you accept); longer "
                         "rows are scaled down to length L. A bound read from the data (its "
                         "longest row) would itself leak it.")
    L = float(rb.length)
    if rb.norm == "l2" and budget.mechanism != "gaussian":
        raise ValueError(f"{who}: DP(row_norm='l2') needs mechanism='gaussian' (the L1 sensitivity of rows of "
                         "bounded Euclidean norm grows with the number of columns).")
    state[:] = True
    counts = fam.stats(public_rows(block, bounds), resp, state).counts  # the rows a public block would give
    return noisy_row_counts(counts, L, budget, rb.norm, rb.noise_prior)


def public_rows(block, bounds):
    """A count block's public rows (no noise) scaled as :func:`row_counts_release` scales a private row.

    ``bounds`` as there: ``(the columns' bounds, RowBound)``. Rows of norm above the declared
    ``RowBound.length`` are scaled down to it (:func:`scale_rows`); the block is not modified.
    """
    rb = bounds[1] if isinstance(bounds[1], RowBound) else RowBound(bounds[1])
    if rb.length is None:
        return block
    return block._replace(X=scale_rows(block.X, float(rb.length), rb.norm))


def noisy_pairs(first, second, budget):
    """Two (K, d) counts of which each row adds 1 to at most one, per column (``at``/other, one/zero).

    Released as :func:`noisy_counts` of one ``(K, 2)`` table per column: L1 ``2 d``, L2 ``sqrt(2 d)``.
    """
    d = first.shape[1]
    noisy = noisy_counts([np.stack([first[:, j], second[:, j]], axis=1) for j in range(d)], budget)
    if not noisy:
        return first, second
    return np.stack([t[:, 0] for t in noisy], axis=1), np.stack([t[:, 1] for t in noisy], axis=1)


def whole_bounds(bounds, names, who, family):
    """Declared bounds of a count column: whole numbers with ``0 <= lo``, as ``(lo, hi)`` arrays."""
    lo, hi = require_bounds(bounds, names, who, family)
    bad = [names[j] for j in range(len(lo)) if lo[j] < 0 or lo[j] != round(lo[j]) or hi[j] != round(hi[j])]
    if bad:
        raise ValueError(f"{who}: the privacy bounds of a {family} column are whole numbers with 0 <= lo < hi; "
                         f"column(s) {bad} have {[bounds[names.index(b)] for b in bad]}.")
    return lo, hi
