"""Dirichlet rows of :class:`~bayesnb.families.multinomial.Multinomial` (and its subclass Complement).

Log probabilities renormalised over observed columns, rising factorials for the
Dirichlet-multinomial predictive, sparse helpers, and token draws from the Polya urn of a
posterior draw never materialised. Held apart from the family's module, which with it would
pass its ~700-line budget.

A posterior draw of theta is K x d numbers (a 20 Newsgroups bigram model: 20 x 1.2 million,
180 MiB), while a call of ``sample`` draws a few hundred thousand tokens. :class:`PolyaDraw`
is such a draw left unmaterialised: the tokens drawn from it are drawn with theta integrated
out, which for tokens that share one ``theta_k ~ Dirichlet(a_k)`` is the Polya urn (the
Dirichlet-multinomial sequence)::

    token t of class k = j   with probability   (a_kj + c_kj) / (A_k + t)

(``c_kj`` the class's tokens already drawn in column ``j``, ``A_k = sum_j a_kj``): the same joint
law of the tokens, in memory that follows the tokens drawn. Anything that reads the draw's
``concentration`` gets theta itself, drawn then from ``Dirichlet(a_k + c_k)`` (its law given the
tokens already drawn from it), so every use of one draw sees one theta.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._utils import dense, nonfinite_error
from .numeric import dirichlet_draws

__all__ = ["DirichletRows", "PolyaDraw", "inverse_cdf", "log_observed_mass", "log_rising", "log_theta",
           "observed_concentration", "polya_cell_log_lik", "polya_log_lik", "polya_tokens", "row_concentration",
           "sample_polya", "split_counts", "tally", "with_missing_columns"]


def _row_col(X):
    """Row and column index of every stored entry of a CSR/CSC matrix."""
    n, d = X.shape
    if X.format == "csr":
        return np.repeat(np.arange(n), np.diff(X.indptr)), X.indices
    return X.indices, np.repeat(np.arange(d), np.diff(X.indptr))


def with_missing_columns(block, columns: np.ndarray):
    """The block with every cell of the bool (d,) ``columns`` marked missing (a new block).

    The input block is kept as ``raw`` of the result: the cells of these columns are
    marginalised in scoring, but they are still observed data (never imputed over).
    """
    X = block.X
    n = X.shape[0]
    cols = np.flatnonzero(columns)
    extra = sp.csr_matrix((np.ones(n * cols.size), (np.repeat(np.arange(n), cols.size), np.tile(cols, n))),
                          shape=X.shape)
    if sp.issparse(X):
        X = X.tocsr().copy()
        keep = sp.diags((~columns).astype(float))
        X = (X @ keep).tocsr()
        X.eliminate_zeros()
        M = extra if block.missing is None else ((sp.csr_matrix(block.missing) + extra) > 0).astype(float)
    else:
        X = np.where(columns[None, :], 0.0, X)
        M = extra.toarray() if block.missing is None else np.maximum(np.asarray(block.missing), extra.toarray())
    return type(block)(X, M, block if block.raw is None else block.raw)


def log_theta(a: np.ndarray) -> np.ndarray:
    """Mean ``log theta`` of Dirichlet rows ``a`` (K, d); rows with no mass -> 0.

    The result is the transpose of a C-contiguous (d, K) array, so ``log_theta(a).T``
    is ready for ``X @ log_theta.T`` without another copy.
    """
    tot = a.sum(axis=1)
    lt_T = np.empty(a.shape[::-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.log(a.T, out=lt_T)
        lt_T -= np.log(tot)
    empty = tot == 0
    if empty.any():
        lt_T[:, empty] = 0.0
    return lt_T.T


def log_rising(a, x):
    """``log Gamma(a + x) - log Gamma(a)`` without cancellation at huge ``a`` (broadcast).

    Below ``a = 1000`` the difference of ``gammaln`` is exact to ~1e-12; above, both
    ``gammaln`` values are so large (4e18 at a = 1e17) that their difference is
    rounding noise, so the Stirling series is differenced analytically:
    ``(a - 1/2) log1p(x/a) + x log(a + x) - x + s(a + x) - s(a)``, with
    ``s(z) = 1/(12z) - 1/(360z^3) + 1/(1260z^5)`` (truncation error < 1e-24).
    ``x = 0`` gives exactly 0 (also at ``a = 0``); ``a = 0 < x`` gives ``-inf`` (a zero
    probability, alpha=0).

    Parameters
    ----------
    a, x : array-like, broadcastable
        ``a >= 0``, ``x >= 0``.

    Returns
    -------
    ndarray of the broadcast shape
    """
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    out = np.empty(a.shape)
    big = a >= 1000.0
    small = ~big
    with np.errstate(invalid="ignore", divide="ignore"):
        out[small] = gammaln(a[small] + x[small]) - gammaln(a[small])
    if big.any():
        ab, xb = a[big], x[big]
        z = ab + xb

        def s(t):
            t2 = t * t
            return (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * t2)) / t2) / t

        out[big] = (ab - 0.5) * np.log1p(xb / ab) + xb * np.log(z) - xb + (s(z) - s(ab))
    out[x == 0] = 0.0
    return out


def observed_concentration(a: np.ndarray, M) -> np.ndarray:
    """``sum_j (1 - M[i, j]) a[k, j]``, shape (n, K): each row's concentration on its observed columns.

    Computed without cancellation: ``total - missing`` is exact to a few ulps of the
    result where the missing columns hold less than half the row's concentration; the
    other rows are summed over their observed columns directly (a frequent column
    missing, counts of 1e17, would otherwise leave nothing or rounding noise).

    Parameters
    ----------
    a : ndarray of shape (K, d)
        Concentrations (or theta).
    M : ndarray or sparse matrix of shape (n, d)
        1 where a cell is missing.

    Returns
    -------
    ndarray of shape (n, K)
    """
    total = a.sum(axis=1)
    out = total[None, :] - np.asarray(M @ a.T)
    bad = np.flatnonzero((out < 0.5 * total[None, :]).any(axis=1))
    if bad.size:
        Mr = M.tocsr() if sp.issparse(M) else np.asarray(M)
        for start in range(0, bad.size, 1024):  # bounded memory on wide vocabularies
            rows = bad[start:start + 1024]
            obs = 1.0 - dense(Mr[rows])
            out[rows] = obs @ a.T
    return np.maximum(out, 0.0)


def log_observed_mass(a: np.ndarray, M) -> np.ndarray:
    """``log`` of the posterior-mean theta mass on each row's observed columns, (n, K).

    ``log(sum_obs a) - log(sum a)``, from the concentrations (see
    :func:`observed_concentration`), never ``log(1 - sum_missing theta)``. A class
    without any concentration (alpha=0, no data) gets 0, as in :func:`log_theta`;
    a mass of exactly 0 gives ``-inf``.
    """
    total = a.sum(axis=1)
    with np.errstate(divide="ignore"):
        lm = np.log(observed_concentration(a, M)) - np.log(np.where(total > 0, total, 1.0))[None, :]
    lm[:, total == 0] = 0.0
    return lm


def _evidence_scalar_alpha(alpha: float, counts: np.ndarray) -> float:
    """Evidence for a scalar alpha using only the non-zero counts (fast on vocabularies)."""
    K, d = counts.shape
    nz = counts[counts > 0]
    return float(K * gammaln(d * alpha) - gammaln(d * alpha + counts.sum(1)).sum()
                 + (gammaln(alpha + nz) - gammaln(alpha)).sum())


def row_concentration(a: np.ndarray, M, n: int) -> np.ndarray:
    """Concentration on each row's observed columns, (n, K): the class totals without missing cells."""
    return np.broadcast_to(a.sum(axis=1), (n, a.shape[0])) if M is None else observed_concentration(a, M)


