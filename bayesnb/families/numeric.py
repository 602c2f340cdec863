"""Numerical helpers the families share: alpha checks, evidence maximisation, class sums,
sparse-safe log dot products and exact Dirichlet / categorical draws.

The bounded search for the evidence-maximising smoothing lives in
:func:`bayesnb.structure.hierarchical.maximise_evidence` (it needs nothing of the families,
so importing the structure package never loads them).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from .._utils import hard_labels
from ..structure.hierarchical import maximise_evidence

__all__ = ["MAX_ALPHA", "check_alpha", "class_sums", "dirichlet_draws", "dirichlet_moments",
           "draw_categories", "float32_args", "float_array", "log_dot", "observed_counts",
           "resolve_scalar_alpha", "row_probs", "sample_class_feature", "weighted_class_cells"]


#: the largest smoothing pseudo-count accepted: as many rows as float64 counts exactly (2**53);
#: beyond it sums of concentrations overflow or swallow every count, and probabilities break
MAX_ALPHA = 2.0 ** 53


def dense_numbers(X, who: str, what: str, sparse_hint: str = "Use .toarray().") -> np.ndarray:
    """A float64 copy of a dense numeric block (NaN = missing), or a clear error.

    Parameters
    ----------
    X : array-like
        The block as the user gave it.
    who : str
        The estimator's name, for messages.
    what : str
        What the family's features must be, e.g. ``"Poisson features must be non-negative
        whole counts"``.
    sparse_hint : str
        What to do with a sparse matrix, appended to its error.

    Returns
    -------
    ndarray of float64
    """
    if sp.issparse(X):
        raise TypeError(f"{who}: {what.split(' must ')[0]} need a dense array; received a sparse matrix. "
                        f"{sparse_hint}")
    try:
        return np.array(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{who}: {what} (NaN for missing); received values that are not numbers "
                         "(strings?).") from None


def float_array(X) -> np.ndarray:
    """``X`` as a float array: a float32 or float64 array as it is (any layout, never copied), else float64.

    The families' row passes read any layout (a DataFrame's transposed values, a Fortran-ordered
    array, an unaligned Dask partition) a chunk of rows at a time, so the block is never copied
    whole to change its layout; float32 stays float32 (statistics are accumulated in float64).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of float32 or float64
        ``X`` itself when it is a native float32 or float64 array; otherwise a C-ordered
        float64 copy.
    """
    A = np.asarray(X)
    if A.dtype in (np.float32, np.float64):
        return A
    return np.require(A, dtype=np.float64, requirements=["C", "A"])


def check_alpha(alpha, who: str, allow_array: bool = True):
    """Validate a smoothing strength: ``"auto"``, a scalar >= 0, or an array >= 0.

    Parameters
    ----------
    alpha : {"auto", float, array-like}
    who : str
        Estimator/family name used in error messages.
    allow_array : bool
        Whether per-value arrays are accepted.

    Returns
    -------
    alpha : "auto", float or ndarray of float64
    """
    if isinstance(alpha, str):
        if alpha == "auto":
            return alpha
        raise ValueError(f"{who}: alpha must be a number >= 0 or 'auto'; received {alpha!r}.")
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
        a = float(alpha)
        if not np.isfinite(a) or a < 0:
            raise ValueError(f"{who}: alpha must be a finite number >= 0; received {alpha!r}.")
        if a > MAX_ALPHA:
            raise ValueError(f"{who}: alpha must be at most 2**53 (a pseudo-count of rows); received {alpha!r}.")
        return a
    if not allow_array:
        raise TypeError(f"{who}: alpha must be a number >= 0 or 'auto'; received {type(alpha).__name__}.")
    try:
        arr = np.asarray(alpha, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{who}: alpha must be a number >= 0, 'auto' or an array of numbers; "
            f"received {type(alpha).__name__}."
        ) from None
    if arr.ndim == 0:
        return check_alpha(float(arr), who, allow_array)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{who}: every alpha must be a finite number >= 0; received {arr!r}.")
    if np.any(arr > MAX_ALPHA):
        raise ValueError(f"{who}: every alpha must be at most 2**53 (a pseudo-count of rows); received {arr!r}.")
    return arr


def resolve_scalar_alpha(alpha, evidence_fn) -> float:
    """``alpha`` itself, or the evidence-maximising value when it is ``"auto"``."""
    if isinstance(alpha, str):  # "auto" (validated earlier)
        return maximise_evidence(evidence_fn)
    return alpha


def class_sums(X, resp: np.ndarray) -> np.ndarray:
    """``resp.T @ X``: weighted column sums per class, a dense (K, d) array.

    For labelled rows (each row of ``resp`` has one non-zero) and a CSR/CSC matrix
    this is one ``bincount`` over the stored entries, several times faster than the
    sparse matrix product on a vocabulary-sized matrix.

    Parameters
    ----------
    X : ndarray or CSR/CSC matrix of shape (n, d)
    resp : ndarray of shape (n, K)

    Returns
    -------
    ndarray of shape (K, d)
    """
    K = resp.shape[1]
    hard = hard_labels(resp) if sp.issparse(X) else None
    if hard is None:
        return np.asarray((X.T @ resp).T, dtype=float)
    labels, w = hard
    n, d = X.shape
    if X.format == "csr":  # key = class * d + column, built without a row-index array
        per_row = np.diff(X.indptr)
        key = np.repeat(labels.astype(np.int64) * d, per_row)
        key += X.indices
        vals = X.data if np.all(w == 1) else X.data * np.repeat(w, per_row)
    else:
        rows = X.indices
        cols = np.repeat(np.arange(d), np.diff(X.indptr))
        key = labels[rows].astype(np.int64) * d + cols
        vals = X.data if np.all(w == 1) else X.data * w[rows]
    # (float even with no stored entries, where bincount would give integers)
    return np.bincount(key, weights=vals, minlength=K * d).reshape(K, d).astype(np.float64, copy=False)


def log_dot(X, L_T: np.ndarray, has_neg_inf: bool) -> np.ndarray:
    """``X @ L_T`` for log-probability tables with ``0 * log 0 = 0``.

    With ``alpha=0`` a table can hold ``-inf`` (a zero probability); a cell with count 0
    must then add 0, not NaN. The finite part is one (sparse) matrix product, and the
    ``-inf`` entries are found by a second product with their indicator, so sparse
    input is never densified.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
        Non-negative counts or 0/1 indicators.
    L_T : ndarray of shape (d, K)
        Log probabilities (finite or ``-inf``).
    has_neg_inf : bool
        Whether ``L_T`` holds ``-inf`` (the caller knows it: no pass over a large table here).

    Returns
    -------
    ndarray of shape (n, K)
    """
    if not has_neg_inf:
        return np.asarray(X @ L_T)
    neg_inf = np.isneginf(L_T)
    out = np.asarray(X @ np.where(neg_inf, 0.0, L_T))
    out[np.asarray(X @ neg_inf.astype(float)) > 0] = -np.inf
    return out


def dirichlet_moments(a, total):
    """Posterior mean and sd of each probability of Dirichlet (or Beta) rows: ``m = a / total``, ``sd = sqrt(m (1 - m)
    / (total + 1))``, with ``total`` the rows' summed concentration (broadcast against ``a``); NaN where it is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        m = a / total
        return m, np.sqrt(m * (1 - m) / (total + 1))


