"""Semi-supervised EM under differential privacy: the private release as the prior of EM on public rows.

A private fit (``privacy=DP(...)``) releases the labelled rows' class counts and statistics once, with
noise, and its posterior ``p(theta | release)`` is conjugate: the user's prior plus the released
statistics. :func:`fit_public_unlabelled` runs EM (Nigam et al. 2000) on unlabelled rows that the user
declares **public**, with that posterior as the prior: the E-step gives each public row its class
probabilities under the current model; the M-step is the posterior mean of the prior plus the released
statistics (fixed) plus ``unlabeled_weight`` times the responsibility-weighted statistics of the public
rows. EM climbs ``unlabeled_weight * sum log p(u)`` plus the log density of the release's posterior (the
penalty whose MAP is that posterior mean). It reads only the release and the public rows, so the result is
post-processing of the release: the guarantee and the budget spent are those of the release
(docs/privacy.md, "Text (count blocks)").

The public rows enter the statistics as the release counts a private row (each family's
``dp_public_rows``: a count block's rows scaled to the declared row bound) and are scored as the model
scores any row (``predict``'s encoding).
"""

from __future__ import annotations

import numpy as np

from .em import SemiSupervisedFit, climb
from .nb_posterior import build, joint_log_likelihood_parts

__all__ = ["fit_public_unlabelled"]


def fit_public_unlabelled(post, encoded_score, encoded_count, n_rows, weight, class_params, *, tol=1e-6,
                          max_iter=100):
    """EM on public unlabelled rows from a private fit, its released statistics held fixed.

    Parameters
    ----------
    post : NBPosterior
        The private fit of the labelled rows: its blocks' ``stats`` are the released statistics and its
        ``class_count`` the released class counts.
    encoded_score : list
        The public rows' encoded blocks as the model scores them (the E-step).
    encoded_count : list
        The same rows as the release counts a private row (the M-step's statistics).
    n_rows : int
        The number of public rows.
    weight : float or None
        ``unlabeled_weight``: each public row's weight in the statistics (``>= 0``). None: equal mass per
        class, each class's share of the public rows (their mass over ``K``) carries the release's whole
        mass: ``weight = K * sum of the blocks' dp_mass(stats) / the same of the public rows' statistics``
        (about ``K n_private / n_public`` for a categorical table; a count block's release holds clipped
        noise in every cell, mass that the public rows must outweigh to move the model; docs/privacy.md).
        It reads the release and the public rows only.
    class_params : (class_alpha, fit_prior, class_prior)
        As in :func:`~bayesnb.inference.nb_posterior.class_posterior`.
    tol : float, default=1e-6
        Stop when the relative objective change is at most ``tol``.
    max_iter : int, default=100

    Returns
    -------
    SemiSupervisedFit
        The posterior of the last M-step (its blocks' ``stats`` the released statistics merged with the
        public rows' weighted statistics, its priors the user's), the objective after each iteration
        (never decreases when the public rows are scored and counted alike), whether it converged, and
        ``transduction``: the most probable class index of each public row.
    """
    n = int(n_rows)
    released = [b.posterior for b in post.blocks]
    class_alpha, fit_prior, class_prior = class_params
    # the release's Dirichlet posterior of the class proportions: the prior of the class counts' EM
    class_release = np.asarray(post.class_prior_alpha, dtype=float) + np.asarray(post.class_count, dtype=float)

    def joint(p):
        return joint_log_likelihood_parts(p, encoded_score)

    def penalty(p):
        total = sum(b.family.gen_log_penalty(r, b.posterior) for b, r in zip(p.blocks, released))
        if not p.fixed_class_prior:
            with np.errstate(invalid="ignore"):
                total += float(np.where(class_release > 0, class_release * p.class_log_prior, 0.0).sum())
        return total

    def update(resp):
        blocks = [(b.family, b.columns, b.names, b.state, b.family.merge(b.stats, b.family.stats(e, resp, b.state)),
                   "EM") for b, e in zip(post.blocks, encoded_count)]
        return build(post.classes, post.class_count + resp.sum(0), class_alpha, fit_prior, class_prior, blocks,
                     priors=[b.prior for b in post.blocks])

    if weight is None:  # equal mass per class: weight * (public mass) / K = released mass
        K = len(post.classes)
        public = sum(b.family.dp_mass(b.family.stats(e, np.full((n, K), 1.0 / K), b.state))
                     for b, e in zip(post.blocks, encoded_count))
        weight = K * sum(b.family.dp_mass(b.stats) for b in post.blocks) / public if public > 0 else 0.0
    rw = np.full(n, float(weight))
    state, hist, conv, _ = climb(post, joint, penalty, update, rw, tol, int(max_iter))
    transduction = np.argmax(joint(state)[0], axis=1) if n else np.zeros(0, dtype=np.int64)
    return SemiSupervisedFit(state, hist, conv, transduction)
