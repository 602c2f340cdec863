"""Learning which features each feature is conditioned on, besides the class.

A *structure* is a parent list per feature: ``parents[j]`` is a tuple of feature positions
(empty for none). Every feature's context is then (class, parent values); the naive structure
has no parents at all. Learned from encoded categorical data (int codes, ``-1`` missing) and
class codes:

- :func:`conditional_mutual_information`: ``I(X_i; X_j | Y)`` from weighted counts, each pair
  on the rows where both cells are observed (missing cells skipped pairwise); the empirical
  (maximum-likelihood) distribution, natural log.
- :func:`chow_liu_parents` (TAN, Friedman, Geiger & Goldszmidt 1997): the maximum spanning
  tree of that matrix (Prim), rooted at the feature with the highest ``I(X; Y)`` (the first
  such feature on ties), edges directed away from the root.
- :func:`kdb_parents` (k-DB, Sahami 1996): features ordered by ``I(X; Y)`` (descending, stable);
  each takes as parents the (up to) ``k`` earlier features with the highest
  ``I(X_i; X_j | Y)``. No threshold on the mutual information (Sahami's optional theta = 0).
- :func:`scoring_rows` (``structure="auto"``): the cells on which every candidate structure is
  scored. The score of a structure is decomposable, ``sum_j log p(x_j[R_j] | y, pa_j)`` (each
  term the closed-form evidence of feature ``j``'s column over its contexts), and ``R_j``, the
  rows where ``x_j`` and every parent ``j`` has in *any* candidate are observed, is the same for
  every candidate: each term compares the candidates' models of one column on identical cells,
  so the sum is a sum of per-feature Bayes factors. With every cell observed, ``R_j`` is every
  row and the score is ``log p(X | y)``.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["STRUCTURES", "chow_liu_parents", "class_mutual_information", "conditional_mutual_information",
           "kdb_parents", "learn_parents", "scoring_rows", "topological_order"]

#: The structures :func:`learn_parents` knows.
STRUCTURES = ("naive", "tan", "kdb")


def _mi(counts: np.ndarray) -> float:
    """``sum_kab p(k,a,b) log p(k,a,b) p(k) / (p(k,a) p(k,b))`` of a (K, A, B) count table."""
    total = counts.sum()
    if total <= 0:
        return 0.0
    nk = counts.sum(axis=(1, 2), keepdims=True)
    na = counts.sum(axis=2, keepdims=True)
    nb = counts.sum(axis=1, keepdims=True)
    ok = counts > 0
    ratio = (counts * nk)[ok] / np.broadcast_to(na * nb, counts.shape)[ok]
    return float(max((counts[ok] * np.log(ratio)).sum() / total, 0.0))


def _table(a, b, va, vb, y, K, w):
    """Weighted (K, va, vb) counts of the rows where both codes are observed."""
    ok = (a >= 0) & (a < va) & (b >= 0) & (b < vb)
    idx = (y[ok] * va + a[ok]) * vb + b[ok]
    return np.bincount(idx, weights=w[ok], minlength=K * va * vb).reshape(K, va, vb)


def conditional_mutual_information(codes, y, n_values, K, weights=None) -> np.ndarray:
    """``I(X_i; X_j | Y)`` for every pair of features.

    Parameters
    ----------
    codes : ndarray of int of shape (n, d)
        Category codes; ``-1`` (or a code ``>= n_values[j]``) marks a missing cell.
    y : ndarray of int of shape (n,)
        Class codes in ``0..K-1``.
    n_values : sequence of int of length d
        Number of categories of each feature.
    K : int
        Number of classes.
    weights : ndarray of shape (n,), optional
        Row weights (default 1).

    Returns
    -------
    ndarray of shape (d, d)
        Symmetric, zero diagonal, in nats; each pair estimated on its pairwise-complete rows.
    """
    codes = np.asarray(codes)
    n, d = codes.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    V = np.asarray(n_values, dtype=np.int64)
    obs = (codes >= 0) & (codes < V[None, :]) if d else np.zeros((n, 0), bool)
    out = np.zeros((d, d))
    vmax = int(V.max()) if d else 0
    for i in range(d - 1):
        # every pair (i, j > i) at once: one bincount over the (row, j) cells where both are observed
        rest = codes[:, i + 1:]
        ok = obs[:, i][:, None] & obs[:, i + 1:]
        size = K * int(V[i]) * vmax
        key = (np.arange(d - i - 1)[None, :] * size + ((y * V[i] + codes[:, i]) * vmax)[:, None] + rest)[ok]
        wts = np.broadcast_to(w[:, None], ok.shape)[ok]
        tabs = np.bincount(key, weights=wts, minlength=(d - i - 1) * size).reshape(d - i - 1, K, int(V[i]), vmax)
        for m, j in enumerate(range(i + 1, d)):
            out[i, j] = out[j, i] = _mi(tabs[m, :, :, : V[j]])
    return out


def class_mutual_information(codes, y, n_values, K, weights=None) -> np.ndarray:
    """``I(X_j; Y)`` of every feature (observed cells only), shape (d,), in nats.

    Parameters are as in :func:`conditional_mutual_information`.
    """
    codes = np.asarray(codes)
    n, d = codes.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    zeros = np.zeros(n, dtype=np.int64)
    # I(X; Y) = I(X; Y | C) with a constant C: the (1, V, K) table of (x, y)
    return np.array([_mi(_table(codes[:, j], y, n_values[j], K, zeros, 1, w)) for j in range(d)])


def chow_liu_parents(cmi: np.ndarray, root: int = 0) -> tuple:
    """TAN: the maximum spanning tree of ``cmi`` (Prim), directed away from ``root``.

    Parameters
    ----------
    cmi : ndarray of shape (d, d)
        Edge weights, e.g. :func:`conditional_mutual_information`.
    root : int, default=0
        The feature without a feature parent.

    Returns
    -------
    tuple of tuple of int
        ``parents[j]``: ``()`` for the root, ``(p,)`` for every other feature.
    """
    d = cmi.shape[0]
    parents = [()] * d
    if d == 0:
        return ()
    in_tree = np.zeros(d, bool)
    in_tree[root] = True
    best = cmi[root].astype(float).copy()
    link = np.full(d, root)
    for _ in range(d - 1):
        cand = np.where(in_tree, -np.inf, best)
        j = int(np.argmax(cand))  # first on ties: deterministic
        parents[j] = (int(link[j]),)
        in_tree[j] = True
        better = cmi[j] > best
        best = np.where(better, cmi[j], best)
        link = np.where(better, j, link)
    return tuple(parents)


def kdb_parents(cmi: np.ndarray, mi: np.ndarray, k: int = 2) -> tuple:
    """k-DB: each feature's (up to) ``k`` parents among the features ranked before it.

    Parameters
    ----------
    cmi : ndarray of shape (d, d)
        ``I(X_i; X_j | Y)``.
    mi : ndarray of shape (d,)
        ``I(X_j; Y)``; the ranking (descending, stable on ties).
    k : int, default=2

    Returns
    -------
    tuple of tuple of int
        ``parents[j]``, ordered by decreasing ``I(X_i; X_j | Y)``.
    """
    order = np.argsort(-np.asarray(mi), kind="stable")
    parents = [()] * len(order)
    for pos, j in enumerate(order):
        earlier = order[:pos]
        ranked = earlier[np.argsort(-cmi[j, earlier], kind="stable")]
        parents[j] = tuple(int(p) for p in ranked[:k])
    return tuple(parents)


def learn_parents(codes, y, n_values, K, structure: str, k: int = 2, weights=None, *, scores=None) -> tuple:
    """Parent lists of a ``"naive"``, ``"tan"`` or ``"kdb"`` structure learned from the data.

    TAN is rooted at the feature with the highest ``I(X; Y)``. ``scores``, if given, is
    ``(cmi, mi)`` already computed from the same data (so that several structures share them).
    Other parameters are as in :func:`conditional_mutual_information` and :func:`kdb_parents`.

    Returns
    -------
    tuple of tuple of int
        One parent tuple per feature.
    """
    d = np.shape(codes)[1]
    if structure == "naive" or d < 2:
        return tuple(() for _ in range(d))
    if structure not in STRUCTURES:
        raise ValueError(f"expected structure in {STRUCTURES}; received {structure!r}.")
    if scores is None:
        scores = (conditional_mutual_information(codes, y, n_values, K, weights),
                  class_mutual_information(codes, y, n_values, K, weights))
    cmi, mi = scores
    if structure == "tan":
        return chow_liu_parents(cmi, int(np.argmax(mi)))
    return kdb_parents(cmi, mi, k)


def topological_order(parents) -> list:
    """Features ordered so that every parent comes before its children.

    Raises ValueError on a cycle.
    """
    d = len(parents)
    order, done = [], np.zeros(d, bool)
    while len(order) < d:
        ready = [j for j in range(d) if not done[j] and all(done[p] for p in parents[j])]
        if not ready:
            raise ValueError(f"the parent lists {parents} contain a cycle.")
        for j in ready:
            done[j] = True
            order.append(j)
    return order


def scoring_rows(missing, candidates, weights=None, *, names=None, who="structure='auto'",
                 min_rows=30) -> np.ndarray:
    """Per feature, the rows on which ``structure="auto"`` scores every candidate (module docstring).

    Parameters
    ----------
    missing : ndarray of bool of shape (n, d)
        True where a cell is missing.
    candidates : sequence of tuple of tuple of int
        The candidate structures' parent lists (one parent tuple per feature each).
    weights : ndarray of shape (n,), optional
        Row weights; rows of weight 0 are left out.
    names : sequence of str, optional
        Feature names for the warning.
    who : str
        Who warns.
    min_rows : int, default=30
        Warn (UserWarning) when a feature observed in at least this many rows is scored on fewer.

    Returns
    -------
    ndarray of bool of shape (n, d)
        ``rows[i, j]``: ``x_ij`` and the cells of every candidate parent of ``j`` observed in row ``i``
        (and its weight positive).
    """
    missing = np.asarray(missing, dtype=bool)
    n, d = missing.shape
    for pa in candidates:
        if len(pa) != d:
            raise ValueError(f"expected one parent tuple per feature ({d}); received {len(pa)}.")
    keep = np.ones(n, bool) if weights is None else np.asarray(weights) > 0
    rows = np.empty((n, d), bool)
    for j in range(d):
        union = sorted({p for pa in candidates for p in pa[j]})
        rows[:, j] = keep & ~missing[:, j] & ~missing[:, union].any(axis=1)
    observed = (keep[:, None] & ~missing).sum(axis=0)
    scored = rows.sum(axis=0)
    few = np.flatnonzero((scored < min_rows) & (observed >= min_rows))
    if few.size:
        label = [str(names[j]) if names is not None else str(j) for j in few]
        warnings.warn(f"{who}: the candidate structures are compared feature by feature on the rows where the "
                      f"feature and all its candidate parents are observed, and for {', '.join(label[:5])}"
                      f"{' ...' if len(label) > 5 else ''} fewer than {min_rows} rows are (as few as "
                      f"{int(scored[few].min())}): the choice rests on few rows. Pass structure='tan' or 'kdb' "
                      "to use one regardless (docs/structure.md).", UserWarning, stacklevel=4)
    return rows
