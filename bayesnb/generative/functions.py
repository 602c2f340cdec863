"""Generative uses as pure functions of an :class:`~bayesnb.NBPosterior`.

Each function takes a posterior (of the classes, or of the (class, component) states of
a :class:`~bayesnb.LatentClassFit`), encoded blocks and a random generator, and returns
encoded or raw values; validation, encoding and the caller's table types are the
estimator's (:class:`~bayesnb.generative.GenerativeMixin`). Every distribution-specific
step is a family hook (``gen_point``, ``gen_sample``, ``gen_fill``, ``gen_decode``,
``gen_cell_log_lik``, ``gen_rate``, ...); the joint log-likelihood and its normaliser
are :mod:`bayesnb.inference.nb_posterior`'s.

- :func:`sample_rows` -- ancestral draws (class, then x) from the posterior or prior predictive
- :func:`impute_cells` -- values for the missing cells from ``p(x_miss | x_obs)``
- :func:`score_rows` -- ``log p(x)``, missing cells marginalised
- :func:`feature_contributions` -- per-feature parts of ``log p(x)``
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._utils import AllMissingWarning, ZeroProbabilityCondition
from ..families.numeric import dirichlet_draws, draw_categories
from ..inference.nb_posterior import joint_log_likelihood_parts, log_marginal, normalise
from .tables import SparseBlock

__all__ = ["block_cells", "class_log_weights", "contribution_class_term", "feature_contributions", "impute_cells",
           "length_rates", "parameter_points", "sample_rows", "score_rows", "state_posterior", "states_of_classes",
           "warn_empty_columns"]


def parameter_points(post, rng=None, use_prior=False):
    """Per-block parameters in use: the posterior-mean plug-in (``rng`` None) or one exact draw.

    Parameters
    ----------
    post : NBPosterior
    rng : numpy.random.Generator, optional
    use_prior : bool, default=False
        Draw from the blocks' priors instead (prior predictive).

    Returns
    -------
    list of params NamedTuple
        One family ``gen_point`` per block.
    """
    return [b.family.gen_point(b.prior, b.prior if use_prior else b.posterior, rng)
            for b in post.blocks]


def class_log_weights(post, rng=None, use_prior=False):
    """``log p(y=k)`` in use: the plug-in (``rng`` None) or one Dirichlet draw, shape (K,).

    Fixed class priors are used as they are. With ``use_prior`` the Dirichlet prior's
    mean or a draw from it (``ValueError`` for an improper prior, ``class_alpha=0``).
    """
    if post.fixed_class_prior:
        return post.class_log_prior
    conc = post.class_prior_alpha if use_prior else post.class_concentration
    if rng is None:
        if not use_prior:
            return post.class_log_prior
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(conc) - np.log(conc.sum())
    if use_prior and np.any(conc <= 0):
        raise ValueError("prior predictive: the class prior is improper (class_alpha=0); use class_alpha > 0.")
    with np.errstate(divide="ignore"):  # -inf where the concentration is 0
        return np.log(dirichlet_draws(conc, 1, rng)[0])


def length_rates(post, rng=None):
    """Per block, its family's length model (``gen_rate``: a rate per class, or None)."""
    return [b.family.gen_rate(b.stats, post.class_count, rng) for b in post.blocks]


def warn_empty_columns(post, what, who, missing=None, stacklevel=3):
    """Warn about features with no value to draw (a family's ``gen_empty_columns``).

    Their cells are left missing (None).

    Parameters
    ----------
    post : NBPosterior
    what : str
        The operation, for the message ("sampling", "impute").
    who : str
        Estimator name for the message.
    missing : list, optional
        Encoded blocks of the input: warn only where such a feature has a missing cell.
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`.
    """
    names = []
    for i, b in enumerate(post.blocks):
        empty = b.family.gen_empty_columns(b.state)
        if empty is None:
            continue
        flags = np.asarray(empty, dtype=bool)
        if missing is not None:
            flags = flags & np.asarray(b.family.gen_missing(missing[i]).any(axis=0)).ravel()
        names += [b.names[j] for j in np.flatnonzero(flags)]
    if names:
        warnings.warn(
            f"{who}: feature(s) {names} have no known category (missing in every training "
            f"row, and none declared with categories= or min_categories=), so {what} leaves "
            "their cells missing (None).",
            AllMissingWarning,
            stacklevel=stacklevel,
        )


