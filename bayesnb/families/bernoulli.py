"""Binary features with a Beta prior (Beta-Bernoulli), absence scored.

For class ``k`` and feature ``j``::

    p[k, j]        ~ Beta(alpha, alpha)
    x[i, j] | y=k  ~ Bernoulli(p[k, j])

    posterior     Beta(alpha + n1[k,j], alpha + n0[k,j])
    plug-in       p = (n1[k,j] + alpha) / (n[k,j] + 2 alpha)      (scikit-learn BernoulliNB)
    exact         the same number (one draw)
    evidence      log B(a_post, b_post) - log B(alpha, alpha)

As in scikit-learn's BernoulliNB, a 0 is evidence too: ``log(1 - p)`` is added for
every absent feature. Dense or scipy.sparse input; NaN marks a missing cell.

Everything about the distribution lives on :class:`Bernoulli`; this module also holds the
NamedTuples it passes around (:class:`BernoulliStats`, :class:`Betas`, :class:`BernoulliBlock`)
and, after the class, its scoring helpers: mean log tables (``post`` / ``point`` there are
:class:`Betas`), thresholding and chunked products of a compact 0/1 block.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import betaln

from .._utils import all_finite, dense, nonfinite_error
from ._contract import Family
from .capabilities import SHARED
from .default_hooks import SingleSite
from .numeric import (check_alpha, class_sums, dirichlet_draws, dirichlet_moments,
                      resolve_scalar_alpha, row_probs, sample_class_feature, weighted_class_cells)
from .dp_release import check_no_auto, check_no_bounds, noisy_pairs

__all__ = ["Bernoulli", "BernoulliStats", "Betas"]


class BernoulliStats(NamedTuple):
    """Sufficient statistics.

    Attributes
    ----------
    ones : ndarray of shape (K, d)
        Weighted count of 1s per class and feature.
    observed : ndarray of shape (K, d)
        Weighted count of observed (non-missing) cells per class and feature.
    """

    ones: np.ndarray
    observed: np.ndarray


class Betas(NamedTuple):
    """Beta parameters per (class, feature): prior and posterior alike.

    Attributes
    ----------
    a : ndarray of shape (K, d)
        Pseudo-count of 1s.
    b : ndarray of shape (K, d)
        Pseudo-count of 0s.
    """

    a: np.ndarray
    b: np.ndarray


class BernoulliBlock(NamedTuple):
    """An encoded Bernoulli block.

    Attributes
    ----------
    X : ndarray or sparse matrix of shape (n, d)
        0/1 values with missing cells set to 0: float64, or uint8 for a dense block thresholded
        at ``binarize`` with nothing missing (one byte a cell, read a chunk of rows at a time).
    missing : ndarray, sparse matrix of shape (n, d), or None
        1 where the cell was missing; None when nothing is missing.
    """

    X: object
    missing: object


class Bernoulli(SingleSite, Family, *SHARED):
    """Binary feature block with a Beta(alpha, alpha) prior per (class, feature).

    Parameters
    ----------
    alpha : float or "auto", default=1.0
        Beta pseudo-count of each outcome (1 = Laplace, 0 = maximum likelihood).
        ``"auto"`` maximises the closed-form evidence.
    binarize : float or None, default=None
        Threshold for turning values into 0/1 (values > binarize become 1). None
        requires 0/1 input and rejects anything else.

    Notes
    -----
    The encoding state is the number of features ``d``. Prior, posterior and generative
    "points" are :class:`Betas` of shape (K, d); the parameter of draws and of the NumPyro
    model is ``theta`` (K, d) = ``p(x_j = 1 | y = k)``.
    """

    _param_names = ("alpha", "binarize")
    name = "bernoulli"
    accepts_sparse = True
    stats_type = BernoulliStats
    params_type = Betas
    field_rules = {"BernoulliStats": {"ones": "count", "observed": "count"},
                   "Betas": {"a": "count", "b": "count"}}

    def __init__(self, alpha=1.0, binarize=None):
        self.alpha = alpha
        self.binarize = binarize

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Bernoulli"):
        """Validate 0/1 data (or threshold it at ``binarize``) and separate missing cells.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, d)
            NaN marks a missing cell. The input is never modified.
        state : int or None
            Unused (the number of features is read from ``X``).
        extend : bool
            Unused (a 0/1 encoding has nothing to extend).
        who : str
            Name used in error messages.

        Returns
        -------
        block : BernoulliBlock
        state : int
            The number of features ``d``.
        """
        binarize = self.binarize
        if sp.issparse(X):
            if binarize is not None and binarize < 0:
                raise ValueError(f"{who}: binarize must be >= 0 for sparse input (implicit zeros stay 0); "
                                 f"received {binarize}.")
            if X.format not in ("csr", "csc"):
                X = X.tocsr()
            fast = _binarized(X.data, binarize)
            # a new data array on the caller's index arrays: the input is never modified
            X = type(X)((np.array(X.data, dtype=float) if fast is None else fast, X.indices, X.indptr),
                        shape=X.shape)
            data = X.data
        else:
            fast = _binarized(X, binarize, compact=True)  # uint8 0/1: one byte a cell
            X = np.array(X, dtype=float, copy=True) if fast is None else fast
            data = X
        missing = None
        if fast is None:  # (else thresholded, nothing missing)
            if np.isinf(data).any():
                raise nonfinite_error(who, "Bernoulli features", data)
            miss = np.isnan(data)
            if binarize is not None:  # (missing cells are set to 0 below)
                with np.errstate(invalid="ignore"):
                    data[...] = data > binarize
            else:
                bad = ~miss & (data != 0) & (data != 1)
                if bad.any():
                    vals = np.unique(data[bad])[:5]
                    raise ValueError(
                        f"{who}: Bernoulli features must be 0/1 (or missing); received value(s) "
                        f"{vals.tolist()}. Pass binarize=<threshold> to threshold them."
                    )
            if miss.any():
                if sp.issparse(X):
                    missing = type(X)((miss.astype(float), X.indices.copy(), X.indptr.copy()),
                                      shape=X.shape)
                    missing.eliminate_zeros()
                else:
                    missing = miss.astype(float)
                data[miss] = 0.0
        if sp.issparse(X) and not data.all():
            X = type(X)((data, X.indices.copy(), X.indptr.copy()), shape=X.shape)
            X.eliminate_zeros()  # on copies of the index arrays
        return BernoulliBlock(X, missing), X.shape[1]

    def out_of_support(self, X, state=None):
        """Bool (n, d): without ``binarize``, finite cells other than 0 and 1 (probability 0).

        None with a threshold (every number is binarized) and for sparse input.
        """
        if self.binarize is not None or sp.issparse(X):
            return None
        A = np.asarray(X, dtype=np.float64)
        return np.isfinite(A) & (A != 0) & (A != 1)

    def empty_stats(self, state, K):
        """Zero statistics, each (K, d)."""
        return BernoulliStats(np.zeros((K, state)), np.zeros((K, state)))

    def stats(self, block, resp, state):
        """Weighted counts of ones and of observed cells per class (missing left out).

        Returns
        -------
        BernoulliStats
            ``ones`` and ``observed``, each (K, d).
        """
        ones = column_sums(block.X, resp)
        if block.missing is None:
            observed = np.broadcast_to(resp.sum(0)[:, None], ones.shape)  # same for every feature
        else:
            # a difference of sums: rounding can leave it a hair below the count of ones (a
            # negative count of zeros); the exact value is at least that count
            observed = np.maximum(resp.sum(0)[:, None] - class_sums(block.missing, resp), ones)
        return BernoulliStats(ones, observed)

    def make_prior(self, stats, state, who="Bernoulli"):
        """Beta(alpha, alpha) for every (class, feature); ``"auto"`` by evidence."""
        alpha = check_alpha(self.alpha, who, allow_array=False)
        shape = stats.ones.shape

        def ev(a):
            pr = Betas(np.full(shape, a), np.full(shape, a))
            return float(self.log_evidence(pr, self.update(pr, stats)).sum())

        a = resolve_scalar_alpha(alpha, ev)
        full = np.broadcast_to(np.float64(a), shape)  # read-only view: no K x d copy
        return Betas(full, full)

    def observed_rows(self, stats):
        """Weighted number of observed cells per (class, column)."""
        return stats.observed

    def update(self, prior, stats):
        """Conjugate update: Beta(a + ones, b + zeros)."""
        return Betas(prior.a + stats.ones, prior.b + stats.observed - stats.ones)

    def dp_stats(self, block, resp, state, budget, bounds, names, who="Bernoulli"):
        """Counts of ones and of zeros with noise: L1 sensitivity 2 per column (see :meth:`PrivateRelease.dp_stats`)."""
        check_no_auto(self.alpha, "alpha", who)
        check_no_bounds(bounds, names, "Bernoulli", who)
        s = self.stats(block, resp, state)
        ones, zeros = noisy_pairs(s.ones, s.observed - s.ones, budget)
        return BernoulliStats(ones, ones + zeros)

    def predict_cache(self, prior, post):
        """Scoring tables of the posterior mean.

        Returns
        -------
        sequence of 4 arrays
            ``(log p, log(1 - p), (log p - log q).T contiguous, sum_j log q)``: (K, d),
            (K, d), (d, K) and (K,); all but ``log p`` are computed on first use.
        """
        return _Tables(post)

    def log_likelihood(self, prior, post, block, predictive="mean", cache=None):
        """``log p(x_block | y=k)`` under the posterior predictive (= posterior mean), (n, K).

        Absent features contribute ``log(1 - p)``; missing cells contribute nothing.
        ``"mean"`` and ``"marginal"`` coincide. ``cache`` is :meth:`predict_cache` of
        ``post`` (computed if not given).
        """
        lp, lq, diff_T, lq_sum = self.predict_cache(prior, post) if cache is None else cache
        X1, M = block.X, block.missing
        if np.isneginf(lq).any() or np.isneginf(lp).any():
            # alpha=0: 0 * log 0 must stay 0. Presences score log p, absences (1 - x - missing)
            # score log q; both through sparse products, the -inf entries counted separately.
            flp, flq = np.where(np.isneginf(lp), 0.0, lp), np.where(np.isneginf(lq), 0.0, lq)
            jll = np.asarray(X1 @ (flp - flq).T) + flq.sum(axis=1)
            ilp, ilq = np.isneginf(lp).astype(float), np.isneginf(lq).astype(float)
            impossible = np.asarray(X1 @ ilp.T) + ilq.sum(axis=1) - np.asarray(X1 @ ilq.T)
            if M is not None:
                jll = jll - np.asarray(M @ flq.T)
                impossible = impossible - np.asarray(M @ ilq.T)
            jll[impossible > 0.5] = -np.inf
            return jll
        # x log p + (1 - x) log q, written to stay sparse: x (log p - log q) + sum log q
        jll = row_products(X1, diff_T)
        jll += lq_sum
        if M is not None:
            jll = jll - np.asarray(M @ lq.T)
        return jll

    def log_evidence(self, prior, post):
        """Closed-form ``log p(x_block | y)`` of the training data per class, shape (K,)."""
        return (betaln(post.a, post.b) - betaln(prior.a, prior.b)).sum(axis=1)

    def is_proper(self, prior):
        """True when alpha > 0."""
        return bool(np.all(prior.a > 0) and np.all(prior.b > 0))

    # ------------------------------------------------------------------ generative hooks
    # A "point" is a Betas whose mean a / (a + b) is the probability in use: the posterior
    # itself (plug-in) or one exact Beta draw stored as Betas(p, 1 - p).
    def gen_point(self, prior, post, rng=None):
        """Plug-in (``rng=None``: the posterior itself) or one exact Beta draw per (class, feature).

        Returns
        -------
        Betas
            The posterior, or ``Betas(p, 1 - p)`` for a draw ``p`` (K, d); a (class, feature)
            with no data under an improper prior gives ``Betas(0, 0)`` (undefined).
        """
        if rng is None:
            return post
        ok = (post.a > 0) & (post.b > 0)
        p = np.where(ok, rng.beta(np.where(ok, post.a, 1.0), np.where(ok, post.b, 1.0)),
                     np.where(post.a > 0, 1.0, 0.0))
        none = (post.a + post.b) == 0
        return Betas(np.where(none, 0.0, p), np.where(none, 0.0, 1.0 - p))

    def gen_sample(self, point, z, rng, lengths=None):
        """0/1 values (n, d) drawn given classes ``z`` (``lengths`` unused); p = 0.5 where undefined."""
        p = _prob(point)[z]
        return (rng.random(p.shape) < p).astype(float)

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Dense values (n, d) with missing cells filled.

        ``"mode"``: the most probable value; ``"mean"``: ``p(x=1 | x_obs)``, a probability
        in [0, 1]; ``"draw"``: a 0/1 draw given classes ``z``. ``rate`` is unused.
        """
        X = dense(block.X).astype(float)
        miss = self.gen_missing(block)
        if not miss.any():
            return X
        p = _prob(point)
        rows, cols = np.nonzero(miss)
        if strategy == "draw":
            X[rows, cols] = (rng.random(rows.size) < p[z[rows], cols]).astype(float)
        else:
            m = np.einsum("ik,ki->i", resp[rows], p[:, cols])
            X[rows, cols] = m if strategy == "mean" else (m > 0.5).astype(float)
        return X

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Per-feature ``sum_k weights[i, k] log p(x_ij | y=k)``, (n, d); missing -> 0.

        ``"mean"`` and ``"marginal"`` coincide.
        """
        lp, lq = _log_p(point)
        X = dense(block.X)
        with np.errstate(invalid="ignore"):  # 0 * -inf (alpha=0) where the weight is 0: masked
            cells = (np.where(X > 0, lp[k], lq[k]) for k in range(lp.shape[0]))
            return weighted_class_cells(cells, ~self.gen_missing(block), weights)

    def gen_log_penalty(self, prior, point) -> float:
        """``sum a0 log p + b0 log(1 - p)``: the log prior whose MAP is the posterior mean."""
        lp, lq = _log_p(point)
        with np.errstate(invalid="ignore"):
            return float(np.where(prior.a > 0, prior.a * lp, 0.0).sum()
                         + np.where(prior.b > 0, prior.b * lq, 0.0).sum())

    # --------------------------------------------------------- draws and NumPyro hooks
    # Exact conjugate draws (NumPy) and the pieces model.py assembles into the one NumPyro
    # model. Parameterisation shared by both: ``theta`` (K, d) = p(x_j = 1 | y = k).
    def sample_params(self, post, n_draws, rng) -> dict:
        """Exact posterior draws: ``{"theta": (n_draws, K, d)}`` from Beta(a, b)."""
        ab = np.stack([post.a, post.b], axis=-1)
        return {"theta": dirichlet_draws(ab, n_draws, rng)[..., 0]}

    def posterior_moments(self, post) -> dict:
        """Closed-form posterior mean and sd: ``{"theta": (mean, sd)}``, each (K, d)."""
        return {"theta": dirichlet_moments(post.a, post.a + post.b)}

    def posterior_from_params(self, params: dict):
        """``Betas(theta, 1 - theta)``: its plug-in is the given ``theta`` (K, d) (one draw)."""
        p = params["theta"]
        return Betas(p, 1.0 - p)

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """``theta_<label>`` ~ Beta(a, b) under plates ``class_plate`` x feature.

        Returns
        -------
        dict
            ``{"log_p", "log_q"}``: ``log theta`` and ``log(1 - theta)``, each (K, d),
            clipped at the dtype's smallest normal number.
        """
        import jax.numpy as jnp
        import numpyro.distributions as dist

        p = sample_class_feature(f"theta_{label}", dist.Beta(prior_args["a"], prior_args["b"]),
                                 feature_plate, class_plate)
        tiny = jnp.finfo(p.dtype).tiny
        return {"log_p": jnp.log(jnp.clip(p, tiny)), "log_q": jnp.log(jnp.clip(1.0 - p, tiny))}

    def numpyro_stats_args(self, stats) -> dict:
        """Counts ``{"ones", "zeros"}`` per (class, feature), float32 (K, d)."""
        return {"ones": stats.ones.astype(np.float32),
                "zeros": (stats.observed - stats.ones).astype(np.float32)}

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum n1 log p + n0 log(1 - p)``: the labelled-data log-likelihood."""
        return (stats_args["ones"] * params["log_p"] + stats_args["zeros"] * params["log_q"]).sum()

    def numpyro_row_args(self, block, static) -> dict:
        """Dense float32 (n, d) indicators ``{"ones", "zeros"}`` (a missing cell is neither)."""
        X = dense(block.X)
        M = np.zeros(X.shape) if block.missing is None else dense(block.missing)
        return {"ones": X.astype(np.float32), "zeros": (1.0 - X - M).astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(x_i | y=k)`` per row and class, shape (n, K); missing cells add 0."""
        return row_args["ones"] @ params["log_p"].T + row_args["zeros"] @ params["log_q"].T

    # ------------------------------------------------------------ linear form and display
    def linear_terms(self, theta, state):
        """Binary log-odds pieces from ``theta`` (..., 2, d): (weights (..., d), intercept part (...)).

        ``log p(x | 1) - log p(x | 0) = sum_j x_j w_j + sum_j (log(1-theta_1j) - log(1-theta_0j))``
        with ``w_j = logit theta_1j - logit theta_0j``. NaN where undefined (alpha=0).
        """
        with np.errstate(divide="ignore", invalid="ignore"):  # alpha=0: NaN where undefined, see model._linear
            lp, lq = np.log(theta), np.log1p(-theta)
            w = (lp[..., 1, :] - lq[..., 1, :]) - (lp[..., 0, :] - lq[..., 0, :])
            return w, (lq[..., 1, :] - lq[..., 0, :]).sum(-1)

    def linear_names(self, names, state):
        """Names of the :meth:`linear_terms` weights: the feature names."""
        return list(names)

    def plot_panels(self, block, top=10) -> list:
        """One bar panel per feature: ``p(0 | y=k)`` and ``p(1 | y=k)`` under the posterior mean.

        ``top`` is unused (every feature has its own distribution).
        """
        p = block.posterior.a / (block.posterior.a + block.posterior.b)
        return [(str(name), "bars", (["0", "1"], np.stack([1 - p[:, j], p[:, j]], axis=1)))
                for j, name in enumerate(block.names)]


# Scoring helpers: mean log tables, thresholding, chunked products of a compact 0/1 block


def _log_p(post):
    """Mean ``(log p, log(1 - p))`` of a Betas, each (K, d); undefined factors -> 0."""
    tot, log_tot = _log_total(post)
    return _log_part(post.a, tot, log_tot), _log_part(post.b, tot, log_tot)


def _log_total(post):
    """``(a + b, log(a + b))``, of shape (K, 1) when every feature of a class has the same total."""
    tot = post.a + post.b
    if (tot == tot[:, :1]).all():  # no missing cells: one total per class
        tot = tot[:, :1]
    with np.errstate(divide="ignore"):
        return tot, np.log(tot)


def _log_part(a, tot, log_tot):
    """``log(a / tot)`` (K, d), 0 where ``tot`` is 0 (no data and an improper prior: factor dropped)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.log(a)
        lp -= log_tot
    undefined = np.broadcast_to(tot == 0, lp.shape)
    if undefined.any():
        lp[undefined] = 0.0
    return lp


def _binarized(values, binarize, compact=False):
    """``values > binarize`` as a new array in one pass, or None (no threshold, or not a plain
    numeric array whose every entry is finite: the general path checks those).

    float64, or with ``compact`` uint8 (one byte a cell: a dense block's 0/1 values, read a
    chunk of rows at a time into float64 by :func:`row_products` and :func:`column_sums`)."""
    if (binarize is None or not isinstance(values, np.ndarray) or values.dtype.kind not in "biuf"
            or not all_finite(values)):
        return None
    if compact:
        return np.greater(values, binarize).view(np.uint8)
    out = np.empty(values.shape)
    np.greater(values, binarize, out=out)
    return out


def _chunks(X):
    """``(a, b, float64 buffer)`` over the rows of a dense (n, d) ``X``, a buffer of ~512 KiB made once."""
    n, d = X.shape
    step = max(1, (1 << 16) // max(d, 1))
    buf = np.empty((min(step, n), d))
    for a in range(0, n, step):
        b = min(a + step, n)
        np.copyto(buf[: b - a], X[a:b])
        yield a, b, buf[: b - a]


def row_products(X, W):
    """``X @ W`` (n, K) for dense or sparse ``X``; a dense ``X`` not of float64 (the compact 0/1
    of :func:`_binarized`) read a chunk of rows at a time into float64, never converted whole."""
    if sp.issparse(X) or X.dtype == np.float64:
        return np.asarray(X @ W)
    out = np.empty((X.shape[0], W.shape[1]))
    for a, b, buf in _chunks(X):
        np.dot(buf, W, out=out[a:b])
    return out


def column_sums(X, resp):
    """``resp.T @ X`` (K, d) as :func:`.numeric.class_sums`; a dense ``X`` not of float64 read a chunk
    of rows at a time (as :func:`row_products`)."""
    if sp.issparse(X) or X.dtype == np.float64:
        return class_sums(X, resp)
    resp = np.asarray(resp)
    out = np.zeros((resp.shape[1], X.shape[1]))
    for a, b, buf in _chunks(X):
        out += resp[a:b].T @ buf
    return out


class _Tables:
    """The scoring tables of :meth:`Bernoulli.predict_cache`, indexed like a tuple.

    ``log p`` (the estimator's ``feature_log_prob_``) is computed at once; ``log(1 - p)``,
    ``(log p - log q).T`` and ``sum_j log q`` on first use, by the first prediction, so a
    fit pays for one (K, d) log, as scikit-learn's does.
    """

    def __init__(self, post):
        self._post = post
        self._tot, self._log_tot = _log_total(post)
        self.lp = _log_part(post.a, self._tot, self._log_tot)
        self._all = None

    def __getitem__(self, i):
        if i == 0:
            return self.lp
        if self._all is None:
            lq = _log_part(self._post.b, self._tot, self._log_tot)
            with np.errstate(invalid="ignore"):
                diff_T = np.ascontiguousarray((self.lp - lq).T)
            self._all = (self.lp, lq, diff_T, lq.sum(axis=1))
        return self._all[i]

    def __iter__(self):
        return iter([self[i] for i in range(4)])

    def __len__(self):
        return 4


def _prob(point) -> np.ndarray:
    """``p(x = 1 | y=k)`` of a point, (K, d); 0.5 where undefined."""
    return row_probs(np.stack([point.a, point.b], axis=-1))[..., 0]
