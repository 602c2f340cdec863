"""Constrained sampling: rows from ``p(y, x | condition)`` with sets, ranges and forbidden combinations.

The condition (:mod:`bayesnb.generative.conditions`) is the cells given as values, and a disjoint
union of pieces, each one set (categorical column) or one inclusive range (numeric column) per
constrained column. Under one set of parameters (the call's exact posterior draw, or the plug-in)
the naive model's evidence of a piece in state ``k`` is a product over its columns:

- a set: ``sum_(v in set) p(x_j = v | k)`` (the family's log-likelihood of each value, as a given
  value is scored);
- a range: ``P(lo <= x_j <= hi | k)``, the family's ``gen_log_mass_between``.

Each row's (piece, state) pair is drawn from ``p(k) p(x_given | k) p(piece | k)`` normalised, the
free cells from ``p(x | k)`` (:func:`~bayesnb.generative.functions.sample_rows`) and each constrained
cell from its law in state ``k`` renormalised on the set, or truncated to the range (the family's
``gen_sample_between``): exact, and no rejection. Under a structure (TAN, k-DB) the same
conditions run through :mod:`bayesnb.structure.constrained_draws` (message passing).

The probability of the condition that ``sample(..., return_probability=True)`` returns is
``p(condition)`` (``p(condition | y)`` with ``y``) under the **posterior predictive** of one new row:
the class weights' posterior mean and every family's exact predictive (``"marginal"``: Student-t,
negative binomial, Dirichlet mean), summed over the pieces. It does not depend on the call's
parameter draw. A numeric cell given as a value enters through its predictive density, so the
result is then a density in those cells.

- :func:`parse_conditions` -- the estimator's request: rows, classes, encoded values, pieces
- :func:`draw_naive` -- the draw under the naive model
- :func:`log_probability_naive` -- ``log p(condition)`` under the naive posterior predictive
- :func:`constrained_sample` -- ``sample(given=..., forbid=...)`` of a naive estimator
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from ..io import dask_data as _dask
from .._utils import ZeroProbabilityCondition
from ..families.numeric import draw_categories
from ..inference.em import allowed_states
from ..inference.nb_posterior import joint_log_likelihood_parts
from .conditional import check_joint_blocks, check_known_values
from .conditions import class_set, column_domains, expand_pieces, same_value, split_given
from .method_checks import declared_bounds, sample_request
from .functions import class_log_weights, length_rates, parameter_points, range_in_bounds, sample_rows
from .given import encode_given, write_given
from .tables import assemble_table

__all__ = ["ConditionRequest", "constrained_sample", "draw_naive", "log_probability_naive", "parse_conditions",
           "zero_probability"]


class ConditionRequest(NamedTuple):
    """A parsed ``sample(given=..., forbid=...)`` request.

    Attributes
    ----------
    n : int
        Number of rows.
    z : ndarray of int of shape (n,) or None
        Class codes of ``y``.
    values : dict of int to Series
        The cells given as values (one per row; missing: not given).
    encoded : list
        The encoded blocks of the rows with those cells (others missing); of the first row alone
        when every row has the same condition.
    one : list or None
        ``encoded`` when every row has the same condition (then one row), else None.
    pieces : list of dict
        Disjoint pieces ``{column position: ("set", codes) | ("range", lo, hi)}``.
    set_encoded : (list, dict of int to slice) or None
        The encoded rows of every value of each column with a set constraint (code order), and
        each column's rows; None without set constraints (or when not asked for).
    domains : dict
        :func:`~bayesnb.generative.conditions.column_domains`.
    """

    n: int
    z: object
    values: dict
    encoded: list
    one: object
    pieces: list
    set_encoded: dict
    domains: dict


def zero_probability(who):
    """The error (a ``ValueError``) of a condition that no row can meet."""
    return ZeroProbabilityCondition(f"{who}: the condition (given= and forbid=) has probability 0 under the model, so no row "
                      "can be drawn that meets it.")


def parse_conditions(est, n_samples, y, given, forbid, value_tables=True):
    """Read ``given`` and ``forbid`` for estimator ``est``: a :class:`ConditionRequest`.

    ``value_tables``: encode every value of each set-constrained column (the naive engine
    scores them; the structure engine reads its categorical nodes' tables instead).

    Raises a ``ValueError``/``TypeError`` naming the column for a malformed condition, and the
    :func:`zero_probability` error when the conditions leave nothing (a forbidden combination that
    every given row meets).
    """
    post, who = est.posterior_, est._who
    d, names = int(est.n_features_in_), getattr(est, "feature_names_in_", None)
    domains = column_domains(post)
    plain, constraints, labels = split_given(given, domains, names, d, who)
    n, z, values, vlabels = sample_request(est.classes_, n_samples, y, plain, d, names, who)
    values = values or {}
    scalar = {}
    for j, v in values.items():
        raw = v.to_numpy(dtype=object)
        if len(raw) and not pd.isna(raw[0]) and all(u is raw[0] or same_value(u, raw[0]) for u in raw):
            scalar[j] = raw[0]
    pieces = expand_pieces(constraints, forbid, scalar, set(values) - set(scalar), domains, names, d, who)
    if not pieces:
        raise zero_probability(who)
    same = len(scalar) == len(values) and (z is None or np.unique(z).size <= 1)
    one = None
    if same and n:
        one = (_blank_row(est, names, d, who) if not values else
               encode_given(est._gen_encode, {j: v.iloc[:1] for j, v in values.items()}, vlabels, 1, names, d, who))
    # the rows themselves only when they differ (one condition: the engines use the first row's)
    encoded = one if one is not None else encode_given(est._gen_encode, values, vlabels, n, names, d, who)
    check_known_values(post, encoded, {j: v.to_numpy(dtype=object)[:1 if one is not None else n]
                                       for j, v in values.items()}, who)
    set_encoded = None
    cols = sorted({c for p in pieces for c, k in p.items() if k[0] == "set"})
    if value_tables and cols:  # every value of each set column, in one table: column c's rows hold its values
        sizes = [len(domains[c][2]) for c in cols]
        start = np.concatenate([[0], np.cumsum(sizes)])
        table = {c: pd.Series([None] * int(start[i]) + list(domains[c][2]) + [None] * int(start[-1] - start[i + 1]),
                              dtype=object) for i, c in enumerate(cols)}
        set_encoded = (encode_given(est._gen_encode, table, {c: labels.get(c, c) for c in cols}, int(start[-1]),
                                    names, d, who), {c: slice(start[i], start[i + 1]) for i, c in enumerate(cols)})
    return ConditionRequest(n, z, values, encoded, one, pieces, set_encoded, domains)


#: the encoded row with every cell missing, per fitted posterior (its identity checked): (posterior, blocks)
_BLANK = {}


def _blank_row(est, names, d, who):
    """One encoded row with every cell missing (a condition without values), encoded once per fit."""
    post = est.posterior_
    hit = _BLANK.get(id(post))
    if hit is None or hit[0] is not post:
        if len(_BLANK) >= 8:
            _BLANK.clear()
        hit = _BLANK[id(post)] = (post, encode_given(est._gen_encode, {}, {}, 1, names, d, who))
    return hit[1]


def _value_tables(post, set_encoded, points, predictive):
    """Per set-constrained column, ``log p(x_j = v | state)`` of each of its values, (V, S)."""
    if set_encoded is None:
        return {}
    enc, rows = set_encoded
    rel, row = joint_log_likelihood_parts(post, enc, predictive, points=points,
                                          class_log_weights=np.zeros(len(post.classes)))
    return {c: (rel + row[:, None])[r] for c, r in rows.items()}


def _piece_mass(post, piece, tables, points, domains, predictive, who):
    """``log p(piece | state)``, (S,): the product over the piece's columns (see the module docstring)."""
    total = np.zeros(len(post.classes))
    for c, cons in piece.items():
        if cons[0] == "set":
            total = total + logsumexp(tables[c][np.asarray(cons[1], dtype=np.int64)], axis=0)
            continue
        b, i = domains[c][:2]
        blk = post.blocks[b]
        params = blk.posterior if points is None else points[b]
        try:
            total = total + blk.family.gen_log_mass_between(blk.prior, params, blk.state, i, cons[1], cons[2],
                                                            predictive)
        except NotImplementedError as e:
            raise ValueError(f"{who}: column {blk.names[i]!r}: {e}") from None
    return total


def log_probability_naive(post, encoded, pieces, set_encoded, domains, *, allowed=None, predictive="marginal",
                          who="NaiveBayes"):
    """``log p(condition)`` of each row under the naive posterior predictive, shape (n,).

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks of the rows (the cells given as values).
    pieces, set_encoded, domains
        As in :class:`ConditionRequest`.
    allowed : ndarray of bool of shape (n, S), optional
        The states a row may take (its ``y``): the result is then ``p(condition | y)``.
    predictive : {"marginal", "mean"}, default="marginal"
        ``"marginal"``: the exact posterior predictive; ``"mean"``: the plug-in (a parameter point).
    who : str

    Returns
    -------
    ndarray of shape (n,)
    """
    rel, row = joint_log_likelihood_parts(post, encoded, predictive, allowed=allowed)
    tables = _value_tables(post, set_encoded, None, predictive)
    LQ = np.stack([_piece_mass(post, q, tables, None, domains, predictive, who) for q in pieces])
    out = logsumexp((rel + row[:, None])[:, None, :] + LQ[None], axis=(1, 2))
    if allowed is not None:
        out = out - logsumexp(np.where(allowed, post.class_log_prior[None, :], -np.inf), axis=1)
    return out


def draw_naive(post, encoded, pieces, set_encoded, domains, n_columns, *, rng, allowed=None,
               parameter_uncertainty=True, length=None, who="NaiveBayes", stacklevel=2, n_rows=None, bounds=None):
    """Draw each row's state and every cell from ``p(state, x | condition)`` under one set of parameters.

    Parameters
    ----------
    post : NBPosterior
        Of the classes, or of a latent-class model's (class, component) states.
    encoded, pieces, set_encoded, domains
        As in :class:`ConditionRequest`.
    n_columns : int
    rng : numpy.random.Generator
    allowed : ndarray of bool of shape (n, S), optional
    parameter_uncertainty : bool, default=True
        One exact posterior draw shared by the rows; False: the plug-in.
    length : int or array-like, optional
        Row totals of blocks with a length model.
    who, stacklevel : str, int
    n_rows : int, optional
        With ``encoded`` (and ``allowed``) of one row: draw ``n_rows`` rows under its condition.
    bounds : dict, optional
        A private model's declared support (:func:`~bayesnb.generative.functions.sample_rows`): free
        and range cells alike are drawn inside it.

    Returns
    -------
    columns : list
        One raw column per feature (the given values not yet written in).
    z : ndarray of int of shape (n,)
    drawn : dict of int to Series
        The constrained cells' values (None where a row's piece leaves the column free).
    """
    check_joint_blocks(post, encoded, who)
    r = rng if parameter_uncertainty else None
    params = parameter_points(post, r), class_log_weights(post, r), length_rates(post, r)
    points = params[0]
    rel, row = joint_log_likelihood_parts(post, encoded, points=points, class_log_weights=params[1], allowed=allowed)
    tables = _value_tables(post, set_encoded, points, "mean")
    LQ = np.stack([_piece_mass(post, q, tables, points, domains, "mean", who) for q in pieces])  # (Q, S)
    S = rel.shape[1]
    W = ((rel + row[:, None])[:, None, :] + LQ[None]).reshape(rel.shape[0], -1)
    lognorm = logsumexp(W, axis=1)
    if not np.all(np.isfinite(lognorm)):
        raise zero_probability(who)
    n = rel.shape[0] if n_rows is None else int(n_rows)
    P = np.exp(W - lognorm[:, None])
    piece_of, z = np.divmod(draw_categories(np.broadcast_to(P, (n, P.shape[1])), rng.random(n)), S)
    columns, z = sample_rows(post, n, n_columns, rng=rng, z=z, length=length, who=who, stacklevel=stacklevel + 1,
                             params=params, bounds=bounds)
    drawn = {}
    for q, piece in enumerate(pieces):
        rows = np.flatnonzero(piece_of == q)
        for c, cons in piece.items():
            cell = drawn.setdefault(c, np.full(n, None, dtype=object))
            if rows.size == 0:
                continue
            if cons[0] == "set":
                codes = np.asarray(cons[1], dtype=np.int64)
                T = tables[c][codes][:, z[rows]].T  # (m, |set|)
                pick = draw_categories(np.exp(T - logsumexp(T, axis=1, keepdims=True)), rng.random(rows.size))
                cell[rows] = domains[c][2][codes[pick]]
                continue
            b, i = domains[c][:2]
            blk = post.blocks[b]
            cell[rows] = range_in_bounds(blk.family, points[b], z[rows], rng, i, cons[1], cons[2],
                                         (bounds or {}).get(c), blk.state, blk.names[i], who)
    return columns, z, {c: pd.Series(v, dtype=object) for c, v in drawn.items()}


def constrained_sample(est, n_samples, y, given, forbid, rng, *, length=None, latent=None, parameter_uncertainty=True,
                       return_probability=False):
    """``sample(given=..., forbid=...)`` of a naive estimator (see :meth:`~bayesnb.generative.GenerativeMixin.sample`).

    Returns ``(X, y)``, or ``(X, y, p)`` with ``return_probability``: ``p`` a float when every row has
    the same condition, else one per row (ndarray of shape (n,)).
    """
    post, group, point = est._gen_model(latent)
    who = est._who
    if _dask.is_dask(given):
        raise TypeError(f"{who}: forbid= and return_probability= need given as a dict or a pandas DataFrame; a dask "
                        "given is sampled partition by partition, without them.")
    y, classes = class_set(est.classes_, y, who)
    req = parse_conditions(est, n_samples, y, given, forbid)
    one = req.one is not None
    allowed = (np.isin(group, np.flatnonzero(classes))[None, :] if classes is not None else
               None if req.z is None else allowed_states(group, req.z[:1] if one else req.z))
    columns, z, drawn = draw_naive(post, req.encoded, req.pieces, req.set_encoded, req.domains,
                                   int(est.n_features_in_), rng=rng, allowed=allowed,
                                   parameter_uncertainty=parameter_uncertainty and not point, length=length,
                                   who=who, stacklevel=4, n_rows=req.n if one else None, bounds=declared_bounds(est))
    columns = write_given(write_given(columns, drawn), req.values)
    X = assemble_table(post, columns, z.shape[0], getattr(est, "feature_names_in_", None),
                       getattr(est, "feature_dtypes_", None), sparse=getattr(est, "_fitted_sparse", False))
    out = (X, est.classes_[group[z]])
    if not return_probability:
        return out
    # p(condition) (p(condition | y) for the rows' allowed states) under the posterior predictive
    logp = log_probability_naive(post, req.encoded, req.pieces, req.set_encoded, req.domains, allowed=allowed,
                                 predictive="mean" if point else "marginal", who=who)
    return (*out, finish_probability(logp, req, who))


def finish_probability(logp, req, who):
    """``exp(logp)`` as a float (one condition for every row) or an array; refuse a probability of 0."""
    if logp.size and not np.all(np.isfinite(logp)):
        raise zero_probability(who)
    p = np.exp(logp)
    return float(p[0]) if req.one is not None else p
