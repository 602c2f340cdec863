"""Learning which features each feature is conditioned on, besides the class.

A *structure* is a parent list per feature: ``parents[j]`` is a tuple of feature positions
(empty for none), so every feature's context is (class, parent values). Learned from encoded
categorical data (int codes, ``-1`` missing, skipped pairwise) and class codes: edge weights
(:func:`conditional_mutual_information`, :func:`edge_log_bayes_factors` for BDeu, which unlike
the mutual information pays for the parent's cardinality; :func:`edge_scores` for one kind),
then TAN (:func:`chow_liu_parents`, Friedman, Geiger & Goldszmidt 1997: a maximum spanning tree,
or with ``positive=True`` a forest of the positive edges, each tree rooted at its feature of
highest ``I(X; Y)``) or k-DB (:func:`kdb_parents`, Sahami 1996; with the MI no threshold,
Sahami's optional theta = 0). :func:`scoring_rows` gives ``structure="auto"`` the same cells
for every candidate, so the difference of two scores is a sum of per-feature Bayes factors on
identical cells. See docs/structure.md, "The edge score" and "How `"auto"` scores the candidates".
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from .hier_edges import class_estimates, hierarchical_edge_weights

__all__ = ["EDGE_SCORES", "STRUCTURES", "EdgeScores", "PairCounts", "chow_liu_parents", "class_mutual_information",
           "conditional_mutual_information", "edge_log_bayes_factors", "edge_scores", "edge_scores_from_counts",
           "kdb_parents", "learn_parents", "pair_counts", "scoring_rows", "topological_order", "warn_few_rows",
           "without_edges"]

#: The structures :func:`learn_parents` knows.
STRUCTURES = ("naive", "tan", "kdb")

#: How :func:`learn_parents` weights an edge.
EDGE_SCORES = ("bdeu", "mi", "hierarchical")


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


#: The most (row, feature) cells :func:`_pair_tables` keys at once (its int64 keys and float64 weights: 2 MiB each).
PAIR_CHUNK_CELLS = 2**18


def _pair_tables(codes, y, n_values, K, weights):
    """Yield ``(i, tabs, V)`` for every feature ``i < d - 1``.

    ``tabs[m]`` is the weighted (K, V[i], max(V)) count table of (y, x_i, x_j), ``j = i + 1 + m``,
    on the rows where both cells are observed (columns ``>= V[j]`` are zero padding); ``V`` is
    ``n_values`` as an int array. The rows are counted in chunks of at most
    :data:`PAIR_CHUNK_CELLS` (row, feature) cells, one bincount each, the chunks' tables added.
    """
    codes, y = np.asarray(codes), np.asarray(y, dtype=np.int64)
    n, d = codes.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    V = np.asarray(n_values, dtype=np.int64)
    vmax = int(V.max()) if d else 0
    for i in range(d - 1):
        # every pair (i, j > i) at once: one bincount over the (row, j) cells where both are observed
        size = K * int(V[i]) * vmax
        tabs = np.zeros((d - i - 1) * size)
        step = max(1, PAIR_CHUNK_CELLS // (d - i - 1))
        for a in range(0, n, step):
            rest = codes[a:a + step, i + 1:]
            ok = ((rest >= 0) & (rest < V[None, i + 1:])) & ((codes[a:a + step, i] >= 0)
                                                             & (codes[a:a + step, i] < V[i]))[:, None]
            lead = (y[a:a + step] * V[i] + codes[a:a + step, i]) * vmax  # int64, whatever the codes' type
            key = (np.arange(d - i - 1)[None, :] * size + lead[:, None] + rest)[ok]
            wts = np.broadcast_to(w[a:a + step, None], ok.shape)[ok]
            tabs += np.bincount(key, weights=wts, minlength=(d - i - 1) * size)
        yield i, tabs.reshape(d - i - 1, K, int(V[i]), vmax), V


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
    return _streamed(codes, y, n_values, K, weights, "mi", None)


def _streamed(codes, y, n_values, K, weights, kind, ess) -> np.ndarray:
    """The symmetric (d, d) weights of one kind, the pair tables streamed (:func:`_pair_tables`)."""
    classes = _class_tables(codes, y, n_values, K, weights) if kind == "hierarchical" else None
    pairs = (tabs for _, tabs, _ in _pair_tables(codes, y, n_values, K, weights))
    return _symmetric(pairs, classes, n_values, kind, ess)


def _symmetric(pairs, classes, n_values, kind, ess) -> np.ndarray:
    """The (d, d) weights of one kind from feature ``i``'s tables ``pairs[i]`` (:func:`_pair_tables`) and,
    for ``"hierarchical"``, the class tables ``classes``."""
    V = np.asarray(n_values, dtype=np.int64)
    out = np.zeros((len(V),) * 2)
    thetas = class_estimates(classes) if kind == "hierarchical" else None
    for i, tabs in enumerate(pairs):
        if kind == "bdeu":
            out[i, i + 1:] = _edge_log_bf(tabs, int(V[i]), V[i + 1:], ess)
        elif kind == "hierarchical":
            out[i, i + 1:] = hierarchical_edge_weights(i, tabs, V, thetas)
        else:
            out[i, i + 1:] = [_mi(tabs[m, :, :, : V[j]]) for m, j in enumerate(range(i + 1, len(V)))]
    return out + out.T


def _class_tables(codes, y, n_values, K, weights) -> tuple:
    """``(1, V_j, K)`` weighted counts of (x_j, y) on each feature's observed rows."""
    codes = np.asarray(codes)
    w = np.ones(len(codes)) if weights is None else np.asarray(weights, dtype=float)
    zeros = np.zeros(len(codes), dtype=np.int64)
    return tuple(_table(codes[:, j], y, n_values[j], K, zeros, 1, w) for j in range(codes.shape[1]))


