"""Numerics of :class:`~bayesnb.families.gaussian.Gaussian` blocks: plug-in, per-cell log densities, chunked fast paths
and the normalising constant of the NUTS site.

Held apart from the family's module because together they pass its ~700-line budget: this is the
arithmetic over (n, d) cells (buffers, chunks, BLAS row sums), the family module the model.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp

from .._utils import hard_labels

__all__ = ["chunked_parts", "class_cell_log_pdfs", "class_cell_log_pdfs_into", "defined", "mixture_mode", "nig_log_norm",
           "plug_in", "usable_plug_in"]


def plug_in(post):
    """Plug-in ``(mean, var)`` of shape (K, d): ``mu_n`` and ``b_n / a_n``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        var = post.b / post.a
    return post.mu, var


def defined(post) -> np.ndarray:
    """Bool (K, d): where the predictive is a proper density."""
    _, var = plug_in(post)
    return np.isfinite(var) & (var > 0) & (post.a > 0) & (post.kappa > 0)


def usable_plug_in(point):
    """The plug-in ``(mean, var)`` (K, d) with 1 for a variance that is not a positive finite number."""
    mu, var = plug_in(point)
    return mu, np.where(np.isfinite(var) & (var > 0), var, 1.0)


def mixture_mode(resp, m, v, cand, log_x=False):
    """Per cell, of the candidate points ``cand`` (cells, K), the one where the mixture
    ``sum_k resp[:, k] Normal(. | m_k, v_k)`` (all (cells, K)) is highest, computed in log space
    (an approximation of the mixture's mode). ``log_x``: the points are ``log x`` and the density
    compared is that of ``x`` (the Jacobian ``-log x`` added)."""
    with np.errstate(divide="ignore"):
        log_r = np.log(resp)
    log_dens = np.empty(cand.shape)
    for c in range(cand.shape[1]):  # log of the mixture density at candidate c
        t = cand[:, c:c + 1]
        log_dens[:, c] = logsumexp(log_r - (t - m) ** 2 / (2 * v) - 0.5 * np.log(2 * np.pi * v), axis=1)
        if log_x:
            log_dens[:, c] -= t[:, 0]
    return cand[np.arange(cand.shape[0]), np.argmax(log_dens, axis=1)]


def class_cell_log_pdfs(post, X: np.ndarray, predictive="mean"):
    """Yield, class by class, the (n, d) log densities of every cell of ``X``.

    ``"mean"``: Normal(mu_n, b_n / a_n); ``"marginal"``: the Student-t predictive.
    Undefined factors (no data under an improper prior) give 0; missing cells are the
    caller's to mask.
    """
    if predictive != "marginal":  # (a copy of each class's buffer: the caller may keep it)
        for ll in class_cell_log_pdfs_into(post, X):
            yield ll.copy()
        return
    mu, _ = plug_in(post)
    ok = defined(post)
    nu = 2 * post.a
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = post.b * (post.kappa + 1) / (post.a * post.kappa)
    for k in range(mu.shape[0]):
        nk = np.where(ok[k], nu[k], 1.0)
        sk = np.where(ok[k], s2[k], 1.0)
        ll = (gammaln((nk + 1) / 2) - gammaln(nk / 2) - 0.5 * np.log(nk * np.pi * sk)
              - (nk + 1) / 2 * np.log1p((X - mu[k]) ** 2 / (nk * sk)))
        yield np.where(ok[k], ll, 0.0)