def polya_log_lik(a: np.ndarray, X, M) -> np.ndarray:
    """Dirichlet-multinomial (Polya) log-probability of each row's tokens per class, (n, K).

    Parameters
    ----------
    a : ndarray of shape (K, d)
        Dirichlet concentrations.
    X : ndarray or CSR/CSC matrix of shape (n, d)
        Counts, missing cells set to 0.
    M : ndarray, sparse matrix or None
        Missing-cell indicator (the row's distribution is renormalised on its observed columns).
    """
    n = X.shape[0]
    length = np.asarray(X.sum(axis=1)).ravel()
    A = row_concentration(a, M, n)
    # alpha=0: a zero count adds exactly 0 (never gammaln(0) - gammaln(0) = NaN), a
    # class without data (A == 0) drops the factor as the plug-in does.
    with np.errstate(invalid="ignore"):
        out = np.where(A > 0, -log_rising(A, length[:, None]), 0.0)
    if sp.issparse(X):
        rows, cols = _row_col(X)
        vals = X.data
        # log Gamma(a + x) - log Gamma(a) is log(a) for x = 1, most entries of a text matrix
        one = vals == 1
        rest = ~one & (vals > 0)
        c1, cr, vr = cols[one], cols[rest], vals[rest]
        for k in range(a.shape[0]):
            terms = np.zeros(vals.shape[0])
            with np.errstate(invalid="ignore", divide="ignore"):
                terms[one] = np.log(a[k, c1])
                ak = a[k, cr]
                terms[rest] = log_rising(ak, vr)
            terms[A[rows, k] <= 0] = 0.0
            out[:, k] += np.bincount(rows, weights=terms, minlength=n)
    else:
        Xd = np.asarray(X)
        for k in range(a.shape[0]):
            with np.errstate(invalid="ignore"):
                terms = np.where((Xd > 0) & (A[:, k:k + 1] > 0), log_rising(a[k], Xd), 0.0)
            out[:, k] += terms.sum(axis=1)
    return out


