"""The categorical model with a structure: ``p(y) prod_j p(x_j | y, parents_j)``.

Every feature ``j`` has one Dirichlet(alpha) per context, a context being the class and the
values of its parents (``K * prod_p V_p`` contexts). The Categorical family serves it as it is,
on that context axis: ``stats`` takes one-hot responsibilities of each row's context, ``update``
adds the counts, ``log_evidence`` gives the Dirichlet-multinomial evidence of every context, and
``log_likelihood`` of the codes ``0..V_j-1`` gives the table ``log p(x_j | context)`` (posterior
mean = exact posterior predictive of one cell).

Rules (documented in docs/structure.md):

- Fitting: a row adds to feature ``j``'s table only when ``x_j`` and every parent of ``j`` are
  observed (the structure's analogue of "missing cells are left out").
- Evidence: the label evidence plus the sum over features and contexts of the
  Dirichlet-multinomial evidences, with the family's ``alpha`` in every cell of every context
  (K2-style for ``alpha=1``; not BDeu, which would divide an equivalent sample size among the
  contexts). It is exact for those fitted rows. ``structure="auto"`` scores every candidate with
  feature ``j`` fitted on the same rows ``R_j`` (``rows=`` of :func:`fit_tables`; the rule is
  :func:`bayesnb.structure.scoring_rows`).
- Prediction with missing cells: exact marginalisation over the missing values given the class.
  For a forest (every feature has at most one feature parent: naive, TAN) by sum-product message
  passing, vectorised over rows; otherwise (k-DB with k >= 2) by enumerating the joint values of
  the missing cells that are ancestors of an observed cell (the others sum out to 1), refused
  with a ValueError beyond :data:`MAX_ENUMERATION` joint values in one row.
- A value never seen in training is treated as a missing cell (marginalised).
- Imputation (:func:`impute_codes`): each missing cell's exact posterior given the row's observed
  cells, ``p(x_j = v | x_obs) ∝ sum_k p(k) p(x_obs, x_j = v | k)``, each term an exact
  :func:`log_likelihood` of the row with the cell set to ``v``; a joint draw of the class and all
  missing cells by the chain rule: the class from ``p(k | x_obs)``, then the missing cells in
  ancestral order, each from ``p(x_j | x_obs, x_drawn, k)`` (exact: the cells drawn so far count as
  observed).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from .families._numeric import draw_categories
from .structure import topological_order

__all__ = ["MAX_ENUMERATION", "StructuredTables", "drawn_tables", "fit_tables", "impute_codes", "log_likelihood",
           "n_contexts", "one_column_state", "sample_codes", "tables_from_stats"]

#: The most joint values of a row's missing cells that k-DB (k >= 2) prediction enumerates.
MAX_ENUMERATION = 2**18


class StructuredTables(NamedTuple):
    """A fitted structured categorical model (the feature part; the class part is the NBPosterior's).

    Attributes
    ----------
    parents : tuple of tuple of int
        ``parents[j]``: the feature parents of feature ``j``.
    n_values : tuple of int
        ``V_j``, the number of categories of each feature.
    family : Family
        The Categorical family (hyperparameters) of every table.
    states : tuple
        Per feature, its one-column encoding state.
    stats : tuple
        Per feature, the family's statistics over its contexts.
    priors, posteriors : tuple
        Per feature, the family's prior and posterior parameters over ``K * prod V_p`` contexts.
    log_tables : tuple of ndarray
        Per feature, ``log p(x_j = v | y=k, parents = u)`` at the posterior mean, shape
        ``(K, V_p1, ..., V_j)``.
    log_evidence : float
        ``sum_j log p(x_j column | y, parents)`` of the training data (the features' part).
    """

    parents: tuple
    n_values: tuple
    family: object
    states: tuple
    stats: tuple
    priors: tuple
    posteriors: tuple
    log_tables: tuple
    log_evidence: float


def one_column_state(state, j):
    """Feature ``j``'s encoding state (a NamedTuple of per-feature tuples) as a one-feature state."""
    return type(state)(*(field[j:j + 1] for field in state))


def _log_table(fam, prior, point, K, shape):
    """``log p(x = v | context)`` of every value, reshaped to ``(K, *parent sizes, V)``."""
    V = shape[-1]
    lt = fam.log_likelihood(prior, point, np.arange(V, dtype=np.int64)[:, None]).T  # (contexts, V)
    return lt.reshape((K, *shape[:-1], V))


def fit_tables(fam, state, codes, y, w, K, parents, n_values, who="CategoricalNB", rows=None) -> StructuredTables:
    """Fit every feature's context tables.

    Parameters
    ----------
    fam : Family
        The categorical family.
    state : NamedTuple
        The block's encoding state (per-feature fields).
    codes : ndarray of int of shape (n, d)
        Encoded training rows (``-1`` missing).
    y : ndarray of int of shape (n,)
        Class codes.
    w : ndarray of shape (n,)
        Row weights.
    K : int
        Number of classes.
    parents : tuple of tuple of int
    n_values : sequence of int
    who : str
    rows : ndarray of bool of shape (n, d), optional
        Feature ``j`` counts only the rows ``rows[:, j]`` (``structure="auto"`` scores every
        candidate on the same cells: :func:`bayesnb.structure.scoring_rows`).

    Returns
    -------
    StructuredTables
    """
    stats = []
    for j, pa in enumerate(parents):
        sizes = tuple(int(n_values[p]) for p in pa)
        ok = np.all([(codes[:, c] >= 0) & (codes[:, c] < n_values[c]) for c in (j, *pa)], axis=0)
        if rows is not None:
            ok = ok & rows[:, j]
        ctx = y[ok] * int(np.prod(sizes, dtype=np.int64))
        if pa:
            ctx = ctx + np.ravel_multi_index(tuple(codes[ok, p] for p in pa), sizes)
        resp = np.zeros((int(ok.sum()), K * int(np.prod(sizes, dtype=np.int64))))
        resp[np.arange(resp.shape[0]), ctx] = w[ok]
        stats.append(fam.stats(codes[ok][:, [j]], resp, one_column_state(state, j)))
    return tables_from_stats(fam, state, stats, K, parents, n_values, who)


def n_contexts(K, parents, n_values, j) -> int:
    """Number of contexts of feature ``j``: ``K * prod(V_p for p in parents[j])``."""
    return K * int(np.prod([int(n_values[p]) for p in parents[j]], dtype=np.int64))


def tables_from_stats(fam, state, stats, K, parents, n_values, who="CategoricalNB") -> StructuredTables:
    """Prior, posterior and log tables of every feature from its context statistics.

    ``stats[j]`` is the family's statistics of feature ``j`` over its
    :func:`n_contexts` contexts (what :func:`fit_tables` counts; a model file stores them).
    """
    states, priors, posts, tables, ev = [], [], [], [], 0.0
    for j, pa in enumerate(parents):
        sizes = tuple(int(n_values[p]) for p in pa)
        st = one_column_state(state, j)
        prior = fam.context_prior(stats[j], st, (K, *sizes), who=who)
        if not fam.is_proper(prior):
            raise ValueError(f"{who}: a structure other than 'naive' needs a proper prior (every alpha > 0) for "
                             f"its evidence and its tables; received alpha with a zero pseudo-count.")
        post = fam.update(prior, stats[j])
        states.append(st)
        priors.append(prior)
        posts.append(post)
        tables.append(_log_table(fam, prior, post, K, (*sizes, int(n_values[j]))))
        ev += float(np.sum(fam.log_evidence(prior, post)))
    return StructuredTables(tuple(parents), tuple(int(v) for v in n_values), fam, tuple(states), tuple(stats),
                            tuple(priors), tuple(posts), tuple(tables), ev)


def _clean(codes, n_values):
    """Codes with unseen values (``>= V_j``) turned into missing (-1)."""
    codes = np.asarray(codes, dtype=np.int64)
    return np.where(codes >= np.asarray(n_values, dtype=np.int64)[None, :], -1, codes)


def _complete(tables, codes, parents):
    """``log p(x | y=k)`` of complete rows, shape (n, K)."""
    n = codes.shape[0]
    K = tables[0].shape[0] if tables else 0
    out = np.zeros((n, K))
    for j, pa in enumerate(parents):
        out += tables[j][(slice(None), *(codes[:, p] for p in pa), codes[:, j])].T
    return out


def _sum_out(log_p, log_beta):
    """``log sum_v p(v | u, k) beta(v)`` for every row, class and ``u``: one einsum, rescaled by the max."""
    top = log_beta.max(axis=-1)  # finite: an observed cell keeps one value, a missing one all
    vals = np.einsum("k...v,nkv->nk...", np.exp(log_p), np.exp(log_beta - top[..., None]))
    return np.log(vals) + top.reshape(top.shape + (1,) * (vals.ndim - 2))


def _forest(tables, codes, parents):
    """Sum-product on a forest (at most one feature parent each), all rows and classes at once."""
    n, d = codes.shape
    K = tables[0].shape[0]
    children = [[] for _ in range(d)]
    for j, pa in enumerate(parents):
        for p in pa:
            children[p].append(j)
    log_beta = [None] * d
    out = np.zeros((n, K))
    for j in reversed(topological_order(parents)):
        V = tables[j].shape[-1]
        b = np.zeros((n, K, V))
        obs = codes[:, j] >= 0
        ind = np.full((int(obs.sum()), V), -np.inf)
        ind[np.arange(ind.shape[0]), codes[obs, j]] = 0.0
        b[obs] = ind[:, None, :]
        for c in children[j]:
            b += _sum_out(tables[c], log_beta[c])  # lambda_c(u) = log sum_v p(v | u, y) beta_c(v)
        log_beta[j] = b
        if not parents[j]:
            out += _sum_out(tables[j], b)
    return out


def _ancestors(parents):
    d = len(parents)
    anc = [set() for _ in range(d)]
    for j in topological_order(parents):
        for p in parents[j]:
            anc[j] |= {p} | anc[p]
    return anc


def _enumerate_row(tables, rows, parents, n_values, anc, who):
    """``log p(x_obs | y=k)`` of rows sharing one missing pattern, by enumerating the relevant missing cells.

    ``rows`` is (m, d) (or one row, (d,)); returns (m, K) (or (K,)).
    """
    one = np.ndim(rows) == 1
    rows = np.atleast_2d(rows)
    first = rows[0]
    obs = np.flatnonzero(first >= 0)
    relevant = sorted({a for j in obs for a in anc[j] if first[a] < 0})
    keep = sorted(set(obs) | set(relevant))  # other missing cells are barren: they sum out to 1
    sizes = [n_values[m] for m in relevant]
    total = int(np.prod(sizes, dtype=np.int64))
    if total > MAX_ENUMERATION:
        raise ValueError(f"{who}: marginalising a row's {len(relevant)} missing cells means enumerating {total} "
                         f"joint values (more than {MAX_ENUMERATION}); k-DB with k >= 2 sums over them by brute "
                         f"force. Use structure='tan' (exact message passing) or impute the cells first.")
    K = tables[0].shape[0]
    fill = np.stack(np.unravel_index(np.arange(total), sizes), axis=1) if relevant else None
    result = np.empty((rows.shape[0], K))
    step = max(1, MAX_ENUMERATION // total)
    for start in range(0, rows.shape[0], step):
        chunk = rows[start:start + step]
        X = np.repeat(chunk, total, axis=0)  # (m * total, d): each row with every joint value
        if relevant:
            X[:, relevant] = np.tile(fill, (chunk.shape[0], 1))
        out = np.zeros((X.shape[0], K))
        for j in keep:
            out += tables[j][(slice(None), *(X[:, p] for p in parents[j]), X[:, j])].T
        out = out.reshape(chunk.shape[0], total, K)
        top = out.max(axis=1)  # finite: alpha > 0 makes every table entry finite
        result[start:start + step] = top + np.log(np.exp(out - top[:, None, :]).sum(axis=1))
    return result[0] if one else result


def log_likelihood(model: StructuredTables, codes, who="CategoricalNB") -> np.ndarray:
    """``log p(x_i | y=k)`` of every row and class, missing cells marginalised exactly, shape (n, K).

    Parameters
    ----------
    model : StructuredTables
    codes : ndarray of int of shape (n, d)
        Encoded rows (``-1`` missing; a code ``>= V_j``, never seen in training, counts as missing).
    who : str

    Returns
    -------
    ndarray of shape (n, K)
    """
    codes = _clean(codes, model.n_values)
    tables, parents = model.log_tables, model.parents
    if not tables:
        return np.zeros((codes.shape[0], 0))
    out = np.empty((codes.shape[0], tables[0].shape[0]))
    complete = (codes >= 0).all(axis=1)
    out[complete] = _complete(tables, codes[complete], parents)
    if all(len(p) <= 1 for p in parents):
        out[~complete] = _forest(tables, codes[~complete], parents)
        return out
    anc = _ancestors(parents)
    idx = np.flatnonzero(~complete)
    masks, group = np.unique(codes[idx] < 0, axis=0, return_inverse=True)
    for g in range(masks.shape[0]):  # rows with one missing pattern share one enumeration
        rows = idx[group.ravel() == g]
        out[rows] = _enumerate_row(tables, codes[rows], parents, model.n_values, anc, who)
    return out


def sample_codes(model: StructuredTables, z, rng, parameter_uncertainty=True) -> np.ndarray:
    """Codes (n, d) drawn in ancestral order given the classes ``z`` (n,).

    With ``parameter_uncertainty``, one exact Dirichlet draw of every table (the family's
    ``gen_point``) shared by the rows; otherwise the posterior mean.
    """
    n, d = len(z), len(model.parents)
    K = model.log_tables[0].shape[0] if d else 0
    out = np.empty((n, d), dtype=np.int64)
    for j in topological_order(model.parents):
        table = model.log_tables[j]
        if parameter_uncertainty:
            point = model.family.gen_point(model.priors[j], model.posteriors[j], rng)
            table = _log_table(model.family, model.priors[j], point, K, table.shape[1:])
        logp = table[(z, *(out[:, p] for p in model.parents[j]))]  # (n, V_j)
        cdf = np.cumsum(np.exp(logp - logsumexp(logp, axis=1, keepdims=True)), axis=1)
        u = rng.random(n)[:, None]
        out[:, j] = np.minimum((u > cdf).sum(axis=1), cdf.shape[1] - 1)
    return out


def drawn_tables(model: StructuredTables, rng) -> StructuredTables:
    """The model with every table replaced by one exact Dirichlet posterior draw (the family's ``gen_point``)."""
    K = model.log_tables[0].shape[0] if model.log_tables else 0
    tables = tuple(_log_table(model.family, prior, model.family.gen_point(prior, post, rng), K, table.shape[1:])
                   for prior, post, table in zip(model.priors, model.posteriors, model.log_tables))
    return model._replace(log_tables=tables)


def _with_value(model, codes, j, who):
    """``log p(x_obs, x_j = v | k)`` for every row, value ``v`` of feature ``j`` and class: (n, V_j, K)."""
    out = np.empty((codes.shape[0], model.n_values[j], model.log_tables[0].shape[0]))
    for v in range(model.n_values[j]):
        t = codes.copy()
        t[:, j] = v
        out[:, v] = log_likelihood(model, t, who)
    return out


def impute_codes(model: StructuredTables, codes, class_log_weights, *, strategy="mode", rng=None,
                 who="CategoricalNB") -> np.ndarray:
    """The codes with every missing cell (``-1``) filled from its exact posterior given the row's observed cells.

    Parameters
    ----------
    model : StructuredTables
        The tables in use (the posterior mean, or one draw: :func:`drawn_tables`).
    codes : ndarray of int of shape (n, d)
        Encoded rows, ``-1`` missing; a code ``>= V_j`` (never seen in training) is kept as it
        is and marginalised as a missing cell.
    class_log_weights : ndarray of shape (K,) or (n, K)
        ``log p(y=k)`` (``-inf`` where a row's known label rules the class out).
    strategy : {"mode", "draw"}, default="mode"
        ``"mode"``: each cell's most probable value under its marginal posterior
        ``p(x_j | x_obs)`` (the class summed out). ``"draw"``: one joint draw of the class and
        of all the row's missing cells from ``p(y, x_miss | x_obs)``.
    rng : numpy.random.Generator, optional
        Needed for ``"draw"``.
    who : str

    Returns
    -------
    ndarray of int of shape (n, d)
        A new array; observed cells unchanged; a missing cell of a feature with no value stays ``-1``.
    """
    codes = np.asarray(codes, dtype=np.int64)
    out = codes.copy()
    miss = codes == -1
    rows = np.flatnonzero(miss.any(axis=1))
    if rows.size == 0 or not model.log_tables:
        return out
    work, m = _clean(codes[rows], model.n_values), miss[rows]
    logw = np.broadcast_to(np.asarray(class_log_weights, dtype=float), (codes.shape[0], model.log_tables[0].shape[0]))
    logw = logw[rows]
    if strategy == "draw":
        joint = log_likelihood(model, work, who) + logw
        z = draw_categories(np.exp(joint - logsumexp(joint, axis=1, keepdims=True)), rng.random(rows.size))
    for j in topological_order(model.parents):
        r = np.flatnonzero(m[:, j])
        if r.size == 0 or model.n_values[j] == 0:
            continue
        lp = _with_value(model, work[r], j, who)  # (r, V_j, K)
        if strategy == "draw":
            lv = lp[np.arange(r.size), :, z[r]]
            work[r, j] = draw_categories(np.exp(lv - logsumexp(lv, axis=1, keepdims=True)), rng.random(r.size))
        else:
            out[rows[r], j] = np.argmax(logsumexp(lp + logw[r, None, :], axis=2), axis=1)
    if strategy == "draw":
        out[rows] = np.where(m, work, out[rows])
    return out
