"""Conditional sampling as functions of an :class:`~bayesnb.NBPosterior`: rows from ``p(x_rest, y | x_given)``.

The estimator-facing side (reading ``given``, building the partial table, encoding it
and writing the given values back) is :mod:`bayesnb.generative.tables`; the method is
:meth:`~bayesnb.generative.GenerativeMixin.sample` (``given=``).

Under one set of parameters (one exact posterior draw shared by the rows of a call, or
the plug-in) each row's state (class, or latent state) is drawn from
``p(state | x_given) ∝ p(state) p(x_given | state)``: the engine's joint log-likelihood
of the partial row, missing cells marginalised (:func:`~bayesnb.inference.nb_posterior.joint_log_likelihood_parts`),
normalised (:func:`~bayesnb.inference.nb_posterior.normalise`). Every feature is then drawn from its
state-conditional distribution (:func:`~bayesnb.generative.functions.sample_rows`, with
the same parameters), and the caller puts the given values back in their cells.

- :func:`~bayesnb.generative.functions.state_posterior` -- ``p(state | x_given)`` per row under given parameters
- :func:`check_joint_blocks` -- a block whose columns are one joint draw is given whole or not at all
- :func:`check_known_values` -- a given value must be one the model can draw
- :func:`sample_given` -- the conditional draw
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..families.numeric import draw_categories
from .functions import class_log_weights, length_rates, parameter_points, sample_rows, state_posterior

__all__ = ["check_joint_blocks", "check_known_values", "sample_given"]


def check_joint_blocks(post, encoded, who="NaiveBayes"):
    """Raise a ``ValueError`` where a row gives part of a block whose columns are one joint draw.

    A family with ``joint_columns`` (e.g. a multinomial block: the counts of a row are
    one draw of its length) cannot be drawn given some of its cells; conditioning on all
    of them is fine (the block then only informs the state).
    """
    for b, e in zip(post.blocks, encoded):
        if not b.family.joint_columns:
            continue
        miss = b.family.gen_missing(e)
        count = (np.asarray(miss.getnnz(axis=1)) if sp.issparse(miss)
                 else np.asarray(miss, dtype=bool).sum(axis=1))
        part = (count > 0) & (count < miss.shape[1])
        if part.any():
            rows = np.flatnonzero(part)
            shown = ", ".join(map(str, rows[:5])) + (", ..." if rows.size > 5 else "")
            raise ValueError(
                f"{who}: given holds only part of the {b.family.name} block {list(b.names)} in "
                f"{rows.size} row(s) (index {shown}): its columns are one joint draw, so all or none "
                "of them must be given (a missing value in one of them counts as not given)."
            )


def check_known_values(post, encoded, given, who="NaiveBayes"):
    """Raise a ``ValueError`` for a given value that the model has no value for.

    Prediction scores a category never seen in training (and not declared) as a
    zero-count one, but a row cannot be drawn with it: for a family with ``raw_values``
    (its encoded cells are codes, ``gen_decode`` gives None for a code with no value) a
    given cell that decodes to None is an error naming the column, the value and the
    known values.

    Parameters
    ----------
    post : NBPosterior
    encoded : list
        Encoded blocks of the partial rows.
    given : dict of int to ndarray
        The given raw values of each conditioned column (position in the input), one per
        row (missing where not conditioned).
    who : str
        Estimator name for messages.
    """
    for b, e in zip(post.blocks, encoded):
        if not b.family.raw_values:
            continue
        known = b.family.value_columns(b.state) or [(None, None)] * len(b.columns)
        for c, col, (values, _) in zip(b.columns, b.family.gen_decode(e, b.state), known):
            if int(c) not in given:
                continue
            raw = given[int(c)]
            bad = ~np.asarray(b.family.gen_missing(e)[:, list(b.columns).index(c)], dtype=bool) & np.fromiter(
                (v is None for v in col), dtype=bool, count=len(col))
            if bad.any():
                shown = "" if values is None else f"; its values are {list(values)}"
                raise ValueError(
                    f"{who}: given value {raw[np.flatnonzero(bad)[0]]!r} of column "
                    f"{b.names[list(b.columns).index(c)]!r} is not a value of the model (never seen in "
                    f"training and not declared), so no row can be drawn with it{shown}.")


def sample_given(post, encoded, n_columns, *, rng, allowed=None, parameter_uncertainty=True, length=None,
                 who="NaiveBayes", stacklevel=2, bounds=None):
    """Draw every feature of each row given its observed cells: ``p(x, state | x_given)``.

    Parameters
    ----------
    post : NBPosterior
        Of the classes, or of the (class, component) states of a latent-class model.
    encoded : list
        Encoded blocks of the partial rows: the given cells observed, the others missing.
    n_columns : int
        Number of features.
    rng : numpy.random.Generator
    allowed : ndarray of bool, shape (n, S), optional
        States each row may take (its given class's).
    parameter_uncertainty : bool, default=True
        One exact draw of every parameter, shared by the rows (the states and the
        features use it); False: the plug-in.
    length : int or array-like of int, optional
        Row totals of blocks with a length model (blocks not given).
    who, stacklevel : str, int
        Estimator name for messages; where warnings point (default 2: the caller).
    bounds : dict, optional
        A private model's declared support, as in :func:`~bayesnb.generative.functions.sample_rows`.

    Returns
    -------
    columns : list of array-like
        One raw column per feature, every cell drawn (the caller writes the given cells).
    z : ndarray of int, shape (n,)
        State index of each row.
    resp : ndarray of shape (n, S)
        ``p(state | x_given)`` the states were drawn from.
    """
    check_joint_blocks(post, encoded, who)
    r = rng if parameter_uncertainty else None
    params = parameter_points(post, r), class_log_weights(post, r), length_rates(post, r)
    resp = state_posterior(post, encoded, params[0], params[1], allowed=allowed, who=who,
                           stacklevel=stacklevel + 1)
    n = resp.shape[0]
    z = draw_categories(resp, rng.random(n)) if n else np.zeros(0, dtype=np.int64)
    columns, z = sample_rows(post, n, n_columns, rng=rng, z=z, length=length, who=who,
                             stacklevel=stacklevel + 1, params=params, bounds=bounds)
    return columns, z, resp