def states_of_classes(group, z, logw, rng):
    """A latent state of each row's class, drawn in proportion to the states' weights.

    Parameters
    ----------
    group : ndarray of int, shape (S,)
        The class of each state.
    z : array-like of int, shape (n,)
        Class index of each row.
    logw : ndarray of shape (S,)
        Log weight of each state (a class whose states all have weight 0: its states alike).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n,)
        State index of each row.
    """
    z = np.asarray(z)
    W = np.where(group[None, :] == z[:, None], np.exp(logw)[None, :], 0.0)
    none = W.sum(axis=1) == 0
    W[none] = group[None, :] == z[none, None]
    return _draw_index(W / W.sum(axis=1, keepdims=True), rng) if z.shape[0] else np.zeros(0, int)


def _draw_index(P, rng):
    """One category per row of probabilities ``P`` (n, K)."""
    return draw_categories(P, rng.random(P.shape[0]))


def _lengths(length, rates_k, z, rng, n, who):
    """Row totals of a block with a length model: drawn from ``Poisson(rate_z)``, or as given."""
    if length is None:
        return rng.poisson(rates_k[z])
    L = np.asarray(length)
    if L.ndim == 0:
        L = np.full(n, int(L))
    if L.shape != (n,) or np.any(L < 0):
        raise ValueError(f"{who}: length must be an int >= 0 or {n} of them; received shape {L.shape}.")
    return L.astype(np.int64)


def sample_rows(post, n_samples, n_columns, *, rng, z=None, group=None, parameter_uncertainty=True,
                use_prior=False, length=None, who="NaiveBayes", stacklevel=2, params=None, bounds=None):
    """Ancestral draws from the posterior (or prior) predictive: a class, then every block given it.

    Parameters
    ----------
    post : NBPosterior
    n_samples : int
        Number of rows (ignored when ``z`` is given).
    n_columns : int
        Number of features (columns of the table the blocks cover).
    rng : numpy.random.Generator
    z : ndarray of int, shape (n,), optional
        Class index of each row, instead of drawing the classes.
    group : ndarray of int, shape (S,), optional
        For a posterior over latent states (a latent-class model), the class of each state;
        with ``z`` given, each row's state is then drawn among its class's states in
        proportion to their weights.
    parameter_uncertainty : bool, default=True
        One exact draw of every parameter, shared by the rows; False: the plug-in.
    use_prior : bool, default=False
        Draw the parameters from the priors (prior predictive; ``ValueError`` when a
        block's prior is improper). Lengths use the training rates.
    length : int or array-like of int, optional
        Row totals of blocks with a length model; default drawn from it.
    who, stacklevel : str, int
        Estimator name for messages; where warnings point, as for :func:`warnings.warn`
        called here (default 2: the caller).
    params : (points, class log weights, length rates), optional
        The parameters to use, already chosen (:func:`parameter_points`,
        :func:`class_log_weights`, :func:`length_rates`), e.g. those a conditional draw
        computed its states with; ``parameter_uncertainty`` and ``use_prior`` are then unused.
    bounds : dict, optional
        ``{column position: (lo, hi)}``: the declared support of numeric columns (a private
        model's ``DP(bounds=...)``). A value drawn outside (the family's ``gen_outside_bounds``:
        a Hurdle's ``at`` is inside) is drawn again inside, given the same parameters and class:
        by the family's ``gen_sample_in_bounds`` (inverse CDF) where it has one, else by rejection, up to
        :data:`MAX_REDRAWS` times (a value still outside is then clipped, with a warning).

    Returns
    -------
    columns : list of array-like
        One raw column per feature, in the input's order (decoded by the families). A
        block whose family draws a sparse matrix (``gen_sample``) stays one: each of its
        positions holds the same :class:`~bayesnb.generative.tables.SparseBlock`.
    z : ndarray of int, shape (n,)
        Class (or, for a latent-class posterior, state) index of each row.
    """
    if params is not None:
        points, logw, rates = params
    elif use_prior:
        for b in post.blocks:
            if not b.family.is_proper(b.prior):
                raise ValueError(f"{who}: block {b.family.name} has an improper prior "
                                 "(alpha=0 or a maximum-likelihood Gaussian); it cannot be sampled.")
        points = parameter_points(post, rng, use_prior=True)
        logw = class_log_weights(post, rng, use_prior=True)
        rates = length_rates(post, None)
    else:
        r = rng if parameter_uncertainty else None
        points, logw, rates = parameter_points(post, r), class_log_weights(post, r), length_rates(post, r)
    if z is None:
        n = int(n_samples)
        z = _draw_index(np.broadcast_to(np.exp(logw), (n, logw.shape[0])), rng) if n else np.zeros(0, int)
    elif group is not None:  # a state of each row's class, by the states' weights
        z = states_of_classes(group, z, logw, rng)
    n = z.shape[0]
    columns = [None] * n_columns
    if n:
        warn_empty_columns(post, "sampling", who, stacklevel=stacklevel + 1)
    for b, p, r in zip(post.blocks, points, rates):
        lengths = _lengths(length, r, z, rng, n, who) if r is not None else None
        vals = b.family.gen_sample(p, z, rng, lengths)
        if sp.issparse(vals):  # numeric values, kept sparse (no per-column split)
            block = SparseBlock(vals.tocsr(), np.asarray(b.columns))
            cols = np.asarray(b.columns)
            if cols.size and np.array_equal(cols, np.arange(cols[0], cols[0] + cols.size)):
                columns[int(cols[0]):int(cols[0]) + cols.size] = [block] * cols.size  # (a vocabulary: no loop)
            else:
                for c in cols:
                    columns[int(c)] = block
            continue
        for c, col in zip(b.columns, b.family.gen_decode(vals, b.state)):
            columns[int(c)] = col
        for i, c in enumerate(b.columns):
            if bounds and int(c) in bounds:
                columns[int(c)] = _truncate(b, p, z, rng, lengths, i, columns[int(c)], bounds[int(c)], who,
                                            stacklevel + 1)
    return columns, z