def split_counts(X, who: str):
    """``(X, missing)`` of :meth:`Multinomial.encode <bayesnb.families.Multinomial.encode>`'s block:
    the validated counts, missing cells set to 0 (never in place; sparse stays CSR/CSC, complete
    integer counts are not copied), and 1.0 at the missing cells (None when there are none)."""
    if sp.issparse(X):
        if X.format not in ("csr", "csc"):
            X = X.tocsr()
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{who}: counts must be numbers; received a sparse matrix of dtype {X.dtype}.")
        if X.dtype.kind == "b":
            X = X.astype(np.float64)
        data = X.data  # integer counts stay integer: no copy of a large matrix
    else:
        X = np.asarray(X, dtype=np.float64)
        data = X
    miss = np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, dtype=bool)
    any_missing = miss.any()
    finite = data[~miss] if any_missing else data
    if finite.dtype.kind == "f" and np.isinf(finite).any():
        raise nonfinite_error(who, "counts", finite)
    if (finite < 0).any():
        raise ValueError(
            f"{who}: Negative values in data: counts must be >= 0 (Multinomial features are counts such as "
            f"word counts or tf-idf); received {int((finite < 0).sum())} negative value(s), "
            f"e.g. {float(finite[finite < 0][0])}."
        )
    if not any_missing:
        return X, None
    X = X.astype(np.float64) if X.dtype != np.float64 else X.copy()
    if sp.issparse(X):
        m = X.copy()
        m.data = miss.astype(float)
        m.eliminate_zeros()
        X.data[miss] = 0.0
        X.eliminate_zeros()
    else:
        m = miss.astype(float)
        X[miss] = 0.0
    return X, m


