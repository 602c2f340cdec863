"""Pooling latent-class fits from several EM starts into one mixture (the imputer's latent configuration).

EM for a mixture stops at a local mode, and which one depends on its random start. Keeping the start with
the best objective keeps one mode; on a table like UCI mushroom the imputations of the same count's starts
differ by a point of accuracy from start to start. :func:`pool_fits` keeps them all: each start's components
become components of one latent-class model, every start weighted equally. It is still a latent-class model
(a mixture of naive components per class), so everything that reads one (imputation, draws,
``score_samples(latent=)``, the model file) reads it unchanged.
"""

from __future__ import annotations

import numpy as np

from .em import LatentClassFit
from .nb_posterior import class_posterior, index_params

__all__ = ["best_or_pooled", "first_start", "pool_fits", "poolable"]


def poolable(fit):
    """Whether ``fit`` is of a kind :func:`pool_fits` pools: naive (no structure), from EM (not an MCMC draw),
    with Dirichlet(1) state weights (``component_prior="class"``)."""
    return fit.structure is None and not fit.point and bool(np.all(fit.posterior.class_prior_alpha == 1.0))


def _search_selection(fits):
    """The count search's scores: the first ``selection`` among ``fits`` that is not None."""
    return next((f.selection for f in fits if f.selection is not None), None)


def _states(post, idx):
    """``post`` with the states ``idx`` (in that order): their blocks' rows, their counts, and the Dirichlet(1)
    state weights' posterior of those counts (:func:`~bayesnb.inference.nb_posterior.class_posterior`)."""
    blocks = tuple(b._replace(**{f: index_params(getattr(b, f), idx) for f in ("stats", "prior", "posterior")})
                   for b in post.blocks)
    count = np.asarray(post.class_count)[idx]
    alpha, concentration, log_prior, fixed = class_posterior(count, 1.0)
    return post._replace(classes=np.arange(idx.size), class_count=count, class_prior_alpha=alpha,
                         class_concentration=concentration, class_log_prior=log_prior, fixed_class_prior=fixed,
                         blocks=blocks)


def _stack(values):
    """The fields of parameter NamedTuples (or tuples of them) stacked along their first (state) axis."""
    first = values[0]
    if first is None:
        return None
    if isinstance(first, tuple) and not hasattr(first, "_fields"):
        return tuple(_stack([v[i] for v in values]) for i in range(len(first)))
    if hasattr(first, "_fields"):
        return type(first)(*(_stack([getattr(v, f) for v in values]) for f in first._fields))
    return np.concatenate([np.asarray(v) for v in values], axis=0)


def pool_fits(fits):
    """One latent-class model from naive latent-class fits of the same count, each weighted equally.

    Component ``c`` of class ``k`` in start ``r`` becomes component ``r * C + c`` of class ``k`` (``C`` the
    fits' count), with the start's statistics and parameters' posterior. The states keep their counts
    and their Dirichlet(1) prior, so a state's posterior-mean weight, ``(1 + count) / sum(1 + counts)``, is
    its start's weight divided by the number of starts (each start's ``1 + count`` sums to the same
    ``S + n``). So the pooled ``p(x)`` is the mean of the starts' ``p(x)`` (and ``p(x | y)`` the mean of
    theirs when the EM used the labels), and a cell's predictive given the rest of its row is the starts'
    predictives averaged with weights proportional to each start's ``p(x_observed)``. The Dirichlet over
    the states then holds every row once per start: a draw of the weights (``parameter_uncertainty``)
    varies less than one start's would, and each component's parameters vary as in its start.

    Parameters
    ----------
    fits : sequence of LatentClassFit
        Naive (``structure is None``), from EM (not an MCMC draw), with the same ``n_components``
        and states and Dirichlet(1) state weights (``component_prior="class"``), fitted from the same
        estimator.

    Returns
    -------
    LatentClassFit
        ``n_components = len(fits) * C``, ``starts = len(fits)``, the starts in order of their final
        objective (the best first, :func:`first_start`); ``em_objective`` is the best's, ``selection`` the
        first non-None among the fits' (the count search's).
    """
    fits = list(fits)
    if not fits:
        raise ValueError("pool_fits: expected at least one fit; received none.")
    if len(fits) == 1:
        return fits[0]
    C, S = fits[0].n_components, len(fits[0].group)
    if any(f.starts != 1 or not poolable(f) for f in fits):
        raise ValueError("pool_fits: expected naive latent-class fits of one EM start each with Dirichlet(1) state "
                         "weights (no structure, not an MCMC draw, not already pooled, component_prior='class').")
    if any(f.n_components != C or not np.array_equal(f.group, fits[0].group) for f in fits):
        raise ValueError(f"pool_fits: expected fits of one count and one set of states; received counts "
                         f"{[f.n_components for f in fits]}.")
    R, K = len(fits), S // C
    fits = sorted(fits, key=lambda f: -f.em_objective[-1] if len(f.em_objective) else np.inf)  # the best first
    # stacked state r * S + k * C + c -> class k's component r * C + c
    order = np.array([r * S + k * C + c for k in range(K) for r in range(R) for c in range(C)])
    posts = [f.posterior for f in fits]
    stacked = posts[0]._replace(  # every start's states one after the other, then put in class order
        class_count=np.concatenate([p.class_count for p in posts]),
        blocks=tuple(first._replace(**{field: _stack([getattr(p.blocks[b], field) for p in posts])
                                       for field in ("stats", "prior", "posterior")})
                     for b, first in enumerate(posts[0].blocks)))
    return LatentClassFit(_states(stacked, order), np.repeat(np.arange(K), R * C), R * C,
                          list(fits[0].em_objective), _search_selection(fits), starts=R)


def best_or_pooled(fits):
    """Single-start fits of one count from one estimator as one fit: :func:`pool_fits` when they pool (two or
    more, :func:`poolable`), else the one with the best final objective, with the count search's ``selection``.

    Parameters
    ----------
    fits : sequence of LatentClassFit

    Returns
    -------
    LatentClassFit
    """
    fits = list(fits)
    if len(fits) > 1 and all(f.starts == 1 and poolable(f) for f in fits):
        return pool_fits(fits)
    best = max(fits, key=lambda f: f.em_objective[-1] if len(f.em_objective) else -np.inf)
    return best._replace(selection=_search_selection(fits))


def first_start(fit):
    """The best start of a pooled fit (:func:`pool_fits`), exactly as it was fitted; ``fit`` itself if not pooled.

    Draws of the parameters (multiple imputation) come from it: each start's components hold every row, so
    averaging several starts' independent draws would shrink the parameters' spread, as if the rows had
    been seen once per start (on the coverage benchmark the pooled fit's 95% intervals covered 0.925 of
    one coefficient, against 0.935 from the best start).

    Parameters
    ----------
    fit : LatentClassFit

    Returns
    -------
    LatentClassFit
        One start's ``n_components // starts`` components per class, with its own counts and weights.
    """
    if fit.starts == 1:
        return fit
    R, C = fit.starts, fit.n_components // fit.starts
    K = len(fit.group) // fit.n_components
    keep = np.array([k * R * C + c for k in range(K) for c in range(C)])
    return fit._replace(posterior=_states(fit.posterior, keep), group=np.repeat(np.arange(K), C), n_components=C,
                        starts=1)