#: how many times :func:`sample_rows` draws a value again that fell outside its column's bounds
MAX_REDRAWS = 200


def _truncate(b, point, z, rng, lengths, i, col, bound, who, stacklevel):
    """Column ``i`` of block ``b`` with the values outside ``bound`` drawn again (see :func:`sample_rows`)."""
    lo, hi = float(bound[0]), float(bound[1])
    col = np.asarray(col, dtype=float).copy()
    out = np.flatnonzero(b.family.gen_outside_bounds(col, lo, hi))
    exact = b.family.gen_sample_in_bounds(point, z[out], rng, i, lo, hi, state=b.state) if out.size else None
    if exact is not None:  # the family's own truncated law
        col[out] = np.clip(exact, lo, hi)  # (clip: float rounding at the ends)
        return col
    for _ in range(MAX_REDRAWS):
        if out.size == 0:
            return col
        again = b.family.gen_sample(point, z[out], rng, None if lengths is None else lengths[out])
        col[out] = np.asarray(b.family.gen_decode(again, b.state)[i], dtype=float)
        out = out[b.family.gen_outside_bounds(col[out], lo, hi)]
    warnings.warn(f"{who}: {out.size} value(s) of column {b.names[i]!r} stayed outside its bounds [{lo:g}, {hi:g}] "
                  f"after {MAX_REDRAWS} draws (the model puts little mass there); they are clipped to the bounds.",
                  UserWarning, stacklevel=stacklevel)
    col[out] = np.clip(col[out], lo, hi)
    return col


def range_in_bounds(family, point, z, rng, j, lo, hi, bound, state=None, name="", who="NaiveBayes"):
    """Column ``j``'s values drawn within ``[lo, hi]`` (the family's ``gen_sample_between``), with those outside
    a private model's declared ``bound`` drawn again within both (``gen_outside_bounds``, ``gen_sample_in_bounds``).

    Parameters
    ----------
    family : Family
    point : params NamedTuple
        The parameters to draw with.
    z : ndarray of int of shape (n,)
        Each value's context (class, or class and parents' states).
    rng : numpy.random.Generator
    j : int
        The column within the block.
    lo, hi : float or ndarray of shape (n,)
        The condition's range (each row's).
    bound : (float, float) or None
        The declared ``DP(bounds=...)`` (None: the values as drawn).
    state : object, optional
        The block's encoding state.
    name, who : str
        The column and the estimator, for the error.

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    ValueError
        The family draws no values within a range.
    ZeroProbabilityCondition
        A value's range and the bound do not meet.
    """
    v = family.gen_sample_between(point, z, rng, j, lo, hi, state=state)
    if v is None:
        what = f"column {name!r} takes" if name else "its columns take"
        raise ValueError(f"{who}: the {type(family).__name__} family draws no values within a range "
                         f"(gen_sample_between), so {what} no (low, high) condition.")
    v = np.clip(np.asarray(v, dtype=float), lo, hi)
    out = np.flatnonzero(family.gen_outside_bounds(v, *bound)) if bound is not None else np.zeros(0, int)
    if out.size == 0:
        return v
    a = np.maximum(np.broadcast_to(np.asarray(lo, dtype=float), v.shape)[out], float(bound[0]))
    b = np.minimum(np.broadcast_to(np.asarray(hi, dtype=float), v.shape)[out], float(bound[1]))
    if np.any(a > b):
        col = f"column {name!r}" if name else "a column"
        raise ZeroProbabilityCondition(f"{who}: the (low, high) condition on {col} lies outside its declared bounds "
                                       f"{tuple(bound)} (DP(bounds=...)): no row can meet it.")
    v[out] = np.clip(np.asarray(family.gen_sample_in_bounds(point, z[out], rng, j, a, b, state=state), dtype=float),
                     a, b)
    return v