def polya_cell_log_lik(a: np.ndarray, X, M, weights: np.ndarray, predictive: str = "mean"):
    """Per-cell contributions ``sum_k weights[i,k] c_ijk`` of each row's ``log p(tokens | y=k)``.

    See :meth:`~bayesnb.families.multinomial.Multinomial.gen_cell_log_lik`: they add up to
    the row log-likelihood under the plug-in (``"mean"``) or the Polya predictive.

    Returns
    -------
    CSR matrix for sparse ``X``, else ndarray, of shape (n, d)
    """
    Xc = X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X))
    rows, cols = _row_col(Xc)
    vals = Xc.data
    n = X.shape[0]
    length = np.asarray(Xc.sum(axis=1)).ravel()
    acc = np.zeros(vals.shape[0])
    if predictive == "mean":
        lt = log_theta(a)
        lm = np.zeros((n, a.shape[0]))
        if M is not None:
            lm = log_observed_mass(a, M)
            lm = np.where(np.isfinite(lm), lm, 0.0)  # zero mass: the tokens' log theta is -inf already
        for k in range(a.shape[0]):
            with np.errstate(divide="ignore", invalid="ignore"):
                c = vals * (lt[k, cols] - lm[rows, k])
                acc += np.where(weights[rows, k] > 0, weights[rows, k] * c, 0.0)  # 0 * -inf masked
    else:
        A = row_concentration(a, M, n)
        with np.errstate(invalid="ignore"):
            row_term = -log_rising(A, length[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(length[rows] > 0, vals / np.where(length[rows] > 0, length[rows], 1.0), 0.0)
        for k in range(a.shape[0]):
            with np.errstate(invalid="ignore"):  # alpha=0: 0 * -inf where the class has weight 0
                c = log_rising(a[k, cols], vals) + share * row_term[rows, k]
                # as in log_likelihood: no concentration on the row's observed columns -> factor dropped
                c = np.where(A[rows, k] > 0, c, 0.0)
                acc += np.where(weights[rows, k] > 0, weights[rows, k] * c, 0.0)
    out = sp.csr_matrix((acc, (rows, cols)), shape=X.shape)
    return out if sp.issparse(X) else out.toarray()


class DirichletRows(NamedTuple):
    """One Dirichlet per class over the block's columns: prior and posterior alike.

    Attributes
    ----------
    concentration : ndarray of shape (K, d)
    """

    concentration: np.ndarray


class PolyaDraw:
    """One exact posterior draw of theta (K, d), materialised only when its values are read.

    :meth:`Multinomial.gen_point` returns it for a draw; :meth:`Multinomial.gen_sample` draws
    tokens from it by the Polya urn (:func:`polya_tokens`) while it is not materialised,
    keeping the tokens so drawn (memory: the tokens, never K x d). It is not a tuple: its
    ``concentration`` is theta, a property read like a :class:`DirichletRows`' field.

    Two draws are equal only when they are the same object (``==`` is ``is``: a draw's values
    are not known until read). ``copy.copy``, ``copy.deepcopy`` and pickling keep it
    unmaterialised: the copy holds the same concentrations, a copy of the generator's state
    and of the tokens drawn so far, so the original and the copy read the same theta unless
    tokens are drawn from one of them in between. Single-threaded: reading ``concentration``
    and drawing tokens change its state, so one draw must not be used from several threads.

    Parameters
    ----------
    concentration : ndarray of shape (K, d)
        The Dirichlet's concentrations (a posterior or a prior); not copied, never modified.
    rng : numpy.random.Generator or None
        The draw's own generator (a child of the caller's): theta, when read, is drawn from it.
        None: ``concentration`` is theta itself, already drawn.
    """

    __hash__ = object.__hash__

    def __init__(self, concentration, rng=None):
        self.base = concentration
        self.rng = rng
        self.tokens = {}  # class -> list of int64 arrays: the tokens the urn has drawn
        self._theta = None if rng is not None else np.asarray(concentration)

    def __eq__(self, other):
        return self is other

    def __copy__(self):
        return self.__deepcopy__({})

    def __deepcopy__(self, memo):
        out = PolyaDraw.__new__(PolyaDraw)
        out.base, out._theta = self.base, self._theta  # read-only arrays, shared
        out.rng = copy.deepcopy(self.rng, memo)
        out.tokens = {k: [t.copy() for t in parts] for k, parts in self.tokens.items()}
        memo[id(self)] = out
        return out

    def _replace(self, **fields):
        """A :class:`DirichletRows` of theta (read, so materialised) with ``fields`` replaced."""
        return DirichletRows(self.concentration)._replace(**fields)

    def __repr__(self):
        return f"PolyaDraw(K={self.base.shape[0]}, d={self.base.shape[1]}, materialised={self.materialised})"

    @property
    def materialised(self) -> bool:
        """Whether theta has been drawn (tokens then come from it, not from the urn)."""
        return self._theta is not None

    @property
    def concentration(self) -> np.ndarray:
        """Theta (K, d), drawn on first access from ``Dirichlet(base + tokens drawn so far)``.

        Rows whose concentrations are all 0 come back as zeros (uniform in use), as from
        :func:`~bayesnb.families.numeric.dirichlet_draws`.
        """
        if self._theta is None:
            conc = self.base
            if self.tokens:
                conc = np.array(conc, dtype=float)
                for k, parts in self.tokens.items():
                    cols = np.concatenate(parts)
                    conc[k] += np.bincount(cols, minlength=conc.shape[1])
            self._theta = dirichlet_draws(conc, 1, self.rng)[0]
            self.tokens = {}
        return self._theta


def inverse_cdf(cdf, u):
    """Columns of the uniforms ``u`` (scaled to ``cdf[-1]``) under the cumulative weights ``cdf``.

    A column of weight 0 is never returned (also when rounding puts ``u`` on the total).
    """
    j = np.searchsorted(cdf, u * cdf[-1], side="right")
    last = int(np.searchsorted(cdf, cdf[-1], side="left"))  # the last column of positive weight
    return np.minimum(j, last)


def polya_tokens(a, old, T, rng):
    """``T`` more tokens of the Polya urn of ``Dirichlet(a)`` after the tokens ``old``, (T,) int64.

    Token ``s`` of the sequence (``old`` first) is column ``j`` with probability
    ``(a_j + c_j) / (A + s)``, ``c_j`` the earlier tokens in ``j``: exactly the law of tokens
    drawn iid from ``theta ~ Dirichlet(a)`` with theta integrated out. Drawn without a loop
    over tokens, as the mixture it is: with probability ``A / (A + s)`` a fresh column from
    ``a / A`` (inverse CDF), else a copy of an earlier token chosen uniformly; the copies are
    resolved by pointer jumping (each points to an earlier token, ``O(log T)`` passes).

    Parameters
    ----------
    a : ndarray of shape (d,)
        Concentrations, >= 0 with a positive sum.
    old : ndarray of int, shape (C,)
        Tokens already drawn from the same urn.
    T : int
        Number of tokens to draw.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (T,)
    """
    C = old.size
    cdf = np.cumsum(a, dtype=float)
    A = cdf[-1]
    s = np.arange(C, C + T, dtype=np.float64)
    fresh = rng.random(T) * (A + s) < A
    src = np.minimum(np.floor(rng.random(T) * s), np.maximum(s - 1, 0)).astype(np.int64)
    seq = np.empty(C + T, dtype=np.int64)
    seq[:C] = old
    at = np.flatnonzero(fresh)
    seq[C + at] = inverse_cdf(cdf, rng.random(at.size))
    del cdf
    ptr = np.arange(C + T, dtype=np.int64)
    ptr[C:] = np.where(fresh, ptr[C:], src)
    while True:  # follow the copies back to a fresh or an old token
        nxt = ptr[ptr]
        if np.array_equal(nxt, ptr):
            break
        ptr = nxt
    return seq[ptr[C:]]


def tally(rows_out, cols_out, n, d):
    """CSR (n, d) of ones at (row, token), duplicates summed."""
    if not rows_out:
        return sp.csr_matrix((n, d))
    r, c = np.concatenate(rows_out), np.concatenate(cols_out)
    out = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, d))
    out.sum_duplicates()
    return out