def row_probs(a: np.ndarray) -> np.ndarray:
    """Dirichlet rows ``a`` (..., V) normalised: their plug-in, uniform for a row with no mass."""
    tot = a.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, a / np.where(tot > 0, tot, 1.0), 1.0 / max(a.shape[-1], 1))


def dirichlet_draws(conc, n_draws, rng) -> np.ndarray:
    """Exact draws from Dirichlet(conc) over the last axis, in NumPy.

    The one Dirichlet sampler of the package (Beta draws are its two-category case).
    Stable for tiny concentrations: log-space Gamma draws, ``log G(a) = log G(a + 1) +
    log(U) / a``, so small pseudo-counts do not underflow to 0 (a zero concentration gives
    probability 0); a row whose concentrations are all 0 (maximum likelihood without data)
    comes back as zeros, not NaN.

    Computed in the result, a block of rows at a time: the peak is the result plus blocks of
    about 1 MiB, not several arrays of its size (a draw of a 20 Newsgroups bigram model is
    K x V). The generator is read in the order of one whole-array call (every Gamma draw,
    then every uniform, element by element), so the values are the same.

    Parameters
    ----------
    conc : array-like of shape (..., V)
    n_draws : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_draws, ..., V)
    """
    conc = np.asarray(conc, dtype=float)
    shape = (n_draws,) + conc.shape
    V = conc.shape[-1]
    if V == 0 or not n_draws or not conc.size:  # no category at all (an all-missing feature): nothing to draw
        return np.zeros(shape)
    out = np.empty(shape)
    flat, rows = out.reshape(-1, V), conc.reshape(-1, V)
    step = max(1, (1 << 17) // V)
    blocks = [(a, min(a + step, flat.shape[0])) for a in range(0, flat.shape[0], step)]

    def conc_of(a, b):  # the concentrations of result rows a..b (rows cycle through conc's rows)
        return rows[a:b] if b <= rows.shape[0] else rows[np.arange(a, b) % rows.shape[0]]

    for a, b in blocks:  # every Gamma draw first, as one call would
        rng.standard_gamma(conc_of(a, b) + 1.0, out=flat[a:b])
    for a, b in blocks:
        lg = flat[a:b]
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(lg, out=lg)
            u = np.log(rng.random(lg.shape))
            u /= conc_of(a, b)
            lg += u
            top = lg.max(axis=-1, keepdims=True)
            lg -= np.where(np.isfinite(top), top, 0.0)
            np.exp(lg, out=lg)
            tot = lg.sum(axis=-1, keepdims=True)
            lg /= np.where(tot > 0, tot, 1.0)
    return out


def observed_counts(prior, post, back_off=None) -> tuple:
    """Dirichlet concentrations on the observed support: each row's counts where it has data, its prior where not.

    The Haldane limit (prior pseudo-counts to 0) of every context (row) that holds data, so a
    value (or bin) it never saw gets probability 0; an empty context keeps its prior (under a
    hierarchical prior, its parent context's estimate). Used by the families'
    ``gen_observed_support`` (:mod:`bayesnb.synth.observed_support`).

    Parameters
    ----------
    prior, post : tuple of ndarray
        Prior and posterior concentrations, one (C, V) array per column.
    back_off : callable or None
        ``back_off(prior_c, post_c)`` of one column's (C, V) arrays gives its concentrations
        instead (a structure's ``support="backoff"``, :mod:`bayesnb.synth.backoff`).

    Returns
    -------
    tuple of ndarray
        One (C, V) array per column.
    """
    if back_off is None:
        def back_off(a0, a):  # the row's counts where it has data, its prior where not
            n = np.maximum(a - a0, 0.0)
            return np.where(n.sum(axis=-1, keepdims=True) > 0, n, a0)
    return tuple(back_off(np.asarray(a0, dtype=float), np.asarray(a, dtype=float))
                 for a0, a in zip(prior, post))


def draw_categories(P: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-cdf draw: row ``i`` takes the category of ``u[i]`` under probabilities ``P[i]``.

    Parameters
    ----------
    P : ndarray of shape (n, V)
        Rows of probabilities.
    u : ndarray of shape (n,)
        Uniform(0, 1) numbers.

    Returns
    -------
    ndarray of int, shape (n,)
    """
    cdf = np.cumsum(P, axis=1)
    cdf[:, -1] = np.inf
    return (u[:, None] >= cdf).sum(axis=1)


def float32_args(params, fields) -> dict:
    """The named fields of a params NamedTuple as float32 arrays (NumPyro model arguments)."""
    return {k: np.asarray(getattr(params, k)).astype(np.float32) for k in fields}


def weighted_class_cells(class_cells, observed: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``sum_k weights[:, k] * cells_k`` over observed cells with positive weight, (n, d).

    ``class_cells`` yields one (n, d) array of per-cell log-likelihoods per class.
    """
    out = np.zeros(observed.shape)
    for k, ll in enumerate(class_cells):
        w = weights[:, k:k + 1]
        out += np.where(observed & (w > 0), w * ll, 0.0)
    return out


def sample_class_feature(name: str, distribution, feature_plate: str, class_plate: str = "class"):
    """``numpyro.sample(name, distribution)`` under plates ``class_plate`` (dim -2) x feature (dim -1).

    ``distribution`` has batch shape (K, d).
    """
    import numpyro

    K, d = distribution.batch_shape
    with numpyro.plate(class_plate, K, dim=-2), numpyro.plate(feature_plate, d, dim=-1):
        return numpyro.sample(name, distribution)


class Memo:
    """``fn(*args)`` computed on the first call and kept (a picklable lazy value: a family's
    :meth:`~bayesnb.families._contract.Family.predict_cache` made without cost at fit time)."""

    def __init__(self, fn, *args):
        self.fn, self.args, self.value = fn, args, None

    def __call__(self):
        if self.value is None:
            self.value = self.fn(*self.args)
        return self.value