def class_mutual_information(codes, y, n_values, K, weights=None) -> np.ndarray:
    """``I(X_j; Y)`` of every feature (observed cells only), shape (d,), in nats.

    Parameters are as in :func:`conditional_mutual_information`.
    """
    return np.array([_mi(t) for t in _class_tables(codes, y, n_values, K, weights)])


def _dirichlet_gain(counts, a) -> np.ndarray:
    """``sum(lgamma(a + N) - lgamma(a))`` over all but the first axis of ``counts`` (``a``: one per row).

    Only the positive counts are visited (an empty cell adds 0).
    """
    flat = counts.reshape(counts.shape[0], -1)
    m, cell = np.nonzero(flat > 0)
    a = np.asarray(a, dtype=float)[m]
    return np.bincount(m, weights=gammaln(a + flat[m, cell]) - gammaln(a), minlength=counts.shape[0])


def _edge_log_bf(tabs, va, vb, ess) -> np.ndarray:
    """BDeu log Bayes factor of the edge in each weighted (K, va, B) table ``tabs[m]`` (child cardinality ``vb[m]``).

    ``T(kab) - T(ka) - T(kb) + T(k)``, ``T(S)`` the sum over the cells of the margin ``S`` of
    ``lgamma(ess / |S| + N) - lgamma(ess / |S|)``: symmetric in the two features.
    """
    K = tabs.shape[1]
    # a feature without categories (never observed) has empty tables: any positive size gives 0
    va = max(va, 1)
    vb = np.maximum(np.asarray(vb, dtype=float).reshape(-1), 1.0)
    one = np.ones(len(vb))
    return (_dirichlet_gain(tabs, ess / (K * va * vb)) - _dirichlet_gain(tabs.sum(axis=3), one * ess / (K * va))
            - _dirichlet_gain(tabs.sum(axis=2), ess / (K * vb)) + _dirichlet_gain(tabs.sum(axis=(2, 3)), one * ess / K))


def _check_ess(ess) -> float:
    if isinstance(ess, bool) or not isinstance(ess, (int, float, np.integer, np.floating)) or not 0 < ess < np.inf:
        raise ValueError(f"expected ess (the BDeu equivalent sample size) to be a finite number > 0; received {ess!r}.")
    return float(ess)


