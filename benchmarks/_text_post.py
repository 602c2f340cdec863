"""Post-processings of the private count release of a text model, explored by ``bench_privacy.py --text``.

Everything here reads only what the release gives (noisy class-by-column sums, the public noise sd,
the fitted model's ``feature_log_prob_`` and ``class_log_prior_``) and, for :func:`em_unlabelled`,
documents that are public (no label is read): post-processing, so the privacy guarantee of the
release is unchanged (docs/privacy.md, "Text (count blocks)").

- :func:`npmle` / :func:`posterior_mean`: empirical-Bayes deconvolution of cells observed as
  ``c + N(0, sigma^2)`` with ``c >= 0`` and ``sigma`` public: a prior ``g(c)`` on a grid fitted by
  EM to all the cells (the Kiefer-Wolfowitz nonparametric maximum likelihood estimate), then each
  cell's posterior mean (or any ``E[f(c) | y]``) under it. No hyperparameter is read from the data.
- :func:`em_unlabelled`: semi-supervised EM (Nigam et al. 2000) from the private model, on public
  unlabelled documents, with the private class tables kept as a fixed component of each class's
  word distribution (so a class that collects many documents does not take over). Kept for
  ``--postprocess`` and as the reference column of ``--unlabelled``: the estimator's own path is
  ``fit_semi_supervised(..., public_unlabeled=True)`` (counts added at a large weight;
  benchmarks/bench_privacy_text_em.py).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm


def npmle(y, sigma, n_grid=200, n_bins=2000, n_iter=300):
    """Grid prior ``g`` of ``c >= 0`` fitted by EM to ``y = c + N(0, sigma^2)`` (Kiefer-Wolfowitz NPMLE).

    Parameters
    ----------
    y : array-like
        The noisy cells (any shape; flattened).
    sigma : float
        The public noise sd (> 0).
    n_grid : int, default=200
        Grid points: half evenly spaced on ``[0, 6 sigma]``, half geometric from ``6 sigma`` to
        ``max(y) + 4 sigma``.
    n_bins : int, default=2000
        The cells are binned into this many equal-width bins of ``y`` for the EM (the likelihood
        of a bin is that of its centre): the cost does not grow with the number of cells.
    n_iter : int, default=300
        EM iterations (each raises the marginal likelihood).

    Returns
    -------
    grid : ndarray of shape (m,)
    weights : ndarray of shape (m,)
        The prior's probabilities on ``grid`` (sum 1).
    """
    y = np.asarray(y, dtype=float).ravel()
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"npmle: sigma must be a finite number > 0; received {sigma!r}.")
    top = max(float(y.max()), 0.0) + 4.0 * sigma
    grid = np.unique(np.concatenate([np.linspace(0.0, 6.0 * sigma, n_grid // 2),
                                     np.geomspace(6.0 * sigma, max(top, 7.0 * sigma), n_grid - n_grid // 2)]))
    edges = np.linspace(y.min() - 1e-9, y.max() + 1e-9, n_bins + 1)
    count, _ = np.histogram(y, edges)
    centre = 0.5 * (edges[1:] + edges[:-1])
    keep = count > 0
    centre, count = centre[keep], count[keep].astype(float)
    loglik = norm.logpdf((centre[:, None] - grid[None, :]) / sigma)
    w = np.full(grid.size, 1.0 / grid.size)
    for _ in range(n_iter):
        r = _softmax(loglik + np.log(np.maximum(w, 1e-300)))
        w = (count[:, None] * r).sum(axis=0) / count.sum()
    return grid, w


def posterior_mean(y, sigma, grid, weights, fn=None, n_points=4000):
    """``E[fn(c) | y]`` per cell under the grid prior (:func:`npmle`); ``fn=None``: ``E[c | y]``.

    Computed on ``n_points`` values of ``y`` between its extremes and interpolated (it is smooth in ``y``),
    in log space, so a tiny ``sigma`` gives the nearest grid point of positive weight rather than 0/0.
    """
    y = np.asarray(y, dtype=float)
    ys = np.linspace(y.min(), y.max(), n_points)
    r = _softmax(norm.logpdf((ys[:, None] - grid[None, :]) / sigma) + np.log(np.maximum(weights, 1e-300)))
    values = grid if fn is None else fn(grid)
    return np.interp(y.ravel(), ys, r @ values).reshape(y.shape)


def _softmax(s):
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def em_unlabelled(log_theta, log_prior, U, U_rows, weight=0.5, pseudo=0.01, n_iter=10):
    """Class word distributions refined by EM on public unlabelled documents.

    E-step: ``r = p(class | u)`` of each unlabelled document ``u`` (rows of ``U``) under the current
    model. M-step: each class's distribution is ``(1 - weight) theta_private + weight theta_u``,
    where ``theta_u`` is the class's responsibility-weighted sum of ``U_rows`` plus ``pseudo`` per
    column, normalised. The class prior stays the private one.

    Parameters
    ----------
    log_theta : ndarray of shape (K, d)
        The private model's ``feature_log_prob_``.
    log_prior : ndarray of shape (K,)
        Its ``class_log_prior_``.
    U : sparse matrix of shape (n, d)
        The unlabelled documents as the model scores them.
    U_rows : sparse matrix of shape (n, d)
        The same rows as the release sums them (scaled to the row bound).
    weight, pseudo : float
    n_iter : int

    Returns
    -------
    ndarray of shape (K, d)
        The refined ``log theta``.
    """
    theta0 = np.exp(log_theta)
    lt = log_theta
    for _ in range(n_iter):
        r = _softmax(np.asarray(U @ lt.T) + log_prior)
        cu = np.asarray((U_rows.T @ r).T) + pseudo
        lt = np.log((1.0 - weight) * theta0 + weight * cu / cu.sum(axis=1, keepdims=True))
    return lt