def block_cells(b, filled, miss):
    """``(rows, global cols, raw values)`` of the missing cells of one block, from its filled values."""
    rows, cols = np.nonzero(miss)
    if sp.issparse(filled):
        filled = filled.tocsr()
        return rows, b.columns[cols], np.asarray(filled[rows, cols]).ravel()
    filled = np.asarray(filled)
    if not b.family.raw_values:
        return rows, b.columns[cols], filled[rows, cols].astype(float)
    decoded = b.family.gen_decode(filled, b.state)  # codes -> values (a code with no value stays None)
    vals = np.empty(rows.size, dtype=object)
    for jj in np.unique(cols):
        sel = cols == jj
        vals[sel] = decoded[jj][rows[sel]]
    return rows, b.columns[cols], vals


def state_posterior(post, encoded, points, logw, *, allowed=None, who="NaiveBayes", stacklevel=2):
    """``p(state | x_given)`` of each row under the parameters ``points`` and ``logw``, shape (n, S).

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks of the partial rows (missing cells are marginalised).
    points : list of params NamedTuple
        Per-block parameters (:func:`~bayesnb.generative.functions.parameter_points`).
    logw : ndarray of shape (S,)
        ``log p(state)`` (:func:`~bayesnb.generative.functions.class_log_weights`).
    allowed : ndarray of bool, shape (n, S), optional
        States each row may take (a given label); the others get probability 0.
    who, stacklevel : str, int
        Estimator name for messages; where a :class:`ZeroProbabilityWarning` points
        (a row impossible under every allowed state falls back to their weights).

    Returns
    -------
    ndarray of shape (n, S)
    """
    rel, _ = joint_log_likelihood_parts(post, encoded, points=points, class_log_weights=logw, allowed=allowed)
    fallback = logw if allowed is None else np.where(allowed, logw, -np.inf)
    return np.exp(normalise(rel, fallback, who, stacklevel=stacklevel + 1))


def impute_cells(post, encoded, *, strategy="auto", n_imputations=1, rng, parameter_uncertainty=True,
                 allowed=None, who="NaiveBayes", stacklevel=2, bounds=None):
    """Values for the missing cells from ``p(x_miss | x_obs) = sum_k p(k | x_obs) p(x_miss | k)``.

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks of the rows.
    strategy : {"auto", "mode", "mean", "draw"}, default="auto"
        As in :meth:`~bayesnb.generative.GenerativeMixin.impute` (family ``gen_fill``;
        ``"auto"``: each block's ``family.default_fill``).
    n_imputations : int, default=1
        Number of completed datasets.
    rng : numpy.random.Generator
    parameter_uncertainty : bool, default=True
        With ``"draw"``: one exact parameter draw per completed dataset.
    allowed : ndarray of bool, shape (n, K), optional
        States each row may take (known labels); rows impossible under every allowed
        state fall back to the allowed states' weights, with a warning.
    who, stacklevel : str, int
        Estimator name for messages; where warnings point, as for :func:`warnings.warn`
        called here (default 2: the caller).
    bounds : dict, optional
        A private model's declared support (as in :func:`sample_rows`): a drawn fill outside is
        drawn again inside (``gen_sample_in_bounds``), any other fill outside is clipped.

    Returns
    -------
    list of list of (rows, cols, values)
        Per completed dataset, the filled cells of each block with a missing one
        (``cols`` are the input's column positions, ``values`` raw).
    """
    warn_empty_columns(post, "impute", who, encoded, stacklevel=stacklevel + 1)
    outs = []
    for _ in range(int(n_imputations)):
        r = rng if (strategy == "draw" and parameter_uncertainty) else None
        points, logw, rates = parameter_points(post, r), class_log_weights(post, r), length_rates(post, r)
        resp = state_posterior(post, encoded, points, logw, allowed=allowed, who=who, stacklevel=stacklevel + 2)
        z = _draw_index(resp, rng) if strategy == "draw" else None
        cells = []
        for b, p, e, rt in zip(post.blocks, points, encoded, rates):
            miss = b.family.gen_missing(e)
            if (miss.nnz if sp.issparse(miss) else miss.any()):
                how = b.family.default_fill if strategy == "auto" else strategy
                filled = b.family.gen_fill(p, e, resp, how, z, rng, rate=rt)
                cells.append(block_cells(b, _fill_in_bounds(b, p, filled, miss, z, rng, bounds), miss))
        outs.append(cells)
    return outs