def edge_log_bayes_factors(codes, y, n_values, K, weights=None, ess: float = 1.0) -> np.ndarray:
    """BDeu log Bayes factor of the edge between every pair of features, given the class.

    ``w[i, j] = log p(x_j | y, x_i) - log p(x_j | y)``: the Dirichlet (BDeu) log evidence of
    feature ``j`` with contexts (class, ``x_i``) against contexts (class), both on the rows where
    ``x_i`` and ``x_j`` are observed. BDeu divides the equivalent sample size ``ess`` over the
    child's contexts and values (``ess / (K * V_i * V_j)`` per cell given the parent,
    ``ess / (K * V_j)`` without), so the score is score-equivalent (Heckerman, Geiger & Chickering
    1995) and ``w[i, j] == w[j, i]`` (both directions compare the same rows), even with
    missing cells. Unlike the mutual information, it pays for the parent's cardinality: an edge
    the data do not support has a negative weight.

    Parameters
    ----------
    codes, y, n_values, K, weights
        As in :func:`conditional_mutual_information`.
    ess : float, default=1.0
        The BDeu equivalent sample size, > 0.

    Returns
    -------
    ndarray of shape (d, d)
        Symmetric, zero diagonal, in nats.
    """
    return _streamed(codes, y, n_values, K, weights, "bdeu", _check_ess(ess))


class EdgeScores(NamedTuple):
    """What :func:`learn_parents` builds a structure from (:func:`edge_scores`).

    Attributes
    ----------
    weights : ndarray of shape (d, d)
        Symmetric edge weights: BDeu log Bayes factors (``"bdeu"``), ``I(X_i; X_j | Y)`` (``"mi"``)
        or hierarchical log Bayes factors (``"hierarchical"``, :mod:`~bayesnb.structure.hier_edges`).
    class_mi : ndarray of shape (d,)
        ``I(X_j; Y)``: ranks the features for k-DB and roots the TAN trees.
    edge_score : str
        One of :data:`EDGE_SCORES`.
    """

    weights: np.ndarray
    class_mi: np.ndarray
    edge_score: str


class PairCounts(NamedTuple):
    """The count tables that :func:`edge_scores` reads: they add over row partitions (Dask).

    Attributes
    ----------
    pairs : tuple of ndarray
        ``pairs[i]`` of shape (d - i - 1, K, V_i, max(V)): the weighted counts of (y, x_i, x_j),
        ``j = i + 1 + m``, on the rows where both cells are observed (zero padding beyond ``V_j``).
    classes : tuple of ndarray
        ``classes[j]`` of shape (1, V_j, K): the weighted counts of (x_j, y) on its observed rows.
    """

    pairs: tuple
    classes: tuple


def pair_counts(codes, y, n_values, K, weights=None) -> PairCounts:
    """Every table :func:`edge_scores` needs, at once (parameters as in :func:`conditional_mutual_information`).

    Holds ``d^2 / 2 * K * V^2`` numbers: :func:`edge_scores` on an in-memory table streams them instead.
    """
    pairs = tuple(tabs for _, tabs, _ in _pair_tables(codes, y, n_values, K, weights))
    return PairCounts(pairs, _class_tables(codes, y, n_values, K, weights))


def _check_edge_score(edge_score):
    if edge_score not in EDGE_SCORES:
        raise ValueError(f"expected edge_score in {EDGE_SCORES}; received {edge_score!r}.")


def edge_scores_from_counts(counts: PairCounts, n_values, *, edge_score: str = "bdeu",
                            ess: float = 1.0) -> EdgeScores:
    """:func:`edge_scores` from its count tables (:func:`pair_counts`, e.g. summed over partitions).

    Parameters
    ----------
    counts : PairCounts
    n_values : sequence of int of length d
    edge_score : {"bdeu", "mi", "hierarchical"}, default="bdeu"
    ess : float, default=1.0

    Returns
    -------
    EdgeScores
        Equal to :func:`edge_scores` on the rows that the counts count.
    """
    _check_edge_score(edge_score)
    weights = _symmetric(counts.pairs, counts.classes, n_values, edge_score, _check_ess(ess))
    return EdgeScores(weights, np.array([_mi(t) for t in counts.classes]), edge_score)


