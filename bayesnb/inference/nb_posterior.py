"""The Naive Bayes posterior and the pure functions that use it.

``NBPosterior`` holds the class-proportion posterior and one ``BlockPosterior`` per
feature block. The functions here combine the blocks; every distribution-specific
computation is delegated to the block's family module:

- :func:`build` -- sufficient statistics -> conjugate posterior (smoothing = prior + counts)
- :func:`joint_log_likelihood` -- ``log p(x, y=k)`` per row and class
- :func:`normalise` -- ``log p(y=k | x)`` with logsumexp, never NaN
- :func:`log_marginal` -- ``log p(x)``, the logsumexp over classes of the joint
- :func:`log_evidence` -- ``log p(X, y)`` of the training data in closed form
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln, logsumexp

from .._utils import ZeroProbabilityWarning, all_finite

__all__ = ["BlockPosterior", "NBPosterior", "block_posterior", "build", "class_posterior", "joint_log_likelihood",
           "joint_log_likelihood_parts", "log_evidence", "log_marginal", "normalise"]


class BlockPosterior(NamedTuple):
    """Posterior of one feature block.

    Attributes
    ----------
    family : Family
        The block's family (hyperparameters).
    columns : ndarray of int, shape (d_block,)
        Positions of the block's columns in the input table.
    names : sequence of str
        Names of those columns (``"x0"``... for arrays without names).
    state : object
        The family's encoding state (e.g. category lists, or the number of columns).
    stats : NamedTuple
        Accumulated sufficient statistics (class-major, shapes in the family module).
    prior : NamedTuple
        Prior parameters (resolved: no "auto" left), broadcast to (K, ...).
    posterior : NamedTuple
        Posterior parameters, same type as ``prior``.
    """

    family: object
    columns: np.ndarray
    names: tuple
    state: object
    stats: object
    prior: object
    posterior: object


class NBPosterior(NamedTuple):
    """The full Naive Bayes posterior.

    Attributes
    ----------
    classes : ndarray of shape (K,)
        Class labels.
    class_count : ndarray of shape (K,)
        Weighted number of training rows per class.
    class_prior_alpha : ndarray of shape (K,)
        Dirichlet prior of the class proportions.
    class_concentration : ndarray of shape (K,)
        Dirichlet posterior of the class proportions (``class_prior_alpha + class_count``).
    class_log_prior : ndarray of shape (K,)
        ``log p(y=k)`` used for prediction: the posterior mean of the proportions, or the
        fixed ``class_prior`` / uniform prior when the proportions are not learned.
    fixed_class_prior : bool
        True when ``class_log_prior`` is given (``class_prior=`` or ``fit_prior=False``).
    blocks : tuple of BlockPosterior
    """

    classes: np.ndarray
    class_count: np.ndarray
    class_prior_alpha: np.ndarray
    class_concentration: np.ndarray
    class_log_prior: np.ndarray
    fixed_class_prior: bool
    blocks: tuple


def index_params(params, idx):
    """Take rows ``idx`` of every (K, ...) array of a parameter NamedTuple (tuples too).

    Parameters
    ----------
    params : NamedTuple
        A family's parameters or statistics; every field an array of shape (K, ...), a
        tuple of them, or None.
    idx : array-like of int
        Rows to take (a class per new row; repeats allowed).

    Returns
    -------
    NamedTuple
        Of the same type, with copies of the selected rows.
    """
    def take(f):  # None: an optional field left empty (e.g. Multinomial's pending counts)
        if f is None or isinstance(f, tuple):
            return None if f is None else tuple(map(take, f))
        return np.asarray(f)[idx].copy()

    return type(params)(*map(take, params))


def class_posterior(class_count, class_alpha, fit_prior=True, class_prior=None):
    """Dirichlet posterior of the class proportions and the log prior used to predict.

    Parameters
    ----------
    class_count : ndarray of shape (K,)
    class_alpha : float or ndarray of shape (K,)
        Dirichlet pseudo-counts (0 gives scikit-learn's ``class_count / n``).
    fit_prior : bool
        Learn the proportions; if False use a uniform prior (scikit-learn).
    class_prior : ndarray of shape (K,) or None
        Fixed class probabilities (override ``fit_prior``).

    Returns
    -------
    alpha, concentration, log_prior, fixed : ndarray, ndarray, ndarray, bool
    """
    K = class_count.shape[0]
    alpha = np.broadcast_to(np.asarray(class_alpha, dtype=float), (K,)).copy()
    conc = alpha + class_count
    if class_prior is not None:
        with np.errstate(divide="ignore"):
            return alpha, conc, np.log(np.asarray(class_prior, dtype=float)), True
    if not fit_prior:
        return alpha, conc, np.full(K, -np.log(K)), True
    with np.errstate(divide="ignore", invalid="ignore"):
        log_prior = np.log(conc) - np.log(conc.sum())
    if conc.sum() == 0:
        log_prior = np.full(K, -np.log(K))
    return alpha, conc, log_prior, False


def build(classes, class_count, class_alpha, fit_prior, class_prior, blocks, *, priors=None):
    """Assemble an :class:`NBPosterior` from accumulated statistics.

    Parameters
    ----------
    classes, class_count, class_alpha, fit_prior, class_prior
        See :func:`class_posterior`.
    blocks : list of (family, columns, names, state, stats, who)
        Each block's family and accumulated statistics (``who`` names the estimator in
        messages); the prior is resolved from the statistics (for ``"auto"`` settings),
        updated to the posterior and checked (:meth:`~bayesnb.families._contract.Family.check_posterior`).
    priors : list of params NamedTuple, optional
        Priors to hold fixed instead (an EM M-step); the posteriors are then not checked,
        since a state without rows is a normal step of EM.
    """
    alpha, conc, log_prior, fixed = class_posterior(class_count, class_alpha, fit_prior, class_prior)
    out = tuple(block_posterior(*blk, classes, prior=None if priors is None else priors[i])
                for i, blk in enumerate(blocks))
    return NBPosterior(np.asarray(classes), class_count, alpha, conc, log_prior, fixed, out)


def block_posterior(family, columns, names, state, stats, who, classes, *, prior=None):
    """One block's :class:`BlockPosterior` of its accumulated statistics (the step :func:`build` takes per block).

    Parameters
    ----------
    family, columns, names, state, stats, who
        As in :func:`build`'s ``blocks``.
    classes : ndarray of shape (K,)
        The class labels (named by the posterior check's messages).
    prior : params NamedTuple, optional
        A prior to hold fixed (not checked); by default the family's, resolved from ``stats``.

    Returns
    -------
    BlockPosterior
    """
    fixed = prior is not None
    prior = family.make_prior(stats, state, who=who) if not fixed else prior
    post = family.update(prior, stats)
    if not fixed:
        family.check_posterior(post, stats, names, classes, who=who)
    return BlockPosterior(family, np.asarray(columns), names, state, stats, prior, post)


def joint_log_likelihood(post: NBPosterior, encoded_blocks, predictive="mean", caches=None, *, points=None,
                         class_log_weights=None, allowed=None, classify=False):
    """``log p(x, y=k)`` for every row and class, shape (n, K).

    Parameters
    ----------
    post : NBPosterior
    encoded_blocks : list
        Each block's encoded data (from its family's ``encode``), in block order.
    predictive : {"mean", "marginal"}
        Posterior-mean plug-in, or the exact posterior predictive.
    caches : list or None
        Optional per-block precomputed tables passed to the family (speed only; they
        belong to the blocks' posteriors, so they are not used with ``points``).
    points : list of params NamedTuple, optional
        Per-block parameters to score under instead of the blocks' posteriors (e.g. a
        family's ``gen_point``: a plug-in or one exact draw), in block order.
    class_log_weights : ndarray of shape (K,), optional
        ``log p(y=k)`` to add instead of ``post.class_log_prior`` (e.g. a Dirichlet draw).
    allowed : bool ndarray of shape (n, K), optional
        Classes (states) a row may take; the others get ``-inf`` (known labels in EM).
    classify : bool, default=False
        The scores of ``predict*`` (see :func:`joint_log_likelihood_parts`) instead of
        ``log p(x, y=k)``; they are the same for every family but Complement.

    See Also
    --------
    joint_log_likelihood_parts : the same as a class-relative part and a row term, for
        computing ``p(y | x)`` without cancellation.
    """
    rel, row = joint_log_likelihood_parts(post, encoded_blocks, predictive, caches, points=points,
                                          class_log_weights=class_log_weights, allowed=allowed, classify=classify)
    return rel + row[:, None]


def joint_log_likelihood_parts(post: NBPosterior, encoded_blocks, predictive="mean", caches=None, *, points=None,
                               class_log_weights=None, allowed=None, classify=False):
    """:func:`joint_log_likelihood` as ``(rel, row)``: ``rel + row[:, None]`` is ``log p(x, y=k)``.

    ``row`` (n,) sums the families' class-independent row terms
    (:meth:`~bayesnb.families._contract.Family.log_likelihood_parts`), e.g. a feature's log
    density that every class shares. ``p(y | x)`` is a function of ``rel`` alone, which
    is free of those common terms, so normalising ``rel`` loses no precision to them.
    Parameters as in :func:`joint_log_likelihood`, and ``classify``: score with each
    family's :meth:`~bayesnb.families._contract.Family.classify_log_likelihood_parts` (the
    scores of ``predict*``), adding the class log prior only where every family's
    :meth:`~bayesnb.families._contract.Family.class_prior_in_classify` allows it.

    Returns
    -------
    rel : ndarray of shape (n, K)
    row : ndarray of shape (n,)
    """
    if predictive not in ("mean", "marginal"):
        raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
    rel = row = None
    for i, (block, data) in enumerate(zip(post.blocks, encoded_blocks)):
        params = block.posterior if points is None else points[i]
        cache = caches[i] if points is None and caches is not None else None
        score = block.family.classify_log_likelihood_parts if classify else block.family.log_likelihood_parts
        r, t = score(block.prior, params, data, predictive, cache)
        rel, row = (r, t) if rel is None else (_plus(rel, r), row + t)
    K = len(post.classes)
    if not classify or all(b.family.class_prior_in_classify(K) for b in post.blocks):
        rel = _plus(rel, post.class_log_prior if class_log_weights is None else class_log_weights)
    return (rel if allowed is None else np.where(allowed, rel, -np.inf)), row


def _plus(a, b):
    """``a + b``, written into ``a`` when it can hold the result (no second (n, K) array at the peak).

    ``a`` is a family's new score array (:meth:`~bayesnb.families._contract.Family.log_likelihood_parts`
    returns arrays the caller owns) or a sum made here.
    """
    if (isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.writeable
            and np.broadcast_shapes(a.shape, np.shape(b)) == a.shape):
        return np.add(a, b, out=a)
    return a + b


def warn_zero_probability(dead: np.ndarray, who: str = "NaiveBayes", stacklevel: int = 3) -> None:
    """Issue the :class:`ZeroProbabilityWarning` for the rows flagged in ``dead``.

    Parameters
    ----------
    dead : bool ndarray of shape (n,)
        Rows whose joint probability is zero under every class.
    who : str
        Estimator name for the message.
    stacklevel : int
        Passed to :func:`warnings.warn`.
    """
    rows = np.flatnonzero(dead)
    shown = ", ".join(map(str, rows[:10])) + (", ..." if rows.size > 10 else "")
    warnings.warn(
        f"{who}: {rows.size} row(s) (index {shown}) have probability zero under every class "
        "(a value never seen with any class while alpha=0: the zero-frequency problem; or a "
        "Gaussian value so far outside every class's spread that its density underflows); "
        "their class probabilities are set to the class prior. Use alpha > 0 to smooth.",
        ZeroProbabilityWarning,
        stacklevel=stacklevel,
    )


def _checked(jll: np.ndarray, class_log_prior, who: str, stacklevel: int) -> np.ndarray:
    """``jll`` (float64, written in place) with the rows impossible under every class filled in.

    Raises on NaN / ``+inf``; see :func:`normalise` for the fallback.
    """
    bad = np.isnan(jll) | np.isposinf(jll)
    if bad.any():  # never hide a NaN behind a fallback: it would be a bug, not smoothing
        raise FloatingPointError(
            f"{who}: the joint log-likelihood of {int(bad.any(axis=1).sum())} row(s) is NaN or +inf. "
            "This is a bug in bayesnb (or an input it failed to validate); please report it."
        )
    dead = ~np.isfinite(jll).any(axis=1)
    if dead.any():
        if class_log_prior is not None:
            warn_zero_probability(dead, who, stacklevel=stacklevel + 1)
            jll[dead] = np.broadcast_to(class_log_prior, jll.shape)[dead]
            dead = ~np.isfinite(jll).any(axis=1)
        jll[dead] = 0.0
    return jll


def most_probable(jll: np.ndarray, class_log_prior: np.ndarray | None, who: str = "NaiveBayes", *,
                  stacklevel: int = 4) -> np.ndarray:
    """Index of the most probable class of each row: the argmax of :func:`normalise` without normalising.

    Subtracting a row's normaliser changes no order between its classes, so this is the
    class ``predict`` gives; rows impossible under every class fall back as in
    :func:`normalise` (same warning, same errors).

    Parameters
    ----------
    jll : ndarray of shape (n, K)
        Joint log-likelihood (finite or ``-inf``); not modified.
    class_log_prior : ndarray of shape (K,) or (n, K), or None
        As in :func:`normalise`.
    who : str
        Estimator name for messages.
    stacklevel : int, default=4
        Passed to :func:`warn_zero_probability`.

    Returns
    -------
    ndarray of int, shape (n,)
    """
    jll = np.asarray(jll, dtype=float)
    if jll.ndim == 2 and all_finite(jll):  # one sum: no row to fill in
        return np.argmax(jll, axis=1)
    dead = ~np.isfinite(jll).any(axis=1)
    if dead.any():  # only then copy: the fallback writes rows
        jll = jll.copy()
    return np.argmax(_checked(jll, class_log_prior, who, stacklevel), axis=1)


def normalise(jll: np.ndarray, class_log_prior: np.ndarray | None, who: str = "NaiveBayes", *,
              stacklevel: int = 4, copy: bool = True) -> np.ndarray:
    """``log p(y=k | x)`` from the joint, normalised with logsumexp; never NaN.

    Rows with probability zero under every class (only possible with ``alpha=0``)
    fall back to the class prior, with a :class:`ZeroProbabilityWarning`; rows impossible
    under that fallback too (or every such row when it is None) get uniform weights.

    Parameters
    ----------
    jll : ndarray of shape (n, K)
        Joint log-likelihood ``log p(x, y=k)`` (finite or ``-inf``).
    class_log_prior : ndarray of shape (K,) or (n, K), or None
        Used for rows that are impossible under every class (per row when 2-d, e.g. the
        class weights restricted to a row's known label). None: uniform weights, without
        a warning (the E-step of EM).
    who : str
        Estimator name for messages.
    stacklevel : int, default=4
        Passed to :func:`warn_zero_probability` (so the warning names the user's call).
    copy : bool, default=True
        False: work in ``jll`` itself when it is float64 (for a caller that owns it).

    Returns
    -------
    ndarray of shape (n, K)

    Raises
    ------
    FloatingPointError
        If ``jll`` holds NaN or ``+inf`` (a bug, never hidden by the fallback).
    """
    jll = np.array(jll, dtype=float, copy=copy or None)
    if not (jll.ndim == 2 and all_finite(jll)):  # one sum when every entry is finite
        jll = _checked(jll, class_log_prior, who, stacklevel)
    jll -= _row_logsumexp(jll)[:, None]  # every row has a finite entry now
    return jll


def _row_logsumexp(jll: np.ndarray) -> np.ndarray:
    """``logsumexp`` over the classes of an (n, K) array whose every row has a finite entry.

    Class by class on (n,) vectors (K is small), so that no (n, K) temporary is made:
    ``top + log(sum_k exp(jll[:, k] - top))`` with ``top`` the row maximum.
    """
    if jll.shape[1] == 0:
        return np.full(jll.shape[0], -np.inf)
    top = jll[:, 0].copy()
    for k in range(1, jll.shape[1]):
        np.maximum(top, jll[:, k], out=top)
    total = np.zeros(jll.shape[0])
    tmp = np.empty(jll.shape[0])
    with np.errstate(under="ignore"):
        for k in range(jll.shape[1]):
            np.subtract(jll[:, k], top, out=tmp)
            np.exp(tmp, out=tmp)
            total += tmp
    np.log(total, out=total)
    total += top
    return total


def log_marginal(jll: np.ndarray) -> np.ndarray:
    """``log p(x) = logsumexp_k log p(x, y=k)`` per row: the normaliser of :func:`normalise`.

    Parameters
    ----------
    jll : ndarray of shape (n, K)
        Joint log-likelihood (``-inf`` allowed).

    Returns
    -------
    ndarray of shape (n,)
        ``-inf`` for a row impossible under every class.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return logsumexp(jll, axis=1)


def label_log_evidence(post: NBPosterior) -> float | None:
    """``log p(y)`` of the training labels (None under an improper class prior)."""
    n = post.class_count
    if post.fixed_class_prior:
        with np.errstate(invalid="ignore"):
            terms = np.where(n > 0, n * post.class_log_prior, 0.0)
        return float(terms.sum())
    a0, a = post.class_prior_alpha, post.class_concentration
    if np.any(a0 <= 0):
        return None
    return float(gammaln(a0.sum()) - gammaln(a.sum()) + (gammaln(a) - gammaln(a0)).sum())


def log_evidence(post: NBPosterior, by_block: bool = False):
    """Closed-form log marginal likelihood ``log p(X, y)`` of the training data.

    Parameters
    ----------
    post : NBPosterior
    by_block : bool
        Also return a dict ``{"labels": .., "block 0 (family)": ..}`` of the parts.

    Returns
    -------
    float or None
        None when a prior is improper (``alpha=0``, ``class_alpha=0`` with
        ``fit_prior=True``, or a Gaussian ``prior=None``/``"reference"``): the
        evidence is then undefined.
    """
    parts = {"labels": label_log_evidence(post)}
    for i, b in enumerate(post.blocks):
        key = f"block {i} ({b.family.name}: {', '.join(map(str, b.names[:3]))}{'...' if len(b.names) > 3 else ''})"
        parts[key] = float(b.family.log_evidence(b.prior, b.posterior).sum()) if b.family.is_proper(b.prior) else None
    total = None if any(v is None for v in parts.values()) else float(sum(parts.values()))
    return (total, parts) if by_block else total
