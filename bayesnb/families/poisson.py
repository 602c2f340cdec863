"""Count features with a Gamma prior (Gamma-Poisson), each column independent given the class.

For class ``k`` and feature ``j``::

    lam[k, j]       ~ Gamma(a0, b0)                 (shape a0, rate b0)
    x[i, j] | y=k   ~ Poisson(lam[k, j])

    posterior   Gamma(a0 + T[k,j], b0 + n[k,j])     (T: sum of the counts, n: observed rows)
    plug-in     Poisson(a / b)                      (the posterior mean)
    exact       NegativeBinomial(r=a, p=b / (b + 1))
    evidence    a0 log b0 - log G(a0) + log G(a) - a log b - sum_i log x_i!

``a0`` reads as a prior total count and ``b0`` as a prior number of rows. Unlike
:class:`~bayesnb.families.Multinomial`, the columns do not share one probability vector:
each is its own Poisson rate. Dense input only; NaN marks a missing cell.

Everything about the distribution lives on :class:`Poisson`; this module also holds the
NamedTuples it passes around (:class:`PoissonStats`, :class:`Gammas`, :class:`PoissonBlock`).
"""

from __future__ import annotations

import numbers
from typing import ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy import stats as _stats
from scipy.special import gammaln, logsumexp, xlogy

from .._utils import nonfinite_error
from . import _interval
from ._contract import Family
from .capabilities import SHARED, NumericNode
from .default_hooks import SingleSite
from .numeric import dense_numbers, float32_args, sample_class_feature, weighted_class_cells
from .dp_release import noisy_sums, whole_bounds

__all__ = ["Gammas", "Poisson", "PoissonBlock", "PoissonStats"]

#: smallest pooled mean ``b="auto"`` uses (an all-zero column would otherwise give b = inf)
MEAN_FLOOR = 1e-3


class PoissonStats(NamedTuple):
    """Sufficient statistics, each (K, d).

    Attributes
    ----------
    total : ndarray
        Weighted sum of the observed counts.
    n : ndarray
        Weighted number of observed cells.
    log_fact : ndarray
        Weighted sum of ``log x!`` over the observed cells (makes the evidence exact).
    """

    total: np.ndarray
    n: np.ndarray
    log_fact: np.ndarray


class Gammas(NamedTuple):
    """Gamma(shape ``a``, rate ``b``) per (class, feature): prior and posterior alike.

    Attributes
    ----------
    a, b : ndarray of shape (K, d)
        Shape (pseudo-total count) and rate (pseudo-number of rows).
    log_fact : ndarray of shape (K, d) or None
        Sum of ``log x!`` over the counts the parameters were updated with (0 in a prior),
        carried so that the evidence is exact; None in a generative "point", which holds
        one drawn rate ``lam`` as ``Gammas(lam, 1)``.
    """

    a: np.ndarray
    b: np.ndarray
    log_fact: np.ndarray | None = None


class PoissonBlock(NamedTuple):
    """An encoded Poisson block: counts ``X`` (n, d) with missing cells set to 0, the ``missing`` mask
    (None when no cell is missing) and its complement ``observed``."""

    X: np.ndarray
    observed: np.ndarray
    missing: np.ndarray | None


def _block(A, missing) -> PoissonBlock:
    """The block of float values ``A`` whose NaN cells are ``missing`` (the values checked, or not, by the caller)."""
    return PoissonBlock(np.where(missing, 0.0, A), ~missing, missing if missing.any() else None)


def lam_of(point: Gammas):
    """``(lam, defined)``: the plug-in rate ``a / b`` (K, d), 0 where undefined (``b == 0``)."""
    ok = point.b > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, point.a / np.where(ok, point.b, 1.0), 0.0), ok


def class_cell_log_pmfs(point: Gammas, X: np.ndarray, predictive="mean", log_fact=True):
    """Yield, class by class, the (n, d) log pmf of every cell of ``X``.

    ``"mean"``: Poisson at ``a / b``; ``"marginal"``: the negative-binomial predictive
    (Poisson at ``a / b`` where ``a == 0``, the limit). Undefined factors (``b == 0``) give 0;
    missing cells are the caller's to mask. ``log_fact=False`` leaves out ``-log x!``.
    """
    if predictive not in ("mean", "marginal"):
        raise ValueError(f"predictive must be 'mean' or 'marginal'; received {predictive!r}.")
    lam, ok = lam_of(point)
    lf = gammaln(X + 1) if log_fact else 0.0
    for k in range(lam.shape[0]):
        ll = xlogy(X, lam[k]) - lam[k]
        if predictive == "marginal":
            nb = point.a[k] > 0
            a, b = np.where(nb, point.a[k], 1.0), np.where(ok[k], point.b[k], 1.0)
            ll = np.where(nb, gammaln(X + a) - gammaln(a) + a * np.log(b / (b + 1)) - X * np.log1p(b), ll)
        yield np.where(ok[k], ll - lf, 0.0)


