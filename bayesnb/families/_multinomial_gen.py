"""Generation helpers of :class:`~bayesnb.families.multinomial.Multinomial`: token sampling (from a
theta, or from the Polya urn of a posterior draw never materialised), count filling and document-length rates.

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

from .numeric import dirichlet_draws

__all__ = ["DirichletRows", "PolyaDraw", "fill_missing_counts", "length_rate", "polya_tokens", "sample_polya",
           "sample_tokens"]


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


def _inverse_cdf(cdf, u):
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
    seq[C + at] = _inverse_cdf(cdf, rng.random(at.size))
    del cdf
    ptr = np.arange(C + T, dtype=np.int64)
    ptr[C:] = np.where(fresh, ptr[C:], src)
    while True:  # follow the copies back to a fresh or an old token
        nxt = ptr[ptr]
        if np.array_equal(nxt, ptr):
            break
        ptr = nxt
    return seq[ptr[C:]]


def _tally(rows_out, cols_out, n, d):
    """CSR (n, d) of ones at (row, token), duplicates summed."""
    if not rows_out:
        return sp.csr_matrix((n, d))
    r, c = np.concatenate(rows_out), np.concatenate(cols_out)
    out = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, d))
    out.sum_duplicates()
    return out


def sample_polya(point, z, lengths, rng):
    """Counts, a CSR matrix (n, d), of tokens drawn from an unmaterialised :class:`PolyaDraw`.

    The rows of class ``k`` take, in order, consecutive tokens of class ``k``'s Polya urn
    (:func:`polya_tokens`), which continues the tokens earlier calls drew from ``point``
    (kept in ``point.tokens``). A class whose concentrations are all 0 (theta undefined,
    uniform in use) draws its tokens uniformly, as from the materialised draw.

    Parameters
    ----------
    point : PolyaDraw
    z : ndarray of int, shape (n,)
    lengths : array-like of int, shape (n,)
    rng : numpy.random.Generator

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, d)
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
    return _tally(rows_out, cols_out, n, d)


def sample_tokens(conc, z, lengths, rng):
    """Counts, a CSR matrix (n, d): row i has ``lengths[i]`` tokens drawn from ``theta[z[i]]``.

    Exactly ``Multinomial(lengths[i], theta[z[i]])``; see :meth:`Multinomial.gen_sample`.

    Parameters
    ----------
    conc : ndarray of shape (K, d)
        Non-negative rows, theta their normalisation (uniform for a row of zeros); one
        row's cumulative sum at a time, never a normalised K x d copy.
    z : ndarray of int, shape (n,)
        Class of each row.
    lengths : array-like of int, shape (n,)
        Tokens per row.
    rng : numpy.random.Generator

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, d)
    """
    n, d = z.shape[0], conc.shape[1]
    lengths = np.asarray(lengths, dtype=np.int64)
    rows_out, cols_out = [], []
    for k in np.unique(z):
        cdf = np.cumsum(conc[k], dtype=float)
        if not cdf[-1] > 0:  # theta undefined: uniform
            cdf = np.arange(1.0, d + 1.0)
        rows = np.flatnonzero(z == k)
        ends = np.cumsum(lengths[rows])
        start = 0
        while start < rows.size:
            stop = max(start + 1, int(np.searchsorted(ends, ends[start] - lengths[rows[start]] + 2**22, "right")))
            chunk = rows[start:stop]
            rows_out.append(np.repeat(chunk, lengths[chunk]))
            cols_out.append(_inverse_cdf(cdf, rng.random(int(lengths[chunk].sum()))))
            start = stop
    return _tally(rows_out, cols_out, n, d)


def fill_missing_counts(theta, block, resp, strategy, z, rng, rate):
    """The block's counts with its missing cells filled from ``Poisson(rate[k] theta[k, j])``.

    See :meth:`Multinomial.gen_fill`.

    Parameters
    ----------
    theta : ndarray of shape (K, d)
        Normalised rows (each sums to 1).
    block : MultinomialBlock
        As encoded from the input, with missing cells (``block.missing`` not None).
    resp : ndarray of shape (n, K)
        ``p(y | x_obs)`` per row (``"mean"``, ``"mode"``).
    strategy : {"mean", "mode", "draw"}
    z : ndarray of int, shape (n,) or None
        Drawn classes (``"draw"``).
    rng : numpy.random.Generator or None
    rate : ndarray of shape (K,)
        Poisson rate of the document length per class.

    Returns
    -------
    CSR matrix (sparse input) or ndarray of shape (n, d)
        Observed counts as given, missing cells filled.
    """
    M = block.missing.tocoo() if sp.issparse(block.missing) else sp.coo_matrix(block.missing)
    rows, cols = M.row, M.col
    if strategy == "draw":
        vals = rng.poisson(rate[z[rows]] * theta[z[rows], cols]).astype(float)
    else:
        vals = np.einsum("ik,ki->i", resp[rows], rate[:, None] * theta[:, cols])
        if strategy == "mode":
            vals = np.floor(vals)
    if sp.issparse(block.X):
        fill = sp.csr_matrix((vals, (rows, cols)), shape=block.X.shape)
        return (block.X.tocsr() + fill).tocsr()
    X = np.array(block.X, dtype=float)
    X[rows, cols] = vals
    return X


def length_rate(counts, class_count, rng=None):
    """Poisson rate of the document length per class, (K,), from the counts (K, d) and class counts
    (K,): see :meth:`~bayesnb.families.multinomial.Multinomial.gen_rate`."""
    T = counts.sum(axis=1)
    n = np.asarray(class_count, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        overall = T.sum() / n.sum() if n.sum() > 0 else 1.0
        overall = overall if np.isfinite(overall) else 1.0
        rate = np.where(n > 0, T / np.where(n > 0, n, 1.0), overall)
    if rng is not None and overall > 0:
        ok = n > 0
        with np.errstate(over="ignore"):  # a subnormal mean length: a prior rate of inf, draws of 0
            draw = rng.standard_gamma(np.where(ok, T + 0.5, 1.0)) / (n + 0.5 / overall)
        rate = np.where(ok, draw, rate)
    return rate
