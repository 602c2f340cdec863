"""Conjugate updating: sufficient statistics of weighted rows -> the exact posterior.

Fitting is counting: each block's family turns its encoded rows, weighted by ``resp``
(one-hot labels times sample weights, or EM responsibilities), into sufficient statistics;
statistics of disjoint batches merge by addition (``partial_fit``, and a tree reduction
over partitions); the posterior is the prior updated by the merged statistics
(:func:`bayesnb.inference.nb_posterior.build`).
"""

from __future__ import annotations

import numpy as np

from .._utils import class_totals
from .nb_posterior import NBPosterior, build
from .private_stats import private_statistics

__all__ = ["fit_block", "fit_posterior", "posterior_from_stats"]


def fit_block(fam, X, resp, who="NaiveBayes"):
    """One block fitted alone: encode, statistics, prior (``"auto"`` resolved), posterior.

    Parameters
    ----------
    fam : Family
        A fresh family instance.
    X : array-like of shape (n, d)
        The block's raw columns.
    resp : ndarray of shape (n, K)
        Row weights per context (one-hot labels times sample weights).
    who : str
        The caller's name, for messages.

    Returns
    -------
    block, state, stats, prior, post
    """
    block, state = fam.encode(X, who=who)
    stats = fam.stats(block, resp, state)
    prior = fam.make_prior(stats, state)
    return block, state, stats, prior, fam.update(prior, stats)


def fit_posterior(classes, resp, specs, encoded, states, names, class_alpha, fit_prior, class_prior, *,
                  previous: NBPosterior | None = None, who: str = "NaiveBayes", privacy=None,
                  all_names=None):
    """The exact posterior of weighted rows (and of ``previous``'s batches).

    Parameters
    ----------
    classes : ndarray of shape (K,)
    resp : ndarray of shape (n, K)
        Row weights per class: one-hot labels times sample weights, or EM responsibilities.
    specs : list of (columns, Family)
        The blocks, in order.
    encoded, states : list
        Each block's encoded rows and encoding state (from its family's ``encode``).
    previous : NBPosterior, optional
        A posterior of earlier batches; its statistics are moved onto ``states`` (an
        encoding a batch extended, e.g. new categories) and added.
    names : list
        Each block's column names (for messages and output).
    class_alpha, fit_prior, class_prior
        The class prior (see :func:`bayesnb.inference.nb_posterior.class_posterior`).
    who : str
        Name used in error messages.
    privacy : bayesnb.DP, optional
        Release the class counts and statistics under differential privacy
        (:func:`bayesnb.inference.private_stats.private_statistics`; ``previous`` must be None).
    all_names : ndarray of str, optional
        The column names of X (``privacy``'s bounds may name columns).

    Returns
    -------
    NBPosterior or (NBPosterior, dict)
        With ``privacy``, the posterior and the account of the budget spent.
    """
    if privacy is not None:
        class_count, stats, spent = private_statistics(privacy, resp, specs, encoded, states, names, all_names, who)
        return posterior_from_stats(classes, class_count, specs, states, stats, names, class_alpha, fit_prior,
                                    class_prior, who=who), spent
    stats = [fam.stats(encoded[i], resp, states[i]) for i, (_, fam) in enumerate(specs)]
    return posterior_from_stats(classes, class_totals(resp), specs, states, stats, names, class_alpha, fit_prior,
                                class_prior, previous=previous, who=who)


def posterior_from_stats(classes, class_count, specs, states, stats, names, class_alpha, fit_prior, class_prior, *,
                         previous: NBPosterior | None = None, who: str = "NaiveBayes") -> NBPosterior:
    """The exact posterior of summed statistics (and of ``previous``'s batches).

    The statistics of any split of the rows, added with each family's ``merge`` (a tree
    reduction over Dask partitions), give the posterior of all the rows.

    Parameters
    ----------
    classes : ndarray of shape (K,)
    class_count : ndarray of shape (K,)
        Summed row weights per class.
    specs : list of (columns, Family)
    states : list
        Each block's encoding state.
    stats : list
        Each block's sufficient statistics, in ``states``' encoding.
    names, class_alpha, fit_prior, class_prior, previous, who
        As in :func:`fit_posterior`.

    Returns
    -------
    NBPosterior
    """
    if previous is not None:
        stats = [fam.merge(fam.reindex_stats(prev.stats, prev.state, st), s)
                 for (_, fam), prev, st, s in zip(specs, previous.blocks, states, stats)]
        class_count = class_count + previous.class_count
    blocks = [(fam, cols, nm, st, s, who) for (cols, fam), nm, st, s in zip(specs, names, states, stats)]
    return build(np.asarray(classes), class_count, class_alpha, fit_prior, class_prior, blocks)