def class_cell_log_pdfs_into(post, X: np.ndarray, predictive="mean", out=None):
    """:func:`class_cell_log_pdfs` for ``"mean"``, computed in one reused (n, d) buffer.

    The same operations in the same order (identical values), without the temporaries;
    each yielded array is overwritten by the next class. With ``out`` (K, n, d), class
    ``k`` is written into ``out[k]`` instead.
    """
    mu, var = plug_in(post)
    ok = defined(post)
    buf = np.empty(X.shape) if out is None else None
    for k in range(mu.shape[0]):
        if out is not None:
            buf = out[k]
        v = np.where(ok[k], var[k], 1.0)
        np.subtract(X, mu[k], out=buf)
        with np.errstate(over="ignore"):  # a squared distance past 1e308: density 0, log -inf
            np.square(buf, out=buf)
            np.divide(buf, 2 * v, out=buf)
            np.subtract(-0.5 * np.log(2 * np.pi * v), buf, out=buf)
        if not ok[k].all():
            buf[:, ~ok[k]] = 0.0
        yield buf


def _chunk_rows(d: int) -> int:
    """Rows per chunk so that an (rows, d) float64 buffer holds about 2 MiB."""
    return max(1, (1 << 18) // max(d, 1))


def _parts_into(post, X, missing, predictive, rel, row, lls=None, top=None):
    """:meth:`Gaussian.log_likelihood_parts` of the rows ``X``, written into ``rel`` and ``row``.

    ``lls`` (K, rows, d) and ``top`` (rows, d): float64 work buffers (made here when None). ``X``
    may be float32 or of any layout: the first operation on it, ``X - mu``, reads it into float64.
    """
    K = post.mu.shape[0]
    # every class's log densities are computed once, kept in one (K, rows, d) buffer
    lls = np.empty((K,) + X.shape) if lls is None else lls
    top = np.empty(X.shape) if top is None else top
    if predictive == "mean":
        for _ in class_cell_log_pdfs_into(post, X, predictive, out=lls):
            pass
    else:
        for k, ll in enumerate(class_cell_log_pdfs(post, X, predictive)):
            lls[k] = ll
    np.maximum(lls[0], lls[min(1, K - 1)], out=top)  # the largest of the classes' values of each cell
    for k in range(2, K):
        np.maximum(top, lls[k], out=top)
    if missing is not None:
        top[missing] = 0.0
    # row sums as matrix-vector products (BLAS), several times faster than sum(axis=1) over d
    ones = np.ones(X.shape[1])
    np.dot(top, ones, out=row)
    if not np.isfinite(row).all():  # a cell impossible (-inf) or undefined in every class: its top is 0
        top[~np.isfinite(top)] = 0.0
        np.dot(top, ones, out=row)
    sums = np.empty((K, X.shape[0]))
    for k in range(K):
        diff = np.subtract(lls[k], top, out=lls[k])
        if missing is not None:
            diff[missing] = 0.0
        np.dot(diff, ones, out=sums[k])
    rel[...] = sums.T


#: a row whose least summed scaled squared distance (over the classes) exceeds this is scored cell by cell
#: (:func:`_summed_parts_into`): below it the class differences of the sums are exact to ~1e-12
EXACT_FROM = 4096.0


def _summed_constants(post):
    """``(mu, s, c)`` of :func:`_summed_parts_into`: each cell's term is ``((x - mu) * s)**2`` with
    ``s = sqrt(1 / (2 var))``, each class's constant ``c = sum_j -log(2 pi var) / 2``; an undefined
    factor (:func:`defined`) has ``mu = s = 0`` and adds nothing."""
    mu, var = plug_in(post)
    ok = defined(post)
    v = np.where(ok, var, 1.0)
    with np.errstate(over="ignore"):  # a subnormal variance: s = inf, its rows go cell by cell
        s = np.where(ok, np.sqrt(0.5 / v), 0.0)
    return np.where(ok, mu, 0.0), s, np.where(ok, -0.5 * np.log(2 * np.pi * v), 0.0).sum(1)


def _summed_parts_into(consts, X, rel, row, buf, sums):
    """The ``"mean"`` parts of complete rows from each class's summed distances; the rows to score cell by cell.

    Class ``k``'s log density of a row is ``c_k - S_k`` with ``S_k = sum_j ((x_j - mu_kj) * s_kj)**2``
    (one (rows, d) buffer, three vector operations and a matrix-vector product per class).
    With ``low`` the least ``S_k`` of the row, ``rel_k = c_k - (S_k - low)`` and ``row = -low``:
    rounding errs by about ``1e-16 * low`` in ``rel``, so the rows whose ``low`` exceeds
    :data:`EXACT_FROM` (or is not finite: a density that underflows in every class) are
    returned for :func:`_parts_into`, which subtracts each cell's largest log density first.
    """
    mu, s, c = consts
    ones = np.ones(X.shape[1])
    for k in range(mu.shape[0]):
        np.subtract(X, mu[k], out=buf)
        with np.errstate(over="ignore", invalid="ignore"):  # past 1e154 sd, or 0 * inf: the row goes cell by cell
            np.multiply(buf, s[k], out=buf)
            np.square(buf, out=buf)
        np.dot(buf, ones, out=sums[k])
    low = sums.min(axis=0)
    with np.errstate(invalid="ignore"):  # inf - inf: such rows are scored again
        np.subtract(sums, low, out=sums)
    np.subtract(c[:, None], sums, out=sums)
    rel[...] = sums.T
    np.negative(low, out=row)
    return np.flatnonzero(~(low <= EXACT_FROM))


def chunked_parts(post, X, observed, predictive):
    """:meth:`Gaussian.log_likelihood_parts` of the rows ``X``, ``(rel (n, K), row (n,))``, a chunk of rows at a time.

    ``observed`` is the bool (n, d) mask, or None when no cell is missing. A float64 ``X`` in
    any layout (a DataFrame's values, Fortran order) is read in place, by each class's first
    operation (``X - mu``); float32 data (exact in float64), and data off its alignment or not
    in the machine's byte order, are first copied into a float64 buffer a chunk at a time (one
    conversion, not one per class). The work buffers are made once, for all chunks. Under ``"mean"``, a row without missing cells is
    scored from its summed distances (:func:`_summed_parts_into`), the others cell by cell: a
    row's scores do not depend on the other rows.
    """
    n, d = X.shape
    K = post.mu.shape[0]
    rel = np.empty((n, K))
    row = np.empty(n)
    step = max(1, _chunk_rows(d) // 4)  # rows are independent: K buffers of ~512 KiB
    m = min(step, n)
    summed = predictive == "mean"
    # a Fortran-ordered X (a DataFrame's values) is read into Fortran-ordered buffers: between
    # layouts, a vector operation is many times slower
    order = "F" if summed and d > 1 and X.strides[0] == X.itemsize else "C"
    chunk = None if X.flags.aligned and X.dtype == np.float64 else np.empty((m, d), order=order)  # (float64: native)
    consts = _summed_constants(post) if summed else None
    lls, top = (None, None) if summed else (np.empty((K, m, d)), np.empty((m, d)))
    buf, sums = (np.empty((m, d), order=order), np.empty((K, m))) if summed else (None, None)
    for a in range(0, n, step):
        b = min(a + step, n)
        rows = X[a:b]
        if chunk is not None:
            rows = chunk[: b - a]
            np.copyto(rows, X[a:b])
        missing = None if observed is None else ~observed[a:b]
        if not summed:
            _parts_into(post, rows, missing, predictive, rel[a:b], row[a:b], lls[:, : b - a], top[: b - a])
            continue
        again = _summed_parts_into(consts, rows, rel[a:b], row[a:b], buf[: b - a], sums[:, : b - a])
        if missing is not None:  # (a missing cell holds 0 in the block: its sums are finite, then replaced)
            again = np.union1d(again, np.flatnonzero(missing.any(axis=1)))
        if again.size:  # rows with a missing cell, or far from every class: cell by cell
            r, t = np.empty((again.size, K)), np.empty(again.size)
            _parts_into(post, rows[again], None if missing is None else missing[again], predictive, r, t)
            rel[a + again], row[a + again] = r, t
    return rel, row


def _complete_stats(X, resp):
    """:meth:`Gaussian.stats` of a block without missing cells, with one (chunk, d) float64 buffer.

    ``X`` (float32 or float64, any layout: :meth:`Gaussian.encode`) is read a chunk of rows
    at a time into the buffer, so every sum is accumulated in float64 and nothing of size
    (n, d) is allocated.
    """
    N, d = X.shape
    K = resp.shape[1]
    hard = hard_labels(resp) if K and N else None
    # each class's summed weight (labelled rows: one bincount, not a product with the (n, K) matrix)
    total = resp.T @ np.ones((N, 1)) if hard is None else np.bincount(hard[0], hard[1], K)[:, None]
    n = np.repeat(total, d, axis=1)
    mean = np.zeros((K, d))
    m2 = np.zeros((K, d))
    step = _chunk_rows(d)
    buf = np.empty((min(step, N), d))
    if hard is not None:  # labelled rows: each class reads its own rows only
        _labelled_stats(X, hard, n, mean, m2, step, buf)
        return n, mean, m2
    chunks = [(a, min(a + step, N)) for a in range(0, N, step)]
    for k in range(K):
        w = resp[:, k]
        pos = w > 0
        if not pos.any():
            continue
        ref = X[np.argmax(pos)].astype(np.float64)  # every feature's first value in the class (see stats)
        total = np.zeros(d)
        for a, b in chunks:
            t = np.subtract(X[a:b], ref, out=buf[: b - a])
            total += w[a:b] @ t
        with np.errstate(invalid="ignore", divide="ignore"):
            mean[k] = np.where(n[k] > 0, ref + total / n[k], 0.0)
        for a, b in chunks:
            t = np.subtract(X[a:b], mean[k], out=buf[: b - a])
            np.square(t, out=t)
            m2[k] += w[a:b] @ t
    return n, mean, m2


#: the most ``S2 / m2`` (the ulps lost by ``m2 = S2 - S1**2 / n``) with which one pass over a class's
#: shifted rows gives its m2 (:func:`_labelled_stats`); above it a second pass sums the squared
#: deviations from the mean
SHIFTED_LOSS = 64.0


def _labelled_stats(X, hard, n, mean, m2, step, buf):
    """:func:`_complete_stats` when each row has one class: fills ``mean`` and ``m2`` in place.

    Class ``k``'s rows (those with a positive weight) are gathered a chunk at a time (once,
    where they fit one chunk) and shifted into ``buf``; the sums are the same as over all rows
    (the other rows have weight 0), in another order. One pass sums the shifts from the
    class's first row and their squares; a class where ``m2 = S2 - S1**2 / n`` would lose
    more than :data:`SHIFTED_LOSS` ulps (its mean far from its first row, in units of its
    spread) is read a second time for its squared deviations from the mean.
    """
    labels, w = hard
    # An aligned C-ordered X: a chunk's rows are gathered by np.take in X's own dtype (np.take casts
    # ``out`` to it otherwise) into ``raw`` (mode="clip": the indices are valid; no temporary), then
    # shifted into the float64 ``buf``. np.take would copy a whole X of any other layout, so a
    # Fortran-ordered X (a DataFrame's values) or one off its alignment (a Dask partition) is
    # gathered by indexing a few rows at a time (X[rows] is C-ordered, and small enough to stay in
    # cache) and each piece shifted into ``buf``: gathering a Fortran X into a Fortran buffer and
    # converting it to C order as a whole reads and writes it twice. Either way the sums are then
    # taken over the same C-ordered buffer of the same values (x - shift): the same bits in every layout.
    direct = X.flags.c_contiguous and X.flags.aligned
    raw = np.empty(buf.shape, dtype=X.dtype) if direct else None
    piece = max(1, (1 << 15) // max(X.shape[1], 1))  # rows gathered at once (about 256 KiB of float64)

    def gathered(rows):
        return np.take(X, rows, axis=0, out=raw[: rows.size], mode="clip")

    def shifted(rows, held, shift):
        """``X[rows] - shift`` in ``buf[:rows.size]`` (from ``held``, the rows gathered already, when not None)."""
        out = buf[: rows.size]
        if held is not None or direct:
            return np.subtract(held if held is not None else gathered(rows), shift, out=out)
        for a in range(0, rows.size, piece):
            np.subtract(X[rows[a:a + piece]], shift, out=out[a:a + piece])
        return out

    unit = bool(np.all(w == 1))
    ones = np.ones(step) if unit else None  # unit weights: no gather of them
    for k in range(mean.shape[0]):
        idx = np.flatnonzero(labels == k) if unit else np.flatnonzero((labels == k) & (w > 0))
        if not idx.size:
            continue
        ref = X[idx[0]].astype(np.float64)  # every feature's first value in the class (see Gaussian.stats)
        parts = [idx[a:a + step] for a in range(0, idx.size, step)]
        # the class fits the buffer (and X is C-ordered): gathered once for both passes
        held = gathered(parts[0]) if direct and len(parts) == 1 else None
        # one pass: the sums of the shifts t = x - ref and of their squares, then m2 = S2 - S1**2 / n,
        # which loses about S2 / m2 ulps: where that exceeds SHIFTED_LOSS the class takes a second pass
        s1, s2 = np.zeros(X.shape[1]), np.zeros(X.shape[1])
        for rows in parts:
            t = shifted(rows, held, ref)
            wr = ones[: rows.size] if unit else w[rows]
            s1 += wr @ t
            np.square(t, out=t)
            s2 += wr @ t
        with np.errstate(invalid="ignore", divide="ignore"):
            mean[k] = np.where(n[k] > 0, ref + s1 / n[k], 0.0)
            one = np.where(n[k] > 0, s2 - s1 * (s1 / n[k]), 0.0)
        with np.errstate(over="ignore"):  # s2 itself overflowing: the second pass decides
            close = np.all(s2 <= SHIFTED_LOSS * one)
        if close:  # (a column constant in the class: s1 = s2 = 0, m2 exactly 0)
            m2[k] = one
            continue
        for rows in parts:
            t = shifted(rows, held, mean[k])
            np.square(t, out=t)
            m2[k] += (ones[: rows.size] if unit else w[rows]) @ t


# The NUTS site of a Gaussian block: the Normal-Inverse-Gamma prior as one density on the unconstrained
# scale. Per (class, feature) cell the site holds z = (m, t), the standardised mean and t = log v, the log
# of the standardised variance. With v ~ InvGamma(a, b), m | v ~ Normal(m0, v / kappa) and v = exp(t):
#
#     log p(m, t) = log_norm - a t - b exp(-t) - t / 2 - kappa (m - m0)**2 exp(-t) / 2
#     log_norm    = a log b - lgamma(a) + (log kappa - log(2 pi)) / 2
#
# the law NumPyro's two sites (an InverseGamma with its exp transform, and a Normal) gave, on the same
# coordinates, as one real-support site: no transform and no lgamma in the program (log_norm precomputed).


def nig_log_norm(a, b, kappa):
    """``a log b - lgamma(a) + (log kappa - log 2 pi) / 2`` per cell, float32 (computed in float64).

    Parameters
    ----------
    a, b, kappa : arrays of the same shape
        Shape and scale of the variance's InverseGamma, and the mean's pseudo-count
        (a non-positive one, an improper prior, gives -inf or NaN: NUTS refuses those priors).

    Returns
    -------
    ndarray of float32
    """
    a, b, kappa = (np.asarray(v, dtype=float) for v in (a, b, kappa))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a * np.log(b) - gammaln(a) + 0.5 * (np.log(kappa) - np.log(2 * np.pi))
    return out.astype(np.float32)