def _lf(params: Gammas):
    """The ``log_fact`` field of a Gammas (0 when None)."""
    return 0.0 if params.log_fact is None else params.log_fact


def _check_hyper(value, what, who, auto=False):
    if auto and isinstance(value, str) and value == "auto":
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value) and value >= 0:
        return float(value)
    extra = " or 'auto'" if auto else ""
    raise ValueError(f"{who}: {what} must be a finite number >= 0{extra}; received {value!r}.")


class Poisson(SingleSite, Family, NumericNode, *SHARED):
    """Count block: each column Poisson given the class, with a Gamma(a, b) prior on its rate.

    Parameters
    ----------
    a : float, default=1.0
        Gamma shape: the prior's pseudo-total count.
    b : float or "auto", default="auto"
        Gamma rate: the prior's pseudo-number of rows. ``"auto"`` sets ``b = a / m`` per
        column, ``m`` the pooled mean of the column over the training data (at least
        ``MEAN_FLOOR``), so the prior mean of every rate is the pooled mean.

    Notes
    -----
    The encoding state is the number of features ``d``. Prior, posterior and generative
    "points" are :class:`Gammas` (K, d); draws and the NumPyro model use ``lam`` (K, d),
    the rate of column ``j`` in class ``k``. Generated and imputed values are whole numbers
    (stored as floats, NaN being the missing mark).
    """

    _param_names = ("a", "b")
    name = "poisson"
    default_fill = "mean"  # the posterior-predictive mean: best for squared loss
    ordered_support = True
    param_names = ("lam",)
    stats_type = PoissonStats
    params_type = Gammas
    field_rules: ClassVar[dict] = {"PoissonStats": {"total": "sum", "n": "count", "log_fact": "sum"},
                                   "Gammas": {"a": "sum", "b": "sum", "log_fact": "sum or None"}}

    def __init__(self, a=1.0, b="auto"):
        self.a = a
        self.b = b

    # ------------------------------------------------------------------ closed form
    def encode(self, X, state=None, *, extend=False, who="Poisson"):
        """Validate non-negative whole counts (NaN = missing); never modifies ``X``.

        Returns the :class:`PoissonBlock` and the state, the number of features ``d``
        (``state`` and ``extend`` are unused: a count encoding has nothing to extend).
        """
        A = dense_numbers(X, who, "Poisson features must be non-negative whole counts",
                          "Use .toarray(), or a Multinomial block for sparse counts.")
        if np.isinf(A).any():
            raise nonfinite_error(who, "Poisson features (non-negative whole counts)", A)
        missing = np.isnan(A)
        vals = A[~missing]
        for bad, what in ((vals < 0, "negative"), (vals != np.floor(vals), "non-integer")):
            if bad.any():
                raise ValueError(f"{who}: Poisson features must be non-negative whole counts (or NaN for "
                                 f"missing); received {what} value(s) {np.unique(vals[bad])[:5].tolist()}.")
        return _block(A, missing), A.shape[1]

    def out_of_support(self, X, state=None):
        """Bool (n, d): finite cells that are negative or not whole (probability 0 under a Poisson)."""
        if sp.issparse(X):
            return None
        A = np.asarray(X, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            return np.isfinite(A) & ((A < 0) | (A != np.floor(A)))

    def empty_stats(self, state, K):
        """Zero statistics, each (K, d)."""
        return PoissonStats(*(np.zeros((K, state)) for _ in range(3)))

    def stats(self, block, resp, state):
        """Weighted sums of counts, of observed cells and of ``log x!`` per (class, feature)."""
        obs = block.observed.astype(float)
        return PoissonStats(resp.T @ block.X, resp.T @ obs, resp.T @ gammaln(block.X + 1))

    #: a private fit releases counts, sums of x and sums of log x! (:func:`.dp_release.noisy_sums`)
    dp_statistics = 3

    def dp_stats(self, block, resp, state, budget, bounds, names, who="Poisson"):
        """Counts, sums and sums of ``log x!`` of values clipped to declared whole-number bounds, with noise.

        Each is a query of L1 sensitivity ``2 d`` once scaled to ``[0, 1]`` per value
        (:func:`bayesnb.families.dp_release.noisy_sums`); ``b="auto"`` reads only the released sums.
        """
        lo, hi = whole_bounds(bounds, names, who, "Poisson")
        fns = [lambda x: x, lambda x: gammaln(x + 1.0)]  # log x! is non-decreasing on whole numbers
        n, (total, log_fact) = noisy_sums(block.X, block.observed, resp, lo, hi, fns, budget)
        return PoissonStats(total, n, log_fact)

    def make_prior(self, stats, state, who="Poisson"):
        """Gamma(a, b) for every (class, feature); ``b="auto"`` from the pooled column means."""
        a = _check_hyper(self.a, "a", who)
        b = _check_hyper(self.b, "b", who, auto=True)
        shape = stats.total.shape
        if b == "auto":
            n, total = stats.n.sum(0), stats.total.sum(0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(n > 0, total / np.where(n > 0, n, 1.0), 1.0)
            b = a / np.maximum(mean, MEAN_FLOOR)
        return Gammas(np.full(shape, a), np.broadcast_to(np.asarray(b, dtype=float), shape).copy(),
                      np.zeros(shape))

    def observed_rows(self, stats):
        """Weighted number of observed cells per (class, column)."""
        return stats.n

    def update(self, prior, stats):
        """Conjugate update: Gamma(a + total, b + n) (and the ``log x!`` sums accumulated)."""
        return Gammas(prior.a + stats.total, prior.b + stats.n, _lf(prior) + stats.log_fact)

    def check_posterior(self, post, stats, names, classes, who="Poisson"):
        """Raise where an improper prior (``b=0``) leaves a class with no observed value of a feature."""
        bad = (post.b <= 0) & (stats.n.sum(0) > 0)[None, :]
        if bad.any():
            k, j = np.argwhere(bad)[0]
            label = classes[k].item() if hasattr(classes[k], "item") else classes[k]
            raise ValueError(f"{who}: feature {names[j]!r} has no observed value in class {label!r}, so its "
                             f"rate is undefined under b={self.b!r}. Use b='auto' (the default) or b > 0.")

    def log_likelihood_parts(self, prior, post, block, predictive="mean", cache=None):
        """The class-independent ``-sum_j log x_ij!`` is the row term; the rest is relative."""
        X, obs = block.X, block.observed
        rel = np.empty((X.shape[0], post.a.shape[0]))
        for k, ll in enumerate(class_cell_log_pmfs(post, X, predictive, log_fact=False)):
            rel[:, k] = np.where(obs, ll, 0.0).sum(axis=1)
        return rel, -np.where(obs, gammaln(X + 1), 0.0).sum(axis=1)

    def log_evidence(self, prior, post):
        """Closed-form ``log p(x_block | y)`` of the training data per class, shape (K,)."""
        a0, b0, a, b = prior.a, prior.b, post.a, post.b
        with np.errstate(invalid="ignore", divide="ignore"):
            ev = xlogy(a0, b0) - gammaln(a0) + gammaln(a) - xlogy(a, b) - (_lf(post) - _lf(prior))
        return ev.sum(axis=1)

    def gen_values(self, block):
        """Counts (n, d), NaN where missing."""
        return np.where(block.observed, block.X, np.nan)

    def predictive_bins(self, prior, post, state, edges, predictive="mean"):
        """Masses and means of the Poisson plug-in (``"mean"``) or negative binomial (``"marginal"``)."""
        a, b = np.asarray(post.a, dtype=float), np.asarray(post.b, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            if predictive == "marginal":  # NB(a, b / (b + 1)), mean a / b
                p = b / (b + 1.0)
                return _interval.count_bins(_stats.nbinom(a, p), _stats.nbinom(a + 1, p), a / b, edges)
            lam = lam_of(post)[0]
            return _interval.count_bins(_stats.poisson(lam), _stats.poisson(lam), lam, edges)

    def round_fill(self, values, state):
        """Whole counts: ``values`` rounded."""
        return np.round(np.asarray(values, dtype=float))

    def interval_stats(self, values, resp, state, who="Poisson"):
        """Statistics of interval means (fractional counts allowed: a Gamma update needs only their sums)."""
        A = np.asarray(values, dtype=float)
        return self.stats(_block(A, np.isnan(A)), resp, state)

    def is_proper(self, prior):
        """True when a > 0 and b > 0."""
        return bool(np.all(prior.a > 0) and np.all(prior.b > 0))

    # ------------------------------------------------------------------ generative hooks
    # A "point" is a Gammas whose ratio a / b is the rate in use: the posterior itself
    # (plug-in) or one exact Gamma draw stored as Gammas(lam, 1).
    def gen_point(self, prior, post, rng=None):
        """Plug-in (``rng=None``: the posterior itself) or one exact draw ``lam ~ Gamma(a, b)``
        per (class, feature), stored as ``Gammas(lam, 1)``; undefined entries (``b == 0``) keep 0."""
        if rng is None:
            return post
        lam = self.sample_params(post, 1, rng)["lam"][0]
        return self.posterior_from_params({"lam": np.nan_to_num(lam, nan=0.0, posinf=0.0)})

    def gen_sample(self, point, z, rng, lengths=None):
        """Whole counts (n, d) drawn from ``Poisson(lam[z])`` (``lengths`` unused; rate 0 where undefined)."""
        return rng.poisson(lam_of(point)[0][z]).astype(float)

    def gen_log_mass_between(self, prior, params, state, j, lo, hi, predictive="mean"):
        """``log P(lo <= x_j <= hi)`` per class over the whole numbers: Poisson plug-in (``"mean"``) or the
        negative binomial predictive (``"marginal"``)."""
        a, b = np.asarray(params.a, dtype=float)[:, j], np.asarray(params.b, dtype=float)[:, j]
        if predictive == "marginal":
            return _interval.count_mass(lambda a, b: _stats.nbinom(a, b / (b + 1.0)), lo, hi, a, b)
        return _interval.count_mass(_stats.poisson, lo, hi, lam_of(params)[0][:, j])

    def gen_sample_between(self, point, z, rng, j, lo, hi, state=None):
        """Column ``j``: whole counts from ``Poisson(lam[z])`` truncated to ``ceil(lo)..floor(hi)`` (inverse CDF)."""
        lam = lam_of(point)[0][z, j]
        a, b = _stats.poisson.cdf(np.ceil(lo) - 1, lam), _stats.poisson.cdf(np.floor(hi), lam)
        u = a + rng.random(len(z)) * (b - a)
        return np.clip(_stats.poisson.ppf(u, lam), np.ceil(lo), np.floor(hi))  # (bounds: floats or one per row)

    def gen_fill(self, point, block, resp, strategy, z=None, rng=None, rate=None):
        """Values (n, d) with missing cells filled by whole counts; observed cells unchanged.

        ``"mean"``: ``sum_k resp[i,k] lam_k`` rounded; ``"mode"``: of the class modes
        ``floor(lam_k)``, the one where the mixture ``sum_k resp[i,k] Poisson(. | lam_k)`` is
        highest; ``"draw"``: ``Poisson(lam[z])``. ``rate`` is unused.
        """
        X = block.X.copy()
        miss = self.gen_missing(block)
        if not miss.any():
            return X
        lam = lam_of(point)[0]
        rows, cols = np.nonzero(miss)
        if strategy == "draw":
            X[rows, cols] = rng.poisson(lam[z[rows], cols])
        elif strategy == "mean":
            X[rows, cols] = np.round(np.einsum("ik,ki->i", resp[rows], lam[:, cols]))
        else:
            m = lam[:, cols].T  # (cells, K)
            cand = np.floor(m)
            with np.errstate(divide="ignore"):
                log_r = np.log(resp[rows])
            log_mix = np.stack([logsumexp(log_r + xlogy(cand[:, c:c + 1], m) - m, axis=1)
                                - gammaln(cand[:, c] + 1) for c in range(cand.shape[1])], axis=1)
            X[rows, cols] = cand[np.arange(rows.size), np.argmax(log_mix, axis=1)]
        return X

    def gen_cell_log_lik(self, prior, point, block, weights, predictive="mean"):
        """Weighted per-cell log pmfs ``sum_k weights[i, k] log p(x_ij | y=k)`` (n, d), 0 where missing
        (``"marginal"``: negative binomial)."""
        return weighted_class_cells(class_cell_log_pmfs(point, block.X, predictive), block.observed, weights)

    def gen_log_penalty(self, prior, point) -> float:
        """``sum a0 log lam - b0 lam`` at the plug-in ``lam``: the (unnormalised) log Gamma prior
        density whose MAP is the plug-in, so EM with the plug-in M-step climbs
        ``log-likelihood + penalty``."""
        lam, ok = lam_of(point)
        with np.errstate(invalid="ignore", divide="ignore"):
            pen = xlogy(prior.a, lam) - prior.b * lam
        return float(np.where(ok, pen, 0.0).sum())

    # --------------------------------------------------------- draws and NumPyro hooks
    # Exact conjugate draws (NumPy) and the pieces model.py assembles into the NumPyro model,
    # both with ``lam`` (K, d), the Poisson rate of column j in class k.
    def sample_params(self, post, n_draws, rng) -> dict:
        """Exact posterior draws ``{"lam": (n_draws, K, d)}`` from Gamma(a, b); NaN where ``b == 0``."""
        g = rng.standard_gamma(post.a, size=(n_draws,) + post.a.shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"lam": np.where(post.b > 0, g / np.where(post.b > 0, post.b, 1.0), np.nan)}

    def posterior_moments(self, post) -> dict:
        """Closed-form posterior mean ``a / b`` and sd ``sqrt(a) / b`` of ``lam`` (NaN where ``b == 0``)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            b = np.where(post.b > 0, post.b, np.nan)
            return {"lam": (post.a / b, np.sqrt(post.a) / b)}

    def posterior_from_params(self, params: dict):
        """``Gammas(lam, 1)``: its plug-in is the given ``lam`` (K, d) (one draw)."""
        lam = np.asarray(params["lam"], dtype=float)
        return Gammas(lam, np.ones_like(lam))

    def numpyro_prior_args(self, prior) -> dict:
        """Gamma shape and rate ``{"a", "b"}`` as float32 (K, d) arrays."""
        return float32_args(prior, ("a", "b"))

    def numpyro_sample(self, label, static, prior_args, feature_plate, class_plate="class"):
        """``lam_<label>`` ~ Gamma(a, b) under plates ``class_plate`` x feature.

        Returns
        -------
        dict
            ``{"lam", "log_lam"}``, each (K, d); ``log_lam`` clipped at the dtype's smallest
            normal number.
        """
        import jax.numpy as jnp
        import numpyro.distributions as dist

        lam = sample_class_feature(f"lam_{label}", dist.Gamma(prior_args["a"], prior_args["b"]),
                                   feature_plate, class_plate)
        return {"lam": lam, "log_lam": jnp.log(jnp.clip(lam, jnp.finfo(lam.dtype).tiny))}

    def point_params(self, post) -> dict:
        """``{"lam": a / b}``, the plug-in rate (inverse of :meth:`posterior_from_params`)."""
        return {"lam": lam_of(post)[0]}

    def numpyro_stats_args(self, stats) -> dict:
        """``{"total", "n", "log_fact"}`` per (class, feature), float32 (K, d)."""
        return float32_args(stats, ("total", "n", "log_fact"))

    def numpyro_suffstat_loglik(self, params, stats_args):
        """``sum_k,j T log lam - n lam - sum log x!``: the labelled-data log-likelihood."""
        s = stats_args
        return (s["total"] * params["log_lam"] - s["n"] * params["lam"] - s["log_fact"]).sum()

    def numpyro_row_args(self, block, static) -> dict:
        """Counts (missing set to 0), the observed mask and ``sum_j log x_ij!``, float32."""
        lf = np.where(block.observed, gammaln(block.X + 1), 0.0).sum(axis=1)
        return {"X": block.X.astype(np.float32), "mask": block.observed.astype(np.float32),
                "log_fact": lf.astype(np.float32)}

    def numpyro_row_loglik(self, params, row_args):
        """``log p(x_i | y=k)`` per row and class, (n, K); missing cells add 0."""
        r = row_args
        return r["X"] @ params["log_lam"].T - r["mask"] @ params["lam"].T - r["log_fact"][:, None]

    # ------------------------------------------------------------ display
    def plot_panels(self, block, top=10) -> list:
        """One bar panel per feature: the plug-in Poisson pmf of each class over ``0..max``
        (``max`` covers every class's mean + 4 sd, at most 40 values; ``top`` unused)."""
        lam = lam_of(block.posterior)[0]
        panels = []
        for j, name in enumerate(block.names):
            hi = int(min(np.ceil((lam[:, j] + 4 * np.sqrt(lam[:, j])).max()), 39)) + 1
            x = np.arange(max(hi, 2), dtype=float)
            p = np.exp(xlogy(x[None, :], lam[:, j:j + 1]) - lam[:, j:j + 1] - gammaln(x + 1)[None, :])
            panels.append((str(name), "bars", ([str(int(v)) for v in x], p)))
        return panels
