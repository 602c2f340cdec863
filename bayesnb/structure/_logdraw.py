"""Fast log-domain helpers for the structure's message passing and draws (:mod:`bayesnb.structure.exact_impute`).

``lse`` is ``scipy.special.logsumexp`` for real arrays without its per-call overhead (array-API
dispatch, dtype handling, masked writes), which dominated the draws of many short rows;
``draw_log`` draws a category per row from unnormalised log-probabilities without normalising them;
``distinct_rows`` groups equal rows of a float matrix by a hash of their bits, checked exactly.
"""

from __future__ import annotations

import numpy as np

__all__ = ["distinct_rows", "draw_log", "lse"]


def lse(a, axis, keepdims=False):
    """``log(sum(exp(a), axis))`` computed stably: ``-inf`` where every term is ``-inf``, NaN propagated.

    Parameters
    ----------
    a : ndarray of float
    axis : int or tuple of int
    keepdims : bool, default=False

    Returns
    -------
    ndarray
    """
    a = np.asarray(a, dtype=float)
    top = np.max(a, axis=axis, keepdims=True, initial=-np.inf)  # (an empty axis: -inf, as scipy's)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", under="ignore", invalid="ignore"):
        out = np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


def draw_log(lp, u):
    """Inverse-cdf draw of one category per row from unnormalised log-probabilities ``lp`` (n, V).

    Row ``i`` takes the first category whose cumulative weight exceeds ``u[i]`` times the row's total
    weight (the draw of :func:`~bayesnb.families.numeric.draw_categories` at the normalised
    probabilities, without a log-sum-exp per row).

    Parameters
    ----------
    lp : ndarray of shape (n, V)
        Log-weights (``-inf`` for an impossible category); each row needs a finite entry (a row with
        ``+inf`` entries draws among them; a row of ``-inf`` or NaN gets a category, not a meaningful one).
    u : ndarray of shape (n,)
        Uniform(0, 1) numbers.

    Returns
    -------
    ndarray of int, shape (n,)
    """
    lp = np.asarray(lp, dtype=float)
    top = np.max(lp, axis=1, keepdims=True)
    with np.errstate(under="ignore", invalid="ignore", over="ignore"):
        w = np.exp(lp - np.where(np.isfinite(top), top, 0.0))
    w = np.where(top == np.inf, (lp == np.inf).astype(float), w)  # a +inf weight: among the +inf ones
    cdf = np.cumsum(w, axis=1)
    target = u * cdf[:, -1]
    cdf[:, -1] = np.inf
    return np.minimum((target[:, None] >= cdf).sum(axis=1), lp.shape[1] - 1)


def distinct_rows(key):
    """``(first, inverse)`` of the distinct rows of a float matrix ``key`` (n, m), as
    ``np.unique(key, axis=0, return_index=True, return_inverse=True)`` groups them (``-0.0`` as ``0.0``;
    the distinct rows in another order: by hash).

    Rows are grouped by a 64-bit hash of their bits (one sort of n integers instead of a sort of
    n rows); the grouping is then checked exactly (every row equal to its group's first row), and on
    a hash collision the rows are grouped by ``np.unique(axis=0)``.

    Parameters
    ----------
    key : ndarray of float, shape (n, m)

    Returns
    -------
    first : ndarray of int
        One row index per distinct row.
    inverse : ndarray of int, shape (n,)
        Each row's position in ``first``.
    """
    key = np.asarray(key, dtype=float)
    if key.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    bits = float_bits(key)
    _, first, inverse = np.unique(_row_hash(bits), return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    if not np.array_equal(bits[first[inverse]], bits):  # a collision (or NaN bits): exact grouping
        _, first, inverse = np.unique(bits.view(float), axis=0, return_index=True, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
    return first, inverse


def float_bits(key):
    """The bits of a float matrix as a C-ordered uint64 matrix, ``-0.0`` read as ``0.0`` (the rows' hash key)."""
    return np.ascontiguousarray(np.asarray(key, dtype=float) + 0.0).view(np.uint64)


def _mix(x):
    """SplitMix64's finaliser of uint64 values (every input bit moves about half the output bits)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _row_hash(bits):
    """A 64-bit hash of each row of a uint64 matrix (its float bits): each value mixed
    (:func:`_mix`), times a fixed random odd multiplier per column, summed with wrap-around, mixed again.

    The values are mixed first: the bits of small whole numbers and of ``-inf`` end in 48 or more zeros,
    and a product keeps them, so a plain multiply-and-sum left about 16 bits of hash for such rows."""
    mult = np.random.default_rng(bits.shape[1]).integers(1, 2**63, size=bits.shape[1], dtype=np.uint64) | 1
    with np.errstate(over="ignore"):
        h = (_mix(bits) * mult).sum(axis=1, dtype=np.uint64)
        return _mix(h)
