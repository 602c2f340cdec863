"""Scoring helpers of :class:`~bayesnb.families.bernoulli.Bernoulli`: mean log tables and thresholding.

``post`` / ``point`` below are :class:`~bayesnb.families.bernoulli.Betas` (fields ``a``, ``b``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._utils import all_finite
from ._numeric import class_sums

__all__ = ["_Tables", "_binarized", "_log_p", "_prob", "column_sums", "row_products"]


def _log_p(post):
    """Mean ``(log p, log(1 - p))`` of a Betas, each (K, d); undefined factors -> 0."""
    tot, log_tot = _log_total(post)
    return _log_part(post.a, tot, log_tot), _log_part(post.b, tot, log_tot)


def _log_total(post):
    """``(a + b, log(a + b))``, of shape (K, 1) when every feature of a class has the same total."""
    tot = post.a + post.b
    if (tot == tot[:, :1]).all():  # no missing cells: one total per class
        tot = tot[:, :1]
    with np.errstate(divide="ignore"):
        return tot, np.log(tot)


def _log_part(a, tot, log_tot):
    """``log(a / tot)`` (K, d), 0 where ``tot`` is 0 (no data and an improper prior: factor dropped)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.log(a)
        lp -= log_tot
    undefined = np.broadcast_to(tot == 0, lp.shape)
    if undefined.any():
        lp[undefined] = 0.0
    return lp


def _binarized(values, binarize, compact=False):
    """``values > binarize`` as a new array in one pass, or None (no threshold, or not a plain
    numeric array whose every entry is finite: the general path checks those).

    float64, or with ``compact`` uint8 (one byte a cell: a dense block's 0/1 values, read a
    chunk of rows at a time into float64 by :func:`row_products` and :func:`column_sums`)."""
    if binarize is None or not isinstance(values, np.ndarray) or values.dtype.kind not in "biuf":
        return None
    if not all_finite(values):
        return None
    if compact:
        return np.greater(values, binarize).view(np.uint8)
    out = np.empty(values.shape)
    np.greater(values, binarize, out=out)
    return out


def _chunks(X):
    """``(a, b, float64 buffer)`` over the rows of a dense (n, d) ``X``, a buffer of ~512 KiB made once."""
    n, d = X.shape
    step = max(1, (1 << 16) // max(d, 1))
    buf = np.empty((min(step, n), d))
    for a in range(0, n, step):
        b = min(a + step, n)
        np.copyto(buf[: b - a], X[a:b])
        yield a, b, buf[: b - a]


def row_products(X, W):
    """``X @ W`` (n, K) for dense or sparse ``X``; a dense ``X`` not of float64 (the compact 0/1
    of :func:`_binarized`) read a chunk of rows at a time into float64, never converted whole."""
    if sp.issparse(X) or X.dtype == np.float64:
        return np.asarray(X @ W)
    out = np.empty((X.shape[0], W.shape[1]))
    for a, b, buf in _chunks(X):
        np.dot(buf, W, out=out[a:b])
    return out


def column_sums(X, resp):
    """``resp.T @ X`` (K, d) as :func:`._numeric.class_sums`; a dense ``X`` not of float64 read a chunk
    of rows at a time (as :func:`row_products`)."""
    if sp.issparse(X) or X.dtype == np.float64:
        return class_sums(X, resp)
    resp = np.asarray(resp)
    out = np.zeros((resp.shape[1], X.shape[1]))
    for a, b, buf in _chunks(X):
        out += resp[a:b].T @ buf
    return out


class _Tables:
    """The scoring tables of :meth:`Bernoulli.predict_cache`, indexed like a tuple.

    ``log p`` (the estimator's ``feature_log_prob_``) is computed at once; ``log(1 - p)``,
    ``(log p - log q).T`` and ``sum_j log q`` on first use, by the first prediction, so a
    fit pays for one (K, d) log, as scikit-learn's does.
    """

    def __init__(self, post):
        self._post = post
        self._tot, self._log_tot = _log_total(post)
        self.lp = _log_part(post.a, self._tot, self._log_tot)
        self._all = None

    def __getitem__(self, i):
        if i == 0:
            return self.lp
        if self._all is None:
            lq = _log_part(self._post.b, self._tot, self._log_tot)
            with np.errstate(invalid="ignore"):
                diff_T = np.ascontiguousarray((self.lp - lq).T)
            self._all = (self.lp, lq, diff_T, lq.sum(axis=1))
        return self._all[i]

    def __iter__(self):
        return iter([self[i] for i in range(4)])

    def __len__(self):
        return 4


def _prob(point) -> np.ndarray:
    """``p(x = 1 | y=k)`` of a point, (K, d); 0.5 where undefined."""
    tot = point.a + point.b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, point.a / np.where(tot > 0, tot, 1.0), 0.5)