def _fill_in_bounds(b, point, filled, miss, z, rng, bounds):
    """Block ``b``'s ``filled`` values with its missing cells outside a private model's declared ``bounds`` drawn
    again inside (``z``: the rows' drawn classes) or clipped (a mean or mode fill)."""
    cols = [(i, bounds[int(c)]) for i, c in enumerate(b.columns) if bounds and int(c) in bounds]
    if not cols or sp.issparse(filled) or sp.issparse(miss):
        return filled
    filled = np.array(filled, dtype=float)
    for i, (lo, hi) in cols:
        rows = np.flatnonzero(np.asarray(miss)[:, i] & b.family.gen_outside_bounds(filled[:, i], lo, hi))
        new = b.family.gen_sample_in_bounds(point, z[rows], rng, i, lo, hi, state=b.state) if (
            rows.size and z is not None) else None
        filled[rows, i] = np.clip(filled[rows, i] if new is None else new, lo, hi)
    return filled


def score_rows(post, encoded, *, predictive="mean", caches=None, plug_in=False):
    """``log p(x)`` of each row, missing cells marginalised, shape (n,).

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks of the rows.
    predictive : {"mean", "marginal"}, default="mean"
    caches : list, optional
        The estimator's prediction tables (speed only).
    plug_in : bool, default=False
        Score at the families' plug-in points (``gen_point``), as a latent-class model
        or an MCMC draw is used.
    """
    points = parameter_points(post) if plug_in else None
    rel, row = joint_log_likelihood_parts(post, encoded, predictive, caches, points=points)
    return log_marginal(rel) + row


def feature_contributions(post, encoded, n_columns, *, predictive="mean", caches=None, who="NaiveBayes",
                          stacklevel=2):
    """Per-feature contributions ``C[i, j] = sum_k p(k | x_i) log p(x_ij | k)`` to ``log p(x)``.

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks of the rows.
    n_columns : int
        Number of features.
    predictive : {"mean", "marginal"}, default="mean"
    caches : list, optional
        The estimator's prediction tables (speed only).
    who, stacklevel : str, int
        Estimator name for messages; where warnings point, as for :func:`warnings.warn`
        called here (default 2: the caller).

    Returns
    -------
    C : ndarray of shape (n, n_columns), or a CSR matrix when a block's contributions are sparse
    class_term : ndarray of shape (n,)
        ``sum_k p(k | x_i) (log p(y=k) - log p(k | x_i))``, so that
        ``log p(x_i) = C[i].sum() + class_term[i]``.
    """
    jll, _ = joint_log_likelihood_parts(post, encoded, predictive, caches)
    resp = np.exp(normalise(jll, post.class_log_prior, who, stacklevel=stacklevel + 2))
    n = resp.shape[0]
    parts = [(b.columns, b.family.gen_cell_log_lik(b.prior, b.posterior, e, resp, predictive))
             for b, e in zip(post.blocks, encoded)]
    if any(sp.issparse(c) for _, c in parts):  # assembled from the stored cells, never densified
        coo = [sp.coo_matrix(c) for _, c in parts]
        out = sp.csr_matrix((np.concatenate([m.data for m in coo]),
                             (np.concatenate([m.row for m in coo]),
                              np.concatenate([np.asarray(cols)[m.col] for (cols, _), m in zip(parts, coo)]))),
                            shape=(n, n_columns))
    else:
        out = np.zeros((n, n_columns))
        for cols, c in parts:
            out[:, cols] = c
    return out, contribution_class_term(resp, post.class_log_prior)


def contribution_class_term(resp, class_log_prior):
    """``sum_k p(k | x_i) (log p(y=k) - log p(k | x_i))`` per row, shape (n,).

    What ``log p(x_i)`` adds to the features' contributions ``sum_k p(k | x_i) log p(x_ij | ...)``
    (:func:`feature_contributions`, and under a structure each node's term).

    Parameters
    ----------
    resp : ndarray of shape (n, K)
        ``p(y=k | x_i)``.
    class_log_prior : ndarray of shape (K,)
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        lr = np.where(resp > 0, np.log(np.where(resp > 0, resp, 1.0)), 0.0)
        return np.where(resp > 0, resp * (class_log_prior[None, :] - lr), 0.0).sum(1)
