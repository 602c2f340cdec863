"""One pass over a dense float table, every column at once: what the value records and zero links need.

The records of :mod:`bayesnb.generative.values` and the zero links of
:mod:`bayesnb.generative.zero_links` are made in every fit. Read column by column, a C-ordered
table costs a strided copy per column, and a column of many values a sort. :func:`scan_columns`
reads the table once instead, a block of rows of all columns at a time (each block laid out with
a column's cells contiguous: read in place for a Fortran-ordered array or a DataFrame's values,
transposed into one buffer otherwise), and gathers per column:

- the number of finite cells, their least and greatest value, and the number of zeros;
- whether the first :data:`PROBE` rows already hold more than ``MAX_CODES`` distinct finite
  values (so the column is not coded), and whether every finite cell is a whole number;
- a histogram of the cells over :data:`BUCKETS` buckets, by two bytes of their bits.

The histogram proves the absence of point masses: cells of equal bits fall in one bucket, so no value
holds more cells than the fullest bucket, and a column whose fullest bucket holds less than
``POINT_MASS_SHARE`` of its finite cells has no point mass. Its record is then its
range alone, exactly the one that counting its values gives (:func:`bayesnb.generative.values.column_supports`
checks this, and reads a column for which the proof fails as before).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["BUCKETS", "PROBE", "ColumnScan", "scan_columns", "scannable"]

#: buckets of the hash histogram per column
BUCKETS = 256
#: rows read first for the count of distinct values
PROBE = 1024
#: cells per block of rows read at a time
_BLOCK_CELLS = 1 << 16
#: an integer column of at most this many values between its least and greatest has every value counted
_SPAN = 1024


class ColumnScan(NamedTuple):
    """Per-column facts of a dense float table (see the module docstring).

    Attributes
    ----------
    n : ndarray of int64, shape (d,)
        Finite cells.
    lo, hi : ndarray of float64, shape (d,)
        Least and greatest finite value (NaN where there is none).
    zeros : ndarray of int64, shape (d,)
        Cells equal to 0.
    many : ndarray of bool, shape (d,)
        The first :data:`PROBE` rows hold more than ``max_codes`` distinct finite values.
    integer : ndarray of bool, shape (d,)
        Every finite cell is a whole number (for the columns with ``many``; False for the others).
    fullest : ndarray of int64, shape (d,)
        Cells of the column's fullest bucket, the most any one value can hold (0 for a column
        without ``many``: not bucketed).
    counted : dict
        ``{column: (values, counts)}``: every distinct value (sorted, float64) and its cells, of
        each column of whole numbers spanning at most :data:`_SPAN` values (integers, or floats
        without a missing cell).
    """

    n: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    zeros: np.ndarray
    many: np.ndarray
    integer: np.ndarray
    fullest: np.ndarray
    counted: dict


def scannable(dtype):
    """Whether :func:`scan_columns` reads an array of ``dtype``: float32/64 or 32/64-bit integers, native byte order."""
    return dtype.kind in "fiu" and dtype.itemsize in (4, 8) and dtype.isnative


def _probe(A, max_codes):
    """``(many, whole)`` of the first :data:`PROBE` rows: more than ``max_codes`` distinct finite values, all whole."""
    S = np.sort(np.array(A[:PROBE], dtype=np.float64), axis=0)
    fin = np.isfinite(S)
    new = fin.copy()
    new[1:] &= (S[1:] != S[:-1]) | ~fin[:-1]
    with np.errstate(invalid="ignore"):
        whole = np.all((S == np.round(S)) | ~fin, axis=0)
    return new.sum(axis=0) > max_codes, whole


def _blocks(A):
    """Blocks of ``A``'s rows as ``(block, axis)``: the rows' axis of the block is ``axis``.

    A Fortran-ordered array (a DataFrame's values) is read in place, transposed (``axis`` 1: a
    column's cells contiguous); a C-ordered one in place too (``axis`` 0), and any other layout, or
    data off its alignment, copied a block at a time into one aligned C-ordered buffer.
    """
    n, d = A.shape
    if A.strides[0] == A.itemsize and A.flags.aligned:
        step = max(1, _BLOCK_CELLS // max(d, 1))
        for a in range(0, n, step):
            yield A[a:a + step].T, 1
        return
    g = _group(d)
    step = max(g, (_BLOCK_CELLS // max(d, 1)) // g * g)  # whole groups of rows (see _reduce)
    direct = A.flags.c_contiguous and A.flags.aligned
    buf = None if direct else np.empty((min(step, n), d), dtype=A.dtype)
    for a in range(0, n, step):
        b = min(a + step, n)
        if direct:
            yield A[a:b], 0
        else:
            np.copyto(buf[: b - a], A[a:b])
            yield buf[: b - a], 0


def _group(d):
    """Rows folded into one when reducing a C-ordered block of ``d`` columns, so that the reduction runs over
    long contiguous rows (a reduction down a C-ordered column of a narrow table is slow)."""
    return max(1, 512 // max(d, 1))


def _reduce(ufunc, B, axis, dtype=None):
    """``ufunc.reduce`` of block ``B`` along its rows' axis (a C-ordered block's rows folded in groups)."""
    if axis == 1:
        return ufunc.reduce(B, axis=1, dtype=dtype)
    m, d = B.shape
    g = _group(d)
    if g == 1 or m % g:
        return ufunc.reduce(B, axis=0, dtype=dtype)
    return ufunc.reduce(ufunc.reduce(B.reshape(m // g, g * d), axis=0, dtype=dtype).reshape(g, d), axis=0)


class _Buckets:
    """Bucket indices (``column * BUCKETS + bucket``) of the cells of blocks' columns ``cols``, in buffers made once.

    The bucket is a byte of the cell's bits: its lowest (the last bits of the mantissa, which vary
    in any column of measurements) XOR-ed with one from the top of its mantissa (which varies in a
    column of whole numbers). Equal bits share a bucket, and so do ``0.0`` and ``-0.0`` (the sign
    bit is in neither byte). Integer shifts and masks of whole cells: vectorised by NumPy.
    """

    def __init__(self, A, cols):
        self.cols, self.shift = cols, 40 if A.itemsize == 8 else 8  # float64: mantissa bits 40-47; float32: 8-15
        self.itype = np.int64 if A.itemsize == 8 else np.int32
        self.buf, self.index, self.offset = None, None, None

    def __call__(self, B, axis):
        cols = self.cols
        if cols.size != B.shape[1 - axis]:
            B = np.take(B, cols, axis=1 - axis)  # C-ordered (a C-ordered column subset by indexing may not be)
        shape = (cols.size, B.shape[1]) if axis == 1 else (B.shape[0], cols.size)
        if self.buf is None or self.buf.size < B.size:
            self.buf, self.index = np.empty(B.size, dtype=self.itype), np.empty(B.size, dtype=np.intp)
            per = np.arange(cols.size, dtype=np.intp) * BUCKETS
            self.offset = np.repeat(per, B.shape[1]) if axis == 1 else np.tile(per, B.shape[0])
        v = B.view(self.itype)
        h = self.buf[: B.size].reshape(shape)
        np.right_shift(v, self.shift, out=h)
        np.bitwise_xor(h, v, out=h)
        np.bitwise_and(h, BUCKETS - 1, out=h)
        if axis == 1 and B.shape[1] * cols.size != self.offset.size:  # a shorter last block
            return np.add(h, (np.arange(cols.size, dtype=np.intp) * BUCKETS)[:, None], dtype=np.intp).ravel()
        return np.add(h.ravel(), self.offset[: B.size], out=self.index[: B.size])


def scan_columns(A, max_codes, skip=()):
    """The :class:`ColumnScan` of a 2-D array (any layout) of a :func:`scannable` dtype, or None for another.

    Parameters
    ----------
    A : ndarray of shape (n_samples, n_features)
        Missing cells NaN.
    max_codes : int
        Most distinct values of a coded column.
    skip : collection of int, optional
        Columns whose values are not wanted (only their range and zeros): neither bucketed nor counted.

    Returns
    -------
    ColumnScan or None
    """
    if A.ndim != 2 or not scannable(A.dtype) or not A.shape[0]:
        return None
    n, d = A.shape
    many, integer = _probe(A, max_codes)
    wanted = np.ones(d, dtype=bool)
    wanted[list(skip)] = False
    many &= wanted
    hashed = np.flatnonzero(many)
    hist = np.zeros(hashed.size * BUCKETS, dtype=np.int64)
    count, zeros = np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64)
    lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
    buckets, zbuf = _Buckets(A, hashed), np.empty(min(n * d, _BLOCK_CELLS + d), dtype=bool)
    for B, axis in _blocks(A):
        m = B.shape[axis]
        least, most = _reduce(np.minimum, B, axis), _reduce(np.maximum, B, axis)
        finite = np.isfinite(least) & np.isfinite(most)  # a NaN is the least and greatest, an infinity one of them
        np.minimum(lo, least, out=lo, where=finite)
        np.maximum(hi, most, out=hi, where=finite)
        count += np.where(finite, m, 0)
        zero = np.equal(B, 0, out=zbuf[: B.size].reshape(B.shape))
        if zero.any():  # (a column of measurements has none)
            zeros += _reduce(np.add, zero, axis, dtype=np.int64)
        bad = np.flatnonzero(~finite)
        if bad.size:  # columns with a missing (or infinite) cell here: their finite cells only
            W = np.take(B, bad, axis=1 - axis)
            ok = np.isfinite(W)
            count[bad] += ok.sum(axis=axis)
            lo[bad] = np.minimum(lo[bad], W.min(axis=axis, where=ok, initial=np.inf))
            hi[bad] = np.maximum(hi[bad], W.max(axis=axis, where=ok, initial=-np.inf))
        check = np.flatnonzero(wanted & integer) if A.dtype.kind == "f" else hashed[:0]
        if check.size:
            W = B[check] if axis == 1 else B[:, check]
            with np.errstate(invalid="ignore"):
                integer[check] = np.all((W == np.round(W)) | ~np.isfinite(W), axis=axis)
        if hashed.size:
            hist += np.bincount(buckets(B, axis), minlength=hist.size)
    fullest = np.zeros(d, dtype=np.int64)
    if hashed.size:
        fullest[hashed] = hist.reshape(hashed.size, BUCKETS).max(axis=1)
    none = count == 0
    lo[none], hi[none] = np.nan, np.nan
    if A.dtype.kind in "iu":
        many &= (lo > -2.0**53) & (hi < 2.0**53)  # (distinct integers past 2**53 may be one float64)
        counted = _count_values(A, np.where(wanted, lo, np.nan), hi)
    else:  # complete float columns of whole numbers (codes held as floats) counted the same way
        counted = _count_values(A, np.where(wanted & integer & (count == n), lo, np.nan), hi)
    return ColumnScan(count, lo, hi, zeros, many, integer & many, fullest, counted)


def _count_values(A, lo, hi):
    """``{column: (values, counts)}`` of the columns of ``A`` spanning at most :data:`_SPAN` values (only whole
    numbers: integers, or floats the caller knows to be whole and finite; ``lo`` NaN leaves a column out), from
    one more pass: a histogram of every cell's offset from its column's least value."""
    small = np.flatnonzero((hi - lo < _SPAN) & (lo > -2.0**62) & (hi < 2.0**62))  # (offsets in int64)
    if not small.size:
        return {}
    base = lo[small].astype(np.int64)
    hist = np.zeros(small.size * _SPAN, dtype=np.int64)
    shift = base - np.arange(small.size, dtype=np.int64) * _SPAN  # cell - shift: its bin
    tiled, buf = None, None
    for B, axis in _blocks(A):
        if small.size != B.shape[1 - axis]:
            B = np.take(B, small, axis=1 - axis)
        if axis == 1:  # a column's cells contiguous: one shift per row of the block
            W = np.subtract(B, shift[:, None], dtype=np.int64, casting="unsafe")  # (whole floats: exact)
        else:  # C-ordered rows: the shifts laid out as the block, once (a short broadcast row is slow)
            if tiled is None or tiled.size < B.size:
                tiled, buf = np.tile(shift, B.shape[0]), np.empty(B.size, dtype=np.int64)
            W = np.subtract(B.ravel(), tiled[: B.size], out=buf[: B.size], dtype=np.int64, casting="unsafe")
        hist += np.bincount(W.ravel(), minlength=hist.size)
    out = {}
    for i, j in enumerate(small):
        c = hist[i * _SPAN:(i + 1) * _SPAN]
        at = np.flatnonzero(c)
        out[int(j)] = ((base[i] + at).astype(np.float64), c[at])
    return out