def sample_polya(point, z, lengths, rng):
    """Counts, a CSR matrix (n, d): row ``i`` holds ``lengths[i]`` tokens of class ``z[i]`` drawn
    from ``point``, an unmaterialised :class:`PolyaDraw`.

    The rows of class ``k`` take, in order, consecutive tokens of class ``k``'s Polya urn
    (:func:`polya_tokens`), which continues the tokens earlier calls drew from ``point``
    (kept in ``point.tokens``). A class whose concentrations are all 0 (theta undefined,
    uniform in use) draws its tokens uniformly, as from the materialised draw.
    """
    n, d = z.shape[0], point.base.shape[1]
    lengths = np.asarray(lengths, dtype=np.int64)

    rows_out, cols_out = [], []
    for k in np.unique(z):
        rows = np.flatnonzero(z == k)
        T = int(lengths[rows].sum())
        a = point.base[k]
        if not (np.asarray(a) > 0).any():
            tokens = np.minimum((rng.random(T) * d).astype(np.int64), d - 1)
        else:
            old = point.tokens.setdefault(int(k), [])
            tokens = polya_tokens(a, np.concatenate(old) if old else np.zeros(0, np.int64), T, rng)
            old.append(tokens)
        rows_out.append(np.repeat(rows, lengths[rows]))
        cols_out.append(tokens)
    return tally(rows_out, cols_out, n, d)