def edge_scores(codes, y, n_values, K, weights=None, *, edge_score: str = "bdeu", ess: float = 1.0) -> EdgeScores:
    """Edge weights and class mutual informations of a table, computed once for several structures.

    Parameters
    ----------
    codes, y, n_values, K, weights
        As in :func:`conditional_mutual_information`.
    edge_score : {"bdeu", "mi", "hierarchical"}, default="bdeu"
        ``"bdeu"``: :func:`edge_log_bayes_factors`; ``"mi"``: :func:`conditional_mutual_information`;
        ``"hierarchical"``: the Bayes factor under hierarchical smoothing (:mod:`~bayesnb.structure.hier_edges`).
    ess : float, default=1.0
        The BDeu equivalent sample size (``"bdeu"`` only).

    Returns
    -------
    EdgeScores
    """
    _check_edge_score(edge_score)
    w = _streamed(codes, y, n_values, K, weights, edge_score, _check_ess(ess))
    return EdgeScores(w, class_mutual_information(codes, y, n_values, K, weights), edge_score)


def chow_liu_parents(cmi: np.ndarray, root: int = 0, *, positive: bool = False, mi=None) -> tuple:
    """TAN: the maximum spanning tree (or forest) of ``cmi`` (Prim), edges directed away from the roots.

    Parameters
    ----------
    cmi : ndarray of shape (d, d)
        Symmetric edge weights, e.g. :func:`conditional_mutual_information` or
        :func:`edge_log_bayes_factors`.
    root : int, default=0
        The feature without a feature parent (the first tree's root).
    positive : bool, default=False
        Keep only edges of positive weight: the maximum-weight spanning *forest* over them
        (Prim, restarted when no positive edge leaves the trees built so far). A feature whose
        every edge has a non-positive weight keeps no feature parent.
    mi : ndarray of shape (d,), optional
        With ``positive``, each further tree is rooted at its feature with the highest ``mi``
        (the first on ties); without it, at its lowest-numbered feature.

    Returns
    -------
    tuple of tuple of int
        ``parents[j]``: ``()`` for a root, ``(p,)`` for every other feature.
    """
    d = cmi.shape[0]
    if d == 0:
        return ()
    parents = [()] * d
    starts = [root] + [int(s) for s in (np.argsort(-np.asarray(mi), kind="stable") if mi is not None else range(d))]
    in_tree = np.zeros(d, bool)
    best = np.full(d, -np.inf)
    link = np.full(d, root)

    def add(j):
        in_tree[j] = True
        better = ~in_tree & (cmi[j] > best)
        best[better] = cmi[j][better]
        link[better] = j

    add(root)
    for _ in range(d - 1):
        cand = np.where(in_tree, -np.inf, best)
        j = int(np.argmax(cand))  # first on ties: deterministic
        if (positive and not cand[j] > 0) or cand[j] == -np.inf:  # no (allowed) edge leaves the trees: a new tree
            # at the best remaining root
            add(next(s for s in starts if not in_tree[s]))
            continue
        parents[j] = (int(link[j]),)
        add(j)
    return tuple(parents)


def kdb_parents(cmi: np.ndarray, mi: np.ndarray, k: int = 2, *, positive: bool = False) -> tuple:
    """k-DB: each feature's (up to) ``k`` parents among the features ranked before it.

    Parameters
    ----------
    cmi : ndarray of shape (d, d)
        Edge weights: ``I(X_i; X_j | Y)`` or :func:`edge_log_bayes_factors`.
    mi : ndarray of shape (d,)
        ``I(X_j; Y)``; the ranking (descending, stable on ties).
    k : int, default=2
    positive : bool, default=False
        Keep only parents whose edge weight is positive.

    Returns
    -------
    tuple of tuple of int
        ``parents[j]``, ordered by decreasing weight.
    """
    order = np.argsort(-np.asarray(mi), kind="stable")
    parents = [()] * len(order)
    for pos, j in enumerate(order):
        earlier = order[:pos]
        ranked = earlier[np.argsort(-cmi[j, earlier], kind="stable")]
        ranked = ranked[cmi[j, ranked] > -np.inf]  # a forbidden edge (without_edges) is never taken
        if positive:
            ranked = ranked[cmi[j, ranked] > 0]
        parents[j] = tuple(int(p) for p in ranked[:k])
    return tuple(parents)


def without_edges(scores: EdgeScores, pairs) -> EdgeScores:
    """``scores`` with every edge of ``pairs`` forbidden: its weight ``-inf``, in both directions.

    :func:`learn_parents` (TAN and k-DB, either edge score) then never makes one feature of a
    forbidden pair a parent of the other (a structure constraint, as bnlearn's ``blacklist``).

    Parameters
    ----------
    scores : EdgeScores
    pairs : iterable of (int, int)
        Feature positions ``(i, j)``, ``i != j``.

    Returns
    -------
    EdgeScores
        A copy; ``scores`` is not modified.
    """
    w = np.array(scores.weights, dtype=float, copy=True)
    for i, j in pairs:
        w[i, j] = w[j, i] = -np.inf
    return scores._replace(weights=w)


def learn_parents(codes, y, n_values, K, structure: str, k: int = 2, weights=None, *, scores=None,
                  edge_score: str | None = None, ess: float = 1.0) -> tuple:
    """Parent lists of a ``"naive"``, ``"tan"`` or ``"kdb"`` structure learned from the data.

    With ``edge_score="bdeu"`` (the default), edges are weighted by their BDeu log Bayes factor
    (:func:`edge_log_bayes_factors`) and only edges of positive weight are kept: TAN is the
    maximum-weight spanning forest over them, each tree rooted at its feature with the highest
    ``I(X; Y)`` (Friedman, Geiger & Goldszmidt 1997; Heckerman, Geiger & Chickering 1995), and
    k-DB takes up to ``k`` earlier features of positive weight. With ``edge_score="mi"`` edges
    are weighted by ``I(X_i; X_j | Y)``: TAN is the spanning tree rooted at the feature with the
    highest ``I(X; Y)``, and k-DB takes the ``k`` best earlier features whatever their weight.
    ``edge_score="hierarchical"`` (:mod:`~bayesnb.structure.hier_edges`) is used as ``"bdeu"``.

    Parameters
    ----------
    codes, y, n_values, K, weights
        As in :func:`conditional_mutual_information`.
    structure : {"naive", "tan", "kdb"}
    k : int, default=2
        Parents per feature of k-DB.
    scores : EdgeScores or tuple (cmi, mi), optional
        Already computed from the same data (so that several structures share them): an
        :func:`edge_scores` result, or a pair (``I(X_i; X_j | Y)``, ``I(X; Y)``), which is
        ``edge_score="mi"``.
    edge_score : {"bdeu", "mi", "hierarchical"}, optional
        How edges are weighted; default ``"bdeu"``, or the kind of ``scores`` when given
        (a different one is a ValueError).
    ess : float, default=1.0
        The BDeu equivalent sample size (when the scores are computed here).

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
    if scores is not None and not isinstance(scores, EdgeScores):
        cmi, mi = scores  # a (cmi, mi) pair: mutual informations
        scores = EdgeScores(np.asarray(cmi), np.asarray(mi), "mi")
    kind = edge_score if edge_score is not None else scores.edge_score if scores is not None else "bdeu"
    if scores is None:
        scores = edge_scores(codes, y, n_values, K, weights, edge_score=kind, ess=ess)
    elif scores.edge_score != kind:
        raise ValueError(f"expected scores computed with edge_score={kind!r}; received scores of "
                         f"edge_score={scores.edge_score!r}.")
    positive = kind != "mi"
    if structure == "tan":
        return chow_liu_parents(scores.weights, int(np.argmax(scores.class_mi)), positive=positive, mi=scores.class_mi)
    return kdb_parents(scores.weights, scores.class_mi, k, positive=positive)


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
        done[ready] = True
        order += ready
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
    warn_few_rows((keep[:, None] & ~missing).sum(axis=0), rows.sum(axis=0), names, who, min_rows)
    return rows


def warn_few_rows(observed, scored, names=None, who="structure='auto'", min_rows=30):
    """:func:`scoring_rows`' warning from the per-feature numbers of observed and of scored rows
    (which add over row partitions: a Dask fit warns once, from the sums)."""
    observed, scored = np.asarray(observed), np.asarray(scored)
    few = np.flatnonzero((scored < min_rows) & (observed >= min_rows))
    if few.size:
        label = [str(names[j]) if names is not None else str(j) for j in few]
        warnings.warn(f"{who}: the candidate structures are compared feature by feature on the rows where the "
                      f"feature and all its candidate parents are observed, and for {', '.join(label[:5])}"
                      f"{' ...' if len(label) > 5 else ''} fewer than {min_rows} rows are (as few as "
                      f"{int(scored[few].min())}): the choice rests on few rows. Pass structure='tan' or 'kdb' "
                      "to use one regardless (docs/structure.md).", UserWarning, stacklevel=5)
